package io.partita.storage.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partita.storage.capacity.HotKeyTracker.Contributor;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Space-Saving's guarantees hold for any skewed stream of weighted keys: heavy hitters are never lost, estimates
 * bracket the true weight, memory stays bounded and no weight goes missing.
 */
class HotKeyTrackerProperties {
    /** Rounding slack: weights with two decimals do not add exactly in binary, and the sketch sums in another order. */
    private static final double TOLERANCE = 1e-9;

    record Event(String key, double weight) {}

    /**
     * A few hot keys, a warm middle and a long cold tail (53 keys against capacities of at most 12), so evictions are
     * frequent and the heavy hitters are real.
     */
    @Provide
    Arbitrary<List<Event>> streams() {
        Arbitrary<String> keys = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(names("hot", 3))),
                Tuple.of(3, Arbitraries.of(names("warm", 10))),
                Tuple.of(1, Arbitraries.of(names("cold", 40))));
        Arbitrary<Double> weights = Arbitraries.doubles().between(0.01, 10).ofScale(2);
        return Combinators.combine(keys, weights).as(Event::new).list().ofMaxSize(400);
    }

    private static List<String> names(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i).collect(Collectors.toList());
    }

    private static Map<String, Double> trueWeights(List<Event> events) {
        Map<String, Double> weights = new HashMap<>();
        events.forEach(e -> weights.merge(e.key(), e.weight(), Double::sum));
        return weights;
    }

    private static HotKeyTracker feed(int capacity, List<Event> events) {
        HotKeyTracker tracker = new HotKeyTracker(capacity);
        events.forEach(e -> tracker.record(e.key(), e.weight()));
        return tracker;
    }

    @Property(tries = 1000)
    void everyKeyHeavierThanTotalOverCapacityIsReported(
            @ForAll("streams") List<Event> events, @ForAll @IntRange(min = 1, max = 12) int capacity) {
        HotKeyTracker tracker = feed(capacity, events);
        Map<String, Contributor> reported =
                tracker.top(capacity).stream().collect(Collectors.toMap(Contributor::key, c -> c));
        double threshold = tracker.totalWeight() / capacity;
        double minimum = reported.values().stream()
                .mapToDouble(Contributor::estimate)
                .min()
                .orElse(0);

        trueWeights(events).forEach((key, weight) -> {
            if (weight > threshold + TOLERANCE) {
                assertThat(reported)
                        .as("heavy hitter %s (%s > %s)", key, weight, threshold)
                        .containsKey(key);
            }
            if (!reported.containsKey(key)) {
                assertThat(weight).as("absent key %s", key).isLessThanOrEqualTo(minimum + TOLERANCE);
            }
        });
    }

    @Property(tries = 1000)
    void everyEstimateBracketsTheTrueWeight(
            @ForAll("streams") List<Event> events, @ForAll @IntRange(min = 1, max = 12) int capacity) {
        HotKeyTracker tracker = feed(capacity, events);
        Map<String, Double> truth = trueWeights(events);

        for (Contributor c : tracker.top(capacity)) {
            double trueWeight = truth.get(c.key());
            assertThat(c.maxError()).as("%s", c).isGreaterThanOrEqualTo(0);
            assertThat(c.estimate() - c.maxError()).as("%s", c).isLessThanOrEqualTo(trueWeight + TOLERANCE);
            assertThat(trueWeight).as("%s", c).isLessThanOrEqualTo(c.estimate() + TOLERANCE);
        }
    }

    @Property(tries = 500)
    void neverHoldsMoreThanCapacityKeys(
            @ForAll("streams") List<Event> events, @ForAll @IntRange(min = 1, max = 12) int capacity) {
        HotKeyTracker tracker = new HotKeyTracker(capacity);
        Set<String> seen = new HashSet<>();
        for (Event e : events) {
            tracker.record(e.key(), e.weight());
            seen.add(e.key());
            // Full as soon as enough distinct keys arrived, and never beyond.
            assertThat(tracker.top(Integer.MAX_VALUE)).hasSize(Math.min(seen.size(), capacity));
        }
    }

    @Property(tries = 1000)
    void totalWeightIsTheSumOfAllWeights(
            @ForAll("streams") List<Event> events, @ForAll @IntRange(min = 1, max = 12) int capacity) {
        HotKeyTracker tracker = feed(capacity, events);
        double sum = events.stream().mapToDouble(Event::weight).sum();

        assertThat(tracker.totalWeight()).isCloseTo(sum, within(TOLERANCE));
        double counters = tracker.top(capacity).stream()
                .mapToDouble(Contributor::estimate)
                .sum();
        assertThat(counters).isCloseTo(sum, within(TOLERANCE));
    }
}
