package io.partita.server.op.partiql;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.BatchExecuteStatementInput;
import io.partita.protocol.message.BatchExecuteStatementInput.BatchStatementRequest;
import io.partita.protocol.message.BatchExecuteStatementOutput;
import io.partita.protocol.message.BatchExecuteStatementOutput.BatchStatementResponse;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.ScalarType;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.table.TableMetadata;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * BatchExecuteStatement answers each statement in its own entry, so the Dispatcher never sees a refused statement: the
 * handler itself has its refusals confirmed (on a cluster's leader, the read barrier), and a node that cannot confirm
 * answers those statements InternalServerError while the statements that committed keep their answers.
 */
class BatchExecuteStatementRefusalsTest {
    private static final String TARGET = "DynamoDB_20120810.BatchExecuteStatement";

    @Test
    void refusedStatementsAreConfirmedOnceAndAnsweredAsFailedWhenTheNodeCannotConfirm() {
        StorageConfig config = StorageConfig.memory()
                .withCapacity(CapacityConfig.defaults().withMode(ThroughputMode.OFF))
                .withFeedTrimMillis(0)
                .withTtlIntervalMillis(0);
        try (StorageEngine storage = StorageEngine.open(config)) {
            storage.tables()
                    .create(TableMetadata.create(
                            "t",
                            "6d3f0c5e-0000-4000-8000-000000000002",
                            new KeySchema(new KeySchema.KeyAttribute("id", ScalarType.S), null),
                            List.of(new AttributeDefinition("id", "S")),
                            TableMetadata.PAY_PER_REQUEST,
                            0,
                            0,
                            Clock.systemUTC().millis(),
                            null,
                            false,
                            Map.of()));
            AtomicInteger checks = new AtomicInteger();
            boolean[] confirms = {true};
            OperationRegistry registry = new OperationRegistry().confirmRefusalsBy(() -> {
                checks.incrementAndGet();
                if (!confirms[0]) {
                    throw new StorageUnavailableException("not the cluster's leader");
                }
            });
            ExpressionCache cache = new ExpressionCache(100);
            PartiqlOperations.register(registry, storage, new ItemExpressions(cache), cache, new PartiqlScans());

            // All committed: nothing to confirm.
            assertThat(codes(run(registry, "INSERT INTO \"t\" VALUE {'id': 'a'}")))
                    .containsExactly("ok");
            assertThat(checks).hasValue(0);

            // A table this node does not have, and an item it has: confirmed once, after the batch ran.
            List<BatchStatementResponse> refused = run(
                    registry,
                    "INSERT INTO \"t\" VALUE {'id': 'b'}",
                    "INSERT INTO \"missing\" VALUE {'id': 'c'}",
                    "INSERT INTO \"t\" VALUE {'id': 'a'}");
            assertThat(codes(refused)).containsExactly("ok", "ResourceNotFound", "DuplicateItem");
            assertThat(checks).hasValue(1);

            // A node that cannot confirm: the refusals become failures the caller may send again; the statement that
            // committed keeps its answer.
            confirms[0] = false;
            List<BatchStatementResponse> unsure = run(
                    registry,
                    "INSERT INTO \"t\" VALUE {'id': 'd'}",
                    "INSERT INTO \"missing\" VALUE {'id': 'e'}",
                    "INSERT INTO \"t\" VALUE {'id': 'a'}");
            assertThat(codes(unsure)).containsExactly("ok", "InternalServerError", "InternalServerError");
            assertThat(checks).hasValue(2);
            assertThat(codes(run(registry, "SELECT * FROM \"t\" WHERE id = 'd'")))
                    .containsExactly("ok");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<BatchStatementResponse> run(OperationRegistry registry, String... statements) {
        OperationHandler<BatchExecuteStatementInput, BatchExecuteStatementOutput> handler =
                (OperationHandler<BatchExecuteStatementInput, BatchExecuteStatementOutput>) registry.find(TARGET);
        RequestContext context =
                new RequestContext("r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), TARGET, false);
        List<BatchStatementRequest> requests = java.util.Arrays.stream(statements)
                .map(s -> new BatchStatementRequest(s, null, null, null))
                .toList();
        return handler.handle(context, new BatchExecuteStatementInput(requests, null))
                .responses();
    }

    private static List<String> codes(List<BatchStatementResponse> responses) {
        return responses.stream()
                .map(r -> r.error() == null ? "ok" : r.error().code())
                .toList();
    }
}
