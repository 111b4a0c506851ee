package io.partita.protocol.message;

/** DynamoDB's {@code ConsumedCapacity} shape; {@code table} is only present for {@code INDEXES}. */
public record ConsumedCapacity(String tableName, Double capacityUnits, Capacity table) {
    /** DynamoDB's {@code Capacity} shape. */
    public record Capacity(Double capacityUnits) {}
}
