package io.partita.storage.rocks;

import io.partita.storage.StorageConfig;
import io.partita.storage.StorageException;
import io.partita.storage.key.ByteSink;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksMemEnv;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Owns the RocksDB instance and every long-lived native object, and is the only class that touches them.
 *
 * <pre>
 *   column family     key                      value
 *   default           (unused)
 *   meta              table name (UTF-8)       TableMetadata as JSON
 *   stats             table id ‖ 'c' | 's'     uint64 little-endian, updated by merge (item count, size)
 *   items/&lt;id&gt;        ItemKeyEncoder key       ItemCodec value
 * </pre>
 *
 * Every public method counts itself in while it uses the DB and fails with {@link StorageException} after
 * {@link #close()}, which waits for the calls in flight to leave before it frees anything: never a crash in native
 * code.
 */
public final class RocksStore implements AutoCloseable {
    public static final String META = "meta";
    public static final String STATS = "stats";
    public static final String ITEMS_PREFIX = "items/";
    /** The largest key and value {@link #put} passes through a direct buffer; larger items are rare. */
    static final int DIRECT_PUT_MAX = 64 * 1024;

    private static final ThreadLocal<ByteBuffer> DIRECT_PUT =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(DIRECT_PUT_MAX));

    static {
        RocksDB.loadLibrary();
    }

    private final Closer closer = new Closer();
    /**
     * Calls inside {@link #withOpenDb} now. A counter instead of a read-write lock: the lock's per-thread hold count
     * (a {@code ThreadLocal} set and removed on every call) cost about 0.6 % of PutItem's event loop
     * (docs/PERFORMANCE.md). A call counts itself in and then reads {@link #closed}; {@link #close()} sets it and then
     * reads the count. Both are volatile accesses, so either the call sees the store closed or close sees the call.
     */
    private final AtomicInteger inFlight = new AtomicInteger();

    private final Map<String, ColumnFamilyHandle> families = new ConcurrentHashMap<>();
    private final ColumnFamilyOptions itemOptions;
    private final WriteOptions writeOptions;
    private final ReadOptions readOptions;
    private final RocksDB db;
    private final ThreadLocal<ReusableBatch> batches;
    /** Whether commits stay in RocksDB's WAL buffer until {@link #makeDurable()} (persistent, unsynced stores). */
    private final boolean manualWalFlush;
    /** Every commit up to this sequence number has reached the operating system. */
    private final AtomicLong durableSequence = new AtomicLong();

    private volatile boolean closed;

    private RocksStore(StorageConfig config) {
        try {
            String path;
            DBOptions dbOptions;
            if (config.inMemory()) {
                Env env = closer.push(new RocksMemEnv(Env.getDefault()));
                dbOptions = RocksTuning.dbOptions(closer);
                dbOptions.setEnv(env);
                path = "/partita-in-memory";
            } else {
                Files.createDirectories(config.dataDir());
                dbOptions = RocksTuning.dbOptions(closer);
                path = config.dataDir().toAbsolutePath().toString();
            }
            manualWalFlush = !config.inMemory() && !config.sync();
            dbOptions.setManualWalFlush(manualWalFlush);
            Cache cache = RocksTuning.blockCache(closer);
            itemOptions = RocksTuning.itemOptions(closer, cache);
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, RocksTuning.metaOptions(closer)));
            descriptors.add(new ColumnFamilyDescriptor(bytes(META), RocksTuning.metaOptions(closer)));
            descriptors.add(new ColumnFamilyDescriptor(bytes(STATS), RocksTuning.statsOptions(closer)));
            for (String name : existingFamilies(config, path)) {
                if (name.startsWith(ITEMS_PREFIX)) {
                    descriptors.add(new ColumnFamilyDescriptor(bytes(name), itemOptions));
                }
            }
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            RocksDB opened = RocksDB.open(dbOptions, path, descriptors, handles);
            db = closer.push(opened);
            // Handles close before the DB: pushed after it, popped first.
            for (int i = 0; i < handles.size(); i++) {
                families.put(
                        new String(descriptors.get(i).getName(), StandardCharsets.UTF_8), closer.push(handles.get(i)));
            }
            writeOptions = closer.push(new WriteOptions().setSync(config.sync()));
            readOptions = closer.push(new ReadOptions());
            // Made inside the first write of a thread, counted in flight, so never after close(); freed with the rest.
            batches = ThreadLocal.withInitial(() -> new ReusableBatch(closer.push(new WriteBatch())));
        } catch (RocksDBException | java.io.IOException e) {
            closer.close();
            throw new StorageException("cannot open RocksDB: " + e.getMessage(), e);
        }
    }

    public static RocksStore open(StorageConfig config) {
        return new RocksStore(config);
    }

    private static List<String> existingFamilies(StorageConfig config, String path) throws RocksDBException {
        if (config.inMemory() || !Files.exists(Path.of(path, "CURRENT"))) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (Options options = new Options()) {
            for (byte[] name : RocksDB.listColumnFamilies(options, path)) {
                names.add(new String(name, StandardCharsets.UTF_8));
            }
        }
        return names;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs {@code fn} with the open DB, counted in flight; RocksDB errors become StorageException. */
    private <T> T withOpenDb(String operation, RocksCall<T> fn) {
        inFlight.incrementAndGet();
        try {
            if (closed) {
                throw new StorageException("storage is closed (" + operation + ")");
            }
            return fn.call(db);
        } catch (RocksDBException e) {
            throw new StorageException(operation + " failed: " + e.getMessage(), e);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    @FunctionalInterface
    private interface RocksCall<T> {
        T call(RocksDB db) throws RocksDBException;
    }

    public ColumnFamilyHandle family(String name) {
        ColumnFamilyHandle handle = families.get(name);
        if (handle == null) {
            throw new StorageException("no column family " + name);
        }
        return handle;
    }

    public boolean hasFamily(String name) {
        return families.containsKey(name);
    }

    public List<String> familyNames() {
        return List.copyOf(families.keySet());
    }

    public ColumnFamilyHandle createItemFamily(String name) {
        return withOpenDb("create column family " + name, db -> {
            ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(bytes(name), itemOptions));
            families.put(name, closer.push(handle));
            return handle;
        });
    }

    /**
     * Drops a column family. Its handle stays open until the store closes: a request still holding it then writes
     * into a dropped family instead of into freed native memory.
     */
    public void dropFamily(String name) {
        withOpenDb("drop column family " + name, db -> {
            ColumnFamilyHandle handle = families.remove(name);
            if (handle != null) {
                db.dropColumnFamily(handle);
            }
            return null;
        });
    }

    public byte[] get(ColumnFamilyHandle cf, byte[] key) {
        return withOpenDb("get", db -> db.get(cf, readOptions, key));
    }

    /**
     * Builds and commits one atomic batch through the WAL. Each thread reuses one native batch, cleared after every
     * commit, instead of creating and freeing one per write; a nested write on the same thread gets a fresh one.
     */
    public void write(Consumer<WriteBatch> fill) {
        withOpenDb("write", db -> {
            ReusableBatch reusable = batches.get();
            if (reusable.inUse) {
                try (WriteBatch batch = new WriteBatch()) {
                    fill.accept(batch);
                    db.write(writeOptions, batch);
                }
                return null;
            }
            reusable.inUse = true;
            try {
                fill.accept(reusable.batch);
                db.write(writeOptions, reusable.batch);
            } finally {
                reusable.batch.clear();
                reusable.inUse = false;
            }
            return null;
        });
    }

    /**
     * Makes every commit so far survive a process crash; call it before telling anyone about a write, or about
     * anything read, since a read may have seen a commit not yet flushed. An unsynced persistent store keeps commits
     * in RocksDB's WAL buffer ({@code manual_wal_flush}) until then, so the answers of one event-loop pass share one
     * {@code write()} system call instead of one each (group commit, docs/PERFORMANCE.md). A no-op for in-memory
     * stores, and for {@code --sync} ones, whose every commit is already fsynced. Closing the DB writes out what is
     * left in the buffer (RocksDB does, {@code StorageEngineIT}).
     *
     * <p>Correct because RocksDB appends a batch to the WAL buffer before it publishes the batch's sequence number:
     * whatever a reader or writer can have seen is at or below {@code getLatestSequenceNumber()}, and the flush after
     * it writes out all of that. A background write nobody answers for (a partition split) reaches the log with the
     * next flush; a crash before it keeps the state before it, since the log is always written out in commit order.
     */
    public void makeDurable() {
        if (!manualWalFlush) {
            return;
        }
        withOpenDb("flush the WAL", db -> {
            long last = db.getLatestSequenceNumber();
            if (last > durableSequence.get()) {
                db.flushWal(false);
                durableSequence.accumulateAndGet(last, Math::max);
            }
            return null;
        });
    }

    /**
     * Adds a put of {@code key} with the bytes in {@code value} to {@code batch}. RocksDB's byte-array overload mallocs
     * a native copy of both on every call (JNI) and frees it after; a put of up to {@link #DIRECT_PUT_MAX} bytes goes
     * through this thread's direct buffer instead, which RocksDB reads in place (docs/PERFORMANCE.md).
     */
    public static void put(WriteBatch batch, ColumnFamilyHandle cf, byte[] key, ByteSink value)
            throws RocksDBException {
        int size = key.length + value.size();
        if (size > DIRECT_PUT_MAX) {
            batch.put(cf, key, value.toByteArray());
            return;
        }
        ByteBuffer buffer = DIRECT_PUT.get();
        buffer.clear();
        buffer.put(key);
        value.copyTo(buffer);
        ByteBuffer keyView = buffer.duplicate().position(0).limit(key.length);
        ByteBuffer valueView = buffer.duplicate().position(key.length).limit(size);
        batch.put(cf, keyView, valueView);
    }

    private static final class ReusableBatch {
        final WriteBatch batch;
        boolean inUse;

        ReusableBatch(WriteBatch batch) {
            this.batch = batch;
        }
    }

    /** Calls {@code visitor} with every key and value of {@code cf}, in key order. */
    public void forEach(ColumnFamilyHandle cf, KeyValueVisitor visitor) {
        withOpenDb("iterate", db -> {
            try (RocksIterator it = db.newIterator(cf)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    visitor.visit(it.key(), it.value());
                }
                it.status();
            }
            return null;
        });
    }

    /**
     * Visits the keys of {@code cf} in [{@code lower}, {@code upper}) — either bound may be null — in ascending or
     * descending order, until {@code visitor} returns false. The iterator and its bounds live only for this call.
     */
    public void range(ColumnFamilyHandle cf, byte[] lower, byte[] upper, boolean forward, RangeVisitor visitor) {
        withOpenDb("range", db -> {
            Slice lo = lower == null ? null : new Slice(lower);
            Slice hi = upper == null ? null : new Slice(upper);
            try (ReadOptions options = new ReadOptions()) {
                if (lo != null) {
                    options.setIterateLowerBound(lo);
                }
                if (hi != null) {
                    options.setIterateUpperBound(hi);
                }
                try (RocksIterator it = db.newIterator(cf, options)) {
                    if (forward) {
                        it.seekToFirst();
                    } else {
                        it.seekToLast();
                    }
                    while (it.isValid() && visitor.visit(it.key(), it.value())) {
                        if (forward) {
                            it.next();
                        } else {
                            it.prev();
                        }
                    }
                    it.status();
                }
            } finally {
                if (lo != null) {
                    lo.close();
                }
                if (hi != null) {
                    hi.close();
                }
            }
            return null;
        });
    }

    /** Receives keys and values in order; returns false to stop. */
    @FunctionalInterface
    public interface RangeVisitor {
        boolean visit(byte[] key, byte[] value);
    }

    /** Receives one key and value. */
    @FunctionalInterface
    public interface KeyValueVisitor {
        void visit(byte[] key, byte[] value);
    }

    /**
     * Refuses new calls, waits for those in flight to finish, then closes the DB and frees every native object. Must
     * not be called from inside a store call (a range visitor), which it would wait for forever.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (inFlight.get() != 0) {
            LockSupport.parkNanos(100_000);
        }
        closer.close();
    }
}
