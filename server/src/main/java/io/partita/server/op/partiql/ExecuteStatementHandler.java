package io.partita.server.op.partiql;

import io.partita.protocol.message.ExecuteStatementInput;
import io.partita.protocol.message.ExecuteStatementOutput;
import io.partita.protocol.partiql.PartiqlParser;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;

/**
 * ExecuteStatement: one PartiQL statement, run as the operation it amounts to ({@link Planner}) — with that
 * operation's checks, capacity and errors. {@code Limit} and {@code NextToken} page a SELECT that became a Query or a
 * Scan; an INSERT of an existing item is {@code DuplicateItemException}.
 */
public final class ExecuteStatementHandler implements OperationHandler<ExecuteStatementInput, ExecuteStatementOutput> {
    /** "Statement: Length Constraints: Minimum length of 1. Maximum length of 8192." */
    static final int MAX_STATEMENT = 8192;

    private final StatementRunner runner;
    /** Partita's own {@code Partita.SelectRange}: one group's page of a SELECT over a table's groups. */
    private final boolean range;

    ExecuteStatementHandler(StatementRunner runner) {
        this(runner, false);
    }

    private ExecuteStatementHandler(StatementRunner runner, boolean range) {
        this.runner = runner;
        this.range = range;
    }

    /**
     * Partita's own {@code Partita.SelectRange}: a SELECT of a table whose partitions are Raft groups of their own
     * ({@code --cluster-partition-groups}, docs/CLUSTER.md), run by one of its groups as its share of the walk over
     * them that the node the client reached runs ({@link StatementRunner#selectRange}).
     */
    static ExecuteStatementHandler ofRange(StatementRunner runner) {
        return new ExecuteStatementHandler(runner, true);
    }

    /**
     * The key a SELECT's {@code NextToken} goes on after (where the walk over a table's groups starts again), or null
     * for a token that names none or is not one (the group asked answers its error).
     */
    public static java.util.Map<String, io.partita.protocol.model.AttributeValue> nextTokenKey(String nextToken) {
        return StatementRunner.keyOf(nextToken);
    }

    /**
     * The {@code NextToken} of a page of SELECT {@code statement} with {@code parameters} that goes on after {@code
     * lastEvaluatedKey}: a cluster's merge of the groups' pages of a global secondary index names it (docs/CLUSTER.md).
     */
    public static String nextToken(
            java.util.Map<String, io.partita.protocol.model.AttributeValue> lastEvaluatedKey,
            String statement,
            java.util.List<io.partita.protocol.model.AttributeValue> parameters) {
        return StatementRunner.token(lastEvaluatedKey, StatementRunner.digest(statement, parameters));
    }

    /**
     * The {@code NextToken} of a SELECT of several partition key values that goes on with its {@code value}-th value's
     * Query, after {@code key} (null: from that value's start).
     */
    public static String nextToken(
            java.util.Map<String, io.partita.protocol.model.AttributeValue> key,
            int value,
            String statement,
            java.util.List<io.partita.protocol.model.AttributeValue> parameters) {
        return StatementRunner.token(key, value, StatementRunner.digest(statement, parameters));
    }

    /**
     * The partition key value a SELECT's {@code NextToken} of several values goes on with (its index among the
     * statement's values), or 0 for a token that names none or is not one (the group asked answers its error).
     */
    public static int nextTokenValue(String nextToken) {
        return StatementRunner.valueOf(nextToken);
    }

    /** The partition key values a page of a SELECT of several values reads at most. */
    public static final int VALUES_PER_PAGE = StatementRunner.VALUES_PER_PAGE;

    /** The member constraints of one statement of a batch or a transaction, at {@code path}. */
    static void constrainStatement(
            ConstraintSet c,
            String path,
            String statement,
            java.util.List<?> parameters,
            String returnValuesOnConditionCheckFailure) {
        c.notNull(path + ".statement", statement).length(path + ".statement", statement, 1, MAX_STATEMENT);
        parameters(c, path + ".parameters", parameters);
        c.enumValue(
                path + ".returnValuesOnConditionCheckFailure",
                returnValuesOnConditionCheckFailure,
                ItemRequests.RETURN_VALUES_ON_CONDITION_CHECK_FAILURE);
    }

    /** At least one parameter if any, and none null. */
    static void parameters(ConstraintSet c, String path, java.util.List<?> parameters) {
        c.size(path, parameters, 1, Integer.MAX_VALUE);
        if (parameters != null) {
            for (int i = 0; i < parameters.size(); i++) {
                c.notNull(path + "." + (i + 1) + ".member", parameters.get(i));
            }
        }
    }

    @Override
    public Class<ExecuteStatementInput> inputType() {
        return ExecuteStatementInput.class;
    }

    /**
     * Bounded when it is one item: a SELECT by key, an INSERT, UPDATE or DELETE run on the event loop as GetItem and
     * the single-item writes do; a SELECT that becomes a Query or a Scan moves to the connection's worker ({@link
     * StatementRunner}: {@code WouldBlock} before it reads anything).
     */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ExecuteStatementOutput handle(RequestContext context, ExecuteStatementInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("statement", in.statement()).length("statement", in.statement(), 1, MAX_STATEMENT);
        parameters(c, "parameters", in.parameters());
        c.length("nextToken", in.nextToken(), 1, 32768);
        c.atLeast("limit", in.limit(), 1);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        c.enumValue(
                "returnValuesOnConditionCheckFailure",
                in.returnValuesOnConditionCheckFailure(),
                ItemRequests.RETURN_VALUES_ON_CONDITION_CHECK_FAILURE);
        c.check();
        if (range) {
            return runner.selectRange(
                    context,
                    PartiqlParser.parse(in.statement(), in.parameters()),
                    in.statement(),
                    in.parameters(),
                    in.consistentRead(),
                    in.limit(),
                    in.nextToken(),
                    in.returnConsumedCapacity(),
                    in.partitaPageBytes(),
                    !Boolean.TRUE.equals(in.partitaLaterShare()),
                    in.partitaValue(),
                    in.partitaHashRange(),
                    Boolean.TRUE.equals(in.partitaMergeIndex()));
        }
        return runner.run(
                context,
                PartiqlParser.parse(in.statement(), in.parameters()),
                in.statement(),
                in.parameters(),
                in.consistentRead(),
                in.limit(),
                in.nextToken(),
                in.returnConsumedCapacity(),
                in.returnValuesOnConditionCheckFailure());
    }
}
