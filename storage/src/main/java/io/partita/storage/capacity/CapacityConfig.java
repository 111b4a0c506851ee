package io.partita.storage.capacity;

import java.time.Clock;
import java.util.function.Consumer;

/**
 * The throughput model's settings. The defaults are DynamoDB's documented figures.
 *
 * @param clock every refill, burst and heat measurement reads it, so tests can move time
 * @param partitionSizeLimitBytes a partition larger than this splits ("10 GB per partition", HowItWorks.Partitions)
 * @param burstSeconds unused capacity a partition may save up (DynamoDB keeps up to 300 s, "Burst capacity")
 * @param adaptiveCapacity let a hot partition use the table's unused capacity up to its ceiling
 * @param heatSplitMillis a partition consuming over {@code heatSplitFraction} of its ceiling this long splits for heat
 * @param tableReadQuota per-table read limit of the account, in units/s (on-demand; default 40,000)
 */
public record CapacityConfig(
        ThroughputMode mode,
        Clock clock,
        long partitionSizeLimitBytes,
        int burstSeconds,
        boolean adaptiveCapacity,
        double heatSplitFraction,
        long heatSplitMillis,
        long tableReadQuota,
        long tableWriteQuota) {

    /** DynamoDB's hard per-partition ceilings ("Partitions and data distribution"). */
    public static final double PARTITION_READ_CEILING = 3000;

    public static final double PARTITION_WRITE_CEILING = 1000;

    /** A new on-demand table serves up to 4,000 writes and 12,000 reads per second ("On-demand capacity mode"). */
    public static final double ON_DEMAND_INITIAL_READ = 12_000;

    public static final double ON_DEMAND_INITIAL_WRITE = 4_000;

    public static final long DEFAULT_PARTITION_SIZE = 10L * 1024 * 1024 * 1024;

    public static CapacityConfig defaults() {
        return new CapacityConfig(
                ThroughputMode.ENFORCE,
                Clock.systemUTC(),
                DEFAULT_PARTITION_SIZE,
                300,
                true,
                0.8,
                10 * 60_000L,
                40_000,
                40_000);
    }

    public CapacityConfig withMode(ThroughputMode m) {
        return with(c -> c.mode = m);
    }

    public CapacityConfig withClock(Clock clock) {
        return with(c -> c.clock = clock);
    }

    public CapacityConfig withPartitionSizeLimit(long bytes) {
        return with(c -> c.partitionSizeLimitBytes = bytes);
    }

    public CapacityConfig withHeatSplit(double fraction, long millis) {
        return with(c -> {
            c.heatSplitFraction = fraction;
            c.heatSplitMillis = millis;
        });
    }

    public CapacityConfig withAdaptiveCapacity(boolean on) {
        return with(c -> c.adaptiveCapacity = on);
    }

    public CapacityConfig withTableQuotas(long read, long write) {
        return with(c -> {
            c.tableReadQuota = read;
            c.tableWriteQuota = write;
        });
    }

    private CapacityConfig with(Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return new CapacityConfig(
                c.mode,
                c.clock,
                c.partitionSizeLimitBytes,
                c.burstSeconds,
                c.adaptiveCapacity,
                c.heatSplitFraction,
                c.heatSplitMillis,
                c.tableReadQuota,
                c.tableWriteQuota);
    }

    /** A mutable copy of every component, so each {@code with…} names only what it changes. */
    private static final class Copy {
        ThroughputMode mode;
        Clock clock;
        long partitionSizeLimitBytes;
        int burstSeconds;
        boolean adaptiveCapacity;
        double heatSplitFraction;
        long heatSplitMillis;
        long tableReadQuota;
        long tableWriteQuota;

        Copy(CapacityConfig c) {
            mode = c.mode;
            clock = c.clock;
            partitionSizeLimitBytes = c.partitionSizeLimitBytes;
            burstSeconds = c.burstSeconds;
            adaptiveCapacity = c.adaptiveCapacity;
            heatSplitFraction = c.heatSplitFraction;
            heatSplitMillis = c.heatSplitMillis;
            tableReadQuota = c.tableReadQuota;
            tableWriteQuota = c.tableWriteQuota;
        }
    }
}
