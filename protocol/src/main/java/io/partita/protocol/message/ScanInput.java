package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's {@code ScanInput}.
 *
 * @param partitaPageBytes Partita's own {@code Partita.ScanRange} only: the bytes its page may read, what is left of a
 *     walk's 1 MB over a table's groups (docs/CLUSTER.md); a Scan ignores it
 * @param partitaHashRange {@code Partita.ScanRange} only: the hash range the walk's record of the table's ranges gives
 *     the group ({@code first-last}, unsigned), which the group refuses (503) when its store holds another (a range
 *     moved since); a Scan ignores it
 */
public record ScanInput(
        String tableName,
        String indexName,
        List<String> attributesToGet,
        Long limit,
        String select,
        Map<String, LegacyCondition> scanFilter,
        String conditionalOperator,
        Map<String, AttributeValue> exclusiveStartKey,
        String returnConsumedCapacity,
        Long totalSegments,
        Long segment,
        String projectionExpression,
        String filterExpression,
        Map<String, String> expressionAttributeNames,
        Map<String, AttributeValue> expressionAttributeValues,
        Boolean consistentRead,
        Long partitaPageBytes,
        String partitaHashRange) {}
