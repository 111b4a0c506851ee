package io.partita.storage.write;

import io.partita.storage.capacity.Throttle;
import io.partita.storage.item.WriteOutcome;

/**
 * What {@link ItemWrites#write} did: either it committed (or found nothing to change) and charged {@code units}, or
 * the item's partition refused the write ({@code throttle}), in which case nothing happened and nothing was charged.
 */
public record Written(WriteOutcome outcome, double units, Throttle throttle) {
    static Written throttled(Throttle t) {
        return new Written(null, 0, t);
    }

    public boolean throttled() {
        return throttle != null;
    }
}
