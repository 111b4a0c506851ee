package io.partita.server.op.partiql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.message.BatchExecuteStatementInput;
import io.partita.protocol.message.BatchExecuteStatementInput.BatchStatementRequest;
import io.partita.protocol.message.BatchExecuteStatementOutput;
import io.partita.protocol.message.BatchExecuteStatementOutput.BatchStatementResponse;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.KeyedTables;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.Replication;
import io.partita.storage.rocks.RocksStore;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * BatchExecuteStatement answers each statement in its own entry, so the Dispatcher never sees a refused statement: the
 * handler has its refusals confirmed itself (on a cluster's leader, the read barrier), and a node that cannot confirm,
 * or cannot write, fails those statements alone once another statement has committed. The store replicates through a
 * stand-in that applies each entry at once, refuses entries while told to, and whose barrier says whether this node
 * leads.
 */
class BatchExecuteStatementRefusalsTest {
    private static final String TARGET = "DynamoDB_20120810.BatchExecuteStatement";

    @Test
    void refusalsAreConfirmedAndAStoreThatCannotConfirmOrWriteFailsOnlyTheStatementsAfterACommit() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory());
                StorageEngine storage = StorageEngine.openOn(store, StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t"));
            AtomicBoolean leads = new AtomicBoolean(true);
            AtomicBoolean commits = new AtomicBoolean(true);
            AtomicInteger entries = new AtomicInteger();
            store.replicateThrough(new Replication() {
                @Override
                public void replicate(byte[] entry) {
                    if (!commits.get()) {
                        throw new StorageUnavailableException("the group did not commit the entry in time");
                    }
                    store.applyEntry(entry, 1, entries.incrementAndGet());
                }

                @Override
                public long readBarrier() {
                    if (!leads.get()) {
                        throw new StorageUnavailableException("no longer the leader");
                    }
                    return 1;
                }
            });
            AtomicInteger checks = new AtomicInteger();
            OperationRegistry registry = new OperationRegistry().confirmRefusalsBy(() -> {
                checks.incrementAndGet();
                storage.awaitConsistentRead();
            });
            ExpressionCache cache = new ExpressionCache(100);
            PartiqlOperations.register(registry, storage, new ItemExpressions(cache), cache, new PartiqlScans());

            // All committed: nothing to confirm.
            assertThat(codes(run(registry, "INSERT INTO \"t\" VALUE {'id': 'a'}")))
                    .containsExactly("ok");
            assertThat(checks).hasValue(0);

            // A table this node does not have, and an item it has: confirmed once, after the batch ran.
            assertThat(codes(run(
                            registry,
                            "INSERT INTO \"t\" VALUE {'id': 'b'}",
                            "INSERT INTO \"missing\" VALUE {'id': 'c'}",
                            "INSERT INTO \"t\" VALUE {'id': 'a'}")))
                    .containsExactly("ok", "ResourceNotFound", "DuplicateItem");
            assertThat(checks).hasValue(1);

            // A node the others replaced: the first statement commits, the refusal cannot be confirmed, the duplicate
            // (whose refusal storage confirms under the item's lock) finds the store unavailable, and the statement
            // after it is not run. Each of those answers a failure the caller may send again.
            leads.set(false);
            assertThat(codes(run(
                            registry,
                            "INSERT INTO \"t\" VALUE {'id': 'd'}",
                            "INSERT INTO \"missing\" VALUE {'id': 'e'}",
                            "INSERT INTO \"t\" VALUE {'id': 'a'}",
                            "INSERT INTO \"t\" VALUE {'id': 'f'}")))
                    .containsExactly("ok", "InternalServerError", "InternalServerError", "InternalServerError");
            leads.set(true);
            assertThat(items(run(registry, "SELECT * FROM \"t\" WHERE id = 'd'", "SELECT * FROM \"t\" WHERE id = 'f'")))
                    .containsExactly("d", null);

            // A store that cannot write before any statement committed: the whole batch answers 503 (the SDKs retry
            // it), as a single write does.
            commits.set(false);
            assertThatThrownBy(() ->
                            run(registry, "INSERT INTO \"t\" VALUE {'id': 'g'}", "INSERT INTO \"t\" VALUE {'id': 'h'}"))
                    .isInstanceOf(StorageUnavailableException.class);
            commits.set(true);
            assertThat(items(run(registry, "SELECT * FROM \"t\" WHERE id = 'g'")))
                    .containsExactly((String) null);
            store.replicateThrough(null);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<BatchStatementResponse> run(OperationRegistry registry, String... statements) {
        OperationHandler<BatchExecuteStatementInput, BatchExecuteStatementOutput> handler =
                (OperationHandler<BatchExecuteStatementInput, BatchExecuteStatementOutput>) registry.find(TARGET);
        RequestContext context =
                new RequestContext("r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), TARGET, false);
        List<BatchStatementRequest> requests = Arrays.stream(statements)
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

    /** Each read's item's id, or null when it found none. */
    private static List<String> items(List<BatchStatementResponse> responses) {
        return responses.stream()
                .map(r -> r.item() == null ? null : ((AttributeValue.S) r.item().get("id")).value())
                .toList();
    }
}
