package io.partita.storage.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;

/**
 * The part of a table's items one store holds when the table is cut by hash ranges over several Raft groups ({@code
 * --cluster-partition-groups}, docs/CLUSTER.md): those whose partition key hashes ({@link
 * io.partita.storage.key.ItemKeyEncoder#partitionHash}, as the store places them) from {@code first} to {@code last},
 * both included, in unsigned order. Recorded in the table's metadata by the CreateTable of the group's own log, so
 * that every replica of the group refuses the same keys, whatever its node's record of the table's ranges says.
 *
 * <p>A range move (docs/CLUSTER.md, "Moving a range") changes it in two stores' logs. In the group that gives part of
 * its range, changes of the table's settings are refused from the move's start ({@code movingFrom}), while its items
 * are copied a first time and its writes go on; then writes of the hashes from {@code frozenFrom} on are refused too
 * (the items changed meanwhile copied again, as they are), then the range narrows to exclude them. The group that
 * takes them over holds them {@code receiving} until the copy is over: it refuses every request of a user meanwhile,
 * so that a replica that has not applied the whole copy never answers for those items.
 *
 * @param frozenFrom the first hash whose writes are refused (up to {@code last}), while a move copies them; or null
 * @param receiving whether a move is still copying the range's items here
 * @param movingFrom the first hash a move under way takes elsewhere (up to {@code last}), from its start: the table's
 *     settings are refused meanwhile ({@link #requireNotMoving}); {@code frozenFrom} once that is set; or null
 * @param copier while {@code receiving}, the copy whose pages are taken: each run of a move's copy names itself as it
 *     begins, so that the pages of one before it (a source's leader replaced, still sending) are refused; or null
 */
public record HashRange(long first, long last, Long frozenFrom, boolean receiving, Long movingFrom, Long copier) {
    public HashRange {
        if (Long.compareUnsigned(first, last) > 0) {
            throw new IllegalArgumentException(
                    "hash range " + Long.toUnsignedString(first) + " to " + Long.toUnsignedString(last));
        }
        if (frozenFrom != null
                && (Long.compareUnsigned(frozenFrom, first) <= 0 || !holdsHash(first, last, frozenFrom))) {
            throw new IllegalArgumentException("frozen from " + Long.toUnsignedString(frozenFrom) + " in " + first);
        }
        if (movingFrom != null
                && (Long.compareUnsigned(movingFrom, first) <= 0
                        || !holdsHash(first, last, movingFrom)
                        || (frozenFrom != null && !frozenFrom.equals(movingFrom)))) {
            throw new IllegalArgumentException("moving from " + Long.toUnsignedString(movingFrom) + " in " + first);
        }
    }

    /** A range whose move (if any) is as {@code frozenFrom} says: moving from where it is frozen from. */
    public HashRange(long first, long last, Long frozenFrom, boolean receiving) {
        this(first, last, frozenFrom, receiving, frozenFrom, null);
    }

    /**
     * The part of the whole hash space this range is ({@code 0 < share <= 1}): the part of the table's items, keys
     * hashing uniformly, and so of its budget, that its store serves.
     */
    public double share() {
        return Math.min(1, (unsigned(last) - unsigned(first) + 1) / 0x1p64);
    }

    /** {@code hash} as an unsigned number. */
    public static double unsigned(long hash) {
        return hash >= 0 ? hash : hash + 0x1p64;
    }

    /** What a move's copy of an item is refused with once the range it went to is no longer receiving. */
    public static final String NOT_RECEIVING = "not receiving";

    /** What a page of a copy is refused with once another copy of the range began ({@link #copier}). */
    public static final String OTHER_COPY = "another copy began";

    /** A range whose items are all served, read and written. */
    public HashRange(long first, long last) {
        this(first, last, null, false);
    }

    /** Whether the items whose partition key hashes to {@code hash} are in this range. */
    public boolean holds(long hash) {
        return holdsHash(first, last, hash);
    }

