package io.partita.storage.capacity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Estimates the heaviest keys of one stream of weighted events (consumed or throttled capacity per key) for
 * Contributor Insights' "most accessed keys" and "most throttled keys".
 *
 * <p>It is the Space-Saving sketch of Metwally, Agrawal and El Abbadi ("Efficient Computation of Frequent and Top-k
 * Elements in Data Streams", ICDT 2005), extended to real weights. Exact per-key counting would grow with the key
 * space, which a table's traffic chooses, not us; Space-Saving keeps at most {@code capacity} counters whatever the
 * traffic, and still guarantees that:
 *
 * <ul>
 *   <li>the counters always sum to {@link #totalWeight()}, so the smallest is at most {@code total / capacity};
 *   <li>a key absent from the sketch has true weight at most that smallest counter, so every key heavier than
 *       {@code total / capacity} is present;
 *   <li>each {@link Contributor} overestimates by at most its {@link Contributor#maxError()}, the count it inherited
 *       when it replaced the smallest counter.
 * </ul>
 *
 * <p>The counters live in a {@link HashMap} (lookup) and a {@link TreeSet} ordered as {@link #top(int)} reports them
 * (largest estimate first, then key ascending), so {@link #record(String, double)} is O(log capacity): the minimum to
 * evict is the set's last element, and {@code top(k)} is its first {@code k}. When several counters share the
 * minimum, the one with the greatest key is evicted; any choice keeps the guarantees.
 *
 * <p>One monitor guards both structures. Each call holds it for O(log capacity), and striping would split the
 * global minimum the guarantees rest on into per-stripe minima with a weaker bound.
 */
public final class HotKeyTracker {
    /** Report order: estimate descending, then key ascending. Its last element is the counter to evict. */
    private static final Comparator<Contributor> REPORT_ORDER =
            Comparator.comparingDouble(Contributor::estimate).reversed().thenComparing(Contributor::key);

    private final int capacity;

    /** Guarded by {@code this}; always holds exactly the elements of {@link #ordered}. */
    private final Map<String, Contributor> byKey;

    /** Guarded by {@code this}. */
    private final TreeSet<Contributor> ordered = new TreeSet<>(REPORT_ORDER);

    /** Guarded by {@code this}. */
    private double totalWeight;

    /**
     * A key the sketch holds and how sure it is: the true weight lies in {@code [estimate - maxError, estimate]}.
     *
     * @param maxError zero while the key has been tracked since its first event; otherwise the count of the counter
     *     it replaced
     */
    public record Contributor(String key, double estimate, double maxError) {}

    /** @param capacity the most keys tracked at once; the error bound is {@code totalWeight / capacity} */
    public HotKeyTracker(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
        // Sized so the map never rehashes: it holds at most capacity entries.
        this.byKey = new HashMap<>((int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(capacity / 0.75)));
    }

    /**
     * Adds {@code weight} to {@code key}, evicting the smallest counter if {@code key} is new and the sketch is full.
     *
     * @param weight positive and finite, e.g. the capacity units one request consumed
     */
    public synchronized void record(String key, double weight) {
        Objects.requireNonNull(key, "key");
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be positive and finite: " + weight);
        }
        totalWeight += weight;
        Contributor current = byKey.get(key);
        Contributor next;
        if (current != null) {
            ordered.remove(current);
            next = new Contributor(key, current.estimate() + weight, current.maxError());
        } else if (byKey.size() < capacity) {
            next = new Contributor(key, weight, 0);
        } else {
            Contributor evicted = ordered.pollLast();
            byKey.remove(evicted.key());
            next = new Contributor(key, evicted.estimate() + weight, evicted.estimate());
        }
        ordered.add(next);
        byKey.put(key, next);
    }

    /** The {@code k} (or fewer) keys with the largest estimates, largest first, ties by key ascending. */
    public synchronized List<Contributor> top(int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k must not be negative: " + k);
        }
        List<Contributor> result = new ArrayList<>(Math.min(k, ordered.size()));
        Iterator<Contributor> it = ordered.iterator();
        while (result.size() < k && it.hasNext()) {
            result.add(it.next());
        }
        return List.copyOf(result);
    }

    /** The sum of every weight recorded since construction or the last {@link #clear()}, evicted keys included. */
    public synchronized double totalWeight() {
        return totalWeight;
    }

    /** Forgets every key and the total, e.g. at the start of a new Contributor Insights interval. */
    public synchronized void clear() {
        byKey.clear();
        ordered.clear();
        totalWeight = 0;
    }

    public int capacity() {
        return capacity;
    }
}
