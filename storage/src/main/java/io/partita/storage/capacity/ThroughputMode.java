package io.partita.storage.capacity;

/** What Partita does when a request exceeds a throughput limit ({@code --throughput}). */
public enum ThroughputMode {
    /** Refuse it with DynamoDB's throttling error, as DynamoDB does. */
    ENFORCE,
    /** Serve it, but count it in the throttle metrics: shows what production would throttle. */
    REPORT,
    /** No limits and no accounting beyond the {@code ConsumedCapacity} of each answer. */
    OFF
}
