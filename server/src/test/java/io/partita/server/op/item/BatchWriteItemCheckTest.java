package io.partita.server.op.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.WriteRequest;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.KeyedTables;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.rocks.RocksStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Partita.CheckBatchWriteItem}, which a cluster's groups answer for their share of a batch over several groups
 * before any writes: the batch's own checks, and nothing written.
 */
class BatchWriteItemCheckTest {
    private static final RequestContext CONTEXT = new RequestContext(
            "r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "Partita.CheckBatchWriteItem", false);

    private static WriteRequest put(AttributeValue id) {
        return new WriteRequest(new WriteRequest.PutRequest(Map.of("id", id)), null);
    }

    @Test
    void checksAsTheBatchDoesAndWritesNothing() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory());
                StorageEngine storage = StorageEngine.openOn(store, StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t"));
            BatchWriteItemHandler.Check check = new BatchWriteItemHandler.Check(storage);
            BatchWriteItemHandler batch = new BatchWriteItemHandler(storage);
            BatchWriteItemInput good =
                    new BatchWriteItemInput(Map.of("t", List.of(put(new AttributeValue.S("a")))), null, null);
            assertThat(check.handle(CONTEXT, good).unprocessedItems()).isEmpty();
            var table = storage.tables().find("t");
            assertThat(storage.get(table, table.metadata().keySchema().keyOf(Map.of("id", new AttributeValue.S("a")))))
                    .isNull();
            batch.handle(CONTEXT, good);
            assertThat(storage.get(table, table.metadata().keySchema().keyOf(Map.of("id", new AttributeValue.S("a")))))
                    .isNotNull();
            for (BatchWriteItemInput bad : List.of(
                    new BatchWriteItemInput(
                            Map.of("t", List.of(put(new AttributeValue.N(java.math.BigDecimal.ONE)))), null, null),
                    new BatchWriteItemInput(Map.of("missing", List.of(put(new AttributeValue.S("a")))), null, null),
                    new BatchWriteItemInput(
                            Map.of("t", List.of(put(new AttributeValue.S("a")), put(new AttributeValue.S("a")))),
                            null,
                            null))) {
                ApiException byBatch = catchApi(() -> batch.handle(CONTEXT, bad));
                assertThatThrownBy(() -> check.handle(CONTEXT, bad))
                        .isInstanceOf(ApiException.class)
                        .hasMessage(byBatch.getMessage())
                        .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(byBatch.code()));
                assertThat(byBatch.code()).isIn(ErrorCode.VALIDATION, ErrorCode.RESOURCE_NOT_FOUND);
            }
        }
    }

    private static ApiException catchApi(Runnable r) {
        try {
            r.run();
        } catch (ApiException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }
}
