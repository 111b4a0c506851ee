package io.partita.storage.table;

/** A table's live item count and total item size in bytes (DynamoDB's item size formula). */
public record TableStats(long itemCount, long sizeBytes) {}
