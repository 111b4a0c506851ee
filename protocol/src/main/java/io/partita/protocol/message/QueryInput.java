package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's {@code QueryInput}.
 *
 * @param partitaHashRange Partita's own {@code Partita.QueryIndexRange} only: the hash range of the table's items the
 *     group's page of a global secondary index reads ({@code first-last}, unsigned, as the merging node's record of
 *     the table's ranges gives it, docs/CLUSTER.md); the group refuses it (503) when its store holds another range; a
 *     Query ignores it
 */
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
        Map<String, AttributeValue> expressionAttributeValues,
        String partitaHashRange) {
    /** A Query as DynamoDB takes it. */
    public QueryInput(
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
            Map<String, AttributeValue> expressionAttributeValues) {
        this(
                tableName,
                indexName,
                select,
                attributesToGet,
                limit,
                consistentRead,
                keyConditions,
                queryFilter,
                conditionalOperator,
                scanIndexForward,
                exclusiveStartKey,
                returnConsumedCapacity,
                projectionExpression,
                filterExpression,
                keyConditionExpression,
                expressionAttributeNames,
                expressionAttributeValues,
                null);
    }
}
