package io.partita.server.op.item;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.storage.StorageEngine;
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

    /** PutItem and DeleteItem only return the old image: other ReturnValues are DynamoDB's "invalid value". */
    static void checkWriteReturnValues(String returnValues) {
        if (returnValues != null && !returnValues.equals("NONE") && !returnValues.equals("ALL_OLD")) {
            throw ApiException.validation("Return values set to invalid value");
        }
    }

    static void constrainCommon(ConstraintSet c, String returnConsumedCapacity) {
        c.enumValue("returnConsumedCapacity", returnConsumedCapacity, RETURN_CONSUMED_CAPACITY);
    }

    /**
     * Conditions arrive with the expressions issue (#3). Until then a conditional write is refused, never performed
     * unconditionally.
     */
    static void refuseConditions(
            String conditionExpression,
            JsonNode expected,
            String conditionalOperator,
            Map<String, String> names,
            Map<String, AttributeValue> values) {
        if (conditionExpression != null) {
            throw ApiException.validation("ConditionExpression is not supported by this version of Partita");
        }
        if (expected != null && !expected.isNull()) {
            throw ApiException.validation("Expected is not supported by this version of Partita");
        }
        if (conditionalOperator != null) {
            throw ApiException.validation("ConditionalOperator is not supported by this version of Partita");
        }
        if (names != null) {
            throw ApiException.validation("ExpressionAttributeNames can only be specified when using expressions");
        }
        if (values != null) {
            throw ApiException.validation("ExpressionAttributeValues can only be specified when using expressions");
        }
    }

    static void checkAttributeNames(Map<String, AttributeValue> item) {
        for (String name : item.keySet()) {
            if (ItemSize.utf8Length(name) > MAX_ATTRIBUTE_NAME_BYTES) {
                throw ApiException.validation("Attribute name is too large, must be less than 65536 bytes");
            }
        }
    }

    static ConsumedCapacity consumed(String mode, String tableName, double units) {
        if (mode == null || mode.equals("NONE")) {
            return null;
        }
        ConsumedCapacity.Capacity table = mode.equals("INDEXES") ? new ConsumedCapacity.Capacity(units) : null;
        return new ConsumedCapacity(tableName, units, table);
    }
}
