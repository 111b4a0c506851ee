package io.partita.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.api.Test;

class HotKeyPredictionProperties {
    @Property
    void atThePredictedShareTheHotPartitionIsAskedForExactlyItsCeiling(
            @ForAll @DoubleRange(min = 1001, max = 40_000) double offered,
            @ForAll @DoubleRange(min = 0.0001, max = 0.9999) @Scale(6) double width) {
        HotKeyPrediction p = new HotKeyPrediction(offered, width, 1000);
        double at = p.throttleShare();
        assertThat(at).isBetween(0.0, 1.0);
        if (at > 0) {
            assertThat(p.demand(at)).isCloseTo(1000, within(1e-6 * offered));
            assertThat(p.demand(Math.max(0, at - 0.01))).isLessThan(1000 + 1e-6 * offered);
        } else {
            assertThat(p.demand(0)).isGreaterThan(1000);
        }
        assertThat(p.demand(Math.min(1, at + 0.01))).isGreaterThanOrEqualTo(p.demand(at));
    }

    @Property
    void aLoadOneCeilingCanServeNeverThrottles(
            @ForAll @DoubleRange(min = 1, max = 1000) double offered,
            @ForAll @DoubleRange(min = 0.0001, max = 1) @Scale(6) double width) {
        HotKeyPrediction p = new HotKeyPrediction(offered, width, 1000);
        assertThat(p.throttleShare()).isNaN();
        assertThat(p.demand(1)).isLessThanOrEqualTo(1000);
    }

    @Test
    void threeEqualPartitionsAt1500UnitsThrottleFromHalf() {
        // s·1500 + (1 − s)·500 = 1000 ⇒ s = 0.5: what the console's browser test sees on the real server.
        assertThat(new HotKeyPrediction(1500, 1.0 / 3, 1000).throttleShare()).isCloseTo(0.5, within(1e-9));
        // One partition: everything lands on it, past its ceiling from the first request.
        assertThat(new HotKeyPrediction(1500, 1, 1000).throttleShare()).isZero();
    }
}
