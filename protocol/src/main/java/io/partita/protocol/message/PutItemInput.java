package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code PutItemInput}. */
public record PutItemInput(
        String tableName,
        Map<String, AttributeValue> item,
        String returnValues,
        String returnConsumedCapacity,
        String returnItemCollectionMetrics,
        String conditionExpression,
        Map<String, String> expressionAttributeNames,
        Map<String, AttributeValue> expressionAttributeValues,
        Map<String, ExpectedAttributeValue> expected,
        String conditionalOperator,
        String returnValuesOnConditionCheckFailure) {}
