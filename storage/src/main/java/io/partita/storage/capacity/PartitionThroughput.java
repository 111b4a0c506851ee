package io.partita.storage.capacity;

/**
 * One partition's budget and what it has consumed: a ceiling bucket per kind (3,000 RCU and 1,000 WCU per second,
 * one second deep, the hard limit of a DynamoDB partition) and a share bucket per kind (the partition's part of the
 * table's provisioned rate, {@code burstSeconds} deep, which is DynamoDB's burst capacity).
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
        this.readCeiling = new TokenBucket(
                CapacityConfig.PARTITION_READ_CEILING,
                CapacityConfig.PARTITION_READ_CEILING,
                CapacityConfig.PARTITION_READ_CEILING,
                nowMillis);
        this.writeCeiling = new TokenBucket(
                CapacityConfig.PARTITION_WRITE_CEILING,
                CapacityConfig.PARTITION_WRITE_CEILING,
                CapacityConfig.PARTITION_WRITE_CEILING,
                nowMillis);
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
            boolean wasHot = heatRead >= hotFraction * CapacityConfig.PARTITION_READ_CEILING
                    || heatWrite >= hotFraction * CapacityConfig.PARTITION_WRITE_CEILING;
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
