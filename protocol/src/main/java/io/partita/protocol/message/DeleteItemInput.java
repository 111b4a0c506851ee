package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code DeleteItemInput}. */
public record DeleteItemInput(
        String tableName,
        Map<String, AttributeValue> key,
        String returnValues,
        String returnConsumedCapacity,
        String returnItemCollectionMetrics,
        String conditionExpression,
        Map<String, String> expressionAttributeNames,
        Map<String, AttributeValue> expressionAttributeValues,
        Map<String, ExpectedAttributeValue> expected,
        String conditionalOperator,
        String returnValuesOnConditionCheckFailure) {}
