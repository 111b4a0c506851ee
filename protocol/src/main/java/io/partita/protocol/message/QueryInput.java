package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code QueryInput}. */
public record QueryInput(
        String tableName,
        String indexName,
        String select,
        List<String> attributesToGet,
        Long limit,
        Boolean consistentRead,
        Map<String, LegacyCondition> keyConditions,
        Map<String, LegacyCondition> queryFilter,
        String conditionalOperator,
        Boolean scanIndexForward,
        Map<String, AttributeValue> exclusiveStartKey,
        String returnConsumedCapacity,
        String projectionExpression,
        String filterExpression,
        String keyConditionExpression,
        Map<String, String> expressionAttributeNames,
        Map<String, AttributeValue> expressionAttributeValues) {}
