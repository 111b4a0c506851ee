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
 */
public record ReadPageOutput(
        List<Map<String, AttributeValue>> items,
        Integer count,
        Integer scannedCount,
        Map<String, AttributeValue> lastEvaluatedKey,
        ConsumedCapacity consumedCapacity,
        Map<String, AttributeValue> partitaLastScannedKey,
        Long partitaScannedBytes) {
    /** A page as DynamoDB answers it. */
    public ReadPageOutput(
            List<Map<String, AttributeValue>> items,
            Integer count,
            Integer scannedCount,
            Map<String, AttributeValue> lastEvaluatedKey,
            ConsumedCapacity consumedCapacity) {
        this(items, count, scannedCount, lastEvaluatedKey, consumedCapacity, null, null);
    }
}
