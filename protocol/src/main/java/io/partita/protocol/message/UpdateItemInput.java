package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code UpdateItemInput}. */
public record UpdateItemInput(
        String tableName,
        Map<String, AttributeValue> key,
        String updateExpression,
        String conditionExpression,
        Map<String, String> expressionAttributeNames,
        Map<String, AttributeValue> expressionAttributeValues,
        Map<String, AttributeValueUpdate> attributeUpdates,
        Map<String, ExpectedAttributeValue> expected,
        String conditionalOperator,
        String returnValues,
        String returnConsumedCapacity,
        String returnItemCollectionMetrics,
        String returnValuesOnConditionCheckFailure) {}
