package io.partita.storage.write;

import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.Replication;
import io.partita.storage.rocks.RocksStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A stand-in for a Raft group, of one term, that applies each entry at once, except one it is told to hold back: that
 * one fails as an entry not committed in time does (its outcome unknown) and is applied later, before the next entry
 * or when the test says.
 */
final class LateReplication implements Replication {
    private final RocksStore store;
    private final AtomicBoolean holdBack = new AtomicBoolean();
    private final List<byte[]> heldBack = new ArrayList<>();
    private long index;

    LateReplication(RocksStore store) {
        this.store = store;
    }

    /** The next entry fails, its outcome unknown, and is applied later. */
    void holdBackNext() {
        holdBack.set(true);
    }

    /** Whether an entry is held back, not applied yet. */
    synchronized boolean holding() {
        return !heldBack.isEmpty();
    }

    /** Applies the entry held back, if any, as a group that commits it late does. */
    synchronized void applyHeldBack() {
        for (byte[] late : heldBack) {
            store.applyEntry(late, 1, ++index);
        }
        heldBack.clear();
    }

    @Override
    public synchronized void replicate(byte[] entry) {
        if (holdBack.getAndSet(false)) {
            heldBack.add(entry);
            throw new StorageUnavailableException("not committed in time", null, true);
        }
        applyHeldBack(); // the log's order: the entry held back first
        store.applyEntry(entry, 1, ++index);
    }

    @Override
    public long readBarrier() {
        return 1;
    }
}
