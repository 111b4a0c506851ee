package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Map;

/** Checks and answers shared by the single-item operations. */
final class ItemRequests {
    static final List<String> RETURN_VALUES = List.of("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW");
    static final List<String> RETURN_CONSUMED_CAPACITY = List.of("INDEXES", "TOTAL", "NONE");
    static final List<String> RETURN_ITEM_COLLECTION_METRICS = List.of("SIZE", "NONE");
    static final List<String> RETURN_VALUES_ON_CONDITION_CHECK_FAILURE = List.of("ALL_OLD", "NONE");
    /** Attribute names are limited to 64 KB ("Attribute names", ServiceQuotas). */
    static final int MAX_ATTRIBUTE_NAME_BYTES = 65535;

    private ItemRequests() {}

    static Table table(StorageEngine storage, String nameOrArn) {
        return storage.tables().require(TableNames.resolve(nameOrArn), "Requested resource not found");
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

    static void constrainCommon(ConstraintSet c, String returnConsumedCapacity) {
        c.enumValue("returnConsumedCapacity", returnConsumedCapacity, RETURN_CONSUMED_CAPACITY);
    }

    static void checkAttributeNames(Map<String, AttributeValue> item) {
        for (String name : item.keySet()) {
            if (ItemSize.utf8Length(name) > MAX_ATTRIBUTE_NAME_BYTES) {
                throw ApiException.validation("Attribute name is too large, must be less than 65536 bytes");
            }
        }
    }

    /** A committed single-item write and the write units it consumed. */
    record Charged(WriteOutcome outcome, double units) {}

    /**
     * One single-item write with its throughput: admitted on the key's partition, then charged on the larger of
     * the old and new item. A write whose condition fails is charged too, on the item it found ("Conditional
     * writes": a failed conditional write still consumes write capacity).
     *
     * @param newSize the size of the item a failed write would have written (PutItem), or 0
     */
    static Charged write(
            RequestContext context,
            StorageEngine storage,
            Table table,
            PrimaryKey key,
            long newSize,
            ConditionalWrite write) {
        ItemKeyEncoder.EncodedKey encoded =
                ItemKeyEncoder.encode(table.metadata().keySchema(), key);
        Partition partition = CapacityGate.admit(context, table, encoded.hash(), CapacityKind.WRITE, key.partition());
        long[] rejectedOldSize = {0};
        try {
            // A write that never looks at the item cannot be rejected: it goes in as it is.
            WriteOutcome outcome = storage.write(
                    table,
                    encoded,
                    !write.needsCurrent()
                            ? write
                            : old -> {
                                WriteDecision decision = write.apply(old);
                                if (decision instanceof WriteDecision.Reject && old != null) {
                                    rejectedOldSize[0] = ItemSize.of(old);
                                }
                                return decision;
                            });
            double units = CapacityUnits.write(outcome.oldBytes(), outcome.newBytes());
            CapacityGate.charge(table, partition, CapacityKind.WRITE, units, encoded.hash(), key.partition());
            return new Charged(outcome, units);
        } catch (ApiException e) {
            if (e.code() == ErrorCode.CONDITIONAL_CHECK_FAILED) {
                double units = CapacityUnits.write(rejectedOldSize[0], newSize);
                CapacityGate.charge(table, partition, CapacityKind.WRITE, units, encoded.hash(), key.partition());
            }
            throw e;
        }
    }
}
