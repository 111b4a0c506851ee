package io.partita.storage;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.FeedTrimmer;
import io.partita.storage.index.GlobalIndexes;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.ItemCache;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.key.PartitionHash;
import io.partita.storage.partition.PartitionSplitter;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.stream.TableStreams;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.ttl.TimeToLive;
import io.partita.storage.ttl.TtlEntries;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.ItemWrites;
import io.partita.storage.write.Written;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The facade request handlers use: tables, reads of single items and ranges, the one write path ({@link
 * #writes()}), and the change feed ({@link #feed()}).
 *
 * <p>Recently used items are kept in an {@link ItemCache}, which every write updates under the item's lock after its
 * commit. Items must therefore change only through {@link ItemWrites}: the cache and the feed would not see a change
 * made to the items column family any other way.
 */
public final class StorageEngine implements AutoCloseable {
    /** How long a checkpoint waits for the feed's trim before it flushes anyway. */
    private static final long CHECKPOINT_TRIM_WAIT_MILLIS = 100;

    private final RocksStore store;
    private final TableCatalog catalog;
    private final KeyLocks locks = new KeyLocks(4096);
    private final ItemCache cache;
    private final PartitionSplitter splitter;
    private final ChangeFeed feed;
    private final ItemWrites writes;
    private final FeedTrimmer trimmer;
    private final GlobalIndexes globalIndexes;
    private final TableStreams streams;
    private final TimeToLive ttl;
    private final io.partita.storage.backup.TableBackups backups;
    private final io.partita.storage.backup.PointInTimeRecovery pitr;
    private final java.nio.file.Path s3Root;
    private final java.nio.file.Path dataDir;
    private final Clock clock;
    /** Every few seconds: the throttle logs' summaries of bursts that ended (capacity.ThrottleLog). */
    /** Small periodic work: the throttle logs' summaries, and the forgetting of expired transaction tokens. */
    private final java.util.concurrent.ScheduledExecutorService housekeeping =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    BackgroundThreads.named("partita-housekeeping"));

    /** Whether {@link #close()} closes the store too; not when the store outlives the engine (cluster mode). */
    private final boolean ownsStore;

    /** Whether this engine only reads a replica that another node's engine changes ({@link #openReader}). */
    private final boolean reader;
    /** A reader's: the store's {@link RocksStore#catalogChanges} when it loaded its tables. */
    private final long catalogAtOpen;

    private StorageEngine(RocksStore store, StorageConfig config, boolean ownsStore, boolean reader) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.reader = reader;
        this.catalogAtOpen = store.catalogChanges();
        this.clock = config.capacity().clock();
        this.s3Root = config.s3Root();
        this.dataDir = config.inMemory() ? null : config.dataDir();
        // A reader's items change underneath it, as the replica applies the leader's entries: nothing is cached.
        this.cache = new ItemCache(reader ? 0 : config.itemCacheBytes());
        this.splitter = new PartitionSplitter(store);
        this.feed = new ChangeFeed(store, locks, config.capacity().clock());
        this.globalIndexes = new GlobalIndexes(store, feed, config.capacity().clock(), config.gsiLagMillis());
        try {
            this.catalog = reader
                    ? TableCatalog.reader(store, config.capacity(), feed)
                    : new TableCatalog(store, config.capacity(), splitter, feed, globalIndexes);
        } catch (RuntimeException e) {
            globalIndexes.close();
            splitter.close();
            throw e;
        }
        splitter.attach(catalog);
        catalog.writeBarrier(locks::barrier);
        globalIndexes.attach(catalog);
        this.streams = new TableStreams(feed, catalog, config.capacity().clock(), !reader);
        this.writes = new ItemWrites(
                store,
                locks,
                cache,
                catalog,
                feed.recorder(),
                new TtlEntries(store, config.capacity().clock()),
                config.itemCollectionLimitBytes(),
                config.transactionConflicts());
        if (!reader) {
            // Before anything is served: the items of transactions prepared here stay as they are until they end.
            writes.prepared().claimRecorded();
        }
        this.ttl = new TimeToLive(
                store, catalog, writes, locks, config.capacity().clock(), reader ? 0 : config.ttlIntervalMillis());
        this.backups = new io.partita.storage.backup.TableBackups(store, catalog, writes, clock, reader);
        this.pitr = new io.partita.storage.backup.PointInTimeRecovery(store, catalog, feed, writes, clock);
        this.trimmer = new FeedTrimmer(feed, () -> catalog.snapshot().values(), reader ? 0 : config.feedTrimMillis());
        if (!reader) {
            // Records consumed by then are deleted in the memtable, and the checkpoint's flush writes only the rest.
            store.beforeCheckpoint(() -> trimmer.trimSoon(CHECKPOINT_TRIM_WAIT_MILLIS));
        }
        housekeeping.scheduleWithFixedDelay(this::flushThrottleLogs, 5, 5, java.util.concurrent.TimeUnit.SECONDS);
        if (!reader) {
            housekeeping.scheduleWithFixedDelay(
                    this::forgetTokens, TOKEN_PASS_SECONDS, TOKEN_PASS_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** How often the records of expired transaction tokens are deleted. */
    private static final long TOKEN_PASS_SECONDS = 30;

    private void forgetTokens() {
        try {
            // Up to a million a pass: the tokens of 30 s at more than 30,000 transactions a second.
            writes.tokens().forget(clock.millis(), 1_000);
        } catch (RuntimeException e) {
            // A write refused (a cluster's replica that no longer leads, a store closing): the next pass tries again.
            org.slf4j.LoggerFactory.getLogger(StorageEngine.class).debug("forgetting transaction tokens", e);
        }
    }

    private void flushThrottleLogs() {
        try {
            long now = clock.millis();
            for (TableCatalog.Table t : catalog.snapshot().values()) {
                t.partitions().flushThrottleLog(now);
                for (io.partita.storage.index.LiveIndex i : t.indexes().globals()) {
                    if (i.partitions() != null) {
                        i.partitions().flushThrottleLog(now);
                    }
                }
            }
        } catch (RuntimeException e) {
            // A log line, not a reason to stop the next ones.
            org.slf4j.LoggerFactory.getLogger(StorageEngine.class).debug("throttle summaries", e);
        }
    }

    /** On-demand backups and their restores. */
    public io.partita.storage.backup.TableBackups backups() {
        return backups;
    }

    /** The directory that stands for S3 in exports and imports ({@link StorageConfig#s3Root}). */
    public java.nio.file.Path s3Root() {
        return s3Root;
    }

    /** The data directory; null in memory. */
    public java.nio.file.Path dataDir() {
        return dataDir;
    }

    /** Point-in-time recovery: its settings and its restores. */
    public io.partita.storage.backup.PointInTimeRecovery pitr() {
        return pitr;
    }

    /** RocksDB's statistics, for the metrics ({@link RocksStore#properties}). */
    public Map<String, Long> rocksProperties() {
        return store.properties();
    }

    public static StorageEngine open(StorageConfig config) {
        RocksStore store = RocksStore.open(config);
        try {
            return new StorageEngine(store, config, true, false);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * Opens an engine on a store that is already open and stays open after the engine closes: a cluster's leader
     * serves its replica's store through an engine while it leads, and closes the engine, not the store, when it stops
     * leading. The engine reads every table's state from the store as it opens, as after a restart.
     */
    public static StorageEngine openOn(RocksStore store, StorageConfig config) {
        return new StorageEngine(store, config, false, false);
    }

    /**
     * Opens an engine that only reads {@code store}, a cluster follower's replica, which the leader's entries change
     * underneath it: the engine caches no item, runs nothing in the background (no GSI applier, TTL reaper, feed
     * trimmer, stream expiry or split), and changes nothing as it opens. It answers eventually consistent reads; a
     * write through it reaches the store's {@link io.partita.storage.rocks.Replication}, which refuses it on a
     * follower. Its tables are those of the catalog when it opened: open another when {@link
     * RocksStore#catalogChanges} moves. The store stays open after it closes.
     */
    public static StorageEngine openReader(RocksStore store, StorageConfig config) {
        return new StorageEngine(store, config, false, true);
    }

    /**
     * After a read of table {@code t}'s key whose partition key hashes to {@code hash}: refuses the answer (a 503,
     * which the SDKs send again) when the store no longer serves that key, a range move (docs/CLUSTER.md, "Moving a
     * range") having narrowed its range meanwhile, since which the key's new group may have taken a newer write; and,
     * on a follower's reader, when the replica's tables changed since the reader loaded them (its range may be one the
     * log has narrowed, and the moved items deleted since, so that it would answer them absent). Nothing but a null
     * check for a table whose store holds no range.
     */
    public void requireServedAfterRead(Table t, long hash) {
        if (t.metadata().hashRange() == null) {
            return;
        }
        io.partita.storage.table.HashRange.require(t.metadata(), hash);
        requireCatalogAsLoaded(t);
    }

    /**
     * As {@link #requireServedAfterRead}, for a read of the range {@code held} (a Scan's page): refused when the range
     * changed while it was read, or a follower's replica's tables did.
     */
    public void requireRangeAfterRead(Table t, io.partita.storage.table.HashRange held) {
        if (held == null) {
            return;
        }
        io.partita.storage.table.HashRange now = t.metadata().hashRange();
        if (now == null || now.first() != held.first() || now.last() != held.last()) {
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: the hash range of table " + t.metadata().name() + " this group holds changed while it"
                            + " was read (a range moved): send it again");
        }
        requireCatalogAsLoaded(t);
    }

    /**
     * What a follower's reader refuses a read with when its replica's tables changed ({@link #requireServedAfterRead}):
     * the router then asks the leader.
     */
    public static final String REPLICA_CHANGED = "the tables of this replica changed while it read";

    private void requireCatalogAsLoaded(Table t) {
        if (reader && store.catalogChanges() != catalogAtOpen) {
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: " + REPLICA_CHANGED + " table " + t.metadata().name()
                            + " (a range moved): send it again");
        }
    }

    /** Whether this engine only reads a follower's replica ({@link #openReader}). */
    public boolean reader() {
        return reader;
    }

    /**
     * Call before a strongly consistent read (ConsistentRead, TransactGetItems): on a cluster's leader it returns once
     * the leader has confirmed it still leads and applied every committed write; on a single node it does nothing.
     * Throws {@link StorageUnavailableException} (a 503: nothing was done) when it cannot confirm.
     *
     * @return the term the leader leads in (0 on a single node): see {@link
     *     io.partita.storage.rocks.Replication#readBarrier}
     */
    public long awaitConsistentRead() {
        return store.readBarrier();
    }

    /** The clock everything time-dependent in storage reads: the system's, or a test's. */
    public Clock clock() {
        return clock;
    }

    public TableCatalog tables() {
        return catalog;
    }

    /** The one write path: every item change goes through it. */
    public ItemWrites writes() {
        return writes;
    }

    /** The ordered, durable feed of committed changes, and its consumers. */
    public ChangeFeed feed() {
        return feed;
    }

    /** The GSIs' appliers: their lag, backfills, and the wait for them to catch up. */
    public GlobalIndexes globalIndexes() {
        return globalIndexes;
    }

    /** Time to Live: the tables' settings and the reaper. */
    public TimeToLive ttl() {
        return ttl;
    }

    /** The tables' DynamoDB streams. */
    public TableStreams streams() {
        return streams;
    }

    /** Trims the change feed now, as its background thread does every minute; returns the numbers trimmed past. */
    public long trimFeed() {
        return trimmer.trim(catalog.snapshot().values());
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
     * an older value behind. On an event loop a held lock is not waited for: the item is read without filling the
     * cache.
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
        if (NonBlockingThread.current()) {
            if (!lock.tryLock()) {
                return stored(store.get(table.items(), k), -1);
            }
        } else {
            lock.lock();
        }
        try {
            e = cache.get(table.cacheId(), k, keyHash);
            if (e == null || e.stored() == null) {
                // Not cached, or only its size (as a write leaves it): read it, and keep the bytes for next time.
                e = stored(store.get(table.items(), k), e == null ? -1 : e.itemSize());
                // A commit of unknown outcome may still change the item underneath a cached copy.
                if (e != null && !writes.unsettled()) {
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

    /**
     * A user's write of the item with {@code key}, through {@link #writes()}, for callers without a request (tests,
     * benchmarks): a rejection is thrown after nothing changed, and so is a throttle, naming the table for its
     * resource.
     */
    public Written write(Table table, PrimaryKey key, ConditionalWrite write) {
        Written written = writes.write(ItemWrite.user(table, key, write, 0));
        if (written.throttled()) {
            throw written.throttle().toException(table.metadata().name());
        }
        return written;
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

    /**
     * As {@link #range}, over the rows of secondary index {@code index}: each visit has the row's key and the attributes
     * the index copies of its item.
     */
    public void rangeIndex(LiveIndex index, KeyRanges.Range range, boolean forward, ItemVisitor visitor) {
        store.range(
                index.family(),
                range.lower(),
                range.upper(),
                forward,
                (key, value) -> visitor.visit(key, ItemCodec.decode(value), value.length));
    }

    private static final byte[] RECORDS = "partita/record/".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private static byte[] recordKey(String kind, String id) {
        return (new String(RECORDS, java.nio.charset.StandardCharsets.UTF_8) + kind + "/" + id)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Keeps {@code value} as the record {@code id} of {@code kind}, replacing any before: small records the server
     * keeps beside the tables (the descriptions of exports and imports), in the store's {@code default} column
     * family, so that they live as the tables do: through a restart and, in cluster mode, replicated to every node.
     */
    public void putRecord(String kind, String id, byte[] value) {
        byte[] key = recordKey(kind, id);
        org.rocksdb.ColumnFamilyHandle cf = store.family(RECORD_FAMILY);
        store.write(batch -> {
            try {
                batch.put(cf, key, value);
            } catch (org.rocksdb.RocksDBException e) {
                throw new StorageException("record write failed", e);
            }
        });
    }

    /** Calls {@code visitor} with the id and value of every record of {@code kind} ({@link #putRecord}), by id. */
    public void forEachRecord(String kind, java.util.function.BiConsumer<String, byte[]> visitor) {
        byte[] prefix = recordKey(kind, "");
        byte[] end = prefix.clone();
        end[end.length - 1]++;
        store.range(store.family(RECORD_FAMILY), prefix, end, true, (key, value) -> {
            visitor.accept(
                    new String(key, prefix.length, key.length - prefix.length, java.nio.charset.StandardCharsets.UTF_8),
                    value);
            return true;
        });
    }

    private static final String RECORD_FAMILY =
            new String(org.rocksdb.RocksDB.DEFAULT_COLUMN_FAMILY, java.nio.charset.StandardCharsets.UTF_8);

    /** Receives one item of a range: its encoded key, the item, and its stored size; returns false to stop. */
    @FunctionalInterface
    public interface ItemVisitor {
        boolean visit(byte[] key, Map<String, AttributeValue> item, int storedBytes);
    }

    @Override
    public void close() {
        BackgroundThreads.stop(housekeeping);
        feed.close(catalog.snapshot().values());
        ttl.close();
        streams.close();
        globalIndexes.close();
        trimmer.close();
        splitter.close();
        // No change of a table's metadata through this engine from now on: a range move's thread may still hold it.
        catalog.close();
        if (ownsStore) {
            store.close();
        } else {
            store.beforeCheckpoint(() -> {});
        }
    }
}
