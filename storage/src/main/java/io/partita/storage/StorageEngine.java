package io.partita.storage;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.key.PartitionHash;
import io.partita.storage.partition.PartitionSplitter;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;

/**
 * The facade request handlers use: tables, and atomic reads and read-modify-writes of single items.
 *
 * <p>A write takes the item's stripe lock, reads the current image, asks the {@link ConditionalWrite} what to do, and
 * commits the item and its counter deltas in one WAL batch; the lock makes concurrent writes to one item serial.
 */
public final class StorageEngine implements AutoCloseable {
    private final RocksStore store;
    private final TableCatalog catalog;
    private final KeyLocks locks = new KeyLocks(4096);
    private final PartitionSplitter splitter;

    private StorageEngine(RocksStore store, StorageConfig config) {
        this.store = store;
        this.splitter = new PartitionSplitter(store);
        try {
            this.catalog = new TableCatalog(store, config.capacity(), splitter);
        } catch (RuntimeException e) {
            splitter.close();
            throw e;
        }
        splitter.attach(catalog);
    }

    public static StorageEngine open(StorageConfig config) {
        RocksStore store = RocksStore.open(config);
        try {
            return new StorageEngine(store, config);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public TableCatalog tables() {
        return catalog;
    }

    /** The item with {@code key}, or null. */
    public Map<String, AttributeValue> get(Table table, PrimaryKey key) {
        return get(table, ItemKeyEncoder.encode(table.metadata().keySchema(), key));
    }

    /** The item with the already encoded {@code key}, or null. */
    public Map<String, AttributeValue> get(Table table, ItemKeyEncoder.EncodedKey key) {
        byte[] v = store.get(table.items(), key.bytes());
        return v == null ? null : ItemCodec.decode(v);
    }

    /** Applies {@code write} to the item with {@code key} atomically; a rejection is thrown after nothing changed. */
    public WriteOutcome write(Table table, PrimaryKey key, ConditionalWrite write) {
        return write(table, ItemKeyEncoder.encode(table.metadata().keySchema(), key), write);
    }

    /** As {@link #write(Table, PrimaryKey, ConditionalWrite)}, for an already encoded key. */
    public WriteOutcome write(Table table, ItemKeyEncoder.EncodedKey encoded, ConditionalWrite write) {
        byte[] k = encoded.bytes();
        ReentrantLock lock = locks.lockFor(PartitionHash.of(k));
        lock.lock();
        try {
            byte[] oldBytes = store.get(table.items(), k);
            Map<String, AttributeValue> old = oldBytes == null ? null : ItemCodec.decode(oldBytes);
            WriteDecision decision = write.apply(old);
            if (decision instanceof WriteDecision.Reject reject) {
                throw reject.error();
            }
            long oldSize = old == null ? 0 : ItemSize.of(old);
            Map<String, AttributeValue> next = decision instanceof WriteDecision.Put put ? put.item() : null;
            if (next == null && old == null) {
                return new WriteOutcome(null, null, 0, 0);
            }
            long newSize = next == null ? 0 : ItemSize.of(next);
            long countDelta = (next == null ? 0 : 1) - (old == null ? 0 : 1);
            long sizeDelta = newSize - oldSize;
            store.write(batch -> {
                try {
                    if (next == null) {
                        batch.delete(table.items(), k);
                    } else {
                        batch.put(table.items(), k, ItemCodec.encode(next));
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("item write failed", e);
                }
                catalog.addStatsDelta(batch, table, countDelta, sizeDelta);
            });
            catalog.applied(table, countDelta, sizeDelta);
            if (sizeDelta != 0) {
                table.partitions().addSize(encoded.hash(), sizeDelta);
            }
            return new WriteOutcome(old, next, oldSize, newSize);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Calls {@code visitor} with each item whose key lies in {@code range}, in key order (or reverse), until it
     * returns false. Items are read from the live database; each one is as it was when its key was reached.
     */
    public void range(Table table, KeyRanges.Range range, boolean forward, ItemVisitor visitor) {
        store.range(
                table.items(),
                range.lower(),
                range.upper(),
                forward,
                (key, value) -> visitor.visit(key, ItemCodec.decode(value), value.length));
    }

    /** Receives one item of a range: its encoded key, the item, and its stored size; returns false to stop. */
    @FunctionalInterface
    public interface ItemVisitor {
        boolean visit(byte[] key, Map<String, AttributeValue> item, int storedBytes);
    }

    @Override
    public void close() {
        splitter.close();
        store.close();
    }
}
