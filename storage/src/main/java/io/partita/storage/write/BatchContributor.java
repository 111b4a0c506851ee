package io.partita.storage.write;

import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * One part of the batch that commits an item change: the item's row, the table's statistics, the change record
 * (which feeds indexes and streams), and, as those features land, LSI rows and the TTL entry. A feature adds a
 * contributor, not a write path: every change, whoever makes it, commits all of its parts atomically or none.
 *
 * <p>Both methods run under the item's lock, on the thread that makes the write, which may be an event loop: they
 * must not wait for anything.
 */
public interface BatchContributor {
    /** Adds this part's entries for {@code change} to {@code batch}, just before the batch commits. */
    void contribute(WriteBatch batch, ItemChange change) throws RocksDBException;

    /**
     * Called once the batch has ended, however it ended, for every contributor of the write, even if another's
     * {@link #contribute} or {@code finished} failed: in-memory state follows the commit here.
     */
    default void finished(ItemChange change, CommitOutcome outcome) {}
}
