package io.partita.storage.feed;

/**
 * Who made a change: DynamoDB Streams tells a user's write from a deletion by the TTL service (its record carries
 * {@code userIdentity} {@code {type: Service, principalId: dynamodb.amazonaws.com}}), and a transaction's writes are
 * told apart for its doubled capacity and its idempotency.
 */
public enum ChangeCause {
    /** A PutItem, UpdateItem, DeleteItem, BatchWriteItem or PartiQL write. */
    USER(1),
    /** The TTL service deleting an expired item. */
    TTL(2),
    /** One item of a TransactWriteItems. */
    TRANSACTION(3),
    /** An item a restore copies into its new table: not admitted or charged, its table or its GSIs. */
    RESTORE(4),
    /**
     * An item a range move copies into the Raft group that takes its hash range over, or deletes from the group that
     * gave it (docs/CLUSTER.md): not admitted or charged, and not refused outside the store's range (it is how the
     * items leave it).
     */
    MOVE(5);

    private final int code;

    ChangeCause(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }

    static ChangeCause of(int code) {
        for (ChangeCause c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        throw new IllegalStateException("unknown change cause " + code);
    }
}
