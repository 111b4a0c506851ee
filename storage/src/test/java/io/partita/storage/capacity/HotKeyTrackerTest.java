package io.partita.storage.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.storage.capacity.HotKeyTracker.Contributor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Space-Saving by hand: exact counts below capacity, eviction of the minimum, report order, reset. */
class HotKeyTrackerTest {

    @Test
    void countsExactlyWhileTheDistinctKeysFit() {
        HotKeyTracker tracker = new HotKeyTracker(3);
        tracker.record("a", 1);
        tracker.record("b", 2);
        tracker.record("a", 0.5);
        tracker.record("c", 4);

        assertThat(tracker.top(3))
                .containsExactly(new Contributor("c", 4, 0), new Contributor("b", 2, 0), new Contributor("a", 1.5, 0));
        assertThat(tracker.totalWeight()).isEqualTo(7.5);
    }

    @Test
    void aNewKeyReplacesTheMinimumAndInheritsItsCountAsError() {
        HotKeyTracker tracker = new HotKeyTracker(2);
        tracker.record("a", 5);
        tracker.record("b", 2);

        tracker.record("c", 1);

        assertThat(tracker.top(2)).containsExactly(new Contributor("a", 5, 0), new Contributor("c", 3, 2));
        assertThat(tracker.totalWeight()).isEqualTo(8);
    }

    @Test
    void anEvictedKeyComesBackWithTheNewMinimumAsError() {
        HotKeyTracker tracker = new HotKeyTracker(2);
        tracker.record("a", 5);
        tracker.record("b", 2);
        tracker.record("c", 1); // evicts b (2): c = 3 ± 2

        tracker.record("b", 1); // evicts c (3): b = 4 ± 3, although its true weight is 3

        assertThat(tracker.top(2)).containsExactly(new Contributor("a", 5, 0), new Contributor("b", 4, 3));
    }

    @Test
    void amongEqualMinimaTheGreatestKeyIsEvicted() {
        HotKeyTracker tracker = new HotKeyTracker(2);
        tracker.record("a", 1);
        tracker.record("b", 1);

        tracker.record("c", 1);

        assertThat(tracker.top(2)).containsExactly(new Contributor("c", 2, 1), new Contributor("a", 1, 0));
    }

    @Test
    void topOrdersByEstimateDescendingThenKeyAscending() {
        HotKeyTracker tracker = new HotKeyTracker(10);
        tracker.record("m", 2);
        tracker.record("z", 3);
        tracker.record("b", 2);
        tracker.record("a", 1);
        tracker.record("k", 3);

        assertThat(tracker.top(10)).extracting(Contributor::key).containsExactly("k", "z", "b", "m", "a");
        assertThat(tracker.top(3)).extracting(Contributor::key).containsExactly("k", "z", "b");
        assertThat(tracker.top(0)).isEmpty();
        assertThat(tracker.top(Integer.MAX_VALUE)).hasSize(5);
    }

    @Test
    void topIsASnapshotUnaffectedByLaterRecords() {
        HotKeyTracker tracker = new HotKeyTracker(2);
        tracker.record("a", 1);
        List<Contributor> before = tracker.top(2);

        tracker.record("a", 1);

        assertThat(before).containsExactly(new Contributor("a", 1, 0));
    }

    @Test
    void clearForgetsKeysAndTotal() {
        HotKeyTracker tracker = new HotKeyTracker(2);
        tracker.record("a", 5);
        tracker.record("b", 2);
        tracker.record("c", 1);

        tracker.clear();

        assertThat(tracker.top(2)).isEmpty();
        assertThat(tracker.totalWeight()).isZero();
        assertThat(tracker.capacity()).isEqualTo(2);
        tracker.record("d", 1);
        assertThat(tracker.top(2)).containsExactly(new Contributor("d", 1, 0));
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new HotKeyTracker(0)).isInstanceOf(IllegalArgumentException.class);
        HotKeyTracker tracker = new HotKeyTracker(1);
        for (double weight : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> tracker.record("a", weight)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> tracker.record(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> tracker.top(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(tracker.totalWeight()).isZero();
    }

    @Test
    void concurrentRecordsLoseNoWeight() throws Exception {
        HotKeyTracker tracker = new HotKeyTracker(8);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        tracker.record("k" + ((i * 7 + thread) % 20), 1);
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        List<Contributor> all = tracker.top(Integer.MAX_VALUE);
        assertThat(tracker.totalWeight()).isEqualTo(40_000);
        assertThat(all).hasSize(8);
        // Space-Saving's invariant: the counters always sum to the total weight.
        assertThat(all.stream().mapToDouble(Contributor::estimate).sum()).isEqualTo(40_000);
    }
}
