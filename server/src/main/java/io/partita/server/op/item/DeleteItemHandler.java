package io.partita.server.op.item;

import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.message.DeleteItemInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.op.CapacityGate;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.Written;

/** DeleteItem: deleting an absent item succeeds; optional condition; {@code ReturnValues} NONE or ALL_OLD. */
public final class DeleteItemHandler implements OperationHandler<DeleteItemInput, WriteItemOutput> {
    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public DeleteItemHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<DeleteItemInput> inputType() {
        return DeleteItemInput.class;
    }

    /** Bounded: one item written. */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public WriteItemOutput handle(RequestContext context, DeleteItemInput in) {
        ItemRequests.constrainWrite(
                in.tableName(),
                "key",
                in.key(),
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

        Table table = ItemRequests.table(context, storage, in.tableName());
        PrimaryKey key = table.metadata().keySchema().keyOf(in.key());
        Written written = ItemRequests.write(
                context,
                storage,
                table,
                key,
                0,
                condition == null && !"ALL_OLD".equals(in.returnValues())
                        ? ConditionalWrite.blind(new WriteDecision.Delete())
                        : old -> ItemExpressions.checked(
                                condition, old, in.returnValuesOnConditionCheckFailure(), WriteDecision.Delete::new));
        return new WriteItemOutput(
                "ALL_OLD".equals(in.returnValues()) ? written.outcome().oldItem() : null,
                CapacityGate.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), written),
                ItemRequests.collectionMetrics(in.returnItemCollectionMetrics(), table, key, written));
    }
}
