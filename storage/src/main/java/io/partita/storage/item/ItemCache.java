package io.partita.storage.item;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stored values of recently written and read items, by table and encoded key, so that GetItem and the old-image
 * read of a write do not search RocksDB's memtable skip list and SST files each time (a profile put that search at a
 * sixth of PutItem's event-loop time and a tenth of GetItem's).
 *
 * <p>RocksDB stays the only source of truth; the cache only holds copies, and it is kept coherent by its callers'
 * locking: every change of an item, and every fill after a miss, happens under that item's {@link KeyLocks} stripe,
 * after the change has committed. A lock-free hit therefore sees either the value before a concurrent write or the
 * one after it, never one that was never committed or that a commit has replaced.
 *
 * <p>It is bounded by an approximate byte budget (stored value, key and a fixed per-entry overhead) split over
 * segments, each a small access-ordered map evicting its least recently used entries.
 */
public final class ItemCache {
    /** Approximate JVM overhead of one entry: map node, key object, array headers. */
    static final int ENTRY_OVERHEAD = 96;

    private static final int SEGMENTS = 16;
    private static final AtomicLong NEXT_TABLE = new AtomicLong();

    private final Segment[] segments;
    private final long budgetBytes;

    /** A cache of about {@code budgetBytes}; 0 caches nothing. */
    public ItemCache(long budgetBytes) {
        this.budgetBytes = Math.max(0, budgetBytes);
        this.segments = new Segment[SEGMENTS];
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment(this.budgetBytes / SEGMENTS);
        }
    }

    /** A new id for a table's entries; a re-created table gets a new one, so it never sees the old table's values. */
    public static long newTableId() {
        return NEXT_TABLE.incrementAndGet();
    }

    public boolean enabled() {
        return budgetBytes > 0;
    }

    /** The cached value of the item, or null if it is not cached (it may still exist). */
    public Entry get(long table, byte[] key, long keyHash) {
        if (budgetBytes == 0) {
            return null;
        }
        Segment s = segment(keyHash);
        Key probe = new Key(table, key, keyHash);
        synchronized (s) {
            return s.map.get(probe);
        }
    }

    /** Caches {@code stored} (of DynamoDB size {@code itemSize}) as the item's value; the caller holds its lock. */
    public void put(long table, byte[] key, long keyHash, byte[] stored, long itemSize) {
        if (budgetBytes == 0) {
            return;
        }
        Segment s = segment(keyHash);
        Entry e = new Entry(stored, itemSize);
        long cost = cost(key, stored);
        if (cost > s.budget) {
            remove(table, key, keyHash);
            return;
        }
        synchronized (s) {
            Entry old = s.map.put(new Key(table, key, keyHash), e);
            s.bytes += cost - (old == null ? 0 : cost(key, old.stored));
            Iterator<Map.Entry<Key, Entry>> it = s.map.entrySet().iterator();
            while (s.bytes > s.budget && it.hasNext()) {
                Map.Entry<Key, Entry> eldest = it.next();
                s.bytes -= cost(eldest.getKey().key, eldest.getValue().stored);
                it.remove();
            }
        }
    }

    /** Forgets the item (deleted, or its new value is not cached); the caller holds its lock. */
    public void remove(long table, byte[] key, long keyHash) {
        if (budgetBytes == 0) {
            return;
        }
        Segment s = segment(keyHash);
        synchronized (s) {
            Entry old = s.map.remove(new Key(table, key, keyHash));
            if (old != null) {
                s.bytes -= cost(key, old.stored);
            }
        }
    }

    /** What the cache holds now, by its own accounting. */
    public long bytes() {
        long total = 0;
        for (Segment s : segments) {
            synchronized (s) {
                total += s.bytes;
            }
        }
        return total;
    }

    /** Number of cached items. */
    public int size() {
        int total = 0;
        for (Segment s : segments) {
            synchronized (s) {
                total += s.map.size();
            }
        }
        return total;
    }

    private Segment segment(long keyHash) {
        return segments[(int) (keyHash ^ (keyHash >>> 32)) & (SEGMENTS - 1)];
    }

    private static long cost(byte[] key, byte[] stored) {
        return ENTRY_OVERHEAD + key.length + stored.length;
    }

    /** A cached stored value and its DynamoDB item size. */
    public record Entry(byte[] stored, long itemSize) {}

    private static final class Segment {
        final long budget;
        final LinkedHashMap<Key, Entry> map = new LinkedHashMap<>(64, 0.75f, true);
        long bytes;

        Segment(long budget) {
            this.budget = budget;
        }
    }

    private static final class Key {
        final long table;
        final byte[] key;
        final int hash;

        Key(long table, byte[] key, long keyHash) {
            this.table = table;
            this.key = key;
            long h = keyHash * 0x9E3779B97F4A7C15L + table;
            this.hash = (int) (h ^ (h >>> 32));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && k.table == table && Arrays.equals(k.key, key);
        }
    }
}
