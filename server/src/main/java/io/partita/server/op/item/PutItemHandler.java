package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.PutItemInput;
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
import java.util.Map;

/** PutItem: replaces the whole item; {@code ReturnValues} NONE or ALL_OLD. */
public final class PutItemHandler implements OperationHandler<PutItemInput, WriteItemOutput> {
    private final StorageEngine storage;

    public PutItemHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<PutItemInput> inputType() {
        return PutItemInput.class;
    }

    @Override
    public WriteItemOutput handle(RequestContext context, PutItemInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.notNull("item", in.item());
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
        Map<String, io.partita.protocol.model.AttributeValue> item = in.item();
        PrimaryKey key = table.metadata().keySchema().keyOfItem(item);
        ItemRequests.checkAttributeNames(item);
        long size = ItemSize.of(item);
        if (size > ItemSize.MAX_ITEM_BYTES) {
            throw ApiException.validation("Item size has exceeded the maximum allowed size");
        }
        WriteOutcome outcome = storage.write(table, key, old -> new WriteDecision.Put(item));
        long oldSize = outcome.oldItem() == null ? 0 : ItemSize.of(outcome.oldItem());
        return new WriteItemOutput(
                "ALL_OLD".equals(in.returnValues()) ? outcome.oldItem() : null,
                ItemRequests.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), CapacityUnits.write(oldSize, size)));
    }
}
