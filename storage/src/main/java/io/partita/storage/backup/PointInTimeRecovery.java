package io.partita.storage.backup;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.PitrSettings;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import io.partita.storage.write.ItemWrites;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Point-in-time recovery ("Point-in-time recovery for DynamoDB"): while it is enabled, the table's change feed keeps
 * every change for {@link #MAX_DAYS} days for a consumer of its own, {@code pitr}, that never reads (records
 * younger than a consumer's retention are kept, as a stream's are for 24 hours). A restore to time T copies the
 * table's items as they are now into the new table, then undoes every change made after T: for each item changed
 * since, its image before its first such change (none: the item did not exist) is the item at T. Copying first and
 * reading the feed after makes a change made during the copy undone as well, so the result is exact.
 */
public final class PointInTimeRecovery {
    /** The longest recovery period DynamoDB offers ({@code RecoveryPeriodInDays} 1 to 35). */
    public static final int MAX_DAYS = 35;

    static final String CONSUMER = "pitr";
    private static final int READ_BATCH = 1024;

    private final RocksStore store;
    private final TableCatalog catalog;
    private final ChangeFeed feed;
    private final ItemWrites writes;
    private final Clock clock;

    public PointInTimeRecovery(
            RocksStore store, TableCatalog catalog, ChangeFeed feed, ItemWrites writes, Clock clock) {
        this.store = store;
        this.catalog = catalog;
        this.feed = feed;
        this.writes = writes;
        this.clock = clock;
    }

    /**
     * Enables PITR on {@code t} with a recovery period of {@code days}, or changes the period of an enabled one; the
     * changes are kept from the first enable on. Never on an event loop (the feed's registration waits for writes).
     */
    public synchronized PitrSettings enable(Table t, int days) {
        PitrSettings current = t.metadata().pointInTimeRecovery();
        if (current != null && current.enabled()) {
            PitrSettings next = new PitrSettings(true, days, current.enabledMillis());
            catalog.update(t.metadata().name(), m -> m.withPointInTimeRecovery(next));
            return next;
        }
        // Kept for the longest period, whatever this one is: a later, longer period finds them.
        feed.register(t, CONSUMER, Duration.ofDays(MAX_DAYS));
        PitrSettings next = new PitrSettings(true, days, clock.millis());
        try {
            catalog.update(t.metadata().name(), m -> {
                // Under the catalog's lock: a move of a range of a table cut by ranges over a cluster's groups, which
                // gives up on a table with PITR (its new group would lack the moved items' past), may have begun.
                io.partita.storage.table.HashRange.requireNotMoving(m);
                return m.withPointInTimeRecovery(next);
            });
        } catch (RuntimeException e) {
            feed.unregister(t, CONSUMER);
            throw e;
        }
        return next;
    }

    /** Disables PITR on {@code t}: the changes it kept go with the next trim. */
    public synchronized PitrSettings disable(Table t) {
        PitrSettings current = t.metadata().pointInTimeRecovery();
        if (current != null && current.enabled()) {
            feed.unregister(t, CONSUMER);
        }
        PitrSettings next = new PitrSettings(false, current == null ? MAX_DAYS : current.recoveryPeriodDays(), 0);
        catalog.update(t.metadata().name(), m -> m.withPointInTimeRecovery(next));
        return next;
    }

    /** The earliest time {@code t} can be restored to: its enable time, or the start of its recovery period. */
    public long earliestMillis(Table t) {
        PitrSettings p = t.metadata().pointInTimeRecovery();
        return Math.max(
                p.enabledMillis(),
                clock.millis() - Duration.ofDays(p.recoveryPeriodDays()).toMillis());
    }

    /** The latest: now (every change is in the feed as it commits). */
    public long latestMillis() {
        return clock.millis();
    }

    /**
     * Creates table {@code target} and fills it with {@code source}'s items as they were at {@code atMillis}: of a
     * target that holds a hash range ({@link TableMetadata#hashRange}, one range of a table cut by ranges over a
     * cluster's groups), those of that range alone.
     */
    public Table restore(Table source, long atMillis, TableMetadata target) {
        return Restores.into(catalog, target, t -> {
            RestoreBatch batch = new RestoreBatch(writes);
            // The items now…
            store.forEach(source.items(), (key, value) -> {
                Map<String, AttributeValue> item = ItemCodec.decode(value);
                if (held(t, item)) {
                    batch.put(t, item);
                }
            });
            batch.flush(); // the next pass writes some of these items again
            // …then, for every item changed after atMillis, its image before the first such change.
            for (ChangeRecord r : firstChangesAfter(source, atMillis).values()) {
                Map<String, AttributeValue> before = r.oldImage();
                if (before != null && !held(t, before)) {
                    continue;
                }
                if (before != null) {
                    batch.put(t, before);
                } else if (r.newImage() != null && held(t, r.newImage())) {
                    batch.delete(t, r.newImage());
                }
            }
            batch.flush();
        });
    }

    /**
     * {@code source}'s items as they were at {@code atMillis}, by encoded key, in key order: for an export. Read the
     * same way as a restore (the items now, then the changes since undone), into memory.
     */
    public java.util.SortedMap<ByteBuffer, Map<String, AttributeValue>> itemsAt(Table source, long atMillis) {
        java.util.TreeMap<ByteBuffer, Map<String, AttributeValue>> items = new java.util.TreeMap<>();
        store.forEach(source.items(), (key, value) -> items.put(ByteBuffer.wrap(key), ItemCodec.decode(value)));
        firstChangesAfter(source, atMillis).forEach((key, r) -> {
            Map<String, AttributeValue> before = r.oldImage();
            if (before == null) {
                items.remove(key);
            } else {
                items.put(key, before);
            }
        });
        return items;
    }

    /** For each item changed after {@code atMillis}, its first such change, read from every shard of the feed. */
    private Map<ByteBuffer, ChangeRecord> firstChangesAfter(Table source, long atMillis) {
        Map<ByteBuffer, ChangeRecord> first = new HashMap<>();
        for (FeedShard shard : feed.shards(source)) {
            awaitVisible(shard);
            long after = -1;
            while (true) {
                List<ChangeRecord> records = feed.read(source, shard, after, READ_BATCH);
                if (records.isEmpty()) {
                    break;
                }
                for (ChangeRecord r : records) {
                    if (r.timeMillis() > atMillis) {
                        first.putIfAbsent(ByteBuffer.wrap(r.key()), r);
                    }
                    after = r.sequence();
                }
            }
        }
        return first;
    }

    /** Whether table {@code t} holds {@code item}'s hash: any, unless it holds a range. */
    private static boolean held(Table t, Map<String, AttributeValue> item) {
        io.partita.storage.table.HashRange range = t.metadata().hashRange();
        return range == null
                || range.holds(io.partita.storage.key.ItemKeyEncoder.partitionHash(
                        item.get(t.metadata().keySchema().partitionKey().name())));
    }

    /** Waits (a second at most) for the records of the writes already committed to become readable. */
    private static void awaitVisible(FeedShard shard) {
        long assigned = shard.lastAssigned();
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (shard.visible() <= assigned && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
    }
}
