package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's {@code ExecuteStatementOutput}: {@code Items} is always there, empty for a write without RETURNING.
 *
 * @param partitaLastScannedKey Partita's own {@code Partita.SelectRange} only: the key of the last item scanned by a
 *     page that reached the end of its group's hash ranges, where a cluster's walk over a table's groups goes on
 *     (docs/CLUSTER.md); null otherwise, and never in DynamoDB's answers
 * @param partitaLastScannedToken {@code Partita.SelectRange} only: the {@code NextToken} that goes on after {@code
 *     partitaLastScannedKey}; null otherwise
 * @param partitaScannedBytes {@code Partita.SelectRange} only: of a page of a walk over the groups, the bytes it read
 *     (its units' measure, from which the walk counts the page's units once); of a value's share, the size of the
 *     items it returned (each value's Query's units stay its own); null otherwise
 * @param partitaScannedCount {@code Partita.SelectRange} only: the items the page read, of which the statement's
 *     {@code Limit} counts; null otherwise
 * @param partitaValueHashes {@code Partita.SelectRange} only, of a SELECT of several partition key values: the hash of
 *     each value, in the order its Queries run, where the walk sends each value's share; null otherwise
 * @param partitaEntries {@code Partita.SelectRange} only, of a group's page of a SELECT of a global secondary index by
 *     its key: each row read, as a {@code Partita.QueryIndexRange}'s ({@link ReadPageOutput#partitaEntries}); null
 *     otherwise
 * @param partitaIndexForward {@code Partita.SelectRange} only: of a SELECT that reads a global secondary index by its
 *     key, whether it reads it in the index's order (false: backwards); the first page of a walk answers it alone,
 *     for the walking node to ask every group at once; null for any other SELECT
 */
public record ExecuteStatementOutput(
        List<Map<String, AttributeValue>> items,
        String nextToken,
        ConsumedCapacity consumedCapacity,
        Map<String, AttributeValue> lastEvaluatedKey,
        Map<String, AttributeValue> partitaLastScannedKey,
        String partitaLastScannedToken,
        Long partitaScannedBytes,
        Long partitaScannedCount,
        List<Long> partitaValueHashes,
        List<ReadPageOutput.Entry> partitaEntries,
        Boolean partitaIndexForward) {
    /** A page of a walk over a table's groups. */
    public ExecuteStatementOutput(
            List<Map<String, AttributeValue>> items,
            String nextToken,
            ConsumedCapacity consumedCapacity,
            Map<String, AttributeValue> lastEvaluatedKey,
            Map<String, AttributeValue> partitaLastScannedKey,
            String partitaLastScannedToken,
            Long partitaScannedBytes,
            Long partitaScannedCount,
            List<Long> partitaValueHashes) {
        this(
                items,
                nextToken,
                consumedCapacity,
                lastEvaluatedKey,
                partitaLastScannedKey,
                partitaLastScannedToken,
                partitaScannedBytes,
                partitaScannedCount,
                partitaValueHashes,
                null,
                null);
    }

    /** An answer as DynamoDB gives it. */
    public ExecuteStatementOutput(
            List<Map<String, AttributeValue>> items,
            String nextToken,
            ConsumedCapacity consumedCapacity,
            Map<String, AttributeValue> lastEvaluatedKey) {
        this(items, nextToken, consumedCapacity, lastEvaluatedKey, null, null, null, null, null, null, null);
    }
}
