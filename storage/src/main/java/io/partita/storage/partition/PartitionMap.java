package io.partita.storage.partition;

import io.partita.storage.feed.FeedShard;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A table's partitions: contiguous, non-overlapping ranges of the unsigned 64-bit key hash that together cover all
 * of it, in hash order. Immutable; a split makes a new map. Because item keys start with the hash, a partition is
 * also a contiguous range of RocksDB keys, so a split moves no data.
 *
 * <p>The map also holds the change-feed shards of partitions that have split and whose records the feed still keeps
 * ({@link #retired}), so that one read of the map gives every shard: a split moves its parent's shard from the
 * partitions to the retired ones in the same step, and a consumer never sees a child without its parent.
 */
public final class PartitionMap {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private final Partition[] partitions;
    private final List<FeedShard> retired;

    PartitionMap(List<Partition> partitions, List<FeedShard> retired) {
        this.partitions = partitions.toArray(new Partition[0]);
        this.retired = List.copyOf(retired);
        check();
    }

    private void check() {
        if (partitions.length == 0 || partitions[0].start() != 0 || partitions[partitions.length - 1].end() != -1L) {
            throw new IllegalArgumentException("partitions must cover the whole hash space");
        }
        for (int i = 1; i < partitions.length; i++) {
            if (partitions[i].start() != partitions[i - 1].end() + 1) {
                throw new IllegalArgumentException("partitions must be contiguous at " + partitions[i].id());
            }
        }
    }

    /** The partition whose range holds {@code hash}: a binary search on the range starts. */
    public Partition partitionFor(long hash) {
        int lo = 0;
        int hi = partitions.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Long.compareUnsigned(partitions[mid].start(), hash) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return partitions[lo];
    }

    public List<Partition> partitions() {
        return List.of(partitions);
    }

    public int size() {
        return partitions.length;
    }

    /** The ranges to persist. */
    public List<TablePartitions.PersistedPartition> persistable() {
        List<TablePartitions.PersistedPartition> out = new ArrayList<>(partitions.length);
        for (Partition p : partitions) {
            out.add(new TablePartitions.PersistedPartition(
                    p.id(), p.start(), p.end(), p.parentId(), p.forThroughput() ? Boolean.TRUE : null));
        }
        return out;
    }

    /** The retired shards to persist with the map. */
    public List<TablePartitions.PersistedPartition> persistableRetired() {
        List<TablePartitions.PersistedPartition> out = new ArrayList<>(retired.size());
        for (FeedShard s : retired) {
            out.add(new TablePartitions.PersistedPartition(s.partitionId(), s.start(), s.end(), s.parentId()));
        }
        return out;
    }

    /** The shards of split partitions the change feed still keeps, oldest first. */
    public List<FeedShard> retired() {
        return retired;
    }

    /** Every shard of the change feed: the retired ones, oldest first, then those of the partitions. */
    public List<FeedShard> shards() {
        List<FeedShard> all = new ArrayList<>(retired.size() + partitions.length);
        all.addAll(retired);
        for (Partition p : partitions) {
            all.add(p.shard());
        }
        return all;
    }

    /** This map with {@code parent} replaced by {@code left} and {@code right}, and its shard retired. */
    PartitionMap replace(Partition parent, Partition left, Partition right) {
        List<Partition> next = new ArrayList<>(partitions.length + 1);
        for (Partition p : partitions) {
            if (p == parent) {
                next.add(left);
                next.add(right);
            } else {
                next.add(p);
            }
        }
        List<FeedShard> r = new ArrayList<>(retired);
        r.add(parent.shard());
        return new PartitionMap(next, r);
    }

    /** This map without the retired {@code shard}. */
    PartitionMap forget(FeedShard shard) {
        List<FeedShard> r = new ArrayList<>(retired);
        r.remove(shard);
        return new PartitionMap(List.of(partitions), r);
    }

    /**
     * The hashes in {@code (first, last]} (unsigned) at which a split for size or heat cut a partition in two halves
     * that are both still partitions: each the first hash of a partition whose neighbour before it has the same parent.
     * A cut whose halves split again no longer shows; the cuts of a table's first partitions never do, nor those of a
     * split for a raise of the table's throughput ({@link Partition#forThroughput}).
     */
    public List<Long> splitCuts(long first, long last) {
        List<Long> out = new ArrayList<>();
        for (int i = 1; i < partitions.length; i++) {
            Partition p = partitions[i];
            if (p.parentId() != null
                    && !p.forThroughput()
                    && p.parentId().equals(partitions[i - 1].parentId())
                    && Long.compareUnsigned(p.start(), first) > 0
                    && Long.compareUnsigned(p.start(), last) <= 0) {
                out.add(p.start());
            }
        }
        return out;
    }

    /** The starts of {@code n} equal ranges over the hash space. */
    public static long[] evenStarts(int n) {
        long[] starts = new long[n];
        for (int i = 0; i < n; i++) {
            starts[i] = BigInteger.valueOf(i)
                    .multiply(TWO_TO_64)
                    .divide(BigInteger.valueOf(n))
                    .longValue();
        }
        return starts;
    }

    /** The middle of an unsigned range, the start of its upper half. */
    static long midpoint(long start, long end) {
        return start + ((end - start) >>> 1) + 1;
    }
}
