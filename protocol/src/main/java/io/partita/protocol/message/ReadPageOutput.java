package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's {@code QueryOutput} and {@code ScanOutput}, which share one shape.
 *
 * @param partitaLastScannedKey Partita's own {@code Partita.ScanRange} only: the key of the last item scanned by a page
 *     that reached the end of its group's hash ranges, where a cluster's walk over a table's groups goes on
 *     (docs/CLUSTER.md); null otherwise, and never in DynamoDB's answers
 * @param partitaScannedBytes {@code Partita.ScanRange} only: the bytes the page read, of which a walk's page reads 1 MB
 *     at most; null otherwise
 * @param partitaEntries {@code Partita.QueryIndexRange} only: each row of the global secondary index the page read, in
 *     the order read, which the node that merges the groups' pages orders and cuts ({@link Entry}); null otherwise
 */
public record ReadPageOutput(
        List<Map<String, AttributeValue>> items,
        Integer count,
        Integer scannedCount,
        Map<String, AttributeValue> lastEvaluatedKey,
        ConsumedCapacity consumedCapacity,
        Map<String, AttributeValue> partitaLastScannedKey,
        Long partitaScannedBytes,
        List<Entry> partitaEntries) {
    /**
     * One row a group's page of a global secondary index read: where it sorts in the index ({@code Position}, its key
     * in the index's store, base64: the same in every group), the key that names it as a {@code LastEvaluatedKey}, the
     * bytes read, and whether it matched the filter (the page's {@code Items} are the matched rows', in order).
     */
    public record Entry(String position, Map<String, AttributeValue> key, long bytes, boolean matched) {}

    /** A page of a Scan's walk over a table's groups. */
    public ReadPageOutput(
            List<Map<String, AttributeValue>> items,
            Integer count,
            Integer scannedCount,
            Map<String, AttributeValue> lastEvaluatedKey,
            ConsumedCapacity consumedCapacity,
            Map<String, AttributeValue> partitaLastScannedKey,
            Long partitaScannedBytes) {
        this(
                items,
                count,
                scannedCount,
                lastEvaluatedKey,
                consumedCapacity,
                partitaLastScannedKey,
                partitaScannedBytes,
                null);
    }

    /** A page as DynamoDB answers it. */
    public ReadPageOutput(
            List<Map<String, AttributeValue>> items,
            Integer count,
            Integer scannedCount,
            Map<String, AttributeValue> lastEvaluatedKey,
            ConsumedCapacity consumedCapacity) {
        this(items, count, scannedCount, lastEvaluatedKey, consumedCapacity, null, null, null);
    }
}
