package io.partita.storage.write;

import io.partita.storage.item.ItemCache;
import io.partita.storage.rocks.RocksStore;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The item itself: its row in the table's items column family, and, once that has committed, the {@link ItemCache}.
 * The cache keeps only the new size: holding the bytes of every overwrite past a young collection made G1 copy them
 * and then collect them from the old generation (docs/PERFORMANCE.md); the next GetItem brings the bytes back. On a
 * table that records its changes it keeps the bytes too: the next write needs the old image for its change record,
 * and reading it back from RocksDB's memtable cost more than the copy (docs/PERFORMANCE.md, "What recording costs").
 */
final class ItemRows implements BatchContributor {
    private final ItemCache cache;

    ItemRows(ItemCache cache) {
        this.cache = cache;
    }

    @Override
    public void contribute(WriteBatch batch, ItemChange change) throws RocksDBException {
        if (change.newStored() == null) {
            batch.delete(change.table().items(), change.key());
        } else {
            RocksStore.put(batch, change.table().items(), change.key(), change.newStored());
        }
    }

    @Override
    public void finished(ItemChange change, CommitOutcome outcome) {
        long table = change.table().cacheId();
        if (outcome == CommitOutcome.UNKNOWN) {
            // Its entry may still be applied, under no lock; until then (ItemWrites#unsettled) nothing fills the cache.
            cache.remove(table, change.key(), change.keyHash());
            return;
        }
        if (outcome != CommitOutcome.COMMITTED) {
            return;
        }
        if (change.newStored() == null) {
            cache.remove(table, change.key(), change.keyHash());
        } else {
            byte[] stored =
                    change.table().feed().recording() ? change.newStored().toByteArray() : null;
            cache.put(table, change.key(), change.keyHash(), stored, change.newSize());
        }
    }
}
