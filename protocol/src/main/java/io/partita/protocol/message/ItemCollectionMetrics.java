package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's {@code ItemCollectionMetrics}: the partition key of the collection a write touched, and an estimate of
 * its size in GB as a lower and an upper bound.
 */
public record ItemCollectionMetrics(Map<String, AttributeValue> itemCollectionKey, List<Double> sizeEstimateRangeGB) {
    private static final double GB = 1024.0 * 1024 * 1024;

    /** The metrics of a collection of {@code bytes}: the whole gigabytes below it and above it. */
    public static ItemCollectionMetrics of(String partitionKeyName, AttributeValue partitionKey, long bytes) {
        double low = Math.floor(bytes / GB);
        return new ItemCollectionMetrics(Map.of(partitionKeyName, partitionKey), List.of(low, low + 1));
    }
}
