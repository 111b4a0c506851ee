package io.partita.server.fault;

import java.util.List;

/**
 * The faults a server starts with ({@code --fault}, {@code --fault-seed}).
 *
 * @param seed what rules without a seed of their own derive theirs from
 */
public record FaultPlan(long seed, List<FaultRule.Spec> rules) {
    public FaultPlan {
        rules = List.copyOf(rules);
    }

    /** No faults. */
    public static FaultPlan none() {
        return new FaultPlan(1, List.of());
    }

    /** Gives {@code injector} this plan's seed and rules. */
    public void install(FaultInjector injector) {
        injector.clear(seed);
        rules.forEach(injector::add);
    }
}
