package io.partita.storage.index;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.BackgroundThreads;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.feed.FeedConsumer;
import io.partita.storage.feed.FeedFollower;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every GSI a lagging copy of its table, as DynamoDB does: each GSI is a consumer of its table's change feed
 * whose follower applies the changes in order, each page of them in one batch with the consumer's position, so every
 * change reaches the index exactly once across crashes ("Using global secondary indexes": "changes to the table data
 * are propagated to the global secondary indexes within a fraction of a second, under normal conditions").
 *
 * <ul>
 *   <li><b>Injected lag.</b> A GSI may hold changes back until they are a given age (the engine's default, or per
 *       index), so code can be tested against a stale index; {@link #await} applies everything regardless.
 *   <li><b>Capacity.</b> The applier charges each index write to the GSI's own partitions; a GSI in debt throttles its
 *       table's writes ({@code write.ItemWrites}).
 *   <li><b>Backfill.</b> A GSI created on a table with data first registers its consumer (changes from then on are
 *       kept for it), then copies every item, then applies the changes kept meanwhile while looking up what the copy
 *       already wrote, and becomes {@code ACTIVE} once it has caught up.
 * </ul>
 */
public final class GlobalIndexes implements TableCatalog.Opened, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GlobalIndexes.class);
    private static final String CONSUMER_PREFIX = "gsi:";
    private static final int BACKFILL_BATCH = 500;

    private final RocksStore store;
    private final ChangeFeed feed;
    private final Clock clock;
    private final ScheduledExecutorService background =
            Executors.newSingleThreadScheduledExecutor(BackgroundThreads.named("partita-gsi-backfill"));

    /** How long a backfill or deletion refused by the store (a full disk) waits before it tries again. */
    static final long RETRY_MILLIS = 1000;

    private volatile long defaultLagMillis;
    private volatile TableCatalog catalog;
    private volatile IndexRowWriter writer;
    private volatile boolean closed;
    private final List<Table> beforeAttach = new ArrayList<>();

    public GlobalIndexes(RocksStore store, ChangeFeed feed, Clock clock, long defaultLagMillis) {
        this.store = store;
        this.feed = feed;
        this.clock = clock;
        this.defaultLagMillis = defaultLagMillis;
    }

    /**
     * Completes the wiring once the catalog exists, and starts the GSIs of the tables it loaded (it tells this object
     * of them while it loads, before it can be attached).
     */
    public void attach(TableCatalog c) {
        List<Table> loaded;
        synchronized (this) {
            this.catalog = c;
            this.writer = new IndexRowWriter(store, c);
            loaded = List.copyOf(beforeAttach);
            beforeAttach.clear();
        }
        for (Table t : loaded) {
            opened(t);
        }
    }

    /** The lag every GSI without its own adds before applying a change, in milliseconds. */
    public long defaultLagMillis() {
        return defaultLagMillis;
    }

    public void defaultLagMillis(long millis) {
        this.defaultLagMillis = Math.max(0, millis);
    }

    private IndexRowWriter writer() {
        return writer;
    }

    @Override
    public void opened(Table t) {
        synchronized (this) {
            if (catalog == null) {
                beforeAttach.add(t);
                return;
            }
        }
        for (FeedConsumer c : t.feed().consumers()) {
            // A crash between registering a new GSI's consumer and storing the index leaves a consumer of nothing.
            if (c.name().startsWith(CONSUMER_PREFIX) && !consumesLiveIndex(t, c.name())) {
                try {
                    feed.unregister(t, c.name());
                } catch (StorageUnavailableException e) {
                    // Opened on a full disk: it only holds records back from trimming; the next start removes it.
                    log.debug("leaving consumer {} of {} until a restart: {}", c.name(), t, e.getMessage());
                }
            }
        }
        for (LiveIndex i : t.indexes().globals()) {
            start(t, i);
        }
    }

    private static boolean consumesLiveIndex(Table t, String consumer) {
        for (LiveIndex i : t.indexes().globals()) {
            if (i.definition().consumerName().equals(consumer)) {
                return true;
            }
        }
        return false;
    }

    private void start(Table t, LiveIndex i) {
        IndexDefinition d = i.definition();
        feed.register(t, d.consumerName(), null);
        if ("DELETING".equals(d.status())) {
            background.execute(() -> finishDelete(t, d.name()));
        } else if (d.backfilling()) {
            background.execute(() -> backfill(t, d.name()));
        } else {
            if ("CREATING".equals(d.status())) {
                // Copied before a restart, not yet caught up: everything the copy may hold is visible now.
                i.catchUpTarget(lastAssigned(t));
            }
            follow(t, i);
            if ("CREATING".equals(d.status())) {
                background.execute(() -> activateIfCaughtUp(t, d.name()));
            }
        }
    }

    /** The highest number each shard of {@code t} has handed out: every change numbered so far is at or below it. */
    private Map<String, Long> lastAssigned(Table t) {
        Map<String, Long> out = new HashMap<>();
        for (FeedShard s : feed.shards(t)) {
            out.put(s.partitionId(), s.lastAssigned());
        }
        return out;
    }

    /** Whether {@code t} is still the live table of its name (not deleted, perhaps created again). */
    private boolean live(Table t) {
        return !closed && catalog.find(t.metadata().name()) == t;
    }

    private void follow(Table t, LiveIndex i) {
        i.follower(feed.follow(t, i.definition().consumerName(), new Applier(t, i.name())));
    }

    /**
     * Creates GSI {@code d} on live table {@code tableName}: {@code CREATING} and backfilling at once, {@code ACTIVE}
     * once it holds every item and has caught up with the changes made meanwhile.
     *
     * @return the table's metadata with the index {@code CREATING}, taken before the backfill can finish
     */
    public TableMetadata create(Table t, IndexDefinition d) {
        IndexDefinition creating = d.withStatus("CREATING", true);
        // Registered first: every change from now on is kept for the index, so the copy cannot miss one.
        feed.register(t, creating.consumerName(), null);
        try {
            catalog.addIndex(t, creating);
        } catch (RuntimeException e) {
            feed.unregister(t, creating.consumerName());
            throw e;
        }
        // Taken before the backfill starts: a small table's backfill can finish before the caller describes it.
        TableMetadata created = t.metadata();
        background.execute(() -> backfill(t, creating.name()));
        return created;
    }

    /**
     * Deletes GSI {@code name}: {@code DELETING} at once, gone once its consumer and rows are.
     *
     * @return the table's metadata with the index {@code DELETING}, taken before the deletion can finish
     */
    public TableMetadata delete(Table t, String name) {
        LiveIndex i = t.indexes().find(name);
        if (i == null) {
            return t.metadata();
        }
        catalog.changeIndex(t, name, d -> d.withStatus("DELETING", false));
        TableMetadata deleting = t.metadata();
        background.execute(() -> finishDelete(t, name));
        return deleting;
    }

    private void finishDelete(Table t, String name) {
        LiveIndex i = t.indexes().find(name);
        if (i == null || !live(t)) {
            return;
        }
        try {
            feed.unregister(t, i.definition().consumerName());
            catalog.removeIndex(t, name);
        } catch (StorageUnavailableException e) {
            retryLater("deleting", t, name, e, () -> finishDelete(t, name));
        } catch (RuntimeException e) {
            log.warn(
                    "deleting index {} of {} failed; it stays DELETING until a restart",
                    name,
                    t.metadata().name(),
                    e);
        }
    }

    /** Copies every item of the table into the new index, then starts applying the changes kept meanwhile. */
    private void backfill(Table t, String name) {
        LiveIndex i = t.indexes().find(name);
        if (i == null || !live(t)) {
            return;
        }
        long started = System.nanoTime();
        try {
            clear(i);
            catalog.resetIndexStats(t, i.definition().id());
            long[] copied = {0};
            List<IndexRowWriter.RowChange> pending = new ArrayList<>();
            store.range(t.items(), null, null, true, (key, value) -> {
                Map<String, AttributeValue> item = ItemCodec.decode(value);
                IndexRowWriter.RowChange c = IndexRowWriter.plan(t, i, key, null, item, null);
                if (!c.isEmpty()) {
                    pending.add(c);
                }
                if (pending.size() >= BACKFILL_BATCH) {
                    copied[0] += flush(t, i, pending);
                }
                i.backfilled(i.backfilled() + 1);
                return live(t) && t.indexes().find(name) != null;
            });
            copied[0] += flush(t, i, pending);
            if (!live(t) || t.indexes().find(name) == null) {
                return;
            }
            // Every change the copy can hold has a number at or below these: until the index has applied them all
            // (looking rows up), it may not trust its rows; a change still in flight holds the watermark back.
            i.catchUpTarget(lastAssigned(t));
            LiveIndex copiedAll = catalog.changeIndex(t, name, d -> d.withStatus(d.status(), false));
            if (copiedAll == null) {
                return;
            }
            follow(t, copiedAll);
            copiedAll.follower().drain();
            activateIfCaughtUp(t, name);
            log.info(
                    "backfilled index {} of {}: {} entries from {} items in {} ms",
                    name,
                    t.metadata().name(),
                    copied[0],
                    i.backfilled(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (StorageUnavailableException e) {
            // Started over from the first item: the copy is idempotent (it clears the index's rows first).
            retryLater("backfilling", t, name, e, () -> backfill(t, name));
        } catch (RuntimeException e) {
            log.warn(
                    "backfilling index {} of {} failed; it stays CREATING until a restart",
                    name,
                    t.metadata().name(),
                    e);
        }
    }

    /**
     * Runs {@code again} after {@link #RETRY_MILLIS}: the store refused a write for want of disk (it said why, once,
     * in its own log line) and accepts writes again by itself once space returns.
     */
    private void retryLater(String what, Table t, String name, StorageUnavailableException e, Runnable again) {
        log.debug(
                "{} index {} of {} refused by the store; trying again in {} ms",
                what,
                name,
                t.metadata().name(),
                RETRY_MILLIS,
                e);
        if (!closed) {
            try {
                background.schedule(again, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // The engine is closing; a restart resumes the index.
            }
        }
    }

    private long flush(Table t, LiveIndex i, List<IndexRowWriter.RowChange> pending) {
        if (pending.isEmpty()) {
            return 0;
        }
        store.write(batch -> {
            try {
                for (IndexRowWriter.RowChange c : pending) {
                    writer().write(batch, t, i, c);
                }
            } catch (RocksDBException e) {
                throw new StorageException("index backfill write failed", e);
            }
        });
        long n = pending.size();
        pending.clear();
        return n;
    }

    /** Deletes every row of an index (a backfill that starts again after a crash). */
    private void clear(LiveIndex i) {
        List<byte[]> keys = new ArrayList<>();
        store.range(i.family(), null, null, true, (k, v) -> {
            keys.add(k);
            return true;
        });
        for (int from = 0; from < keys.size(); from += BACKFILL_BATCH) {
            List<byte[]> part = keys.subList(from, Math.min(keys.size(), from + BACKFILL_BATCH));
            store.write(batch -> {
                try {
                    for (byte[] k : part) {
                        batch.delete(i.family(), k);
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("index clear failed", e);
                }
            });
        }
    }

    /**
     * Waits until every GSI of {@code t} has applied every change visible when it was called (and finished any
     * backfill or deletion), applying them at once, whatever lag is injected; false if {@code timeout} passed first.
     */
    public boolean await(Table t, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (LiveIndex i : t.indexes().globals()) {
            if (!await(t, i.name(), deadline)) {
                return false;
            }
        }
        return true;
    }

    private boolean await(Table t, String name, long deadline) {
        Map<String, Long> target = null;
        while (true) {
            LiveIndex i = t.indexes().find(name);
            if (i == null || !live(t)) {
                return true; // deleted, or its deletion has finished, or its table is gone
            }
            FeedFollower f = "DELETING".equals(i.definition().status()) ? null : i.follower();
            FeedConsumer c = t.feed().consumer(i.definition().consumerName());
            if (f != null && c != null) {
                if (target == null) {
                    target = visibleNow(t);
                }
                f.drain();
                LiveIndex now = t.indexes().find(name);
                if (reached(t, c, target)
                        && (now == null || "ACTIVE".equals(now.definition().status()))) {
                    return true;
                }
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            // A backfill still copying, or a split's parent shard still draining: look again shortly.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    private Map<String, Long> visibleNow(Table t) {
        Map<String, Long> out = new HashMap<>();
        for (FeedShard s : feed.shards(t)) {
            out.put(s.partitionId(), s.visible() - 1);
        }
        return out;
    }

    private boolean reached(Table t, FeedConsumer c, Map<String, Long> target) {
        for (FeedShard s : feed.shards(t)) {
            Long want = target.get(s.partitionId());
            if (want != null && c.position(s) < want && !c.read(s, 1).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** A GSI's replication state: how far behind it is, and how long its changes took to arrive. */
    public record Lag(
            String index,
            String status,
            long oldestUnappliedMillis,
            long backlog,
            long appliedChanges,
            long p50Millis,
            long p99Millis,
            long maxMillis,
            long injectedLagMillis,
            long backfilledItems) {}

    /** The replication state of every GSI of {@code t}. */
    public List<Lag> lag(Table t) {
        List<Lag> out = new ArrayList<>();
        long now = clock.millis();
        for (LiveIndex i : t.indexes().globals()) {
            FeedConsumer c = t.feed().consumer(i.definition().consumerName());
            long oldest = 0;
            long backlog = 0;
            if (c != null) {
                for (FeedShard s : feed.shards(t)) {
                    long behind = s.visible() - 1 - c.position(s);
                    if (behind > 0) {
                        List<ChangeRecord> next = c.read(s, 1);
                        if (!next.isEmpty()) {
                            backlog += behind;
                            oldest = Math.max(oldest, now - next.get(0).timeMillis());
                        }
                    }
                }
            }
            var h = i.applyDelays();
            out.add(new Lag(
                    i.name(),
                    i.definition().status(),
                    oldest,
                    backlog,
                    h.getTotalCount(),
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99),
                    h.getMaxValue(),
                    i.lagMillis() >= 0 ? i.lagMillis() : defaultLagMillis,
                    i.backfilled()));
        }
        return out;
    }

    /** Applies one GSI's changes; one per index, called only by its follower, one pass at a time. */
    private final class Applier implements FeedFollower.BatchSink {
        private final Table table;
        private final String name;
        /** The index writes of the batch being built, charged to the GSI's partitions once it commits. */
        private final List<Charge> charges = new ArrayList<>();

        Applier(Table table, String name) {
            this.table = table;
            this.name = name;
        }

        @Override
        public int ready(FeedShard shard, List<ChangeRecord> page, boolean draining) {
            LiveIndex i = table.indexes().find(name);
            if (i == null) {
                return 0;
            }
            long lag = i.lagMillis() >= 0 ? i.lagMillis() : defaultLagMillis;
            if (draining || lag <= 0) {
                return page.size();
            }
            long cutoff = clock.millis() - lag;
            int n = 0;
            while (n < page.size() && page.get(n).timeMillis() <= cutoff) {
                n++;
            }
            return n;
        }

        @Override
        public void apply(FeedShard shard, List<ChangeRecord> records, WriteBatch batch) throws RocksDBException {
            charges.clear();
            LiveIndex i = table.indexes().find(name);
            if (i == null) {
                return;
            }
            // Catching up after a backfill: the copy may already hold a change's result, so look rows up (the batch's
            // own puts and deletes first, which the store does not see yet).
            boolean verify = "CREATING".equals(i.definition().status());
            Map<ByteBuffer, byte[]> written = verify ? new HashMap<>() : null;
            for (ChangeRecord r : records) {
                IndexRowWriter.RowChange c = IndexRowWriter.plan(
                        table, i, r.key(), r.oldImage(), r.newImage(), verify ? k -> lookup(i, written, k) : null);
                writer().write(batch, table, i, c);
                if (verify) {
                    if (c.deleteKey() != null) {
                        written.put(ByteBuffer.wrap(c.deleteKey()), null);
                    }
                    if (c.putKey() != null) {
                        written.put(ByteBuffer.wrap(c.putKey()), ItemCodec.encode(c.putEntry()));
                    }
                }
                if (c.units() > 0
                        && r.cause() != io.partita.storage.feed.ChangeCause.RESTORE
                        && r.cause() != io.partita.storage.feed.ChangeCause.MOVE) {
                    charges.add(new Charge(c.partitionHash(), c.units()));
                }
            }
        }

        private byte[] lookup(LiveIndex i, Map<ByteBuffer, byte[]> written, byte[] key) {
            ByteBuffer k = ByteBuffer.wrap(key);
            return written.containsKey(k) ? written.get(k) : store.get(i.family(), key);
        }

        @Override
        public void committed(FeedShard shard, List<ChangeRecord> records) {
            LiveIndex i = table.indexes().find(name);
            if (i == null) {
                return;
            }
            long now = clock.millis();
            for (ChangeRecord r : records) {
                i.applyDelays().recordValue(Math.min(3_600_000L, Math.max(0, now - r.timeMillis())));
            }
            TablePartitions p = i.partitions();
            for (Charge c : charges) {
                p.charge(p.partitionFor(c.hash()), CapacityKind.WRITE, c.units(), c.hash(), () -> "");
            }
            charges.clear();
            activateIfCaughtUp(table, name);
        }
    }

    /** One index write to charge: the row's partition hash and its units. */
    private record Charge(long hash, double units) {}

    /**
     * Makes a GSI that has finished its backfill {@code ACTIVE} once it has applied every change numbered by the end
     * of its copy ({@link LiveIndex#catchUpTarget}): only changes after those can be missing from what the copy wrote,
     * so from then on the index may trust its rows. A number is passed once the shard's watermark is past it (a write
     * still in flight below it holds the watermark, however far the others have gone) and nothing visible is unread.
     */
    private void activateIfCaughtUp(Table table, String name) {
        LiveIndex i = table.indexes().find(name);
        if (i == null
                || !"CREATING".equals(i.definition().status())
                || i.definition().backfilling()) {
            return;
        }
        FeedConsumer c = table.feed().consumer(i.definition().consumerName());
        Map<String, Long> target = i.catchUpTarget();
        if (c == null || target == null) {
            return;
        }
        for (FeedShard s : feed.shards(table)) {
            Long want = target.get(s.partitionId());
            if (want != null
                    && (s.visible() - 1 < want
                            || (c.position(s) < want && !c.read(s, 1).isEmpty()))) {
                return;
            }
        }
        catalog.changeIndex(
                table,
                name,
                d -> "CREATING".equals(d.status()) && !d.backfilling() ? d.withStatus("ACTIVE", false) : d);
    }

    @Override
    public void close() {
        closed = true;
        BackgroundThreads.stop(background);
    }
}
