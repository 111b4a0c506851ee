package io.partita.storage;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.ItemCache;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.key.ByteSink;
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
 * Recently used items are also kept in an {@link ItemCache}, which every write updates under the same lock after
 * its commit. Items must therefore change only through {@link #write}: the cache would not see a change made to the
 * items column family any other way.
 */
public final class StorageEngine implements AutoCloseable {
    /**
     * Each thread's buffer for the stored form of the item it is writing, reused rather than grown from 256 bytes and
     * copied out for every write. It keeps the capacity of the largest item its thread wrote, at most about 400 KB.
     */
    private static final ThreadLocal<ByteSink> ENCODED = ThreadLocal.withInitial(() -> new ByteSink(4096));

    private final RocksStore store;
    private final TableCatalog catalog;
    private final KeyLocks locks = new KeyLocks(4096);
    private final ItemCache cache;
    private final PartitionSplitter splitter;

    private StorageEngine(RocksStore store, StorageConfig config) {
        this.store = store;
        this.cache = new ItemCache(config.itemCacheBytes());
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
        ItemCache.Entry e = getStored(table, key);
        return e == null ? null : ItemCodec.decode(e.stored());
    }

    /**
     * The stored form of the item with {@code key} and its DynamoDB size, or null: from the {@link ItemCache} when it
     * is there, else from RocksDB, filling the cache under the item's lock so that a concurrent write cannot leave
     * an older value behind.
     */
    public ItemCache.Entry getStored(Table table, ItemKeyEncoder.EncodedKey key) {
        byte[] k = key.bytes();
        long keyHash = PartitionHash.of(k);
        ItemCache.Entry e = cache.get(table.cacheId(), k, keyHash);
        if (e != null && e.stored() != null) {
            return e;
        }
        if (!cache.enabled()) {
            return stored(store.get(table.items(), k), -1);
        }
        ReentrantLock lock = locks.lockFor(keyHash);
        lock.lock();
        try {
            e = cache.get(table.cacheId(), k, keyHash);
            if (e == null || e.stored() == null) {
                // Not cached, or only its size (as a write leaves it): read it, and keep the bytes for next time.
                e = stored(store.get(table.items(), k), e == null ? -1 : e.itemSize());
                if (e != null) {
                    cache.put(table.cacheId(), k, keyHash, e.stored(), e.itemSize());
                }
            }
            return e;
        } finally {
            lock.unlock();
        }
    }

    /** The entry for a stored value, sized by decoding it unless {@code knownSize} (≥ 0) is its size. */
    private static ItemCache.Entry stored(byte[] value, long knownSize) {
        if (value == null) {
            return null;
        }
        return new ItemCache.Entry(value, knownSize >= 0 ? knownSize : ItemSize.of(ItemCodec.decode(value)));
    }

    /** Applies {@code write} to the item with {@code key} atomically; a rejection is thrown after nothing changed. */
    public WriteOutcome write(Table table, PrimaryKey key, ConditionalWrite write) {
        return write(table, ItemKeyEncoder.encode(table.metadata().keySchema(), key), write);
    }

    /**
     * As {@link #write(Table, PrimaryKey, ConditionalWrite)}, for an already encoded key. A write that does not
     * {@linkplain ConditionalWrite#needsCurrent need the current image} gets null for it, and so does its outcome;
     * its size and existence still count.
     */
    public WriteOutcome write(Table table, ItemKeyEncoder.EncodedKey encoded, ConditionalWrite write) {
        byte[] k = encoded.bytes();
        long keyHash = PartitionHash.of(k);
        ReentrantLock lock = locks.lockFor(keyHash);
        lock.lock();
        try {
            // A cache entry means the item exists, and always knows its size; a blind write needs nothing more.
            ItemCache.Entry cached = cache.get(table.cacheId(), k, keyHash);
            boolean existed;
            long oldSize = 0;
            Map<String, AttributeValue> old = null;
            if (cached != null) {
                existed = true;
                oldSize = cached.itemSize();
                if (write.needsCurrent()) {
                    byte[] oldBytes = cached.stored() != null ? cached.stored() : store.get(table.items(), k);
                    old = ItemCodec.decode(oldBytes);
                }
            } else {
                byte[] oldBytes = store.get(table.items(), k);
                existed = oldBytes != null;
                if (existed) {
                    Map<String, AttributeValue> decoded = ItemCodec.decode(oldBytes);
                    oldSize = ItemSize.of(decoded);
                    old = write.needsCurrent() ? decoded : null;
                }
            }
            WriteDecision decision = write.apply(old);
            if (decision instanceof WriteDecision.Reject reject) {
                throw reject.error();
            }
            Map<String, AttributeValue> next = decision instanceof WriteDecision.Put put ? put.item() : null;
            if (next == null && !existed) {
                return new WriteOutcome(null, null, 0, 0);
            }
            long newSize = next == null ? 0 : ((WriteDecision.Put) decision).size();
            if (next != null && newSize < 0) {
                newSize = ItemSize.of(next);
            }
            long countDelta = (next == null ? 0 : 1) - (existed ? 1 : 0);
            long sizeDelta = newSize - oldSize;
            ByteSink nextBytes =
                    next == null ? null : ItemCodec.encode(next, ENCODED.get().clear());
            store.write(batch -> {
                try {
                    if (nextBytes == null) {
                        batch.delete(table.items(), k);
                    } else {
                        RocksStore.put(batch, table.items(), k, nextBytes);
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("item write failed", e);
                }
                catalog.addStatsDelta(batch, table, countDelta, sizeDelta);
            });
            // Committed: the cache follows, still under the lock. It keeps only the new size: holding the bytes of
            // every overwrite past a young collection made G1 copy them and then collect them from the old
            // generation (docs/PERFORMANCE.md); the next GetItem brings the bytes back.
            if (nextBytes == null) {
                cache.remove(table.cacheId(), k, keyHash);
            } else {
                cache.put(table.cacheId(), k, keyHash, null, newSize);
            }
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
