package io.partita.bench.hotkey;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the server says happened during one step: the difference of two {@link MetricsSnapshot}s divided by the time
 * between them, for the capacity kind of the scenario's {@link Op}. All rates are per second.
 *
 * <p>Partitions are matched by id. A split may retire an id and create new ones: a new id counts from zero (its
 * counters started when it was created), a retired id drops out, and a counter that went backwards (an id reused
 * after a reset) counts from zero too. Both sets are kept, so a report can say why the partitions do not add up to
 * the table.
 *
 * @param partitionConsumed units/s per partition id present after the step, in the server's order
 * @param partitionSum the sum of {@code partitionConsumed}; equal to {@code tableConsumed} when nothing was lost
 * @param hotPartitionId the partition that consumed most, or null if the server lists no partitions
 */
public record StepRates(
        double seconds,
        double tableConsumed,
        double provisioned,
        double throttleEventsPerSecond,
        double throttledRequestsPerSecond,
        String hotPartitionId,
        double hotConsumed,
        double hotCeiling,
        double hotThrottleEventsPerSecond,
        Map<String, Double> partitionConsumed,
        double partitionSum,
        int partitionCount,
        long splits,
        Set<String> appeared,
        Set<String> vanished) {

    public StepRates {
        partitionConsumed = Collections.unmodifiableMap(new LinkedHashMap<>(partitionConsumed));
        appeared = Set.copyOf(appeared);
        vanished = Set.copyOf(vanished);
    }

    /** Rates from {@code before} to {@code after}, {@code seconds} apart, counting {@code op}'s kind of units. */
    public static StepRates between(MetricsSnapshot before, MetricsSnapshot after, double seconds, Op op) {
        if (!(seconds > 0)) throw new IllegalArgumentException("seconds must be positive: " + seconds);
        Map<String, MetricsSnapshot.Partition> old = new LinkedHashMap<>();
        for (MetricsSnapshot.Partition p : before.partitions()) old.put(p.partitionId(), p);

        Map<String, Double> consumed = new LinkedHashMap<>();
        Set<String> appeared = new TreeSet<>();
        MetricsSnapshot.Partition hot = null;
        double hotUnits = -1;
        long hotThrottles = 0;
        double sum = 0;
        for (MetricsSnapshot.Partition p : after.partitions()) {
            MetricsSnapshot.Partition b = old.get(p.partitionId());
            if (b == null) appeared.add(p.partitionId());
            double units = counterDelta(p.consumed(op), b == null ? 0 : b.consumed(op));
            consumed.put(p.partitionId(), units / seconds);
            sum += units;
            if (units > hotUnits) {
                hot = p;
                hotUnits = units;
                hotThrottles = (long) counterDelta(p.throttleEvents(op), b == null ? 0 : b.throttleEvents(op));
            }
        }
        Set<String> vanished = new TreeSet<>(old.keySet());
        vanished.removeAll(consumed.keySet());

        return new StepRates(
                seconds,
                counterDelta(after.consumed(op), before.consumed(op)) / seconds,
                after.provisioned(op),
                counterDelta(after.throttleEvents(op), before.throttleEvents(op)) / seconds,
                counterDelta(after.throttledRequests(), before.throttledRequests()) / seconds,
                hot == null ? null : hot.partitionId(),
                hot == null ? Double.NaN : hotUnits / seconds,
                hot == null ? Double.NaN : hot.ceiling(op),
                hot == null ? Double.NaN : hotThrottles / seconds,
                consumed,
                sum / seconds,
                after.partitionCount(),
                Math.max(0, after.partitionSplits() - before.partitionSplits()),
                appeared,
                vanished);
    }

    /** The increase of a cumulative counter; one that went backwards was reset, so all of {@code after} is new. */
    static double counterDelta(double after, double before) {
        return after >= before ? after - before : after;
    }

    /**
     * Things about the server's numbers that do not add up, for the report: partitions that do not sum to the table,
     * the table consuming more than the client's successful requests can explain, and partitions above their ceiling.
     *
     * @param clientUnitsPerSecond units/s that the requests the client saw succeed should have consumed
     */
    public List<String> inconsistencies(double clientUnitsPerSecond) {
        List<String> notes = new ArrayList<>();
        double tolerance = Math.max(1.0, 0.05 * Math.max(tableConsumed, partitionSum));
        if (Math.abs(partitionSum - tableConsumed) > tolerance) {
            notes.add(String.format(
                    Locale.ROOT,
                    "partitions sum to %.1f u/s but the table reports %.1f u/s%s",
                    partitionSum,
                    tableConsumed,
                    vanished.isEmpty() ? "" : " (partitions " + vanished + " vanished)"));
        }
        double clientTolerance = Math.max(1.0, 0.05 * Math.max(tableConsumed, clientUnitsPerSecond));
        if (Math.abs(tableConsumed - clientUnitsPerSecond) > clientTolerance) {
            notes.add(String.format(
                    Locale.ROOT,
                    "the table reports %.1f u/s consumed; the client's successful requests account for %.1f u/s",
                    tableConsumed,
                    clientUnitsPerSecond));
        }
        if (hotCeiling > 0 && hotConsumed > hotCeiling * 1.05) {
            notes.add(String.format(
                    Locale.ROOT,
                    "partition %s consumed %.1f u/s, above its ceiling of %.0f",
                    hotPartitionId,
                    hotConsumed,
                    hotCeiling));
        }
        return notes;
    }
}
