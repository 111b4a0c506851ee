package io.partita.storage.write;

import io.partita.storage.capacity.Throttle;
import io.partita.storage.item.WriteOutcome;

/**
 * What {@link ItemWrites#write} did: either it committed (or found nothing to change) and charged {@code units}, or
 * the item's partition (or a GSI in debt) refused the write ({@code throttle}), in which case nothing happened and
 * nothing was charged. {@code units} includes the index writes; {@code indexUnits} divides them (null: no index).
 * {@code collectionBytes} is the size of the item's collection after the write on a table with LSIs, else -1.
 */
public record Written(
        WriteOutcome outcome, double units, Throttle throttle, IndexUnits indexUnits, long collectionBytes) {
    static Written throttled(Throttle t) {
        return new Written(null, 0, t, null, -1);
    }

    public boolean throttled() {
        return throttle != null;
    }
}
