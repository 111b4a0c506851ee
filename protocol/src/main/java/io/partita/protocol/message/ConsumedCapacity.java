package io.partita.protocol.message;

import java.util.Map;

/**
 * DynamoDB's {@code ConsumedCapacity} shape; {@code table} and the index maps are only present for {@code INDEXES}
 * (the maps only when an index was read or written).
 */
public record ConsumedCapacity(
        String tableName,
        Double capacityUnits,
        Capacity table,
        Map<String, Capacity> localSecondaryIndexes,
        Map<String, Capacity> globalSecondaryIndexes) {
    public ConsumedCapacity(String tableName, Double capacityUnits, Capacity table) {
        this(tableName, capacityUnits, table, null, null);
    }

    /** DynamoDB's {@code Capacity} shape. */
    public record Capacity(Double capacityUnits) {}
}
