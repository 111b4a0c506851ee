package io.partita.storage.capacity;

/**
 * One partition's budget and what it has consumed: a ceiling bucket per kind (3,000 RCU and 1,000 WCU per second,
 * one second deep, the hard limit of a DynamoDB partition) and a share bucket per kind (the partition's part of the
 * table's provisioned rate, {@code burstSeconds} deep, which is DynamoDB's burst capacity).
 *
 * <p>A store that holds part of the partition's hashes alone (a table cut by ranges over a cluster's groups, two of
 * which may share a partition cut across their ranges) has that part of its ceilings, {@code held}: the groups' parts
 * add up to one partition's. A GSI's partitions in such a store have the store's part of the table's hashes (each of
 * its items writes to any of them).
 *
 * <p>It also keeps the partition's heat: consumption per one-second window, and a weighted majority vote over the
 * partition-key hashes it serves (Boyer–Moore), so a split for heat can cut next to the key that makes it hot.
 */
public final class PartitionThroughput {
    private final TokenBucket readCeiling;
    private final TokenBucket writeCeiling;
    private final TokenBucket readShare;
    private final TokenBucket writeShare;
    private final Consumption consumption = new Consumption();
    /** The part of the partition's ceilings this store's copy has: 1 unless its hashes are cut over groups. */
    private volatile double held;

    private long heatSecond = -1;
    private double heatRead;
    private double heatWrite;
    private long hotSinceMillis = -1;
    private long candidateHash;
    private double candidateWeight;

    /**
     * @param readShare the partition's provisioned read rate (0 for on-demand tables, which have no share)
     * @param initialRead the read share bucket's starting balance
     */
    public PartitionThroughput(
            double readShare,
            double writeShare,
            int burstSeconds,
            double initialRead,
            double initialWrite,
            long nowMillis) {
        this(readShare, writeShare, burstSeconds, initialRead, initialWrite, 1, nowMillis);
    }

    /**
     * @param held the part of the partition's ceilings this copy has ({@code 0 < held <= 1})
     */
    public PartitionThroughput(
            double readShare,
            double writeShare,
            int burstSeconds,
            double initialRead,
            double initialWrite,
            double held,
            long nowMillis) {
        double read = CapacityConfig.PARTITION_READ_CEILING * held;
        double write = CapacityConfig.PARTITION_WRITE_CEILING * held;
        this.held = held;
        this.readCeiling = new TokenBucket(read, read, read, nowMillis);
        this.writeCeiling = new TokenBucket(write, write, write, nowMillis);
        this.readShare = new TokenBucket(readShare, readShare * burstSeconds, initialRead, nowMillis);
        this.writeShare = new TokenBucket(writeShare, writeShare * burstSeconds, initialWrite, nowMillis);
    }

    public TokenBucket ceiling(CapacityKind kind) {
        return kind == CapacityKind.READ ? readCeiling : writeCeiling;
    }

    public TokenBucket share(CapacityKind kind) {
        return kind == CapacityKind.READ ? readShare : writeShare;
    }

    public void reshare(double read, double write, int burstSeconds, long nowMillis) {
        readShare.reconfigure(read, read * burstSeconds, nowMillis);
        writeShare.reconfigure(write, write * burstSeconds, nowMillis);
    }

    /** Gives this copy {@code held} of the partition's ceilings (a range move narrowed the hashes its store holds). */
    public void hold(double held, long nowMillis) {
        if (held == this.held) {
            return;
        }
        this.held = held;
        double read = CapacityConfig.PARTITION_READ_CEILING * held;
        double write = CapacityConfig.PARTITION_WRITE_CEILING * held;
        readCeiling.reconfigure(read, read, nowMillis);
        writeCeiling.reconfigure(write, write, nowMillis);
    }

    /** The part of the partition's ceilings this copy has. */
    public double held() {
        return held;
    }

    /**
     * Charges both buckets (with {@code reportOnly}, only those not already spent) and the counters; returns true when
     * the partition has been hot for {@code hotMillis}.
     */
    public boolean consume(
            CapacityKind kind,
            double units,
            long hash,
            long nowMillis,
            double hotFraction,
            long hotMillis,
            boolean reportOnly) {
        ceiling(kind).consume(units, nowMillis, reportOnly);
        share(kind).consume(units, nowMillis, reportOnly);
        consumption.consumed(kind, units);
        return heat(kind, units, hash, nowMillis, hotFraction, hotMillis);
    }

    public void throttled(CapacityKind kind) {
        consumption.throttled(kind, 1);
    }

    private synchronized boolean heat(
            CapacityKind kind, double units, long hash, long nowMillis, double hotFraction, long hotMillis) {
        if (candidateWeight <= 0 || candidateHash == hash) {
            candidateHash = hash;
            candidateWeight += units;
        } else {
            candidateWeight -= units;
        }
        long second = nowMillis / 1000;
        if (second != heatSecond) {
            // Hot against this copy's ceilings, which is as hot as the partition when keys hash uniformly.
            boolean wasHot = heatRead >= hotFraction * held * CapacityConfig.PARTITION_READ_CEILING
                    || heatWrite >= hotFraction * held * CapacityConfig.PARTITION_WRITE_CEILING;
            if (!wasHot || second != heatSecond + 1) {
                hotSinceMillis = -1;
            } else if (hotSinceMillis < 0) {
                hotSinceMillis = heatSecond * 1000;
            }
            heatSecond = second;
            heatRead = 0;
            heatWrite = 0;
        }
        if (kind == CapacityKind.READ) {
            heatRead += units;
        } else {
            heatWrite += units;
        }
        return hotSinceMillis >= 0 && nowMillis - hotSinceMillis >= hotMillis;
    }

    /** The partition-key hash that has drawn most of this partition's consumption lately. */
    public synchronized long hottestHash() {
        return candidateHash;
    }

    public synchronized void coolDown() {
        hotSinceMillis = -1;
    }

    /** What this has consumed and how often it throttled, since it came to be. */
    public Consumption consumption() {
        return consumption;
    }
}
