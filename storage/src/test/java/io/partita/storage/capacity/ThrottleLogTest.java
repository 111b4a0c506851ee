package io.partita.storage.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThrottleLogTest {
    private final List<String> lines = new ArrayList<>();
    private final ThrottleLog log = new ThrottleLog("orders", lines::add);

    private void throttle(long at) {
        log.record("3", () -> "tenant-hot", CapacityKind.WRITE, List.of(Throttle.KEY_RANGE), at, true);
    }

    @Test
    void theFirstThrottleIsToldWithWhereToLookThenAtMostOneLineAMinute() {
        throttle(1_000);
        assertThat(lines)
                .singleElement()
                .asString()
                .contains("table orders throttled a write on partition 3 (key tenant-hot: KeyRangeThroughputExceeded)")
                .contains("/admin/metrics?table=orders", "/console/#/tables/orders/partitions", "--throughput");
        for (long t = 1_001; t < 61_000; t += 10) {
            throttle(t);
        }
        assertThat(lines).hasSize(1);
        throttle(61_000);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1))
                .isEqualTo("table orders: 6001 more throttle events in the last 60 s (the last on"
                        + " partition 3, key tenant-hot: KeyRangeThroughputExceeded)");
        throttle(61_500);
        assertThat(lines).hasSize(2);
    }

    @Test
    void theLastBurstIsSummedUpWithoutAnotherThrottle() {
        throttle(0);
        throttle(10);
        throttle(20);
        log.flush(30_000);
        assertThat(lines).hasSize(1);
        log.flush(60_000);
        assertThat(lines)
                .hasSize(2)
                .last()
                .asString()
                .startsWith("table orders: 2 more throttle events in the last 60 s");
        // Nothing new since: nothing more to say.
        log.flush(200_000);
        assertThat(lines).hasSize(2);
    }

    @Test
    void reportModeSaysTheRequestWentThrough() {
        log.record("0", () -> "k", CapacityKind.READ, List.of(Throttle.PROVISIONED), 0, false);
        assertThat(lines.get(0)).startsWith("table orders would have throttled a read on partition 0");
    }
}
