package io.partita.server.op.partiql;

import io.partita.protocol.expr.ExpressionCache;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.txn.TransactGetItemsHandler;
import io.partita.server.op.txn.TransactWriteItemsHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.StorageEngine;

/**
 * Registers ExecuteStatement, BatchExecuteStatement and ExecuteTransaction, and Partita's own parts of them that a
 * cluster sends its groups.
 */
public final class PartiqlOperations {
    private PartiqlOperations() {}

    public static void register(
            OperationRegistry registry,
            StorageEngine storage,
            ItemExpressions expressions,
            ExpressionCache cache,
            PartiqlScans scans) {
        StatementRunner runner = new StatementRunner(storage, expressions, cache, scans);
        // Its own handler, so its ClientRequestTokens are its own: ExecuteTransaction and TransactWriteItems keep
        // separate idempotency caches, and records in the store.
        ExecuteTransactionHandler transaction = new ExecuteTransactionHandler(
                runner.planner(),
                new TransactWriteItemsHandler(storage, expressions, storage.clock(), "ExecuteTransaction"),
                new TransactGetItemsHandler(storage, expressions));
        registry.register("ExecuteStatement", new ExecuteStatementHandler(runner))
                .registerPartita("SelectRange", ExecuteStatementHandler.ofRange(runner))
                .register("BatchExecuteStatement", new BatchExecuteStatementHandler(runner, registry::confirmRefusal))
                .register("ExecuteTransaction", transaction)
                .registerPartita(
                        "HoldExecuteTransaction",
                        new ExecuteTransactionHandler.Held(
                                transaction, new TransactGetItemsHandler.Held(storage, expressions)))
                .registerPartita("ReleaseExecuteTransaction", new TransactGetItemsHandler.Release(storage))
                .registerPartita(
                        "PrepareExecuteTransaction",
                        new ExecuteTransactionHandler.Prepare(
                                transaction, new TransactWriteItemsHandler.Prepare(storage, expressions)));
    }
}
