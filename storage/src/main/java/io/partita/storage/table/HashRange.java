package io.partita.storage.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;

/**
 * The part of a table's items one store holds when the table is cut by hash ranges over several Raft groups ({@code
 * --cluster-partition-groups}, docs/CLUSTER.md): those whose partition key hashes ({@link
 * io.partita.storage.key.ItemKeyEncoder#partitionHash}, as the store places them) from {@code first} to {@code last},
 * both included, in unsigned order. Recorded in the table's metadata by the CreateTable of the group's own log, so
 * that every replica of the group refuses the same keys, whatever its node's record of the table's ranges says.
 */
public record HashRange(long first, long last) {
    public HashRange {
        if (Long.compareUnsigned(first, last) > 0) {
            throw new IllegalArgumentException(
                    "hash range " + Long.toUnsignedString(first) + " to " + Long.toUnsignedString(last));
        }
    }

    /** Whether the items whose partition key hashes to {@code hash} are in this range. */
    public boolean holds(long hash) {
        return Long.compareUnsigned(first, hash) <= 0 && Long.compareUnsigned(hash, last) <= 0;
    }

    /**
     * Refuses a request on a key of table {@code m} whose partition key hashes to {@code hash} when the table is cut
     * by ranges and this store does not hold that one: a 503, which the SDKs send again, and which the router sends
     * to the range's group. Nothing was read or written. A table kept whole ({@code hashRange} null) holds every key.
     */
    public static void require(TableMetadata m, long hash) {
        HashRange range = m.hashRange();
        if (range != null && !range.holds(hash)) {
            throw new ApiException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: this key of table " + m.name() + " is not in the hash range of the Raft group this"
                            + " request reached (its router's record of the table's ranges is behind); send it again");
        }
    }
}
