package io.partita.storage.capacity;

import java.util.concurrent.atomic.LongAdder;

/**
 * A table's own budget, shared by its partitions, and its totals.
 *
 * <ul>
 *   <li>Provisioned: one bucket per kind at the provisioned rate, {@code burstSeconds} deep. A partition whose share is
 *       spent may still serve from it while the table as a whole has capacity left (adaptive capacity).
 *   <li>On-demand: a bucket per kind at twice the previous peak (never below the initial 12,000/4,000 units), the
 *       table's {@code OnDemandThroughput} maximum if set, and the account's per-table quota ("On-demand capacity
 *       mode", "Service quotas"). Each is one second deep.
 * </ul>
 *
 * A store that holds part of the table's partition-key hashes alone (a table cut by ranges over a cluster's groups,
 * docs/CLUSTER.md) has the whole table's budget, charged its own consumption as it happens and the other groups' as
 * they report it ({@link #chargeElsewhere}): a hot key in one group may take the table's unused capacity, and the
 * groups together no more than the table's.
 */
public final class TableThroughput {
    private final boolean onDemand;
    private final TokenBucket readTable;
    private final TokenBucket writeTable;
    private final TokenBucket readMax;
    private final TokenBucket writeMax;
    private final TokenBucket readQuota;
    private final TokenBucket writeQuota;
    private final Consumption consumption = new Consumption();
    /** What other stores holding the rest of the table's hashes consumed, charged here ({@link #chargeElsewhere}). */
    private final Consumption elsewhere = new Consumption();

    private final LongAdder throttledRequests = new LongAdder();
    private final HotKeyTracker accessed = new HotKeyTracker(256);
    private final HotKeyTracker throttled = new HotKeyTracker(256);
    private volatile boolean insights;

    private long peakSecond = -1;
    private double readThisSecond;
    private double writeThisSecond;
    private double readPeak;
    private double writePeak;
    /**
     * The one-second peaks that other stores holding the rest of the table's hashes reported of their own consumption,
     * by store ({@link #peakElsewhere}), at most {@link #MAX_PEAKS_ELSEWHERE}: the table's peak is taken to be their
     * sum with this store's.
     */
    private final java.util.Map<String, double[]> peaksElsewhere = new java.util.HashMap<>();

    static final int MAX_PEAKS_ELSEWHERE = 64;

    /**
     * @param readUnits provisioned RCU, or for on-demand tables the {@code MaxReadRequestUnits} (-1 or 0: none)
     */
    public TableThroughput(boolean onDemand, double readUnits, double writeUnits, CapacityConfig config) {
        long now = config.clock().millis();
        this.onDemand = onDemand;
        if (onDemand) {
            readTable = new TokenBucket(
                    CapacityConfig.ON_DEMAND_INITIAL_READ,
                    CapacityConfig.ON_DEMAND_INITIAL_READ,
                    CapacityConfig.ON_DEMAND_INITIAL_READ,
                    now);
            writeTable = new TokenBucket(
                    CapacityConfig.ON_DEMAND_INITIAL_WRITE,
                    CapacityConfig.ON_DEMAND_INITIAL_WRITE,
                    CapacityConfig.ON_DEMAND_INITIAL_WRITE,
                    now);
            readMax = readUnits > 0 ? new TokenBucket(readUnits, readUnits, readUnits, now) : null;
            writeMax = writeUnits > 0 ? new TokenBucket(writeUnits, writeUnits, writeUnits, now) : null;
            readQuota = new TokenBucket(config.tableReadQuota(), config.tableReadQuota(), config.tableReadQuota(), now);
            writeQuota =
                    new TokenBucket(config.tableWriteQuota(), config.tableWriteQuota(), config.tableWriteQuota(), now);
        } else {
            // A new table starts with its full burst allowance: DynamoDB lets new tables burst at once.
            double readBurst = readUnits * config.burstSeconds();
            double writeBurst = writeUnits * config.burstSeconds();
            readTable = new TokenBucket(readUnits, readBurst, readBurst, now);
            writeTable = new TokenBucket(writeUnits, writeBurst, writeBurst, now);
            readMax = null;
            writeMax = null;
            readQuota = null;
            writeQuota = null;
        }
    }

    public boolean onDemand() {
        return onDemand;
    }

    public TokenBucket table(CapacityKind kind) {
        return kind == CapacityKind.READ ? readTable : writeTable;
    }

    /** The on-demand maximum bucket, or null. */
    public TokenBucket max(CapacityKind kind) {
        return kind == CapacityKind.READ ? readMax : writeMax;
    }

    /** The account's per-table quota bucket (on-demand only), or null. */
    public TokenBucket quota(CapacityKind kind) {
        return kind == CapacityKind.READ ? readQuota : writeQuota;
    }

