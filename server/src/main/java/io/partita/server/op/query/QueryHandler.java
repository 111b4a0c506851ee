package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.KeyConditionPlanner;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.legacy.LegacyConditions;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.IndexKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.List;

/** Query: one partition, in sort-key order (or reverse), paged by Limit and 1 MB, then filtered and projected. */
public final class QueryHandler implements OperationHandler<QueryInput, ReadPageOutput> {
    private final StorageEngine storage;
    private final ExpressionCache cache;

    public QueryHandler(StorageEngine storage, ExpressionCache cache) {
        this.storage = storage;
        this.cache = cache;
    }

    @Override
    public Class<QueryInput> inputType() {
        return QueryInput.class;
    }

    @Override
    public ReadPageOutput handle(RequestContext context, QueryInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        ReadRequests.constrain(
                c,
                in.select(),
                in.limit(),
                in.conditionalOperator(),
                in.returnConsumedCapacity(),
                in.attributesToGet(),
                in.indexName());
        c.check();
        checkMixing(in);
        ReadRequests.checkSelect(in.select(), in.indexName(), in.projectionExpression(), in.attributesToGet());
        if (in.keyConditionExpression() == null && in.keyConditions() == null) {
            throw ApiException.validation(
                    "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.");
        }
        boolean anyExpression = in.keyConditionExpression() != null
                || in.filterExpression() != null
                || in.projectionExpression() != null;
        io.partita.server.op.item.ItemExpressions.placeholdersNeedExpressions(
                anyExpression, in.expressionAttributeNames(), in.expressionAttributeValues());
        ExpressionResolver resolver =
                new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
        Condition keyCondition = in.keyConditionExpression() != null
                ? resolver.resolve(
                        cache.condition(in.keyConditionExpression(), "KeyConditionExpression"),
                        "KeyConditionExpression")
                : LegacyConditions.conditions(in.keyConditions(), null);
        Condition filter =
                ReadRequests.filter(cache, resolver, in.filterExpression(), in.queryFilter(), in.conditionalOperator());
        List<Path> projection =
                ReadRequests.projection(cache, resolver, in.projectionExpression(), in.attributesToGet());
        resolver.checkAllUsed();

        Table table = storage.tables().require(TableNames.resolve(in.tableName()), "Requested resource not found");
        ReadTarget target = ReadTarget.of(table, in.indexName());
        ReadRequests.checkTarget(target, in.consistentRead(), in.select());
        KeyConditionPlanner.IndexKeyCondition key =
                KeyConditionPlanner.plan(keyCondition, target.partitionKeys(), target.sortKeys());
        ReadRequests.checkFilter(target, filter);
        boolean forward = !Boolean.FALSE.equals(in.scanIndexForward());
        KeyRanges.Range range = range(target, key);
        if (in.exclusiveStartKey() != null) {
            range = range.resumeAfter(target.startKey(in.exclusiveStartKey()), forward);
        }
        KeyRanges.Range pageRange = range;
        boolean fetch = target.fetches(in.select(), projection);
        return ReadRequests.answer(
                context,
                target,
                IndexKeyEncoder.partitionHash(key.partition()),
                key.partition().get(0),
                in.consistentRead(),
                in.select(),
                in.returnConsumedCapacity(),
                () -> PageReader.read(
                        storage,
                        target,
                        pageRange,
                        forward,
                        in.limit(),
                        filter,
                        projection,
                        "COUNT".equals(in.select()),
                        fetch));
    }

    /** The keys a key condition selects: one partition of the table or index, narrowed by its sort attributes. */
    private static KeyRanges.Range range(ReadTarget target, KeyConditionPlanner.IndexKeyCondition key) {
        if (target.index() == null) {
            return key.sortOperator() == null
                    ? KeyRanges.partition(key.partition().get(0))
                    : KeyRanges.sortKey(key.partition().get(0), key.sortOperator(), key.a(), key.b());
        }
        byte[] prefix = IndexKeyEncoder.extend(IndexKeyEncoder.partitionPrefix(key.partition()), key.sortEquals());
        return key.sortOperator() == null
                ? KeyRanges.prefixed(prefix)
                : KeyRanges.within(prefix, key.sortOperator(), key.a(), key.b());
    }

    /** KeyConditions alone may be combined with expressions; any other legacy parameter may not. */
    private static void checkMixing(QueryInput in) {
        List<String> legacy = new ArrayList<>();
        if (in.attributesToGet() != null) {
            legacy.add("AttributesToGet");
        }
        if (in.queryFilter() != null) {
            legacy.add("QueryFilter");
        }
        if (in.conditionalOperator() != null) {
            legacy.add("ConditionalOperator");
        }
        if (in.keyConditions() != null && (!legacy.isEmpty() || in.keyConditionExpression() != null)) {
            legacy.add("KeyConditions");
        }
        List<String> expressions = new ArrayList<>();
        if (in.projectionExpression() != null) {
            expressions.add("ProjectionExpression");
        }
        if (in.filterExpression() != null) {
            expressions.add("FilterExpression");
        }
        if (in.keyConditionExpression() != null) {
            expressions.add("KeyConditionExpression");
        }
        if (!legacy.isEmpty() && !expressions.isEmpty()) {
            throw ApiException.validation("Can not use both expression and non-expression parameters in the same"
                    + " request: Non-expression parameters: {" + String.join(", ", legacy)
                    + "} Expression parameters: {" + String.join(", ", expressions) + "}");
        }
    }
}
