package io.partita.storage.partition;

import io.partita.storage.capacity.PartitionThroughput;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One partition of a table: a contiguous range of the 64-bit partition-key hash (unsigned, both ends inclusive), its
 * throughput budget and the size of the items in it.
 *
 * @see PartitionMap
 */
public final class Partition {
    private final String id;
    private final long start;
    private final long end;
    private final String parentId;
    private final PartitionThroughput throughput;
    private final AtomicLong sizeBytes;
    /** Set while a split of this partition is queued or running, so one is queued at a time. */
    final AtomicBoolean splitting = new AtomicBoolean();
    /** A size split found no cut that keeps every key whole; retry only once the partition has grown past this. */
    volatile long noSizeSplitBelow;

    Partition(String id, long start, long end, String parentId, PartitionThroughput throughput, long sizeBytes) {
        this.id = id;
        this.start = start;
        this.end = end;
        this.parentId = parentId;
        this.throughput = throughput;
        this.sizeBytes = new AtomicLong(sizeBytes);
    }

    public String id() {
        return id;
    }

    /** First hash of the range, unsigned. */
    public long start() {
        return start;
    }

    /** Last hash of the range, unsigned and inclusive. */
    public long end() {
        return end;
    }

    /** The partition this one was split from, or null. */
    public String parentId() {
        return parentId;
    }

    public PartitionThroughput throughput() {
        return throughput;
    }

    public long sizeBytes() {
        return sizeBytes.get();
    }

    long addSize(long delta) {
        return sizeBytes.addAndGet(delta);
    }

    public boolean contains(long hash) {
        return Long.compareUnsigned(hash, start) >= 0 && Long.compareUnsigned(hash, end) <= 0;
    }

    /** The fraction of the whole hash space this partition covers. */
    double width() {
        return (unsigned(end - start) + 1) / 0x1p64;
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
    }
}
