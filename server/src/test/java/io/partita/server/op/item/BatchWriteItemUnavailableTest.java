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
 * A BatchWriteItem whose store stops taking writes partway (a full disk, a cluster's leader that cannot commit through
 * its group) returns the writes it did not make in UnprocessedItems, as DynamoDB does for an internal failure; one that
 * could make none fails whole, as a single write does. The store replicates through a stand-in that applies a set
 * number of entries, then refuses the next.
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
    void theWritesAfterAStoreStopsAreUnprocessedOnceAnyWasMade() {
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

            // Two of five puts made, then the store stops: the other three come back to be sent again.
            allowed.set(2);
            BatchWriteItemOutput out = batch.handle(CONTEXT, puts("a", "b", "c", "d", "e"));
            assertThat(ids(out)).containsExactly("c", "d", "e");
            allowed.set(Integer.MAX_VALUE);
            for (String id : List.of("a", "b")) {
                assertThat(exists(get, id)).as(id).isTrue();
            }
            for (String id : List.of("c", "d", "e")) {
                assertThat(exists(get, id)).as(id).isFalse();
            }
            // Sent again, they are made.
            assertThat(batch.handle(CONTEXT, new BatchWriteItemInput(out.unprocessedItems(), null, null))
                            .unprocessedItems())
                    .isEmpty();
            assertThat(exists(get, "e")).isTrue();

            // A write whose outcome is unknown is returned too: a put sent again puts the same item.
            allowed.set(1);
            mayHaveBeenWritten.set(true);
            assertThat(ids(batch.handle(CONTEXT, puts("f", "g", "h")))).containsExactly("g", "h");

            // None made: the batch fails whole, the SDKs retry it.
            allowed.set(0);
            assertThatThrownBy(() -> batch.handle(CONTEXT, puts("i", "j")))
                    .isInstanceOf(StorageUnavailableException.class);
            allowed.set(Integer.MAX_VALUE);
            assertThat(exists(get, "i")).isFalse();
            store.replicateThrough(null);
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
        return get.handle(
                                CONTEXT,
                                new GetItemInput(
                                        "t", Map.of("id", new AttributeValue.S(id)), null, true, null, null, null))
                        .item()
                != null;
    }
}
