package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.op.CapacityGate;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexEntries;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.Written;
import java.util.Map;

/** PutItem: replaces the whole item, optionally under a condition; {@code ReturnValues} NONE or ALL_OLD. */
public final class PutItemHandler implements OperationHandler<PutItemInput, WriteItemOutput> {
    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public PutItemHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<PutItemInput> inputType() {
        return PutItemInput.class;
    }

    /** Bounded: one item written. */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public WriteItemOutput handle(RequestContext context, PutItemInput in) {
        ItemRequests.constrainWrite(
                in.tableName(),
                "item",
                in.item(),
                in.returnValues(),
                in.returnConsumedCapacity(),
                in.returnItemCollectionMetrics(),
                in.returnValuesOnConditionCheckFailure(),
                in.conditionalOperator());
        ItemExpressions.noMixing(
                new Object[] {"Expected", in.expected(), "ConditionalOperator", in.conditionalOperator()},
                new Object[] {"ConditionExpression", in.conditionExpression()});
        ItemRequests.checkWriteReturnValues(in.returnValues());
        ItemExpressions.placeholdersNeedExpressions(
                in.conditionExpression() != null, in.expressionAttributeNames(), in.expressionAttributeValues());
        ExpressionResolver resolver =
                new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
        Condition condition =
                expressions.writeCondition(resolver, in.conditionExpression(), in.expected(), in.conditionalOperator());
        resolver.checkAllUsed();

        // The item's own limits need no table: checked before it is looked up, as DynamoDB validates a request before
        // it reads anything (dynalite's tests against DynamoDB put a too large item into a table that does not exist).
        Map<String, AttributeValue> item = in.item();
        ItemRequests.checkAttributeNames(item);
        long size = ItemSize.of(item);
        if (size > ItemSize.MAX_ITEM_BYTES) {
            throw ApiException.validation("Item size has exceeded the maximum allowed size");
        }
        Table table = ItemRequests.table(context, storage, in.tableName());
        PrimaryKey key = table.metadata().keySchema().keyOfItem(item);
        IndexEntries.check(table.indexes().definitions(), item);
        Written written = ItemRequests.write(
                context,
                storage,
                table,
                key,
                size,
                condition == null && !"ALL_OLD".equals(in.returnValues())
                        ? ConditionalWrite.blind(new WriteDecision.Put(item, size))
                        : old -> ItemExpressions.checked(
                                condition,
                                old,
                                in.returnValuesOnConditionCheckFailure(),
                                () -> new WriteDecision.Put(item, size)));
        return new WriteItemOutput(
                "ALL_OLD".equals(in.returnValues()) ? written.outcome().oldItem() : null,
                CapacityGate.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), written),
                ItemRequests.collectionMetrics(in.returnItemCollectionMetrics(), table, key, written));
    }
}
