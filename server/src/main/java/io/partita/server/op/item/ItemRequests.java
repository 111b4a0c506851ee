package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.Written;
import java.util.List;
import java.util.Map;

/** Checks and answers shared by the single-item operations. */
public final class ItemRequests {
    static final List<String> RETURN_VALUES = List.of("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW");
    public static final List<String> RETURN_CONSUMED_CAPACITY = List.of("INDEXES", "TOTAL", "NONE");
    public static final List<String> RETURN_ITEM_COLLECTION_METRICS = List.of("SIZE", "NONE");
    public static final List<String> RETURN_VALUES_ON_CONDITION_CHECK_FAILURE = List.of("ALL_OLD", "NONE");
    /** Attribute names are limited to 64 KB ("Attribute names", ServiceQuotas). */
    static final int MAX_ATTRIBUTE_NAME_BYTES = 65535;

    private ItemRequests() {}

    public static Table table(RequestContext context, StorageEngine storage, String nameOrArn) {
        return storage.tables().require(TableNames.resolve(context, nameOrArn), "Requested resource not found");
    }

    /**
     * PutItem and DeleteItem only return the old image. The wording is DynamoDB's current one (responses captured in
     * 2026); older responses said "Return values set to invalid value".
     */
    static void checkWriteReturnValues(String returnValues) {
        if (returnValues != null && !returnValues.equals("NONE") && !returnValues.equals("ALL_OLD")) {
            throw ApiException.validation("ReturnValues can only be ALL_OLD or NONE");
        }
    }

    /** The declarative checks every single-item write makes, thrown as one ValidationException. */
    static void constrainWrite(
            String tableName,
            String itemMember,
            Object itemOrKey,
            String returnValues,
            String returnConsumedCapacity,
            String itemCollectionMetrics,
            String onConditionFailure,
            String conditionalOperator) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, tableName);
        c.notNull(itemMember, itemOrKey);
        c.enumValue("returnValues", returnValues, RETURN_VALUES);
        constrainCommon(c, returnConsumedCapacity);
        c.enumValue("returnItemCollectionMetrics", itemCollectionMetrics, RETURN_ITEM_COLLECTION_METRICS);
        c.enumValue(
                "returnValuesOnConditionCheckFailure", onConditionFailure, RETURN_VALUES_ON_CONDITION_CHECK_FAILURE);
        c.enumValue("conditionalOperator", conditionalOperator, List.of("AND", "OR"));
        c.check();
    }

    public static void constrainCommon(ConstraintSet c, String returnConsumedCapacity) {
        c.enumValue("returnConsumedCapacity", returnConsumedCapacity, RETURN_CONSUMED_CAPACITY);
    }

    public static void checkAttributeNames(Map<String, AttributeValue> item) {
        for (String name : item.keySet()) {
            if (ItemSize.utf8Length(name) > MAX_ATTRIBUTE_NAME_BYTES) {
                throw ApiException.validation("Attribute name is too large, must be less than 65536 bytes");
            }
        }
    }

    /**
     * One single-item write through the storage's one write path, which admits it on the key's partition, applies it
     * and charges it; a throttle becomes DynamoDB's throttling error, a failed condition arrives as its rejection.
     *
     * @param newSize the size of the item a failed write would have written (PutItem), or 0
     */
    static Written write(
            RequestContext context,
            StorageEngine storage,
            Table table,
            PrimaryKey key,
            long newSize,
            ConditionalWrite write) {
        Written written = storage.writes().write(ItemWrite.user(table, key, write, newSize));
        if (written.throttled()) {
            throw written.throttle()
                    .toException(TableNames.arn(context, table.metadata().name()));
        }
        return written;
    }

    /**
     * {@code ItemCollectionMetrics} for {@code ReturnItemCollectionMetrics=SIZE}: only for a table with LSIs, whose
     * item collections have a size ("ReturnItemCollectionMetrics"); null otherwise.
     */
    public static io.partita.protocol.message.ItemCollectionMetrics collectionMetrics(
            String mode, Table table, io.partita.protocol.model.PrimaryKey key, Written written) {
        if (!"SIZE".equals(mode) || written.collectionBytes() < 0) {
            return null;
        }
        return io.partita.protocol.message.ItemCollectionMetrics.of(
                table.metadata().keySchema().partitionKey().name(), key.partition(), written.collectionBytes());
    }
}