    private static boolean holdsHash(long first, long last, long hash) {
        return Long.compareUnsigned(first, hash) <= 0 && Long.compareUnsigned(hash, last) <= 0;
    }

    /** Whether writes of {@code hash} are refused while a move copies it elsewhere. */
    public boolean frozen(long hash) {
        return frozenFrom != null && Long.compareUnsigned(frozenFrom, hash) <= 0;
    }

    /**
     * This range with a move of the hashes from {@code from} to its end under way: the table's settings refused, the
     * writes still taken ({@link #movingFrom}).
     */
    public HashRange movingFrom(long from) {
        return new HashRange(first, last, frozenFrom, receiving, from, copier);
    }

    /** This range with no move begun ({@link #movingFrom}): a move given up before its fence. */
    public HashRange notMoving() {
        return new HashRange(first, last, frozenFrom, receiving, null, copier);
    }

    /** This range receiving the pages of copy {@code id} alone ({@link #copier}). */
    public HashRange copiedBy(long id) {
        return new HashRange(first, last, frozenFrom, receiving, movingFrom, id);
    }

    /** Whether a page of copy {@code id} (null: named none) is taken while this range receives. */
    public boolean takesCopy(Long id) {
        return receiving && java.util.Objects.equals(id, copier);
    }

    /** This range with the writes of the hashes from {@code from} to its end refused: a move's first fence. */
    public HashRange freezingFrom(long from) {
        return new HashRange(first, last, from, receiving, from, copier);
    }

    /** This range done receiving: its items are all here, and it serves them. */
    public HashRange received() {
        return new HashRange(first, last, frozenFrom, false, movingFrom, null);
    }

    /**
     * Refuses a read of a key of table {@code m} whose partition key hashes to {@code hash} when the table is cut by
     * ranges and this store does not serve that one: outside its range, or a range still receiving its items. A 503,
     * which the SDKs send again, and which the router sends to the range's group. Nothing was read or written. A table
     * kept whole ({@code hashRange} null) holds every key.
     */
    public static void require(TableMetadata m, long hash) {
        HashRange range = m.hashRange();
        if (range == null) {
            return;
        }
        if (!range.holds(hash)) {
            throw new ApiException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: this key of table " + m.name() + " is not in the hash range of the Raft group this"
                            + " request reached (its router's record of the table's ranges is behind); send it again");
        }
        if (range.receiving) {
            throw receiving(m);
        }
    }

    /**
     * Refuses a write as {@link #require} refuses a read, and one of a hash a move is copying elsewhere ({@link
     * #frozen}): a 503 while the move lasts; sent again once it is over, it goes to the range's new group.
     */
    public static void requireWritable(TableMetadata m, long hash) {
        require(m, hash);
        HashRange range = m.hashRange();
        if (range != null && range.frozen(hash)) {
            throw new ApiException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: this key of table " + m.name() + " is moving to another Raft group (its items are being"
                            + " copied); send it again in a moment");
        }
    }

    /**
     * Refuses a change of table {@code m}'s settings (UpdateTable, TTL, tags, Contributor Insights) while a range move
     * copies part of this store's range ({@link #movingFrom}, {@link #frozenFrom}): the move's new group made the table
     * as this store described it then, and would miss the change. DynamoDB's refusal of a change to a table being
     * updated.
     */
    public static void requireNotMoving(TableMetadata m) {
        HashRange range = m.hashRange();
        if (range != null && (range.movingFrom != null || range.frozenFrom != null)) {
            throw ApiException.resourceInUse("Attempt to change a resource which is still in use: a range of table "
                    + m.name() + " is moving to a new Raft group; try again once the move is over");
        }
    }

    /** The refusal of any request of a user by a store still receiving its range. */
    public static ApiException receiving(TableMetadata m) {
        return new ApiException(
                ErrorCode.SERVICE_UNAVAILABLE,
                "Partita: the Raft group this request reached is still receiving its range of table " + m.name()
                        + "; send it again");
    }
}
