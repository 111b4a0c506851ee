package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code GetItemInput}. */
public record GetItemInput(
        String tableName,
        Map<String, AttributeValue> key,
        List<String> attributesToGet,
        Boolean consistentRead,
        String returnConsumedCapacity,
        String projectionExpression,
        Map<String, String> expressionAttributeNames) {}
