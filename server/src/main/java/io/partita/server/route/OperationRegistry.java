package io.partita.server.route;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Maps {@code X-Amz-Target} values to handlers. Operations DynamoDB has but Partita does not implement yet are
 * named too, so they answer a clear "not implemented" instead of looking like typos.
 */
public final class OperationRegistry {
    public static final String DYNAMODB_PREFIX = "DynamoDB_20120810.";
    /** DynamoDB Streams' API, served on the same port, as DynamoDB Local serves it. */
    public static final String STREAMS_PREFIX = "DynamoDBStreams_20120810.";
    /**
     * Partita's own operations between its cluster's nodes, which no AWS SDK sends: {@code Partita.CheckBatchWriteItem}
     * ({@link io.partita.server.op.item.BatchWriteItemHandler.Check}), {@code Partita.HoldTransactGetItems} and {@code
     * Partita.ReleaseTransactGetItems} ({@link io.partita.server.op.txn.TransactGetItemsHandler.Held}, {@link
     * io.partita.server.op.txn.TransactGetItemsHandler.Release}), {@code Partita.HoldExecuteTransaction} and {@code
     * Partita.ReleaseExecuteTransaction} ({@link io.partita.server.op.partiql.ExecuteTransactionHandler.Held}).
     */
    public static final String PARTITA_PREFIX = "Partita.";

    private static final Set<String> STREAMS_OPERATIONS =
            Set.of("DescribeStream", "GetRecords", "GetShardIterator", "ListStreams");

    /** Every operation of the DynamoDB_20120810 API, implemented or not. */
    private static final Set<String> DYNAMODB_OPERATIONS = Set.of(
            "BatchExecuteStatement",
            "BatchGetItem",
            "BatchWriteItem",
            "CreateBackup",
            "CreateGlobalTable",
            "CreateTable",
            "DeleteBackup",
            "DeleteItem",
            "DeleteResourcePolicy",
            "DeleteTable",
            "DescribeBackup",
            "DescribeContinuousBackups",
            "DescribeContributorInsights",
            "DescribeEndpoints",
            "DescribeExport",
            "DescribeGlobalTable",
            "DescribeGlobalTableSettings",
            "DescribeImport",
            "DescribeKinesisStreamingDestination",
            "DescribeLimits",
            "DescribeTable",
            "DescribeTableReplicaAutoScaling",
            "DescribeTimeToLive",
            "DisableKinesisStreamingDestination",
            "EnableKinesisStreamingDestination",
            "ExecuteStatement",
            "ExecuteTransaction",
            "ExportTableToPointInTime",
            "GetItem",
            "GetResourcePolicy",
            "ImportTable",
            "ListBackups",
            "ListContributorInsights",
            "ListExports",
            "ListGlobalTables",
            "ListImports",
            "ListTables",
            "ListTagsOfResource",
            "PutItem",
            "PutResourcePolicy",
            "Query",
            "RestoreTableFromBackup",
            "RestoreTableToPointInTime",
            "Scan",
            "TagResource",
            "TransactGetItems",
            "TransactWriteItems",
            "UntagResource",
            "UpdateContinuousBackups",
            "UpdateContributorInsights",
            "UpdateGlobalTable",
            "UpdateGlobalTableSettings",
            "UpdateItem",
            "UpdateKinesisStreamingDestination",
            "UpdateTable",
            "UpdateTableReplicaAutoScaling",
            "UpdateTimeToLive");

    private final Map<String, OperationHandler<?, ?>> handlers = new HashMap<>();

    /** The faults injected into this registry's operations (none until a rule is added). */
    private final io.partita.server.fault.FaultInjector faults = new io.partita.server.fault.FaultInjector(1);

    public io.partita.server.fault.FaultInjector faults() {
        return faults;
    }

    /** What this registry's requests did: latency, errors (one account's, in strict mode). */
    private final io.partita.server.metrics.RequestMetrics metrics = new io.partita.server.metrics.RequestMetrics();

    public io.partita.server.metrics.RequestMetrics metrics() {
        return metrics;
    }

    /** What confirms, before a refusal is answered, that the state it rests on is current; nothing by default. */
    private Runnable refusalCheck = () -> {};

    /**
     * Has each refusal of this registry's operations that rests on the store (an {@link
     * io.partita.protocol.error.ApiException} a handler throws, or a BatchExecuteStatement's statement, for which
     * {@link #needsConfirming}) pass {@code check} before it is answered ({@link Dispatcher}): on a cluster's leader,
     * the strongly consistent read's barrier, so that a leader the others replaced answers no "not found" or other
     * refusal that rests on writes it missed. It throws {@link io.partita.storage.StorageUnavailableException} (a
     * 503) when it cannot confirm.
     */
    public OperationRegistry confirmRefusalsBy(Runnable check) {
        refusalCheck = check;
        return this;
    }

    /** Passes the check {@link #confirmRefusalsBy} set. */
    public void confirmRefusal() {
        refusalCheck.run();
    }

    /**
     * Whether refusal {@code e} rests on the store's state, which a replaced leader may have stale, and so is
     * confirmed ({@link #confirmRefusal}) before it is answered: a 4xx, but a failed condition (storage confirms it
     * under the item's lock) and the refusals that rest on this node's own state in memory (throttling, a conflict
     * with a transaction under way here), which a barrier would not make truer.
     */
    public static boolean needsConfirming(io.partita.protocol.error.ApiException e) {
        return e.code().httpStatus() < 500
                && switch (e.code()) {
                    case CONDITIONAL_CHECK_FAILED,
                            PROVISIONED_THROUGHPUT_EXCEEDED,
                            THROTTLING,
                            REQUEST_LIMIT_EXCEEDED,
                            TRANSACTION_CONFLICT,
                            TRANSACTION_IN_PROGRESS -> false;
                    default -> true;
                };
    }

    public OperationRegistry register(String operation, OperationHandler<?, ?> handler) {
        if (!DYNAMODB_OPERATIONS.contains(operation)) {
            throw new IllegalArgumentException("not a DynamoDB operation: " + operation);
        }
        handlers.put(DYNAMODB_PREFIX + operation, handler);
        return this;
    }

    /** Registers an operation of DynamoDB Streams' API. */
    public OperationRegistry registerStreams(String operation, OperationHandler<?, ?> handler) {
        if (!STREAMS_OPERATIONS.contains(operation)) {
            throw new IllegalArgumentException("not a DynamoDB Streams operation: " + operation);
        }
        handlers.put(STREAMS_PREFIX + operation, handler);
        return this;
    }

    /** Registers one of Partita's own operations ({@link #PARTITA_PREFIX}). */
    public OperationRegistry registerPartita(String operation, OperationHandler<?, ?> handler) {
        handlers.put(PARTITA_PREFIX + operation, handler);
        return this;
    }

    /** The handler for {@code target}, or null. */
    public OperationHandler<?, ?> find(String target) {
        return target == null ? null : handlers.get(target);
    }

    /** Whether {@code target} names a real DynamoDB operation that Partita has not implemented yet. */
    public boolean isKnownButUnimplemented(String target) {
        return target != null
                && target.startsWith(DYNAMODB_PREFIX)
                && DYNAMODB_OPERATIONS.contains(target.substring(DYNAMODB_PREFIX.length()))
                && !handlers.containsKey(target);
    }
}
