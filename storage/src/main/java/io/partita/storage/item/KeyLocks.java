package io.partita.storage.item;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks that serialise read-modify-write cycles on one item. Two keys may share a stripe; that only costs
 * waiting, never correctness.
 */
public final class KeyLocks {
    private final ReentrantLock[] stripes;
    private final int mask;

    public KeyLocks(int stripes) {
        int n = Integer.highestOneBit(Math.max(1, stripes - 1)) << 1;
        this.stripes = new ReentrantLock[n];
        for (int i = 0; i < n; i++) {
            this.stripes[i] = new ReentrantLock();
        }
        this.mask = n - 1;
    }

    /**
     * Takes and releases every stripe in turn: once it returns, every write that held a stripe when it was called has
     * finished. A change of what writes must do (a table gaining a consumer of its changes) sets its flag first and
     * then calls this, so that no write that read the old flag is still running. Never call it on an event loop.
     */
    public void barrier() {
        for (ReentrantLock stripe : stripes) {
            stripe.lock();
            stripe.unlock();
        }
    }

    public ReentrantLock lockFor(long keyHash) {
        return stripes[stripeOf(keyHash)];
    }

    /**
     * The number of the stripe of {@code keyHash}. A writer that holds several items at once (a transaction) takes
     * their stripes in ascending number, so that two such writers never wait for each other in a circle.
     */
    public int stripeOf(long keyHash) {
        long h = keyHash ^ (keyHash >>> 29) ^ (keyHash >>> 47);
        return (int) h & mask;
    }

    public ReentrantLock stripe(int number) {
        return stripes[number];
    }
}
