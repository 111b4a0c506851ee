package io.partita.storage.item;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The DynamoDB sizes of recently written items and the stored values of recently read ones, by table and encoded
 * key, so that GetItem and the old-image read of a write do not search RocksDB's memtable skip list and SST files
 * each time (a profile put that search at a sixth of PutItem's event-loop time and a tenth of GetItem's). A write
 * needs only the old item's size and existence unless it has a condition or returns old values.
 *
 * <p>RocksDB stays the only source of truth; the cache only holds copies, and it is kept coherent by its callers'
 * locking: every change of an item, and every fill after a miss, happens under that item's {@link KeyLocks} stripe,
 * after the change has committed. A lock-free hit therefore sees either the value before a concurrent write or the
 * one after it, never one that was never committed or that a commit has replaced.
 *
 * <p>It is bounded by an approximate byte budget (stored value, key and a fixed per-entry overhead) split over
 * segments, each evicting with the CLOCK algorithm (second chance for entries read since they were last passed).
 * A hit only sets a boolean: an access-ordered map relinked old-generation entries on every read, and the dirty cards
 * that left for G1 to scan doubled its young pauses under a GetItem load (docs/PERFORMANCE.md). For the same reason
 * a cached item is changed in place rather than replaced.
 */
public final class ItemCache {
    /** Approximate JVM overhead of one entry: map node, key object, array headers. */
    static final int ENTRY_OVERHEAD = 96;

    private static final int SEGMENTS = 16;
    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(Node.class, "version", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final AtomicLong NEXT_TABLE = new AtomicLong();

    private final ConcurrentHashMap<Key, Node> map = new ConcurrentHashMap<>();
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

    /**
     * The cached value of the item, or null if it is not cached (it may still exist). Takes no lock: it reads the
     * node under its version (a seqlock), and a read that overlapped a change answers null, so the caller takes the
     * locked path.
     */
    public Entry get(long table, byte[] key, long keyHash) {
        if (budgetBytes == 0) {
            return null;
        }
        Node n = map.get(new Key(table, key, keyHash));
        if (n == null) {
            return null;
        }
        int v = (int) VERSION.getAcquire(n);
        if ((v & 1) != 0) {
            return null;
        }
        byte[] stored = n.stored;
        long size = n.size;
        VarHandle.loadLoadFence();
        if ((int) VERSION.getOpaque(n) != v) {
            return null;
        }
        if (!n.referenced) {
            n.referenced = true;
        }
        return new Entry(stored, size);
    }

    /**
     * Caches {@code stored} (of DynamoDB size {@code itemSize}) as the item's value, or only its size when
     * {@code stored} is null; the caller holds the item's lock. An item already cached is updated in place, with
     * primitive stores and null stores only when {@code stored} is null: an overwrite then creates no object and
     * dirties no card, which kept G1's young pauses from copying a new node per write (docs/PERFORMANCE.md).
     */
    public void put(long table, byte[] key, long keyHash, byte[] stored, long itemSize) {
        if (budgetBytes == 0) {
            return;
        }
        Segment s = segment(keyHash);
        long cost = cost(key, stored);
        Key k = new Key(table, key, keyHash);
        synchronized (s) {
            if (cost > s.budget) {
                s.drop(map.remove(k));
                return;
            }
            Node n = map.get(k);
            if (n != null) {
                s.bytes += cost - n.cost;
                n.cost = cost;
                int v = n.version;
                VERSION.setOpaque(n, v + 1);
                VarHandle.storeStoreFence();
                if (stored != null || n.stored != null) {
                    n.stored = stored;
                }
                n.size = itemSize;
                VERSION.setRelease(n, v + 2);
            } else {
                n = new Node(k, stored, itemSize, cost);
                map.put(k, n);
                s.bytes += cost;
                s.clock.addLast(n);
            }
            s.evict(map);
            s.compact();
        }
    }

    /** Forgets the item (deleted, or its new value is not cached); the caller holds its lock. */
    public void remove(long table, byte[] key, long keyHash) {
        if (budgetBytes == 0) {
            return;
        }
        Segment s = segment(keyHash);
        synchronized (s) {
            s.drop(map.remove(new Key(table, key, keyHash)));
            s.compact();
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

    /** Nodes in the clock queues, live or replaced: bounded by compaction. */
    int queued() {
        int total = 0;
        for (Segment s : segments) {
            synchronized (s) {
                total += s.clock.size();
            }
        }
        return total;
    }

    /** Number of cached items. */
    public int size() {
        return map.size();
    }

    private Segment segment(long keyHash) {
        return segments[(int) (keyHash ^ (keyHash >>> 32)) & (SEGMENTS - 1)];
    }

    private static long cost(byte[] key, byte[] stored) {
        return ENTRY_OVERHEAD + key.length + (stored == null ? 0 : stored.length);
    }

    /** A cached item: its DynamoDB size, and its stored value unless only the size is known (null). */
    public record Entry(byte[] stored, long itemSize) {}

    private static final class Node {
        final Key key;
        /** Even when stable, odd while a writer changes {@link #stored} and {@link #size}. */
        volatile int version;

        byte[] stored;
        long size;
        /** Guarded by the segment. */
        long cost;
        /** Read since the clock hand last passed it: a plain field, set without a lock (a lost update is harmless). */
        boolean referenced;
        /** Removed; skipped, and dropped from the clock queue when the hand reaches it. Guarded by the segment. */
        boolean dead;

        Node(Key key, byte[] stored, long size, long cost) {
            this.key = key;
            this.stored = stored;
            this.size = size;
            this.cost = cost;
        }
    }

    /** One part of the budget: its entries in CLOCK order. Guarded by its own monitor. */
    private static final class Segment {
        final long budget;
        final ArrayDeque<Node> clock = new ArrayDeque<>();
        long bytes;
        int dead;

        Segment(long budget) {
            this.budget = budget;
        }

        void drop(Node old) {
            if (old != null) {
                old.dead = true;
                bytes -= old.cost;
                dead++;
            }
        }

        /** Evicts until within budget; a referenced entry gets a second chance (so at most two passes). */
        void evict(ConcurrentHashMap<Key, Node> map) {
            while (bytes > budget && !clock.isEmpty()) {
                Node n = clock.pollFirst();
                if (n.dead) {
                    dead--;
                } else if (n.referenced) {
                    n.referenced = false;
                    clock.addLast(n);
                } else {
                    map.remove(n.key, n);
                    n.dead = true;
                    bytes -= n.cost;
                }
            }
        }

        /** Drops replaced entries from the queue once they outnumber the live ones, so overwrites cannot grow it. */
        void compact() {
            if (dead > 64 && dead > clock.size() / 2) {
                clock.removeIf(n -> n.dead);
                dead = 0;
            }
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