    /** Charges the table's buckets (with {@code reportOnly}, only those not already spent) and its counters. */
    public void consume(CapacityKind kind, double units, long nowMillis, boolean reportOnly) {
        table(kind).consume(units, nowMillis, reportOnly);
        consumption.consumed(kind, units);
        if (onDemand) {
            TokenBucket max = max(kind);
            if (max != null) {
                max.consume(units, nowMillis, reportOnly);
            }
            quota(kind).consume(units, nowMillis, reportOnly);
            trackPeak(kind, units, nowMillis);
        }
    }

    /**
     * Charges the table's buckets with {@code units} another store holding part of the table's hashes consumed (a
     * table cut by ranges over a cluster's groups), as {@link #consume} charges this store's (with {@code reportOnly},
     * only those not already spent), except that they are not counted as this store's consumption, nor towards its
     * peak: the other stores report theirs ({@link #peakElsewhere}), since units reported a while after they were
     * consumed, several at once, would make a peak that never was.
     */
    public void chargeElsewhere(CapacityKind kind, double units, long nowMillis, boolean reportOnly) {
        if (units <= 0) {
            return;
        }
        elsewhere.consumed(kind, units);
        table(kind).consume(units, nowMillis, reportOnly);
        if (onDemand) {
            TokenBucket max = max(kind);
            if (max != null) {
                max.consume(units, nowMillis, reportOnly);
            }
            quota(kind).consume(units, nowMillis, reportOnly);
        }
    }

    /**
     * An on-demand table's peak in another store {@code from} that holds part of its hashes: the highest one-second
     * consumption it has seen of its own ({@link #peaks}). The table takes up to double the sum of every store's
     * peaks, as it takes double its peak on a single node. A store's peaks never fall; past {@link
     * #MAX_PEAKS_ELSEWHERE} stores, a new one is left out.
     */
    public synchronized void peakElsewhere(String from, double read, double write, long nowMillis) {
        if (!onDemand) {
            return;
        }
        double[] was = peaksElsewhere.get(from);
        if (was == null && peaksElsewhere.size() >= MAX_PEAKS_ELSEWHERE) {
            return;
        }
        if (was != null && was[0] >= read && was[1] >= write) {
            return;
        }
        peaksElsewhere.put(from, new double[] {
            Math.max(read, was == null ? 0 : was[0]), Math.max(write, was == null ? 0 : was[1])
        });
        rescale(nowMillis);
    }

    /** This store's own one-second peaks of reads and writes so far (an on-demand table's; 0 for a provisioned one). */
    public synchronized double[] peaks() {
        return new double[] {readPeak, writePeak};
    }

    /** Sets the on-demand table's rate to double its peak (every store's, summed), never below the initial rate. */
    private void rescale(long nowMillis) {
        double read = readPeak;
        double write = writePeak;
        for (double[] p : peaksElsewhere.values()) {
            read += p[0];
            write += p[1];
        }
        double r = Math.max(CapacityConfig.ON_DEMAND_INITIAL_READ, 2 * read);
        double w = Math.max(CapacityConfig.ON_DEMAND_INITIAL_WRITE, 2 * write);
        readTable.reconfigure(r, r, nowMillis);
        writeTable.reconfigure(w, w, nowMillis);
    }

    /**
     * On-demand tables take up to double their previous peak at once ("Peak traffic and scaling properties"): the
     * table bucket's rate follows the highest one-second consumption seen so far.
     */
    private synchronized void trackPeak(CapacityKind kind, double units, long nowMillis) {
        long second = nowMillis / 1000;
        if (second != peakSecond) {
            if (readThisSecond > readPeak || writeThisSecond > writePeak) {
                readPeak = Math.max(readPeak, readThisSecond);
                writePeak = Math.max(writePeak, writeThisSecond);
                rescale(nowMillis);
            }
            peakSecond = second;
            readThisSecond = 0;
            writeThisSecond = 0;
        }
        if (kind == CapacityKind.READ) {
            readThisSecond += units;
        } else {
            writeThisSecond += units;
        }
    }

    public void reprovision(double read, double write, int burstSeconds, long nowMillis) {
        if (!onDemand) {
            readTable.reconfigure(read, read * burstSeconds, nowMillis);
            writeTable.reconfigure(write, write * burstSeconds, nowMillis);
        }
    }

    public void throttled(CapacityKind kind, int events) {
        consumption.throttled(kind, events);
        throttledRequests.increment();
    }

    /** What other stores holding the rest of the table's hashes consumed, as charged here since it came to be. */
    public Consumption elsewhere() {
        return elsewhere;
    }

    /** What this has consumed and how often it throttled, since it came to be. */
    public Consumption consumption() {
        return consumption;
    }

    public long throttledRequests() {
        return throttledRequests.sum();
    }

    /** Whether Contributor Insights is on, that is whether keys are counted at all. */
    public boolean insights() {
        return insights;
    }

    public void insights(boolean on) {
        if (on && !insights) {
            accessed.clear();
            throttled.clear();
        }
        insights = on;
    }

    public HotKeyTracker accessedKeys() {
        return accessed;
    }

    public HotKeyTracker throttledKeys() {
        return throttled;
    }
}
