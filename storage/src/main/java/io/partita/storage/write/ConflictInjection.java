package io.partita.storage.write;

import java.util.SplittableRandom;

/**
 * Conflicts on purpose: the share of transactions (TransactWriteItems, TransactGetItems, ExecuteTransaction) that are
 * cancelled with {@code TransactionConflict} as if another transaction held one of their items, so that code can be
 * tested against the retries DynamoDB makes it need. The choice comes from a generator seeded with {@code seed}: a
 * run with the same requests in the same order meets the same conflicts.
 *
 * @param rate the share of transactions cancelled, from 0 (none) to 1 (every one)
 */
public record ConflictInjection(double rate, long seed) {
    public static final ConflictInjection NONE = new ConflictInjection(0, 0);

    public ConflictInjection {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("a conflict rate is between 0 and 1: " + rate);
        }
    }

    /** The generator of one storage engine's choices. */
    Chooser chooser() {
        return new Chooser(this);
    }

    /** Which transactions meet a conflict, and on which of their items. */
    static final class Chooser {
        private final double rate;
        private final SplittableRandom random;

        private Chooser(ConflictInjection c) {
            this.rate = c.rate;
            this.random = new SplittableRandom(c.seed);
        }

        /** The index of the item a transaction of {@code items} items conflicts on, or -1 for none. */
        synchronized int conflictOn(int items) {
            if (rate == 0 || items == 0 || random.nextDouble() >= rate) {
                return -1;
            }
            return random.nextInt(items);
        }
    }
}
