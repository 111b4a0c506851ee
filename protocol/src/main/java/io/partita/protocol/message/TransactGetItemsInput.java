package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code TransactGetItemsInput}. */
public record TransactGetItemsInput(List<TransactGetItem> transactItems, String returnConsumedCapacity) {
    /** DynamoDB's {@code TransactGetItem}. */
    public record TransactGetItem(Get get) {}

    /** DynamoDB's {@code Get}. */
    public record Get(
            String tableName,
            Map<String, AttributeValue> key,
            String projectionExpression,
            Map<String, String> expressionAttributeNames) {}
}
