package io.partita.storage.partition;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A table's partitions: contiguous, non-overlapping ranges of the unsigned 64-bit key hash that together cover all
 * of it, in hash order. Immutable; a split makes a new map. Because item keys start with the hash, a partition is
 * also a contiguous range of RocksDB keys, so a split moves no data.
 */
public final class PartitionMap {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private final Partition[] partitions;

    PartitionMap(List<Partition> partitions) {
        this.partitions = partitions.toArray(new Partition[0]);
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

    /** This map with {@code parent} replaced by {@code left} and {@code right}. */
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
        return new PartitionMap(next);
    }

    /** The starts of {@code n} equal ranges over the hash space. */
    static long[] evenStarts(int n) {
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
