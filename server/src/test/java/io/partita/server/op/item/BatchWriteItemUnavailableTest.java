package io.partita.server.op.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.BatchWriteItemOutput;
import io.partita.protocol.message.GetItemInput;
import io.partita.protocol.message.WriteRequest;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.KeyedTables;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.Replication;
import io.partita.storage.rocks.RocksStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A BatchWriteItem's writes commit together, in one entry of the store's log (one Raft entry in a cluster): a store
 * that cannot take it (a full disk, a cluster's leader that cannot commit through its group) fails the batch whole,
 * nothing written, as a single write fails, and the SDKs send it again. The store replicates through a stand-in that
 * counts its entries and refuses them while told to.
 */
class BatchWriteItemUnavailableTest {
    private static final RequestContext CONTEXT = new RequestContext(
            "r",
            "us-east-1",
            "000000000000",
            "localhost",
            Clock.systemUTC(),
            "DynamoDB_20120810.BatchWriteItem",
            false);

    @Test
    void aBatchCommitsInOneEntryAndAStoreThatRefusesItFailsItWhole() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory());
                StorageEngine storage = StorageEngine.openOn(store, StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t"));
            AtomicInteger allowed = new AtomicInteger(Integer.MAX_VALUE);
            AtomicBoolean mayHaveBeenWritten = new AtomicBoolean();
            AtomicInteger entries = new AtomicInteger();
            store.replicateThrough(new Replication() {
                @Override
                public void replicate(byte[] entry) {
                    if (allowed.getAndDecrement() <= 0) {
                        throw new StorageUnavailableException(
                                "the group did not commit", null, mayHaveBeenWritten.get());
                    }
                    store.applyEntry(entry, 1, entries.incrementAndGet());
                }

                @Override
                public long readBarrier() {
                    return 1;
                }
            });
            BatchWriteItemHandler batch = new BatchWriteItemHandler(storage);
            GetItemHandler get = new GetItemHandler(storage, new ItemExpressions(new ExpressionCache(100)));

            // Five puts: one entry.
            assertThat(batch.handle(CONTEXT, puts("a", "b", "c", "d", "e")).unprocessedItems())
                    .isEmpty();
            assertThat(entries.get()).isEqualTo(1);
            for (String id : List.of("a", "b", "c", "d", "e")) {
                assertThat(exists(get, id)).as(id).isTrue();
            }

            // The store refuses the entry: the batch fails whole, nothing written; sent again, it is made.
            allowed.set(0);
            assertThatThrownBy(() -> batch.handle(CONTEXT, puts("f", "g", "h")))
                    .isInstanceOf(StorageUnavailableException.class)
                    .matches(e -> !((StorageUnavailableException) e).mayHaveBeenWritten());
            allowed.set(Integer.MAX_VALUE);
            for (String id : List.of("f", "g", "h")) {
                assertThat(exists(get, id)).as(id).isFalse();
            }
            assertThat(batch.handle(CONTEXT, puts("f", "g", "h")).unprocessedItems())
                    .isEmpty();
            assertThat(exists(get, "h")).isTrue();
            assertThat(entries.get()).isEqualTo(2);

            // An outcome unknown is the whole batch's (a 500, which the SDKs send again: the same puts again).
            allowed.set(0);
            mayHaveBeenWritten.set(true);
            assertThatThrownBy(() -> batch.handle(CONTEXT, puts("i", "j")))
                    .isInstanceOf(StorageUnavailableException.class)
                    .matches(e -> ((StorageUnavailableException) e).mayHaveBeenWritten());
            allowed.set(Integer.MAX_VALUE);
            store.replicateThrough(null);
        }
    }

    @Test
    void anItemWrittenTwiceUnderTheTablesNameAndItsArnIsRefusedAndNothingIsWritten() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            // An ARN names a table of 3 characters or more.
            storage.tables().create(KeyedTables.byId("tbl"));
            BatchWriteItemHandler batch = new BatchWriteItemHandler(storage);
            GetItemHandler get = new GetItemHandler(storage, new ItemExpressions(new ExpressionCache(100)));
            String arn = io.partita.server.op.TableNames.arn(CONTEXT, "tbl");
            Map<String, List<WriteRequest>> items = new java.util.LinkedHashMap<>();
            items.put("tbl", puts("a", "b").requestItems().get("t"));
            items.put(arn, puts("c", "a").requestItems().get("t"));
            assertThatThrownBy(() -> batch.handle(CONTEXT, new BatchWriteItemInput(items, null, null)))
                    .isInstanceOf(io.partita.protocol.error.ApiException.class)
                    .hasMessage("Provided list of item keys contains duplicates");
            for (String id : List.of("a", "b", "c")) {
                assertThat(exists(get, "tbl", id)).as(id).isFalse();
            }
            // Named both ways, distinct items are written.
            items.put(arn, puts("c", "d").requestItems().get("t"));
            assertThat(batch.handle(CONTEXT, new BatchWriteItemInput(items, null, null))
                            .unprocessedItems())
                    .isEmpty();
            for (String id : List.of("a", "b", "c", "d")) {
                assertThat(exists(get, "tbl", id)).as(id).isTrue();
            }
        }
    }

    private static BatchWriteItemInput puts(String... ids) {
        List<WriteRequest> writes = new ArrayList<>();
        for (String id : ids) {
            writes.add(new WriteRequest(new WriteRequest.PutRequest(Map.of("id", new AttributeValue.S(id))), null));
        }
        return new BatchWriteItemInput(Map.of("t", writes), null, null);
    }

    private static List<String> ids(BatchWriteItemOutput out) {
        List<String> ids = new ArrayList<>();
        out.unprocessedItems()
                .getOrDefault("t", List.of())
                .forEach(w -> ids.add(((AttributeValue.S) w.putRequest().item().get("id")).value()));
        return ids;
    }

    private static boolean exists(GetItemHandler get, String id) {
        return exists(get, "t", id);
    }

    private static boolean exists(GetItemHandler get, String table, String id) {
        return get.handle(
                                CONTEXT,
                                new GetItemInput(
                                        table, Map.of("id", new AttributeValue.S(id)), null, true, null, null, null))
                        .item()
                != null;
    }
}
