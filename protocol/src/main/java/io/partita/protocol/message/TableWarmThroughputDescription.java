package io.partita.protocol.message;

/** DynamoDB's {@code TableWarmThroughputDescription}: what the table can serve at once, and whether that is changing. */
public record TableWarmThroughputDescription(Long readUnitsPerSecond, Long writeUnitsPerSecond, String status) {}
