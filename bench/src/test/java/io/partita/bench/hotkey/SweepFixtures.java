package io.partita.bench.hotkey;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A made-up sweep shaped like the real thing: the hot partition caps at 1000 WCU/s and the rest is throttled. */
final class SweepFixtures {
    private SweepFixtures() {}

    static List<StepResult> sweep(double... shares) {
        List<StepResult> steps = new ArrayList<>();
        for (double share : shares) {
            double offered = 1500;
            double hotWanted = offered * share / 100;
            double hot = Math.max(Math.min(hotWanted, 1000), (offered - hotWanted) / 4);
            double throttledUnits = Math.max(0, hotWanted - 1000);
            double consumed = offered - throttledUnits;
            long throttled = Math.round(throttledUnits / 4 * 5);
            long ok = Math.round(consumed / 4 * 5);
            ClientCounts client = new ClientCounts(
                    5,
                    ok + throttled,
                    ok,
                    throttled,
                    0,
                    0,
                    0,
                    throttled == 0 ? Map.of() : Map.of("TableWriteKeyRangeThroughputExceeded", throttled),
                    Map.of());
            StepRates server = new StepRates(
                    5,
                    consumed,
                    2000,
                    throttled / 5.0,
                    throttled / 5.0,
                    "2",
                    hot,
                    1000,
                    throttled / 5.0,
                    Map.of("2", hot),
                    consumed,
                    4,
                    0,
                    Set.of(),
                    Set.of());
            steps.add(new StepResult(share, offered, 4, client, server));
        }
        return steps;
    }
}
