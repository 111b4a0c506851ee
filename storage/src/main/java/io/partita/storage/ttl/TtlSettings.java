package io.partita.storage.ttl;

/**
 * A table's Time to Live, as its metadata keeps it.
 *
 * @param attributeName the attribute holding each item's expiry, a Number of epoch seconds
 * @param enabled whether expired items are reaped
 * @param changedMillis when it was last enabled or disabled (DynamoDB refuses another change within an hour)
 * @param indexed whether every item written before TTL was enabled has its entry (the enabling scan has finished)
 */
public record TtlSettings(String attributeName, boolean enabled, long changedMillis, boolean indexed) {}
