package io.partita.storage.ttl;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.BackgroundThreads;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.ItemWrites;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.SynchronizedHistogram;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Time to Live: each table's setting, and the reaper that deletes expired items in the background, best effort, in
 * bounded batches, from the expiry-ordered entries the write path keeps ({@link TtlEntries}) — never a scan of the
 * table, except once to index the items a table held when TTL was enabled ("Using time to live"). A deletion goes
 * through the one write path as the TTL service ({@code ChangeCause.TTL}): indexes follow, the stream's REMOVE record
 * names the service, and no capacity is consumed. It deletes only if the item still expires when its entry says, so a
 * write that moved the expiry meanwhile wins. Expired items stay readable until reaped, as in DynamoDB.
 */
public final class TimeToLive implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TimeToLive.class);
    /** At most this many deletions per table per pass. */
    static final int BATCH = 1000;

    private final RocksStore store;
    private final TableCatalog catalog;
    private final ItemWrites writes;
    private final KeyLocks locks;
    private final Clock clock;
    private final ColumnFamilyHandle family;
    private final ScheduledExecutorService reaper =
            Executors.newSingleThreadScheduledExecutor(BackgroundThreads.named("partita-ttl-reaper"));
    private final Map<String, AtomicLong> deleted = new ConcurrentHashMap<>();
    /**
     * Where each table's next bounded pass starts, by table id: past the last entry of a pass that read a whole {@link
     * #BATCH} with entries a transaction holds among them (which stay), so that those never stop the passes short of
     * the entries after them; from the first entry again after any other pass.
     */
    private final Map<String, byte[]> resume = new java.util.HashMap<>();

    private final Map<String, SynchronizedHistogram> lateness = new ConcurrentHashMap<>();
    private volatile long delayMillis;
    /** How long after a change of a table's TTL another is refused: DynamoDB's hour. */
    private volatile long cooldownMillis = 3_600_000L;

    public TimeToLive(
            RocksStore store,
            TableCatalog catalog,
            ItemWrites writes,
            KeyLocks locks,
            Clock clock,
            long intervalMillis) {
        this.store = store;
        this.catalog = catalog;
        this.writes = writes;
        this.locks = locks;
        this.clock = clock;
        this.family = store.family(RocksStore.TTL);
        if (intervalMillis > 0) {
            reaper.scheduleWithFixedDelay(this::pass, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** An added delay before an expired item is reaped, to reproduce DynamoDB's late deletions. */
    public void delayMillis(long millis) {
        this.delayMillis = Math.max(0, millis);
    }

    public long delayMillis() {
        return delayMillis;
    }

    /** How long after a change of a table's TTL UpdateTimeToLive refuses another (DynamoDB: an hour). */
    public long cooldownMillis() {
        return cooldownMillis;
    }

    public void cooldownMillis(long millis) {
        this.cooldownMillis = Math.max(0, millis);
    }

    /**
     * Enables TTL on {@code t} by {@code attribute}: every write from now on keeps its item's entry, once the writes
     * in flight (which read the old setting) have left their locks; the items already there are indexed by the
     * reaper's next pass.
     */
    public void enable(Table t, String attribute) {
        long now = clock.millis();
        catalog.update(t.metadata().name(), m -> {
            // Under the catalog's lock, which a range move's fence takes: no change slips in after it.
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withTtl(new TtlSettings(attribute, true, now, false));
        });
        locks.barrier();
    }

    /** Disables TTL on {@code t}: nothing more is reaped, and its entries go. */
    public void disable(Table t) {
        long now = clock.millis();
        TtlSettings current = t.metadata().ttl();
        catalog.update(t.metadata().name(), m -> {
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withTtl(new TtlSettings(current.attributeName(), false, now, false));
        });
        // Writes in flight may still add an entry under the old setting: let them finish first.
        locks.barrier();
        dropEntries(t.metadata().id());
    }

    /** Deletes every TTL entry of the table with id {@code tableId} (TTL disabled, or the table deleted). */
    public void dropEntries(String tableId) {
        synchronized (this) {
            resume.remove(tableId);
        }
        byte[] from = TtlKeys.table(tableId);
        byte[] to = TtlKeys.tableEnd(tableId);
        store.write(batch -> {
            try {
                batch.deleteRange(family, from, to);
            } catch (RocksDBException e) {
                throw new StorageException("TTL entries removal failed", e);
            }
        });
    }

    private void pass() {
        try {
            for (Table t : catalog.snapshot().values()) {
                if (t.metadata().ttlEnabled()) {
                    try {
                        reap(t, false);
                    } catch (StorageUnavailableException e) {
                        // A full disk: the store said so once; the next pass tries again.
                        log.debug(
                                "TTL pass over {} refused by the store",
                                t.metadata().name(),
                                e);
                    } catch (RuntimeException e) {
                        log.warn(
                                "TTL pass over {} failed; trying again at the next",
                                t.metadata().name(),
                                e);
                    }
                }
            }
        } catch (RuntimeException e) {
            log.warn("TTL pass failed; trying again at the next", e);
        }
    }

    /** Reaps every table with TTL now, ignoring the added delay; returns how many items it deleted. */
    public synchronized long reapNow() {
        long n = 0;
        for (Table t : catalog.snapshot().values()) {
            if (t.metadata().ttlEnabled()) {
                resume.remove(t.metadata().id()); // from the first entry
                while (true) {
                    long[] batch = reapBatch(t, true);
                    n += batch[0];
                    if (batch[1] < BATCH) {
                        break; // every entry read (those of items a transaction holds stay, for a later pass)
                    }
                }
            }
        }
        return n;
    }

    /** One bounded pass over a table's expired entries; returns how many items it deleted. */
    synchronized long reap(Table t, boolean now) {
        return reapBatch(t, now)[0];
    }

    /**
     * One bounded pass, from where the last one stopped ({@link #resume}): how many items it deleted, and how many
     * entries it read (those of items a transaction holds are left for a later pass).
     */
    private synchronized long[] reapBatch(Table t, boolean now) {
        if (!t.metadata().ttl().indexed()) {
            index(t);
        }
        String id = t.metadata().id();
        String attribute = t.metadata().ttl().attributeName();
        long nowMillis = clock.millis();
        long through = (nowMillis - (now ? 0 : delayMillis)) / 1000;
        List<byte[]> entries = new ArrayList<>();
        // Expired: an expiry strictly before the current second ("the current time in epoch seconds is greater").
        store.range(family, resume.getOrDefault(id, TtlKeys.from(id, 0)), TtlKeys.from(id, through), true, (k, v) -> {
            entries.add(k);
            return entries.size() < BATCH;
        });
        int idLength = TtlKeys.table(id).length - 1;
        long reaped = 0;
        long held = 0;
        List<byte[]> stale = new ArrayList<>();
        for (byte[] entry : entries) {
            long expiry = TtlKeys.expiryOf(entry, idLength);
            byte[] itemKey = TtlKeys.itemKeyOf(entry, idLength);
            byte[] stored = store.get(t.items(), itemKey);
            Map<String, AttributeValue> item = stored == null ? null : ItemCodec.decode(stored);
            if (item == null || TtlKeys.expiry(item, attribute, nowMillis / 1000) != expiry) {
                stale.add(entry);
                continue;
            }
            PrimaryKey key = t.metadata().keySchema().keyOfItem(item);
            try {
                writes.write(ItemWrite.ttl(
                        t,
                        key,
                        current -> TtlKeys.expiry(current, attribute, nowMillis / 1000) == expiry
                                ? new WriteDecision.Delete()
                                : new WriteDecision.Reject(STALE)));
                reaped++;
                deleted.computeIfAbsent(id, x -> new AtomicLong()).incrementAndGet();
                lateness.computeIfAbsent(id, x -> new SynchronizedHistogram(3_600_000_000L, 2))
                        .recordValue(Math.min(3_600_000_000L, Math.max(0, nowMillis - expiry * 1000)));
            } catch (ApiException e) {
                if (e.code() == io.partita.protocol.error.ErrorCode.TRANSACTION_CONFLICT) {
                    held++; // a transaction holds the item: its entry stays, for a later pass
                    continue;
                }
                if (e != STALE) {
                    throw e;
                }
                stale.add(entry);
            }
        }
        if (!stale.isEmpty()) {
            store.write(batch -> {
                try {
                    for (byte[] k : stale) {
                        batch.delete(family, k);
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("stale TTL entries removal failed", e);
                }
            });
        }
        if (entries.size() == BATCH && held > 0) {
            byte[] last = entries.get(BATCH - 1);
            resume.put(id, java.util.Arrays.copyOf(last, last.length + 1)); // the first key after it
        } else {
            resume.remove(id); // the next pass from the first entry, where later entries with earlier times land
        }
        return new long[] {reaped, entries.size()};
    }

    /** The reaper's own rejection: the item was changed since its entry was read. Stackless. */
    private static final ApiException STALE = new ApiException(
            io.partita.protocol.error.ErrorCode.CONDITIONAL_CHECK_FAILED, "The item no longer expires then");

    /** Adds an entry for every item the table held when TTL was enabled, then marks it indexed. */
    private void index(Table t) {
        // Writes that read the setting before TTL was enabled must have committed before the scan starts.
        locks.barrier();
        String id = t.metadata().id();
        long changed = t.metadata().ttl().changedMillis();
        String attribute = t.metadata().ttl().attributeName();
        long now = clock.millis() / 1000;
        List<byte[]> pending = new ArrayList<>();
        store.range(t.items(), null, null, true, (k, v) -> {
            long expiry = TtlKeys.expiry(ItemCodec.decode(v), attribute, now);
            if (expiry >= 0) {
                pending.add(TtlKeys.entry(id, expiry, k));
            }
            if (pending.size() >= BATCH) {
                putEntries(pending);
            }
            return true;
        });
        putEntries(pending);
        catalog.update(
                t.metadata().name(),
                // Only if TTL was not switched meanwhile: a new setting gets its own scan.
                m -> m.ttl() == null
                                || m.ttl().changedMillis() != changed
                                || !m.ttl().enabled()
                        ? m
                        : m.withTtl(new TtlSettings(
                                m.ttl().attributeName(), true, m.ttl().changedMillis(), true)));
    }

    private void putEntries(List<byte[]> entries) {
        if (entries.isEmpty()) {
            return;
        }
        store.write(batch -> {
            try {
                for (byte[] k : entries) {
                    batch.put(family, k, new byte[0]);
                }
            } catch (RocksDBException e) {
                throw new StorageException("TTL entries write failed", e);
            }
        });
        entries.clear();
    }

    /** Items the reaper has deleted from the table with id {@code tableId} since the server started. */
    public long deletedCount(String tableId) {
        AtomicLong n = deleted.get(tableId);
        return n == null ? 0 : n.get();
    }

    /** How long after their expiry the table's items were deleted, in milliseconds; null before the first. */
    public SynchronizedHistogram lateness(String tableId) {
        return lateness.get(tableId);
    }

    @Override
    public void close() {
        BackgroundThreads.stop(reaper);
    }
}
