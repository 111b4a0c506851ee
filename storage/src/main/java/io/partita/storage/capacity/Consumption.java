package io.partita.storage.capacity;

import java.util.concurrent.atomic.LongAdder;

/**
 * Cumulative consumption and throttle counters of a table or a partition, in CloudWatch's vocabulary
 * ({@code ConsumedReadCapacityUnits}, {@code ReadThrottleEvents} …). Units are counted in halves so eventually
 * consistent reads add up exactly; {@link LongAdder}s keep concurrent requests from contending.
 */
public final class Consumption {
    private final LongAdder readHalfUnits = new LongAdder();
    private final LongAdder writeHalfUnits = new LongAdder();
    private final LongAdder readThrottles = new LongAdder();
    private final LongAdder writeThrottles = new LongAdder();

    void consumed(CapacityKind kind, double units) {
        (kind == CapacityKind.READ ? readHalfUnits : writeHalfUnits).add(Math.round(units * 2));
    }

    void throttled(CapacityKind kind, int events) {
        (kind == CapacityKind.READ ? readThrottles : writeThrottles).add(events);
    }

    public double consumedReadUnits() {
        return readHalfUnits.sum() / 2.0;
    }

    public double consumedWriteUnits() {
        return writeHalfUnits.sum() / 2.0;
    }

    public long readThrottleEvents() {
        return readThrottles.sum();
    }

    public long writeThrottleEvents() {
        return writeThrottles.sum();
    }
}
