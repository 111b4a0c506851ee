package io.partita.server.op.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.DeleteItemInput;
import io.partita.protocol.message.ExecuteTransactionInput;
import io.partita.protocol.message.ExecuteTransactionOutput;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.protocol.message.TransactGetItemsOutput;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.protocol.message.TransactWriteItemsInput.TransactWriteItem;
import io.partita.protocol.message.TransactWriteItemsOutput;
import io.partita.protocol.message.UpdateItemInput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql;
import io.partita.protocol.partiql.PartiqlParser;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.op.txn.TransactGetItemsHandler;
import io.partita.server.op.txn.TransactWriteItemsHandler;
import io.partita.server.op.txn.TransactionRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ExecuteTransaction: up to 100 PartiQL statements, all reads or all writes, run as a TransactGetItems or a
 * TransactWriteItems — the same rules, conflicts, doubled capacity and {@code ClientRequestToken} idempotency (its
 * tokens kept apart from TransactWriteItems'). An INSERT is a Put that the item must not exist for, an UPDATE an
 * Update that it must exist for, {@code EXISTS(SELECT …)} a ConditionCheck. A statement's own error is reported as
 * {@code Validation failed in TransactStatements[i]: …}, as DynamoDB reports it.
 */
public final class ExecuteTransactionHandler
        implements OperationHandler<ExecuteTransactionInput, ExecuteTransactionOutput> {
    static final String READ_NEEDS_KEY =
            "Select statements within ExecuteTransaction must specify the primary key in the where clause.";

    private final Planner planner;
    private final TransactWriteItemsHandler writes;
    private final TransactGetItemsHandler reads;

    ExecuteTransactionHandler(Planner planner, TransactWriteItemsHandler writes, TransactGetItemsHandler reads) {
        this.planner = planner;
        this.writes = writes;
        this.reads = reads;
    }

    @Override
    public Class<ExecuteTransactionInput> inputType() {
        return ExecuteTransactionInput.class;
    }

    @Override
    public ExecuteTransactionOutput handle(RequestContext context, ExecuteTransactionInput in) {
        List<Partiql.Statement> parsed = check(in);
        return parsed.get(0) instanceof Partiql.Select ? read(context, in, parsed) : write(context, in, parsed);
    }

    /**
     * Checks the request as a whole, as DynamoDB does before it looks at a table: its members, each statement's
     * parse, and that its statements are all reads or all writes. A cluster that runs one ExecuteTransaction over
     * several Raft groups checks it so first. Returns the statements parsed.
     *
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    public static List<Partiql.Statement> check(ExecuteTransactionInput in) {
        ConstraintSet c = new ConstraintSet();
        c.length("clientRequestToken", in.clientRequestToken(), 1, 36);
        c.notNull("transactStatements", in.transactStatements())
                .size("transactStatements", in.transactStatements(), 1, TransactionRequests.MAX_ITEMS);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        var statements = in.transactStatements();
        if (statements != null && statements.size() <= TransactionRequests.MAX_ITEMS) {
            for (int i = 0; i < statements.size(); i++) {
                String path = "transactStatements." + (i + 1) + ".member";
                var s = statements.get(i);
                c.notNull(path, s);
                if (s != null) {
                    ExecuteStatementHandler.constrainStatement(
                            c, path, s.statement(), s.parameters(), s.returnValuesOnConditionCheckFailure());
                }
            }
        }
        c.check();
        List<Partiql.Statement> parsed = new ArrayList<>(statements.size());
        boolean anyRead = false;
        boolean anyWrite = false;
        for (int i = 0; i < statements.size(); i++) {
            var s = statements.get(i);
            Partiql.Statement st = inStatement(i, () -> PartiqlParser.parse(s.statement(), s.parameters()));
            parsed.add(st);
            anyRead |= st instanceof Partiql.Select;
            anyWrite |= !(st instanceof Partiql.Select);
        }
        if (anyRead && anyWrite) {
            throw ApiException.validation(
                    "ExecuteTransaction API does not support both read and write operations in the same request.");
        }
        return parsed;
    }

    private static <T> T inStatement(int i, java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (ApiException e) {
            if (e.code() != ErrorCode.VALIDATION || e.getMessage().startsWith("Number of parameters")) {
                throw e;
            }
            throw ApiException.validation("Validation failed in TransactStatements[" + i + "]: " + e.getMessage());
        }
    }

    private ExecuteTransactionOutput read(
            RequestContext context, ExecuteTransactionInput in, List<Partiql.Statement> parsed) {
        TransactGetItemsOutput out =
                reads.handle(context, new TransactGetItemsInput(gets(parsed, null), in.returnConsumedCapacity()));
        return new ExecuteTransactionOutput(out.responses(), out.consumedCapacity());
    }

    /**
     * The SELECTs {@code parsed} as TransactGetItems' Gets; a statement's error names its place in the request
     * ({@code positions}, or its own place when null).
     */
    private List<TransactGetItemsInput.TransactGetItem> gets(List<Partiql.Statement> parsed, List<Integer> positions) {
        List<TransactGetItemsInput.TransactGetItem> gets = new ArrayList<>(parsed.size());
        for (int i = 0; i < parsed.size(); i++) {
            int at = positions == null ? i : positions.get(i);
            if (!(parsed.get(i) instanceof Partiql.Select s)) {
                throw ApiException.validation("ExecuteTransaction API does not support both read and write"
                        + " operations in the same request.");
            }
            Map<String, AttributeValue> key = inStatement(at, () -> planner.keyOnly(s, READ_NEEDS_KEY));
            Expressions x = new Expressions();
            String projection = s.projection() == null ? null : x.projection(s.projection());
            gets.add(new TransactGetItemsInput.TransactGetItem(
                    new TransactGetItemsInput.Get(s.table(), key, projection, x.names())));
        }
        return gets;
    }

    /**
     * Partita's own {@code Partita.HoldExecuteTransaction}: one Raft group's SELECTs of a read ExecuteTransaction over
     * several ({@code --cluster-table-groups}, docs/CLUSTER.md), read as their Gets, held as a {@link
     * TransactGetItemsHandler.Held} read holds them. {@code Positions} gives each statement's place in the whole
     * request, which its errors name.
     */
    public static final class Held implements OperationHandler<Held.Input, TransactGetItemsHandler.Held.Output> {
        /** ExecuteTransaction's members, the hold's id, and each statement's place in the whole request. */
        public record Input(
                String hold,
                List<ExecuteTransactionInput.ParameterizedStatement> transactStatements,
                String returnConsumedCapacity,
                List<Integer> positions) {}

        private final ExecuteTransactionHandler transaction;
        private final TransactGetItemsHandler.Held held;

        Held(ExecuteTransactionHandler transaction, TransactGetItemsHandler.Held held) {
            this.transaction = transaction;
            this.held = held;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public TransactGetItemsHandler.Held.Output handle(RequestContext context, Input in) {
            List<Partiql.Statement> parsed = parsedAt(in.transactStatements(), in.positions());
            RequestContext asClient =
                    context.as(io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "ExecuteTransaction");
            return held.hold(
                    asClient,
                    new TransactGetItemsHandler.Held.Input(
                            in.hold(), transaction.gets(parsed, in.positions()), in.returnConsumedCapacity()));
        }
    }

    /**
     * Partita's own {@code Partita.PrepareExecuteTransaction}: one Raft group's statements of an ExecuteTransaction of
     * writes over several ({@code --cluster-table-groups}, docs/CLUSTER.md), turned into TransactWriteItems' actions
     * as a single node turns them and prepared as {@link TransactWriteItemsHandler.Prepare} prepares a part (its record
     * keeps the actions, which its commit reads again). {@code Positions} gives each statement's place in the whole
     * request, which its errors name; an INSERT's failed condition is {@code DuplicateItem}. The 4 MB counts this
     * part's actions, whose size the answer gives ({@code PartPayload}) for the coordinator to sum.
     */
    public static final class Prepare
            implements OperationHandler<Prepare.Input, TransactWriteItemsHandler.Prepare.Output> {
        public record Input(
                String transaction,
                Boolean decides,
                String decidingTable,
                String decidingGroup,
                List<String> participants,
                Long deadline,
                List<ExecuteTransactionInput.ParameterizedStatement> transactStatements,
                String returnConsumedCapacity,
                List<Integer> positions,
                String token,
                String tokenDigest) {}

        private final ExecuteTransactionHandler transaction;
        private final TransactWriteItemsHandler.Prepare prepare;

        Prepare(ExecuteTransactionHandler transaction, TransactWriteItemsHandler.Prepare prepare) {
            this.transaction = transaction;
            this.prepare = prepare;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public TransactWriteItemsHandler.Prepare.Output handle(RequestContext context, Input in) {
            var statements = in.transactStatements();
            List<Partiql.Statement> parsed = parsedAt(statements, in.positions());
            RequestContext asClient =
                    context.as(io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "ExecuteTransaction");
            List<TransactWriteItem> items = new ArrayList<>(statements.size());
            List<Boolean> inserts = new ArrayList<>(statements.size());
            for (int i = 0; i < statements.size(); i++) {
                Partiql.Statement st = parsed.get(i);
                if (st instanceof Partiql.Select) {
                    throw ApiException.validation("ExecuteTransaction API does not support both read and write"
                            + " operations in the same request.");
                }
                String onFailure = statements.get(i).returnValuesOnConditionCheckFailure();
                items.add(inStatement(in.positions().get(i), () -> transaction.action(st, onFailure)));
                inserts.add(st instanceof Partiql.Insert);
            }
            try {
                return prepare.prepare(
                        asClient,
                        new TransactWriteItemsHandler.Prepare.Input(
                                in.transaction(),
                                in.decides(),
                                in.decidingTable(),
                                in.decidingGroup(),
                                in.participants(),
                                in.deadline(),
                                null,
                                items,
                                in.returnConsumedCapacity(),
                                null,
                                null,
                                in.token(),
                                in.tokenDigest(),
                                null));
            } catch (ApiException e) {
                throw e.code() == ErrorCode.TRANSACTION_CANCELED ? duplicates(e, inserts) : e;
            }
        }
    }

    /**
     * A group's part's {@code statements}, parsed, each error naming the statement's place in the whole request
     * ({@code positions}).
     */
    private static List<Partiql.Statement> parsedAt(
            List<ExecuteTransactionInput.ParameterizedStatement> statements, List<Integer> positions) {
        if (statements == null || statements.isEmpty() || positions == null || positions.size() != statements.size()) {
            throw ApiException.validation("TransactStatements and Positions must name the same statements");
        }
        List<Partiql.Statement> parsed = new ArrayList<>(statements.size());
        for (int i = 0; i < statements.size(); i++) {
            var s = statements.get(i);
            Integer at = positions.get(i);
            if (s == null || s.statement() == null || at == null) {
                // The node that runs it over several groups sent none of these: it checked the request whole.
                throw ApiException.validation("TransactStatements and Positions must name the same statements");
            }
            parsed.add(inStatement(at, () -> PartiqlParser.parse(s.statement(), s.parameters())));
        }
        return parsed;
    }

    private ExecuteTransactionOutput write(
            RequestContext context, ExecuteTransactionInput in, List<Partiql.Statement> parsed) {
        List<TransactWriteItem> items = new ArrayList<>(parsed.size());
        List<Boolean> inserts = new ArrayList<>(parsed.size());
        for (int i = 0; i < parsed.size(); i++) {
            Partiql.Statement s = parsed.get(i);
            String onFailure = in.transactStatements().get(i).returnValuesOnConditionCheckFailure();
            items.add(inStatement(i, () -> action(s, onFailure)));
            inserts.add(s instanceof Partiql.Insert);
        }
        TransactWriteItemsOutput out;
        try {
            out = writes.handle(
                    context,
                    new TransactWriteItemsInput(items, in.returnConsumedCapacity(), null, in.clientRequestToken()));
        } catch (ApiException e) {
            throw e.code() == ErrorCode.TRANSACTION_CANCELED ? duplicates(e, inserts) : e;
        }
        return new ExecuteTransactionOutput(List.of(), out.consumedCapacity());
    }

    private TransactWriteItem action(Partiql.Statement s, String onFailure) {
        if (s instanceof Partiql.Update u && u.returning() != null
                || s instanceof Partiql.Delete d && d.returning() != null) {
            throw ApiException.validation("RETURNING clause is not supported in ExecuteTransaction.");
        }
        if (s instanceof Partiql.Insert insert) {
            PutItemInput p = planner.insert(insert, null, onFailure).put();
            return new TransactWriteItem(
                    null,
                    new TransactWriteItemsInput.Put(
                            p.tableName(),
                            p.item(),
                            p.conditionExpression(),
                            p.expressionAttributeNames(),
                            p.expressionAttributeValues(),
                            onFailure),
                    null,
                    null);
        }
        if (s instanceof Partiql.Update update) {
            UpdateItemInput u = planner.update(update, null, onFailure).update();
            return new TransactWriteItem(
                    null,
                    null,
                    null,
                    new TransactWriteItemsInput.Update(
                            u.tableName(),
                            u.key(),
                            u.updateExpression(),
                            u.conditionExpression(),
                            u.expressionAttributeNames(),
                            u.expressionAttributeValues(),
                            onFailure));
        }
        if (s instanceof Partiql.Delete delete) {
            DeleteItemInput d = planner.delete(delete, null, onFailure).delete();
            return new TransactWriteItem(
                    null,
                    null,
                    new TransactWriteItemsInput.Delete(
                            d.tableName(),
                            d.key(),
                            d.conditionExpression(),
                            d.expressionAttributeNames(),
                            d.expressionAttributeValues(),
                            onFailure),
                    null);
        }
        Planner.Check check = planner.exists((Partiql.Exists) s);
        return new TransactWriteItem(
                new TransactWriteItemsInput.ConditionCheck(
                        check.table().metadata().name(),
                        check.key(),
                        check.condition(),
                        check.expressions().names(),
                        check.expressions().values(),
                        onFailure),
                null,
                null,
                null);
    }

    /** An INSERT's failed condition is its item already existing: {@code DuplicateItem}, as DynamoDB words it. */
    @SuppressWarnings("unchecked")
    private static ApiException duplicates(ApiException cancelled, List<Boolean> inserts) {
        List<Map<String, Object>> reasons =
                (List<Map<String, Object>>) cancelled.extraFields().get("CancellationReasons");
        List<String> codes = new ArrayList<>();
        List<Map<String, Object>> rewritten = new ArrayList<>();
        for (int i = 0; i < reasons.size(); i++) {
            Map<String, Object> r = reasons.get(i);
            if (inserts.get(i) && "ConditionalCheckFailed".equals(r.get("Code"))) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("Code", "DuplicateItem");
                d.put("Message", StatementRunner.DUPLICATE);
                if (r.get("Item") != null) {
                    d.put("Item", r.get("Item"));
                }
                r = d;
            }
            codes.add((String) r.get("Code"));
            rewritten.add(r);
        }
        Map<String, Object> fields = new LinkedHashMap<>(cancelled.extraFields());
        fields.put("CancellationReasons", rewritten);
        return new ApiException(
                ErrorCode.TRANSACTION_CANCELED,
                "Transaction cancelled, please refer cancellation reasons for specific reasons " + codes,
                fields);
    }
}
