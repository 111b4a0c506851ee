package io.partita.server.op.item;

import io.partita.protocol.message.DeleteItemInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.table.TableCatalog.Table;

/** DeleteItem: deleting an absent item succeeds; {@code ReturnValues} NONE or ALL_OLD. */
public final class DeleteItemHandler implements OperationHandler<DeleteItemInput, WriteItemOutput> {
    private final StorageEngine storage;

    public DeleteItemHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DeleteItemInput> inputType() {
        return DeleteItemInput.class;
    }

    @Override
    public WriteItemOutput handle(RequestContext context, DeleteItemInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.notNull("key", in.key());
        c.enumValue("returnValues", in.returnValues(), ItemRequests.RETURN_VALUES);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        c.enumValue(
                "returnItemCollectionMetrics",
                in.returnItemCollectionMetrics(),
                ItemRequests.RETURN_ITEM_COLLECTION_METRICS);
        c.enumValue(
                "returnValuesOnConditionCheckFailure",
                in.returnValuesOnConditionCheckFailure(),
                ItemRequests.RETURN_VALUES_ON_CONDITION_CHECK_FAILURE);
        c.check();
        ItemRequests.checkWriteReturnValues(in.returnValues());
        ItemRequests.refuseConditions(
                in.conditionExpression(),
                in.expected(),
                in.conditionalOperator(),
                in.expressionAttributeNames(),
                in.expressionAttributeValues());
        Table table = ItemRequests.table(storage, in.tableName());
        PrimaryKey key = table.metadata().keySchema().keyOf(in.key());
        WriteOutcome outcome = storage.write(table, key, old -> new WriteDecision.Delete());
        long oldSize = outcome.oldItem() == null ? 0 : ItemSize.of(outcome.oldItem());
        return new WriteItemOutput(
                "ALL_OLD".equals(in.returnValues()) ? outcome.oldItem() : null,
                ItemRequests.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), CapacityUnits.write(oldSize, 0)));
    }
}
