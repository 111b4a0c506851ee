package io.partita.server.op.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.BatchExecuteStatementInput;
import io.partita.protocol.message.BatchExecuteStatementOutput;
import io.partita.protocol.message.BatchExecuteStatementOutput.BatchStatementError;
import io.partita.protocol.message.BatchExecuteStatementOutput.BatchStatementResponse;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.ExecuteStatementOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql;
import io.partita.protocol.partiql.PartiqlParser;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BatchExecuteStatement: up to 25 statements, all reads (each a GetItem by its whole key) or all writes, each run on
 * its own; a statement that fails has its {@code Error} in its response ("A HTTP 200 response does not mean that all
 * statements in the BatchExecuteStatement succeeded").
 */
public final class BatchExecuteStatementHandler
        implements OperationHandler<BatchExecuteStatementInput, BatchExecuteStatementOutput> {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BatchExecuteStatementHandler.class);
    static final int MAX_STATEMENTS = 25;
    static final String READ_NEEDS_KEY =
            "Select statements within BatchExecuteStatement must specify the primary key in the where clause.";

    private final StatementRunner runner;
    /** Confirms the state a statement's refusal rests on (a cluster's read barrier; {@link #handle}). */
    private final Runnable confirmRefusals;

    BatchExecuteStatementHandler(StatementRunner runner, Runnable confirmRefusals) {
        this.runner = runner;
        this.confirmRefusals = confirmRefusals;
    }

    @Override
    public Class<BatchExecuteStatementInput> inputType() {
        return BatchExecuteStatementInput.class;
    }

    @Override
    public BatchExecuteStatementOutput handle(RequestContext context, BatchExecuteStatementInput in) {
        List<Object> parsed = check(in);
        List<BatchExecuteStatementInput.BatchStatementRequest> requests = in.statements();
        List<BatchStatementResponse> responses = new ArrayList<>(requests.size());
        List<Integer> refused = new ArrayList<>();
        Map<String, Double> units = new LinkedHashMap<>();
        boolean wrote = false;
        boolean unavailable = false;
        for (int i = 0; i < requests.size(); i++) {
            var r = requests.get(i);
            Object p = parsed.get(i);
            if (unavailable) {
                // A statement before it found the store unavailable: the rest are not run (each could wait as long).
                responses.add(new BatchStatementResponse(error(unavailable()), null, null));
                continue;
            }
            try {
                if (p instanceof ApiException e) {
                    throw e;
                }
                Partiql.Statement s = (Partiql.Statement) p;
                if (s instanceof Partiql.Exists) {
                    throw ApiException.validation("EXISTS can only be used in ExecuteTransaction write requests.");
                }
                if (s instanceof Partiql.Select select) {
                    runner.planner().keyOnly(select, READ_NEEDS_KEY);
                }
                ExecuteStatementOutput out = runner.run(
                        context,
                        s,
                        r.statement(),
                        r.parameters(),
                        r.consistentRead(),
                        null,
                        null,
                        in.returnConsumedCapacity(),
                        r.returnValuesOnConditionCheckFailure());
                String table = tableOf(s);
                ConsumedCapacity cc = out.consumedCapacity();
                if (cc != null) {
                    units.merge(cc.tableName(), cc.capacityUnits(), Double::sum);
                }
                Map<String, AttributeValue> item =
                        s instanceof Partiql.Select && !out.items().isEmpty()
                                ? out.items().get(0)
                                : null;
                responses.add(new BatchStatementResponse(null, table, item));
                wrote |= !(s instanceof Partiql.Select);
            } catch (ApiException e) {
                if (io.partita.server.route.OperationRegistry.needsConfirming(e)) {
                    refused.add(i);
                }
                responses.add(new BatchStatementResponse(error(e), null, null));
            } catch (io.partita.storage.StorageUnavailableException e) {
                if (!wrote) {
                    throw e; // nothing committed yet: the whole batch answers 503 (500 if it may have written)
                }
                // The statements before it committed: the batch answers, this statement and the rest failed (a
                // cluster's leader that could not confirm it leads, a write the group did not commit, a full disk).
                if (e.mayHaveBeenWritten()) {
                    log.error(
                            "{} BatchExecuteStatement's statement {} failed: {}",
                            context.requestId(),
                            i + 1,
                            e.getMessage());
                } else {
                    log.debug(
                            "{} BatchExecuteStatement's statement {} refused: {}",
                            context.requestId(),
                            i + 1,
                            e.getMessage());
                }
                unavailable = true;
                responses.add(new BatchStatementResponse(error(unavailable()), null, null));
            }
        }
        if (!refused.isEmpty()) {
            // A refusal rests on this node's state; on a cluster's leader, one that others replaced may have missed
            // writes they acknowledged since (the Dispatcher confirms an operation's own refusals the same way).
            try {
                confirmRefusals.run();
            } catch (RuntimeException unsure) { // StorageUnavailableException, or a group being taken off this node
                for (int i : refused) {
                    responses.set(i, new BatchStatementResponse(error(unavailable()), null, null));
                }
            }
        }
        List<ConsumedCapacity> consumed = null;
        if (in.returnConsumedCapacity() != null && !in.returnConsumedCapacity().equals("NONE")) {
            consumed = new ArrayList<>();
            for (var e : units.entrySet()) {
                consumed.add(new ConsumedCapacity(e.getKey(), e.getValue(), null));
            }
        }
        return new BatchExecuteStatementOutput(responses, consumed);
    }

    /**
     * Checks the batch as a whole, as DynamoDB does before it runs any statement: its members, and that its statements
     * are all reads or all writes. A cluster that runs one batch over several Raft groups checks it so before any
     * group runs its statements. Returns each statement parsed, or the error its parse found (the statement's own).
     *
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    public static List<Object> check(BatchExecuteStatementInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("statements", in.statements()).size("statements", in.statements(), 1, MAX_STATEMENTS);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        List<BatchExecuteStatementInput.BatchStatementRequest> requests = in.statements();
        if (requests != null && requests.size() <= MAX_STATEMENTS) {
            for (int i = 0; i < requests.size(); i++) {
                String path = "statements." + (i + 1) + ".member";
                var r = requests.get(i);
                c.notNull(path, r);
                if (r != null) {
                    ExecuteStatementHandler.constrainStatement(
                            c, path, r.statement(), r.parameters(), r.returnValuesOnConditionCheckFailure());
                }
            }
        }
        c.check();
        // Parse first: a batch is all reads or all writes, which DynamoDB checks for the whole request.
        List<Object> parsed = new ArrayList<>(requests.size());
        int reads = 0;
        int writes = 0;
        for (var r : requests) {
            try {
                Partiql.Statement s = PartiqlParser.parse(r.statement(), r.parameters());
                parsed.add(s);
                if (s instanceof Partiql.Select) {
                    reads++;
                } else {
                    writes++;
                }
            } catch (ApiException e) {
                parsed.add(e);
            }
        }
        if (reads > 0 && writes > 0) {
            // DynamoDB Local's wording; no answer of DynamoDB's own to this has been published.
            throw ApiException.validation("Read and write requests together in the same batch is not supported.");
        }
        return parsed;
    }

    private static String tableOf(Partiql.Statement s) {
        if (s instanceof Partiql.Select x) {
            return x.table();
        }
        if (s instanceof Partiql.Insert x) {
            return x.table();
        }
        if (s instanceof Partiql.Update x) {
            return x.table();
        }
        return ((Partiql.Delete) s).table();
    }

    /** A statement's answer when this node could not run or confirm it: the caller may send it again. */
    private static ApiException unavailable() {
        return new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error");
    }

    /** A failed statement's {@code BatchStatementError}, in BatchStatementErrorCodeEnum's codes. */
    @SuppressWarnings("unchecked")
    public static BatchStatementError error(ApiException e) {
        String code = switch (e.code()) {
            case CONDITIONAL_CHECK_FAILED -> "ConditionalCheckFailed";
            case DUPLICATE_ITEM -> "DuplicateItem";
            case RESOURCE_NOT_FOUND -> "ResourceNotFound";
            case ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED -> "ItemCollectionSizeLimitExceeded";
            case PROVISIONED_THROUGHPUT_EXCEEDED -> "ProvisionedThroughputExceeded";
            case THROTTLING -> "ThrottlingError";
            case REQUEST_LIMIT_EXCEEDED -> "RequestLimitExceeded";
            case TRANSACTION_CONFLICT -> "TransactionConflict";
            // A store that holds another hash range of the table (a cluster's table cut by ranges): send it again.
            case INTERNAL_SERVER_ERROR, SERVICE_UNAVAILABLE -> "InternalServerError";
            default -> "ValidationError";
        };
        Object item =
                e.code() == ErrorCode.CONDITIONAL_CHECK_FAILED ? e.extraFields().get("Item") : null;
        return new BatchStatementError(code, e.getMessage(), (Map<String, AttributeValue>) item);
    }
}
