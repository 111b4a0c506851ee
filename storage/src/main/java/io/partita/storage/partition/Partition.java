package io.partita.storage.partition;

import io.partita.storage.capacity.PartitionThroughput;
import io.partita.storage.feed.FeedShard;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One partition of a table: a contiguous range of the 64-bit partition-key hash (unsigned, both ends inclusive), its
 * throughput budget and the size of the items in it.
 *
 * @see PartitionMap
 */
public final class Partition {
    private final PartitionThroughput throughput;
    private final AtomicLong sizeBytes;
    private final FeedShard shard;
    /** Set while a split of this partition is queued or running, so one is queued at a time. */
    final AtomicBoolean splitting = new AtomicBoolean();
    /** A size split found no cut that keeps every key whole; retry only once the partition has grown past this. */
    volatile long noSizeSplitBelow;
    /** Whether a split for more throughput made this partition (a raise of the table's), not one for size or heat. */
    private final boolean forThroughput;

    Partition(String id, long start, long end, String parentId, PartitionThroughput throughput, long sizeBytes) {
        this(id, start, end, parentId, throughput, sizeBytes, false);
    }

    Partition(
            String id,
            long start,
            long end,
            String parentId,
            PartitionThroughput throughput,
            long sizeBytes,
            boolean forThroughput) {
        this.throughput = throughput;
        this.sizeBytes = new AtomicLong(sizeBytes);
        this.shard = new FeedShard(id, start, end, parentId);
        this.forThroughput = forThroughput;
    }

    /** Whether a split for a raise of the table's throughput made this partition ({@link #forThroughput}). */
    public boolean forThroughput() {
        return forThroughput;
    }

    public String id() {
        return shard.partitionId();
    }

    /** First hash of the range, unsigned. */
    public long start() {
        return shard.start();
    }

    /** Last hash of the range, unsigned and inclusive. */
    public long end() {
        return shard.end();
    }

    /** The partition this one was split from, or null. */
    public String parentId() {
        return shard.parentId();
    }

    /** This partition's part of the change feed: its sequence numbers, closed when the partition splits. */
    public FeedShard shard() {
        return shard;
    }

    public PartitionThroughput throughput() {
        return throughput;
    }

    public long sizeBytes() {
        long v = sizeBytes.get();
        return frozen(v) ? 0 : v;
    }

    long addSize(long delta) {
        return sizeBytes.addAndGet(delta);
    }

    /** Far below any real size: a size that has it added is a split parent's, whose size went to its children. */
    private static final long FROZEN = Long.MIN_VALUE / 2;

    /** True for what {@link #addSize} returns on a partition a split has retired: the caller adds to a child. */
    static boolean frozen(long value) {
        return value < FROZEN / 2;
    }

    /**
     * Retires this partition's size: returns every byte added before, and makes later additions come back
     * {@link #frozen} so that their writers add them to the partition that now holds their key.
     */
    long freeze() {
        return sizeBytes.getAndAdd(FROZEN);
    }

    public boolean contains(long hash) {
        return Long.compareUnsigned(hash, start()) >= 0 && Long.compareUnsigned(hash, end()) <= 0;
    }

    /** The fraction of the whole hash space this partition covers. */
    public double width() {
        return (unsigned(end() - start()) + 1) / 0x1p64;
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
    }
}
