package io.partita.storage.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.storage.StorageException;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.TableFeed;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.index.IndexThroughput;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.index.TableIndexes;
import io.partita.storage.item.ItemCache;
import io.partita.storage.partition.PartitionMap;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set of tables: their metadata in the {@code meta} column family, their item column families, and their live
 * item count and size (persisted in the {@code stats} column family by merge operands written in each item batch).
 *
 * <p>Lookups ({@link #find}, {@link #snapshot}) read an immutable map without a lock, so a request on an event loop
 * never waits for a CreateTable or DeleteTable, which hold the catalog's monitor while RocksDB creates or drops a
 * column family.
 */
public final class TableCatalog {
    private static final Logger log = LoggerFactory.getLogger(TableCatalog.class);

    private final RocksStore store;
    private final ColumnFamilyHandle meta;
    private final ColumnFamilyHandle stats;
    /** Replaced whole under this catalog's monitor; read without it. */
    private volatile TreeMap<String, Table> tables = new TreeMap<>();

    private final CapacityConfig capacity;
    private final TablePartitions.Listener partitionListener;
    private final ChangeFeed feed;
    private final Opened opened;
    /** Waits until no write holds an item lock (the engine's {@code KeyLocks.barrier}); set once at start. */
    private volatile Runnable writeBarrier = () -> {};

    /**
     * Set once the engine that owns this catalog closes: a cluster's leader that stopped leading closes its engine, and
     * a new one loads the catalog from the store when it leads again; a thread still holding the old one (a range
     * move) must not change a table's metadata through it, which the new engine would not see.
     */
    private volatile boolean closed;

    /** Refuses every change of a table's metadata from now on ({@link #closed}). */
    public void close() {
        closed = true;
    }

    private void requireOpen() {
        if (closed) {
            throw new io.partita.storage.StorageUnavailableException(
                    "this engine is closed (its node no longer leads its group): send it again");
        }
    }

    /** Told of every table once it is live (created, or loaded when the engine opens): where GSIs start applying. */
    @FunctionalInterface
    public interface Opened {
        void opened(Table table);
    }

    /** One live table: its current metadata, its items column family, and its counters. */
    public static final class Table {
        private volatile TableMetadata metadata;
        private final ColumnFamilyHandle items;
        private final AtomicLong itemCount;
        private final AtomicLong sizeBytes;
        private final TablePartitions partitions;
        private final long cacheId = ItemCache.newTableId();
        private final TableFeed feed = new TableFeed();
        private volatile TableIndexes indexes = TableIndexes.NONE;
        /** Set once DeleteTable has removed the table, before its column families are dropped. */
        private volatile boolean deleted;

        Table(TableMetadata metadata, ColumnFamilyHandle items, long count, long size, TablePartitions partitions) {
            this.metadata = metadata;
            this.items = items;
            this.itemCount = new AtomicLong(count);
            this.sizeBytes = new AtomicLong(size);
            this.partitions = partitions;
        }

        /**
         * Whether DeleteTable has removed this table. A write checks it under its item's lock: DeleteTable sets it,
         * then waits for every write holding an item lock ({@link #writeBarrier}) before it drops the table's column
         * families, so no write commits to a dropped family.
         */
        public boolean deleted() {
            return deleted;
        }

        /** The partition map and throughput budget. */
        public TablePartitions partitions() {
            return partitions;
        }

        public TableMetadata metadata() {
            return metadata;
        }

        public ColumnFamilyHandle items() {
            return items;
        }

        /** Whether the table's changes are recorded, and who consumes them. */
        public TableFeed feed() {
            return feed;
        }

        /** The table's secondary indexes now. */
        public TableIndexes indexes() {
            return indexes;
        }

        /** This table's part of the {@link ItemCache}: unique for the life of the process, never reused. */
        public long cacheId() {
            return cacheId;
        }

        public TableStats stats() {
            return new TableStats(itemCount.get(), sizeBytes.get());
        }
    }

    public TableCatalog(
            RocksStore store,
            CapacityConfig capacity,
            TablePartitions.Listener partitionListener,
            ChangeFeed feed,
            Opened opened) {
        this(store, capacity, partitionListener, feed, opened, false);
    }

    private TableCatalog(
            RocksStore store,
            CapacityConfig capacity,
            TablePartitions.Listener partitionListener,
            ChangeFeed feed,
            Opened opened,
            boolean reader) {
        this.opened = opened;
        this.store = store;
        this.capacity = capacity;
        this.partitionListener = partitionListener;
        this.feed = feed;
        this.meta = store.family(RocksStore.META);
        this.stats = store.family(RocksStore.STATS);
        this.reader = reader;
        load();
    }

    /**
     * The catalog of a store that another node's engine changes (a cluster follower's replica): loaded as it is now,
     * with nothing written as it loads (no orphan dropped, no change feed recovered) and no split ever started.
     */
    public static TableCatalog reader(RocksStore store, CapacityConfig capacity, ChangeFeed feed) {
        return new TableCatalog(store, capacity, NO_SPLITS, feed, t -> {}, true);
    }

    /** A reader's partitions: a split is the leader's to make, and is never started here. */
    private static final TablePartitions.Listener NO_SPLITS = new TablePartitions.Listener() {
        @Override
        public void splitWanted(
                TablePartitions table, io.partita.storage.partition.Partition p, TablePartitions.SplitReason reason) {}

        @Override
        public void mapChanged(TablePartitions table, PartitionMap map, int nextId) {
            throw new IllegalStateException("a reader's catalog never splits a partition");
        }
    };

    /** Whether this catalog only reads a store another engine changes ({@link #reader}). */
    private final boolean reader;

    private void load() {
        TreeMap<String, Table> loaded = new TreeMap<>();
        store.forEach(meta, (key, value) -> {
            TableMetadata m = decode(value);
            if (!store.hasFamily(m.itemsFamily())) {
                throw new StorageException("table " + m.name() + " has no column family " + m.itemsFamily());
            }
            long count = readCounter(m.id(), 'c');
            long size = readCounter(m.id(), 's');
            PersistedMap persisted = readPartitions(m.id());
            TablePartitions partitions = new TablePartitions(
                    m,
                    capacity,
                    partitionListener,
                    persisted == null ? null : persisted.partitions(),
                    persisted == null ? null : persisted.retired(),
                    persisted == null ? 0 : persisted.nextId(),
                    size);
            Table t = new Table(m, store.family(m.itemsFamily()), count, size, partitions);
            t.indexes = liveIndexes(m);
            if (!reader) {
                feed.recover(t);
            }
            loaded.put(m.name(), t);
        });
        tables = loaded;
        if (reader) {
            log.debug("a reader loaded {} tables", loaded.size());
            return;
        }
        for (Table t : loaded.values()) {
            opened.opened(t);
        }
        feed.dropOrphans(loaded.values().stream().map(t -> t.metadata.id()).collect(Collectors.toSet()));
        // A crash between dropping a table's metadata and its column family leaves an orphan: drop it now.
        java.util.Set<String> live = new java.util.HashSet<>();
        for (Table t : tables.values()) {
            live.add(t.metadata.itemsFamily());
            for (IndexDefinition d : t.metadata.indexes()) {
                live.add(d.family(t.metadata.id()));
            }
        }
        for (String family : store.familyNames()) {
            boolean data = family.startsWith(RocksStore.ITEMS_PREFIX) || family.startsWith(RocksStore.INDEX_PREFIX);
            if (data && !live.contains(family)) {
                log.info("dropping orphaned column family {}", family);
                store.dropFamily(family);
            }
        }
        log.info("loaded {} tables", tables.size());
    }

    private long readCounter(String id, char kind) {
        byte[] v = store.get(stats, counterKey(id, kind));
        return v == null ? 0 : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /**
     * The partition ranges of a table, as kept under its id and {@code p} in the {@code stats} column family, with
     * those of split partitions whose shards the change feed still keeps ({@code retired}, absent before the feed).
     */
    record PersistedMap(
            int nextId,
            List<TablePartitions.PersistedPartition> partitions,
            List<TablePartitions.PersistedPartition> retired) {}

    private PersistedMap readPartitions(String id) {
        byte[] v = store.get(stats, counterKey(id, 'p'));
        if (v == null) {
            return null;
        }
        try {
            return DynamoJson.mapper().readValue(v, PersistedMap.class);
        } catch (IOException e) {
            throw new StorageException("corrupt partition map of table " + id, e);
        }
    }

    /** Persists a table's partition ranges, {@code map}; called whenever a split changes them, before it takes effect. */
    public void savePartitions(TablePartitions partitions, PartitionMap map, int nextId) {
        byte[] json;
        try {
            json = DynamoJson.mapper()
                    .writeValueAsBytes(new PersistedMap(nextId, map.persistable(), map.persistableRetired()));
        } catch (IOException e) {
            throw new StorageException("cannot encode partition map", e);
        }
        String id = partitions.metadata().id();
        store.writeCatalog(batch -> {
            try {
                batch.put(stats, counterKey(id, 'p'), json);
            } catch (RocksDBException e) {
                throw new StorageException("partition map write failed", e);
            }
        });
    }

    private static byte[] counterKey(String id, char kind) {
        return (id + kind).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] counterDelta(long delta) {
        return ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(delta)
                .array();
    }

    /** Adds merge operands for a change in item count and size to {@code batch}; call {@link #applied} after. */
    public void addStatsDelta(WriteBatch batch, Table table, long countDelta, long sizeDelta) {
        try {
            String id = table.metadata.id();
            if (countDelta != 0) {
                batch.merge(stats, counterKey(id, 'c'), counterDelta(countDelta));
            }
            if (sizeDelta != 0) {
                batch.merge(stats, counterKey(id, 's'), counterDelta(sizeDelta));
            }
        } catch (RocksDBException e) {
            throw new StorageException("stats merge failed", e);
        }
    }

    /** Updates the in-memory counters once a batch with the same deltas has committed. */
    public void applied(Table table, long countDelta, long sizeDelta) {
        table.itemCount.addAndGet(countDelta);
        table.sizeBytes.addAndGet(sizeDelta);
    }

    private static TableMetadata decode(byte[] json) {
        try {
            return DynamoJson.mapper().readValue(json, TableMetadata.class);
        } catch (IOException e) {
            throw new StorageException("corrupt table metadata", e);
        }
    }

    private static byte[] encode(TableMetadata m) {
        try {
            return DynamoJson.mapper().writeValueAsBytes(m);
        } catch (IOException e) {
            throw new StorageException("cannot encode table metadata", e);
        }
    }

    private void persist(TableMetadata m) {
        store.writeCatalog(batch -> {
            try {
                batch.put(meta, m.name().getBytes(StandardCharsets.UTF_8), encode(m));
            } catch (RocksDBException e) {
                throw new StorageException("metadata write failed", e);
            }
        });
    }

    public Table find(String name) {
        return tables.get(name);
    }

    /** The table, or DynamoDB's ResourceNotFoundException with {@code message}. */
    public Table require(String name, String message) {
        Table t = find(name);
        if (t == null) {
            throw ApiException.resourceNotFound(message);
        }
        return t;
    }

    public synchronized Table create(TableMetadata m) {
        if (tables.containsKey(m.name())) {
            throw ApiException.resourceInUse("Table already exists: " + m.name());
        }
        // Families first: metadata that names a family always finds it after a crash; an orphan is dropped on load.
        ColumnFamilyHandle cf = store.createItemFamily(m.itemsFamily());
        for (IndexDefinition d : m.indexes()) {
            store.createItemFamily(d.family(m.id()));
        }
        persist(m);
        TablePartitions partitions = new TablePartitions(m, capacity, partitionListener, null, null, 0, 0);
        savePartitions(partitions, partitions.map(), partitions.nextId());
        Table t = new Table(m, cf, 0, 0, partitions);
        t.indexes = liveIndexes(m);
        // Before anyone can write to it, so a GSI's applier sees every change.
        opened.opened(t);
        TreeMap<String, Table> next = new TreeMap<>(tables);
        next.put(m.name(), t);
        tables = next;
        return t;
    }

    private TableIndexes liveIndexes(TableMetadata m) {
        List<LiveIndex> live = new ArrayList<>();
        for (IndexDefinition d : m.indexes()) {
            live.add(liveIndex(m, d));
        }
        return new TableIndexes(live);
    }

    private LiveIndex liveIndex(TableMetadata m, IndexDefinition d) {
        ColumnFamilyHandle family = store.family(d.family(m.id()));
        return new LiveIndex(d, family, d.global() ? IndexThroughput.partitions(m, d, capacity) : null);
    }

    /**
     * Adds a new GSI to live table {@code t}: its family, then its definition in the table's metadata. Checked again
     * here, under the catalog's monitor, against concurrent UpdateTables: the name must be new and no other index of
     * the table may be being created or deleted.
     */
    public synchronized LiveIndex addIndex(Table t, IndexDefinition d) {
        if (tables.get(t.metadata.name()) != t) {
            throw ApiException.resourceNotFound(
                    "Requested resource not found: Table: " + t.metadata.name() + " not found");
        }
        if (t.metadata.index(d.name()) != null) {
            throw ApiException.validation("Attempting to create an index which already exists");
        }
        if (t.metadata.indexes().stream().anyMatch(i -> i.global() && !"ACTIVE".equals(i.status()))) {
            throw ApiException.limitExceeded("Subscriber limit exceeded: Only 1 online index can be created or deleted"
                    + " simultaneously per table");
        }
        store.createItemFamily(d.family(t.metadata.id()));
        resetIndexStats(t, d.id());
        List<IndexDefinition> defs = new ArrayList<>(t.metadata.indexes());
        defs.add(d);
        TableMetadata next = t.metadata.withIndexes(defs);
        LiveIndex live = liveIndex(next, d);
        persist(next);
        t.metadata = next;
        t.indexes = t.indexes.with(live);
        return live;
    }

    /**
     * Changes the definition of index {@code indexName} of live table {@code t} (its status or throughput) by {@code
     * change}, applied to the current definition under the catalog's monitor, so concurrent changes (a backfill
     * ending, an UpdateTable, a deletion) never overwrite each other. Returns the changed index, or null if the table
     * or the index is gone (or {@code change} left it as it was).
     */
    public synchronized LiveIndex changeIndex(Table t, String indexName, UnaryOperator<IndexDefinition> change) {
        if (tables.get(t.metadata.name()) != t) {
            return null;
        }
        IndexDefinition current = t.metadata.index(indexName);
        LiveIndex live = t.indexes.find(indexName);
        if (current == null || live == null) {
            return null;
        }
        IndexDefinition d = change.apply(current);
        if (d.equals(current)) {
            return null;
        }
        List<IndexDefinition> defs = new ArrayList<>();
        for (IndexDefinition old : t.metadata.indexes()) {
            defs.add(old.id().equals(d.id()) ? d : old);
        }
        TableMetadata next = t.metadata.withIndexes(defs);
        persist(next);
        t.metadata = next;
        LiveIndex changed = live.with(d);
        if (changed.partitions() != null) {
            changed.partitions().reconfigure(IndexThroughput.metadata(next, d));
        }
        t.indexes = t.indexes.with(changed);
        return changed;
    }

    /** Removes an index from a live table: its definition and statistics, then its rows' family. */
    public synchronized void removeIndex(Table t, String indexName) {
        if (tables.get(t.metadata.name()) != t) {
            return;
        }
        IndexDefinition d = t.metadata.index(indexName);
        if (d == null) {
            return;
        }
        List<IndexDefinition> defs = new ArrayList<>(t.metadata.indexes());
        defs.remove(d);
        // The definitions only the deleted index used go with it.
        java.util.Set<String> used = new java.util.HashSet<>();
        t.metadata.keySchema().attributes().forEach(k -> used.add(k.name()));
        defs.forEach(i -> i.keyAttributes().forEach(k -> used.add(k.name())));
        TableMetadata next = t.metadata
                .withIndexes(defs)
                .withAttributeDefinitions(t.metadata.attributeDefinitions().stream()
                        .filter(a -> used.contains(a.attributeName()))
                        .toList());
        store.writeCatalog(batch -> {
            try {
                batch.put(meta, next.name().getBytes(StandardCharsets.UTF_8), encode(next));
                batch.delete(stats, indexCounterKey(next.id(), d.id(), 'c'));
                batch.delete(stats, indexCounterKey(next.id(), d.id(), 's'));
            } catch (RocksDBException e) {
                throw new StorageException("index removal failed", e);
            }
        });
        t.metadata = next;
        t.indexes = t.indexes.without(indexName);
        store.dropFamily(d.family(next.id()));
    }

    /** The key of an item collection's size: the table's id, then the partition prefix of its items' keys. */
    private static byte[] collectionKey(String tableId, byte[] partitionPrefix) {
        byte[] head = (tableId + "/k/").getBytes(StandardCharsets.UTF_8);
        byte[] out = java.util.Arrays.copyOf(head, head.length + partitionPrefix.length);
        System.arraycopy(partitionPrefix, 0, out, head.length, partitionPrefix.length);
        return out;
    }

    /**
     * The size of the item collection of the items whose keys start with {@code partitionPrefix} (a table with LSIs
     * keeps it): the items' sizes and their LSI entries'.
     */
    public long collectionSize(Table table, byte[] partitionPrefix) {
        return readLong(collectionKey(table.metadata.id(), partitionPrefix));
    }

    /** Adds a change of an item collection's size to {@code batch}. */
    public void addCollectionDelta(WriteBatch batch, Table table, byte[] partitionPrefix, long delta)
            throws RocksDBException {
        if (delta != 0) {
            batch.merge(stats, collectionKey(table.metadata.id(), partitionPrefix), counterDelta(delta));
        }
    }

    private static byte[] indexCounterKey(String tableId, String indexId, char kind) {
        return (tableId + "/x/" + indexId + kind).getBytes(StandardCharsets.UTF_8);
    }

    /** Adds merge operands for a change in an index's entry count and size to {@code batch}. */
    public void addIndexStatsDelta(WriteBatch batch, Table table, String indexId, long countDelta, long sizeDelta)
            throws RocksDBException {
        String id = table.metadata.id();
        if (countDelta != 0) {
            batch.merge(stats, indexCounterKey(id, indexId, 'c'), counterDelta(countDelta));
        }
        if (sizeDelta != 0) {
            batch.merge(stats, indexCounterKey(id, indexId, 's'), counterDelta(sizeDelta));
        }
    }

    /** An index's entry count and size (IndexSizeBytes), as committed. */
    public TableStats indexStats(Table table, String indexId) {
        String id = table.metadata.id();
        return new TableStats(readLong(indexCounterKey(id, indexId, 'c')), readLong(indexCounterKey(id, indexId, 's')));
    }

    private long readLong(byte[] key) {
        byte[] v = store.get(stats, key);
        return v == null ? 0 : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Sets an index's counters to zero (a new index, or a backfill starting again). */
    public void resetIndexStats(Table table, String indexId) {
        String id = table.metadata.id();
        // Counters, not the index's definition: a follower's reader need not open again.
        store.write(batch -> {
            try {
                batch.delete(stats, indexCounterKey(id, indexId, 'c'));
                batch.delete(stats, indexCounterKey(id, indexId, 's'));
            } catch (RocksDBException e) {
                throw new StorageException("index statistics reset failed", e);
            }
        });
    }

    public synchronized Table update(String name, UnaryOperator<TableMetadata> change) {
        requireOpen();
        Table t = tables.get(name);
        if (t == null) {
            throw ApiException.resourceNotFound("Requested resource not found: Table: " + name + " not found");
        }
        TableMetadata next = change.apply(t.metadata);
        persist(next);
        TableMetadata was = t.metadata;
        t.metadata = next;
        t.partitions.reconfigure(next);
        if (!java.util.Objects.equals(was.hashRange(), next.hashRange())) {
            // A range move narrowed the hashes this store holds: its GSIs' budgets are that part of theirs.
            for (LiveIndex live : t.indexes.all()) {
                if (live.partitions() != null) {
                    live.partitions().holding(next.hashRange());
                }
            }
        }
        return t;
    }

    /**
     * A range move's change of the hash range table {@code name} holds (docs/CLUSTER.md, "Moving a range"): {@code
     * change} of the range held, recorded unless it is the same; then, whether it changed or not, a wait for every
     * write holding an item lock, which checks the range under it ({@code ItemWrites.plan}). Once this returns, no
     * write or transaction that checked the range as it was commits: a fence.
     *
     * @throws IllegalArgumentException when the table holds no range
     */
    public Table changeRange(String name, UnaryOperator<HashRange> change) {
        Table t;
        synchronized (this) {
            requireOpen();
            t = tables.get(name);
            if (t == null) {
                throw ApiException.resourceNotFound("Requested resource not found: Table: " + name + " not found");
            }
            HashRange held = t.metadata.hashRange();
            if (held == null) {
                throw new IllegalArgumentException("table " + name + " holds no hash range");
            }
            HashRange next = change.apply(held);
            if (!next.equals(held)) {
                update(name, m -> m.withHashRange(next));
            }
        }
        writeBarrier.run(); // outside the monitor, as DeleteTable's: a write holding a lock may be waiting for it
        return t;
    }

    /** What DeleteTable waits for before it drops a table's column families: every write holding an item lock. */
    public void writeBarrier(Runnable barrier) {
        this.writeBarrier = barrier;
    }

    /**
     * Removes a table's metadata and counters in one batch, marks it {@linkplain Table#deleted deleted}, waits for the
     * writes in flight, then drops its items and indexes.
     */
    public Table delete(String name) {
        Table t = tables.get(name);
        if (t == null) {
            throw ApiException.resourceNotFound("Requested resource not found: Table: " + name + " not found");
        }
        // Outside the monitor: stopping a GSI's follower waits for its pass, which may be changing the index here.
        feed.close(List.of(t));
        // From here every write refuses the table; the barrier (outside the monitor: a write holding an item lock
        // may be waiting for it) lets the writes that checked before finish, so the batch below removes whatever
        // they added (statistics, change records), and nothing is written to the families once they are dropped.
        t.deleted = true;
        writeBarrier.run();
        deleteClosed(name, t);
        TableMetadata m = t.metadata;
        store.dropFamily(m.itemsFamily());
        for (IndexDefinition d : m.indexes()) {
            store.dropFamily(d.family(m.id()));
        }
        return t;
    }

    private synchronized Table deleteClosed(String name, Table t) {
        if (tables.get(name) != t) {
            throw ApiException.resourceNotFound("Requested resource not found: Table: " + name + " not found");
        }
        TableMetadata m = t.metadata;
        store.writeCatalog(batch -> {
            try {
                batch.delete(meta, m.name().getBytes(StandardCharsets.UTF_8));
                batch.delete(stats, counterKey(m.id(), 'c'));
                batch.delete(stats, counterKey(m.id(), 's'));
                batch.delete(stats, counterKey(m.id(), 'p'));
                for (IndexDefinition d : m.indexes()) {
                    batch.delete(stats, indexCounterKey(m.id(), d.id(), 'c'));
                    batch.delete(stats, indexCounterKey(m.id(), d.id(), 's'));
                }
                byte[] collections = collectionKey(m.id(), new byte[0]);
                byte[] collectionsEnd = collections.clone();
                collectionsEnd[collectionsEnd.length - 1]++;
                batch.deleteRange(stats, collections, collectionsEnd);
                feed.dropTable(batch, m.id());
                batch.deleteRange(
                        store.family(RocksStore.TTL),
                        io.partita.storage.ttl.TtlKeys.table(m.id()),
                        io.partita.storage.ttl.TtlKeys.tableEnd(m.id()));
            } catch (RocksDBException e) {
                throw new StorageException("metadata delete failed", e);
            }
        });
        TreeMap<String, Table> next = new TreeMap<>(tables);
        next.remove(name);
        tables = next;
        return t;
    }

    /** Table names in DynamoDB's ListTables order (ascending). */
    public List<String> names() {
        return new ArrayList<>(tables.keySet());
    }

    public Map<String, Table> snapshot() {
        return new TreeMap<>(tables);
    }
}
