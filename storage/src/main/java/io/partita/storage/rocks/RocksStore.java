package io.partita.storage.rocks;

import io.partita.storage.StorageConfig;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.key.ByteSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.FlushOptions;
import org.rocksdb.FlushReason;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksMemEnv;
import org.rocksdb.Slice;
import org.rocksdb.SstFileManager;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the RocksDB instance and every long-lived native object, and is the only class that touches them.
 *
 * <pre>
 *   column family     key                      value
 *   default           'partita/log-position'   where replay of Partita's log starts (see below)
 *   meta              table name (UTF-8)       TableMetadata as JSON
 *   stats             table id ‖ 'c' | 's'     uint64 little-endian, updated by merge (item count, size)
 *                     table id ‖ 'p'           the partition map, JSON
 *   changelog         table ‖ shard ‖ seq      ChangeRecord: the change feed (see FeedKeys)
 *   feed              'c' | 'p' | 'f' ‖ …      the feed's consumers, their positions, trim floors (FeedKeys)
 *   items/&lt;id&gt;        ItemKeyEncoder key       ItemCodec value
 * </pre>
 *
 * Every public method counts itself in while it uses the DB and fails with {@link StorageException} after
 * {@link #close()}, which waits for the calls in flight to leave before it frees anything: never a crash in native
 * code.
 *
 * <p>A persistent store without {@code --sync} keeps its write-ahead log itself ({@link CommitLog}) and writes to
 * RocksDB with RocksDB's log off: each batch is appended to the log before RocksDB applies it. RocksDB never flushes on
 * its own (memtables far larger than the log lets them grow); the store's checkpoints do, at a quiet point of the log,
 * together with a marker holding that point, all column families in one atomic flush. After a crash, replay starts at
 * the flushed marker: exactly the batches the flushed state lacks, which matters because the statistics' merges are
 * not idempotent. A {@code --sync} store writes through RocksDB's log, fsynced; an in-memory store through RocksDB's
 * log in memory. Every persistent store replays Partita's log when it opens, whatever mode wrote it.
 */
public final class RocksStore implements AutoCloseable {
    public static final String META = "meta";
    public static final String STATS = "stats";
    public static final String CHANGELOG = "changelog";
    public static final String FEED = "feed";
    /** Items of tables with TTL, by expiry: {@code ttl.TtlKeys}. */
    public static final String TTL = "ttl";

    public static final String ITEMS_PREFIX = "items/";
    /** A secondary index's rows: {@code index/<table id>/<index id>}. */
    public static final String INDEX_PREFIX = "index/";
    /** An on-demand backup's copy of a table's items (and, under the empty key, its record). */
    public static final String BACKUP_PREFIX = "backup/";
    /** The largest key and value {@link #put} passes through a direct buffer; larger items are rare. */
    static final int DIRECT_PUT_MAX = 64 * 1024;
    /** The size of a log segment; a checkpoint follows each segment's worth of appends. */
    static final long DEFAULT_LOG_SEGMENT_BYTES = 64L << 20;

    private static final Logger log = LoggerFactory.getLogger(RocksStore.class);
    private static final byte[] LOG_POSITION_KEY = bytes("partita/log-position");
    /** The term and index of the last replicated entry applied (cluster mode), written in the entry's own batch. */
    private static final byte[] APPLIED_ENTRY_KEY = bytes("partita/applied-entry");

    private static final long FLUSH_WAIT_NANOS = 60_000_000_000L;
    /** How long close waits for calls in flight before it fails the writers the log holds back. */
    private static final long CLOSE_WAIT_NANOS = 5_000_000_000L;

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
    /** Partita's write-ahead log; null where RocksDB's own log is used ({@code --sync}, in memory). */
    private final CommitLog commitLog;
    /** Runs checkpoints of {@link #commitLog} when it asks for one; null without it. */
    private final Thread checkpointer;
    /** Where {@link #commitLog} keeps its segments; null in memory. */
    private final Path logDir;
    /** Held while the set of column families changes, and by a checkpoint, which must flush all of them. */
    private final Object familiesChange = new Object();
    /** Flushes RocksDB started on its own: with Partita's log there must be none (see the class comment). */
    private final AtomicLong unexpectedFlushes = new AtomicLong();

    private volatile boolean closed;
    private volatile boolean stopCheckpoints;
    /**
     * Why writes are refused now: RocksDB met a background error (a flush or compaction could not write: the disk is
     * full), or a write failed inside it; the store watch takes writes again once a probe write succeeds. Null when
     * writable.
     */
    private volatile String unavailable;
    /** Why writes are refused now: the disk has less free space than the floor ({@link #watchStore}). Null if not. */
    private volatile String lowSpace;
    /** Polls the data directory's free space and, while writes are refused, whether RocksDB has recovered. */
    private final Thread storeWatch;
    /** RocksDB's count of background errors when last looked at. */
    private volatile long backgroundErrors;
    /** Runs on the checkpoint thread before each checkpoint of the log; must return within a bounded time. */
    private volatile Runnable beforeCheckpoint = () -> {};
    /** The group this store's changes go through first (cluster mode); null in single-node mode. */
    private volatile Replication replication;

    private RocksStore(StorageConfig config, long logSegmentBytes) {
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
            boolean ownLog = !config.inMemory() && !config.sync();
            if (!config.inMemory()) {
                // Replay and checkpoints flush every column family at once: see the class comment.
                dbOptions.setAtomicFlush(true);
            }
            if (ownLog) {
                // Without RocksDB's log a flush at shutdown would store batches past the marker.
                dbOptions.setAvoidFlushDuringShutdown(true);
                dbOptions.setListeners(List.of(closer.push(new FlushWatch())));
                // RocksDB's own recovery from a background error flushes every memtable, batches past the last
                // checkpoint's marker included, and replay after a crash would apply those twice: with Partita's log
                // it does not recover by itself, and the store stays refusing writes until a restart replays the log.
                dbOptions.setMaxBgErrorResumeCount(0);
            } else if (!config.inMemory()) {
                // With RocksDB's log a recovery's flush is consistent; an SST file manager lets it recover from a
                // full disk by itself once space is free (RocksDB wiki, "Background Error Handling").
                dbOptions.setSstFileManager(closer.push(new SstFileManager(Env.getDefault())));
            }
            Cache cache = RocksTuning.blockCache(closer);
            itemOptions = RocksTuning.memtables(RocksTuning.itemOptions(closer, cache), ownLog);
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            descriptors.add(new ColumnFamilyDescriptor(
                    RocksDB.DEFAULT_COLUMN_FAMILY, RocksTuning.memtables(RocksTuning.metaOptions(closer), ownLog)));
            descriptors.add(new ColumnFamilyDescriptor(
                    bytes(META), RocksTuning.memtables(RocksTuning.metaOptions(closer), ownLog)));
            descriptors.add(new ColumnFamilyDescriptor(
                    bytes(STATS), RocksTuning.memtables(RocksTuning.statsOptions(closer), ownLog)));
            descriptors.add(new ColumnFamilyDescriptor(
                    bytes(CHANGELOG), RocksTuning.memtables(RocksTuning.metaOptions(closer), ownLog)));
            descriptors.add(new ColumnFamilyDescriptor(
                    bytes(FEED), RocksTuning.memtables(RocksTuning.metaOptions(closer), ownLog)));
            descriptors.add(new ColumnFamilyDescriptor(
                    bytes(TTL), RocksTuning.memtables(RocksTuning.metaOptions(closer), ownLog)));
            for (String name : existingFamilies(config, path)) {
                if (name.startsWith(ITEMS_PREFIX) || name.startsWith(INDEX_PREFIX) || name.startsWith(BACKUP_PREFIX)) {
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
            // A write that still held a table's family when DeleteTable dropped it makes no change there, as replay
            // (below) already treats it, instead of failing: in cluster mode every replica then applies the same
            // entry the same way, where a failed apply would stop the replica for good (ReplicatedStoreIT).
            writeOptions = closer.push(new WriteOptions()
                    .setSync(config.sync())
                    .setDisableWAL(ownLog)
                    .setIgnoreMissingColumnFamilies(true));
            readOptions = closer.push(new ReadOptions());
            // Made inside the first write of a thread, counted in flight, so never after close(); freed with the rest.
            batches = ThreadLocal.withInitial(() -> new ReusableBatch(closer.push(new WriteBatch())));
            logDir = config.inMemory() ? null : config.dataDir().resolve(CommitLog.DIRECTORY);
            long firstSegment = config.inMemory() ? 0 : recover(logDir);
            if (!config.inMemory()) {
                FileStore disk = Files.getFileStore(config.dataDir());
                long floor = config.minFreeBytes();
                if (floor > 0) {
                    checkFreeSpace(disk, floor);
                }
                storeWatch = new Thread(() -> watchStore(disk, floor), "partita-store-watch");
                storeWatch.setDaemon(true);
                storeWatch.start();
            } else {
                storeWatch = null;
            }
            if (ownLog) {
                checkpointer = new Thread(this::runCheckpoints, "partita-log-checkpoint");
                checkpointer.setDaemon(true);
                Thread wake = checkpointer;
                commitLog = CommitLog.start(
                        logDir,
                        firstSegment,
                        logSegmentBytes,
                        // A test's first segment size, so that its stores grow their segments as a real one does.
                        Long.getLong("partita.log.firstSegmentBytes", CommitLog.FIRST_SEGMENT_BYTES),
                        () -> LockSupport.unpark(wake));
                checkpointer.start();
            } else {
                checkpointer = null;
                commitLog = null;
            }
        } catch (RocksDBException | IOException | RuntimeException e) {
            closer.close();
            throw new StorageException("cannot open RocksDB: " + e.getMessage(), e);
        }
    }

    public static RocksStore open(StorageConfig config) {
        return new RocksStore(config, Long.getLong("partita.log.segmentBytes", DEFAULT_LOG_SEGMENT_BYTES));
    }

    /** Opens a store whose log (if it keeps one) has segments of {@code logSegmentBytes}; for tests. */
    static RocksStore open(StorageConfig config, long logSegmentBytes) {
        return new RocksStore(config, logSegmentBytes);
    }

    /**
     * Applies the batches of Partita's log that the flushed state lacks, those from the stored marker on, and flushes
     * them with a marker past them; then deletes the old segments. Returns the number of the log's next segment.
     */
    private long recover(Path logDir) throws RocksDBException, IOException {
        ColumnFamilyHandle defaultFamily = defaultFamily();
        byte[] marker = db.get(defaultFamily, LOG_POSITION_KEY);
        long from = marker == null ? 0 : ByteBuffer.wrap(marker).getLong();
        List<Long> segments = CommitLog.segments(logDir);
        long next = Math.max(segments.isEmpty() ? 0 : segments.get(segments.size() - 1), CommitLog.segmentOf(from)) + 1;
        if (segments.isEmpty()) {
            return next;
        }
        long replayed;
        try (WriteOptions replay = new WriteOptions().setDisableWAL(true).setIgnoreMissingColumnFamilies(true)) {
            replayed = CommitLog.replay(logDir, from, payload -> {
                try (WriteBatch batch = new WriteBatch(payload)) {
                    db.write(replay, batch);
                } catch (RocksDBException e) {
                    throw new StorageException("cannot replay the log: " + e.getMessage(), e);
                }
            });
            if (replayed > 0) {
                db.put(defaultFamily, replay, LOG_POSITION_KEY, positionBytes(CommitLog.position(next, 0)));
                try (FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
                    db.flush(wait, new ArrayList<>(families.values()));
                }
            }
        }
        log.info("replayed {} batches of the log from segment {}", replayed, CommitLog.segmentOf(from));
        CommitLog.deleteBefore(logDir, CommitLog.position(next, 0));
        return next;
    }

    /** The default column family, which holds the log's marker. */
    private ColumnFamilyHandle defaultFamily() {
        return family(new String(RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8));
    }

    private static byte[] positionBytes(long position) {
        return ByteBuffer.allocate(8).putLong(position).array();
    }

    /**
     * Flushes RocksDB starts on its own, which with Partita's log there must be none of. (Not its background-error
     * callbacks: rocksdbjni 10.10 cannot map the reason of a flush without a WAL, kFlushNoWAL, and the exception it
     * throws in RocksDB's thread wedges the flush; {@link #watchStore} finds errors and recoveries instead.)
     */
    private final class FlushWatch extends AbstractEventListener {
        FlushWatch() {
            super(EnabledEventCallback.ON_FLUSH_BEGIN);
        }

        @Override
        public void onFlushBegin(RocksDB db, FlushJobInfo info) {
            if (info.getFlushReason() != FlushReason.MANUAL_FLUSH) {
                unexpectedFlushes.incrementAndGet();
                log.error("RocksDB flushed {} on its own ({})", info.getColumnFamilyName(), info.getFlushReason());
            }
        }
    }

    private static String describe(Status status) {
        if (status == null) {
            return "unknown error";
        }
        String state = status.getState();
        return state != null && !state.isEmpty() ? state : status.getCodeString();
    }

    /** What the refusals of a RocksDB failure say about their end. */
    private static final String RECOVERY = "writes resume once RocksDB takes them again (when it has recovered from a"
            + " full disk; with Partita's own log, after a restart if it stays read-only)";

    /** A key of the store's own that {@link #probe} writes; nothing reads it. */
    private static final byte[] PROBE_KEY = "partita:probe".getBytes(StandardCharsets.UTF_8);

    /** Writes are refused with {@code why} from now on, before anything is appended, until {@link #acceptWrites}. */
    private void refuseWrites(String why) {
        if (unavailable == null) {
            log.error("the store refuses writes: {}", why);
        }
        unavailable = why;
        if (commitLog != null) {
            commitLog.refuse(why);
        }
    }

    private void acceptWrites() {
        if (unavailable != null) {
            log.info("RocksDB has recovered: the store takes writes again");
        }
        unavailable = null;
        if (commitLog != null) {
            commitLog.accept();
            LockSupport.unpark(checkpointer);
        }
    }

    /**
     * Four times a second: refuses writes while the disk has less than {@code floor} bytes free (0: no floor) — a write
     * refused here changes nothing, where one that met a full disk inside RocksDB could leave it read-only — and resumes
     * them at the first check that finds the space back; refuses them when RocksDB's background-error count rises, and
     * while they are refused for that, probes whether RocksDB takes writes again.
     */
    private void watchStore(FileStore disk, long floor) {
        while (!closed) {
            LockSupport.parkNanos(250_000_000L);
            try {
                if (floor > 0) {
                    checkFreeSpace(disk, floor);
                }
                checkBackgroundErrors();
                if (unavailable != null) {
                    probe();
                }
            } catch (IOException | RuntimeException | Error e) {
                if (!closed) {
                    log.warn("cannot check the store's disk", e);
                }
            }
        }
    }

    /** A background error RocksDB has met since the last look (a flush or compaction that could not write). */
    private void checkBackgroundErrors() {
        long errors = withOpenDb("check", db -> db.getLongProperty("rocksdb.background-errors"));
        if (errors > backgroundErrors) {
            backgroundErrors = errors;
            refuseWrites("RocksDB could not write in the background (a flush or compaction: is the disk full?); "
                    + RECOVERY);
        }
    }

    /**
     * While writes are refused: a write of one key of the store's own (never read; with Partita's log, outside it, and
     * lost in a crash) tells whether RocksDB takes writes again. Not a flush: with Partita's log, RocksDB flushes only
     * at checkpoints, or replay would apply twice what a flush had already stored.
     */
    private void probe() {
        try {
            withOpenDb("probe", db -> {
                // Not while RocksDB holds writes back: memtables waiting for a flush that cannot run would fill.
                for (ColumnFamilyHandle cf : families.values()) {
                    if (db.getLongProperty(cf, "rocksdb.num-immutable-mem-table") > 0) {
                        throw new StorageException("a flush is still pending");
                    }
                }
                if (db.getLongProperty("rocksdb.is-write-stopped") != 0) {
                    throw new StorageException("RocksDB has stopped writes");
                }
                try (WriteOptions unlogged = new WriteOptions()
                                .setDisableWAL(commitLog != null)
                                .setNoSlowdown(true);
                        WriteBatch batch = new WriteBatch()) {
                    batch.put(defaultFamily(), PROBE_KEY, new byte[] {1});
                    db.write(unlogged, batch);
                }
                return null;
            });
            backgroundErrors = withOpenDb("check", db -> db.getLongProperty("rocksdb.background-errors"));
            acceptWrites();
        } catch (StorageException e) {
            log.debug("RocksDB has not recovered yet: {}", e.getMessage());
        }
    }

    private void checkFreeSpace(FileStore disk, long floor) throws IOException {
        long free = disk.getUsableSpace();
        if (free < floor) {
            if (lowSpace == null) {
                log.error(
                        "the data directory's disk has {} MB free, under the floor of {} MB (--min-free-space):"
                                + " writes are refused until space is freed",
                        free >> 20,
                        floor >> 20);
            }
            lowSpace = "only " + (free >> 20) + " MB free on the data directory's disk, under the floor of "
                    + (floor >> 20) + " MB";
        } else if (lowSpace != null) {
            log.info("the data directory's disk has {} MB free again: writes resume", free >> 20);
            lowSpace = null;
        }
    }

    /** Why writes are refused now, or null; for tests and the metrics. */
    public String unavailable() {
        String refused = unavailable;
        return refused != null ? refused : lowSpace;
    }

    /** How many flushes RocksDB has started on its own; always 0 with Partita's log. */
    long unexpectedFlushes() {
        return unexpectedFlushes.get();
    }

    /** Stops the checkpoint thread, as if every checkpoint failed from now on; for tests. */
    void stopCheckpointsForTest() {
        stopCheckpoints = true;
        LockSupport.unpark(checkpointer);
        joinUninterruptibly(checkpointer);
    }

    /**
     * Sets what runs before each checkpoint of Partita's log, on the checkpoint thread: the change feed's trim, so that
     * the checkpoint's flush does not write records every consumer has read. It must return within a bounded time:
     * appends may be waiting for the checkpoint.
     */
    public void beforeCheckpoint(Runnable hook) {
        beforeCheckpoint = hook;
    }

    private void runCheckpoints() {
        long nextSpare = System.nanoTime();
        while (!stopCheckpoints) {
            if (System.nanoTime() - nextSpare >= 0) {
                try {
                    commitLog.prepareSpare();
                } catch (RuntimeException e) {
                    // No room for one: rolls allocate their own (and refuse appends while they cannot) meanwhile.
                    log.debug("no spare log segment: {}", e.getMessage());
                    nextSpare = System.nanoTime() + 5_000_000_000L;
                }
            }
            if (!commitLog.checkpointWanted() || unavailable != null) {
                // Nothing to do, or RocksDB cannot flush until it has recovered (which wakes this thread).
                LockSupport.parkNanos(200_000_000L);
                continue;
            }
            try {
                beforeCheckpoint.run();
                checkpoint(false, true);
            } catch (RuntimeException e) {
                log.error("log checkpoint failed; retrying in a second", e);
                LockSupport.parkNanos(1_000_000_000L);
            }
        }
    }

    /**
     * At a quiet point of the log: writes the marker of that point and has RocksDB flush every column family in one
     * atomic flush, then (unless {@code cut} is false, for tests) gives up the segments before the point once the flush
     * is done. {@code waitForFlush} waits for the flush inside the quiet point, for close.
     */
    void checkpoint(boolean waitForFlush, boolean cut) {
        long[] marked = {-1};
        try {
            synchronized (familiesChange) {
                ColumnFamilyHandle defaultFamily = defaultFamily();
                List<ColumnFamilyHandle> all = new ArrayList<>(families.values());
                commitLog.checkpoint(position -> {
                    db.put(defaultFamily, writeOptions, LOG_POSITION_KEY, positionBytes(position));
                    // Allowing a stall: otherwise the flush waits, holding the log, while writes would stall, which
                    // with compactions failing on a full disk lasts until space is freed, and every append waits too.
                    try (FlushOptions options =
                            new FlushOptions().setWaitForFlush(waitForFlush).setAllowWriteStall(true)) {
                        db.flush(options, all);
                    }
                    marked[0] = position;
                });
            }
            if (!waitForFlush && !awaitFlushes()) {
                log.warn("a log checkpoint's flush has not finished in 60 s; its segments stay for now");
                return;
            }
            if (cut) {
                commitLog.release(marked[0]);
            }
        } catch (StorageException e) {
            throw e;
        } catch (Exception e) {
            throw new StorageException("log checkpoint failed: " + e.getMessage(), e);
        }
    }

    /** Waits until no column family has a memtable waiting to be flushed; false after a minute. */
    private boolean awaitFlushes() throws RocksDBException {
        long deadline = System.nanoTime() + FLUSH_WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            boolean pending = false;
            synchronized (familiesChange) {
                for (ColumnFamilyHandle cf : families.values()) {
                    if (db.getLongProperty(cf, "rocksdb.num-immutable-mem-table") > 0) {
                        pending = true;
                        break;
                    }
                }
            }
            if (!pending) {
                return true;
            }
            String refused = unavailable;
            if (refused != null) {
                throw new StorageUnavailableException(refused);
            }
            checkBackgroundErrors();
            LockSupport.parkNanos(10_000_000L);
        }
        return false;
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

    /**
     * RocksDB's own statistics for the metrics ("RocksDB properties"): each name to its value, summed over the column
     * families for the per-family ones. Read when scraped; each is a lookup RocksDB keeps current, not a scan.
     */
    public Map<String, Long> properties() {
        return withOpenDb("properties", db -> {
            Map<String, Long> out = new java.util.LinkedHashMap<>();
            for (String name : SUMMED_PROPERTIES) {
                out.put(name, db.getAggregatedLongProperty(name));
            }
            for (String name : DATABASE_PROPERTIES) {
                out.put(name, db.getLongProperty(name));
            }
            return out;
        });
    }

    /** Properties of each column family, summed over them. */
    public static final List<String> SUMMED_PROPERTIES = List.of(
            "rocksdb.estimate-num-keys",
            "rocksdb.total-sst-files-size",
            "rocksdb.live-sst-files-size",
            "rocksdb.cur-size-all-mem-tables",
            "rocksdb.estimate-pending-compaction-bytes",
            "rocksdb.estimate-table-readers-mem",
            "rocksdb.num-immutable-mem-table");

    /** Properties of the whole database (the block cache is one, shared by every column family). */
    public static final List<String> DATABASE_PROPERTIES = List.of(
            "rocksdb.num-running-compactions",
            "rocksdb.num-running-flushes",
            "rocksdb.background-errors",
            "rocksdb.block-cache-usage",
            "rocksdb.block-cache-pinned-usage");

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

    /**
     * From now on every change of this store (batches, column families created and dropped) goes through {@code
     * replication} and is applied when the group has committed it ({@link #applyEntry}). Set before the store is
     * used; null applies changes here again.
     */
    public void replicateThrough(Replication replication) {
        this.replication = replication;
    }

    /**
     * Before a strongly consistent read: in cluster mode, waits until this replica has applied everything the group
     * committed ({@link Replication#readBarrier}); a single node's state is always current, and this is one volatile
     * read.
     *
     * @return the term this replica leads in ({@link Replication#readBarrier}); 0 on a single node, which has none
     */
    public long readBarrier() {
        Replication through = replication;
        return through == null ? 0 : through.readBarrier();
    }

    /**
     * Applies one entry of the group's log, in the log's order, and records its term and index in the same atomic
     * batch, so a replica that restarts knows exactly which entries its state holds ({@link #appliedEntry}).
     */
    public void applyEntry(byte[] entry, long term, long index) {
        ReplicatedEntry decoded = ReplicatedEntry.decode(entry);
        switch (decoded.kind()) {
            case CREATE_FAMILY -> {
                // A crash between creating the family and recording the entry applies the entry again.
                if (!hasFamily(decoded.familyName())) {
                    createFamilyHere(decoded.familyName());
                }
            }
            case DROP_FAMILY -> dropFamilyHere(decoded.familyName());
            case BATCH, CATALOG -> {
                if (decoded.changesNothing()) {
                    // A read barrier's: nothing to write, as for Raft's own entries; replayed after a crash, it still
                    // changes nothing, and a checkpoint records the entry it ends with (recordApplied).
                    return;
                }
            }
            case RECORD_IF -> {}
        }
        byte[] applied = ByteBuffer.allocate(16).putLong(term).putLong(index).array();
        withOpenDb("apply entry", db -> {
            boolean isBatch =
                    decoded.kind() == ReplicatedEntry.Kind.BATCH || decoded.kind() == ReplicatedEntry.Kind.CATALOG;
            try (WriteBatch batch = isBatch ? new WriteBatch(decoded.payload()) : new WriteBatch()) {
                if (decoded.kind() == ReplicatedEntry.Kind.RECORD_IF) {
                    // Decided here, on this replica's state: every replica applies the log's entries in one order,
                    // so each decides alike. Applied again after a crash, it was recorded in the same batch.
                    ReplicatedEntry.RecordIf change = decoded.recordIfParts();
                    ColumnFamilyHandle meta = family(META);
                    if (Arrays.equals(db.get(meta, change.key()), change.expected())) {
                        if (change.value() == null) {
                            batch.delete(meta, change.key());
                        } else {
                            batch.put(meta, change.key(), change.value());
                        }
                    }
                }
                batch.put(defaultFamily(), APPLIED_ENTRY_KEY, applied);
                commitHere(db, batch);
            }
            return null;
        });
        if (decoded.changesCatalog()) {
            catalogChanges.incrementAndGet();
        }
    }

    /** Entries applied here ({@link #applyEntry}) that changed the table catalog; see {@link #catalogChanges}. */
    private final java.util.concurrent.atomic.AtomicLong catalogChanges = new java.util.concurrent.atomic.AtomicLong();

    /**
     * How many entries this replica has applied, since it opened, that changed the table catalog: a table's metadata
     * or partition map ({@link #writeCatalog}), or a column family made or dropped. A cluster follower's read-only
     * engine, which loaded the catalog as it opened, opens again when this moves.
     */
    public long catalogChanges() {
        return catalogChanges.get();
    }

    /**
     * Writes a consistent copy of this store into {@code dir}, which must not exist: a RocksDB checkpoint (hard links
     * to its SST files, copies of the rest), so it costs little disk until compactions replace the files it links.
     * With Partita's log the memtables are first flushed by a checkpoint of that log, as every flush must be; the
     * copy then holds every batch committed before the call. The caller keeps writes out meanwhile (cluster mode: the
     * entry-applying thread takes the copies, and it is the only writer).
     */
    public void checkpointTo(Path dir) {
        if (commitLog != null) {
            checkpoint(true, true);
        }
        withOpenDb("checkpoint to " + dir, db -> {
            synchronized (familiesChange) {
                try (org.rocksdb.Checkpoint checkpoint = org.rocksdb.Checkpoint.create(db)) {
                    // RocksDB builds it in a sibling directory and renames that: the copy appears whole or not at all.
                    checkpoint.createCheckpoint(dir.toAbsolutePath().toString());
                }
            }
            return null;
        });
    }

    /** RocksDB's own files in a database directory; the rest of the directory (Partita's) is left alone. */
    private static final java.util.regex.Pattern ROCKS_FILE = java.util.regex.Pattern.compile(
            "\\d+\\.(sst|log|blob|dbtmp)|CURRENT|IDENTITY|LOCK|LOG(\\.old\\.\\d+)?|MANIFEST-\\d+|OPTIONS-\\d+(\\.dbtmp)?");

    /**
     * Deletes the closed store of {@code config}: RocksDB's files and Partita's log segments. Other files and folders
     * in its directory (a cluster node's Raft storage, other accounts' stores) are left alone. Nothing to delete is no
     * error.
     */
    public static void delete(StorageConfig config) throws IOException {
        Path data = config.dataDir();
        if (!Files.isDirectory(data)) {
            return;
        }
        try (var files = Files.list(data)) {
            for (Path f : files.toList()) {
                if (Files.isRegularFile(f)
                        && ROCKS_FILE.matcher(f.getFileName().toString()).matches()) {
                    Files.delete(f);
                }
            }
        }
        Path logDir = data.resolve(CommitLog.DIRECTORY);
        if (Files.isDirectory(logDir)) {
            try (var files = Files.list(logDir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    /**
     * Makes the closed store of {@code config} a copy of {@code checkpoint} (a directory {@link #checkpointTo} wrote,
     * perhaps on another node): deletes RocksDB's files and Partita's log segments, whose batches belong to the state
     * being replaced, and links (SST files, which RocksDB never changes) or copies the checkpoint's. Files of other
     * names in the checkpoint (a transfer's checksums) are left out. Not atomic: a caller that may crash midway keeps a
     * record to repeat it from the start, which gives the same result.
     */
    public static void replaceWithCheckpoint(StorageConfig config, Path checkpoint) throws IOException {
        Path data = config.dataDir();
        delete(config);
        List<Path> sources;
        try (var files = Files.list(checkpoint)) {
            sources = files.filter(f -> Files.isRegularFile(f)
                            && ROCKS_FILE.matcher(f.getFileName().toString()).matches())
                    .sorted()
                    .toList();
        }
        Path current = null;
        for (Path f : sources) {
            String name = f.getFileName().toString();
            if (name.equals("CURRENT")) {
                current = f;
                continue;
            }
            Path target = data.resolve(name);
            if (name.endsWith(".sst") || name.endsWith(".blob")) {
                try {
                    Files.createLink(target, f);
                    continue;
                } catch (IOException | UnsupportedOperationException e) {
                    // Another file system: a copy does as well.
                }
            }
            Files.copy(f, target);
        }
        if (current == null) {
            throw new IOException("no RocksDB database in " + checkpoint + " (it has no CURRENT file)");
        }
        // CURRENT last: until it is there the directory holds no database RocksDB would open.
        Files.copy(current, data.resolve("CURRENT"));
        forceDirectory(data);
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (java.nio.channels.FileChannel channel =
                java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Records that this replica's state holds every entry up to {@code index}: the entries after the last one {@link
     * #applyEntry} applied changed nothing here (Raft's own: configurations, a new leader's first entry). Called on
     * the entry-applying thread before a checkpoint, so the checkpoint names the entry it ends with.
     */
    public void recordApplied(long term, long index) {
        byte[] applied = ByteBuffer.allocate(16).putLong(term).putLong(index).array();
        withOpenDb("record applied entry", db -> {
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(defaultFamily(), APPLIED_ENTRY_KEY, applied);
                commitHere(db, batch);
            }
            return null;
        });
    }

    /** The term and index of the last entry {@link #applyEntry} applied, or null if none ever was. */
    public long[] appliedEntry() {
        byte[] bytes = withOpenDb("applied entry", db -> db.get(defaultFamily(), APPLIED_ENTRY_KEY));
        if (bytes == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new long[] {b.getLong(), b.getLong()};
    }

    public ColumnFamilyHandle createItemFamily(String name) {
        Replication through = replication;
        if (through != null) {
            through.replicate(ReplicatedEntry.createFamily(name));
            return family(name);
        }
        return createFamilyHere(name);
    }

    private ColumnFamilyHandle createFamilyHere(String name) {
        return withOpenDb("create column family " + name, db -> {
            synchronized (familiesChange) {
                ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(bytes(name), itemOptions));
                families.put(name, closer.push(handle));
                return handle;
            }
        });
    }

    /**
     * Drops a column family. Its handle stays open until the store closes: a request still holding it then writes
     * into a dropped family, which changes nothing (the writes ignore missing families), instead of into freed native
     * memory.
     */
    public void dropFamily(String name) {
        Replication through = replication;
        if (through != null) {
            through.replicate(ReplicatedEntry.dropFamily(name));
            return;
        }
        dropFamilyHere(name);
    }

    private void dropFamilyHere(String name) {
        withOpenDb("drop column family " + name, db -> {
            synchronized (familiesChange) {
                ColumnFamilyHandle handle = families.remove(name);
                if (handle != null) {
                    db.dropColumnFamily(handle);
                }
            }
            return null;
        });
    }

    public byte[] get(ColumnFamilyHandle cf, byte[] key) {
        return withOpenDb("get", db -> db.get(cf, readOptions, key));
    }

    /**
     * Builds and commits one atomic batch through the write-ahead log. Each thread reuses one native batch, cleared
     * after every commit, instead of creating and freeing one per write; a nested write on the same thread gets a fresh
     * one.
     */
    public void write(Consumer<WriteBatch> fill) {
        write(fill, false);
    }

    /**
     * As {@link #write}, for a change of the table catalog (a table's metadata, its partition map): in cluster mode it
     * travels as a {@link ReplicatedEntry.Kind#CATALOG} entry, which tells the followers' readers to load the catalog
     * again ({@link #catalogChanges}). On a single node it is a write like any other.
     */
    public void writeCatalog(Consumer<WriteBatch> fill) {
        write(fill, true);
    }

    private void write(Consumer<WriteBatch> fill, boolean catalog) {
        withOpenDb("write", db -> {
            ReusableBatch reusable = batches.get();
            if (reusable.inUse) {
                try (WriteBatch batch = new WriteBatch()) {
                    fill.accept(batch);
                    commit(db, batch, catalog);
                }
                return null;
            }
            reusable.inUse = true;
            try {
                fill.accept(reusable.batch);
                commit(db, reusable.batch, catalog);
            } finally {
                reusable.batch.clear();
                reusable.inUse = false;
            }
            return null;
        });
    }

    /**
     * Appends {@code batch} to Partita's log, if the store keeps one, and then applies it. The append comes first, so
     * nobody can read a write that a crash would take back; the lock is held for the copy only, and the memtable
     * inserts of several threads overlap as they do in RocksDB's write group (docs/PERFORMANCE.md).
     *
     * <p>On an event loop: the append may wait for the log's lock (see {@link CommitLog#append}, at most about a
     * millisecond) and throws {@code WouldBlock} rather than wait for a checkpoint; {@code db.write} may wait while it
     * joins another thread's write group (that group's memtable inserts), or if RocksDB stalls writes because
     * compaction is far behind, which with Partita's log (RocksDB flushes only at checkpoints) has not been seen.
     */
    private void commit(RocksDB db, WriteBatch batch, boolean catalog) throws RocksDBException {
        Replication through = replication;
        if (through != null) {
            byte[] data = batch.data();
            through.replicate(catalog ? ReplicatedEntry.catalogBatch(data) : ReplicatedEntry.batch(data));
            return;
        }
        commitHere(db, batch);
    }

    /** Commits {@code batch} to this replica: its log, then RocksDB. */
    private void commitHere(RocksDB db, WriteBatch batch) throws RocksDBException {
        String refused = unavailable;
        if (refused == null) {
            refused = lowSpace;
        }
        if (refused != null) {
            throw new StorageUnavailableException(refused);
        }
        if (commitLog == null) {
            apply(db, batch);
            return;
        }
        byte[] payload = batch.data();
        commitLog.append(payload, CommitLog.checksum(payload));
        try {
            apply(db, batch);
        } finally {
            commitLog.applied();
        }
    }

    /**
     * RocksDB's write; an I/O error (its log could not be written with {@code --sync}, or it is in a background error)
     * is the store being unavailable, not a bug.
     */
    private void apply(RocksDB db, WriteBatch batch) throws RocksDBException {
        try {
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            Status status = e.getStatus();
            if (status != null && status.getCode() == Status.Code.IOError) {
                String why = "RocksDB could not write: " + describe(status);
                refuseWrites(why + "; " + RECOVERY);
                throw new StorageUnavailableException(why, e, true);
            }
            throw e;
        }
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
        shutDown(true);
    }

    /**
     * Closes as a process crash would leave things: no checkpoint, and RocksDB drops its memtables, so what the store
     * holds on disk is its last flush and the log. For tests of replay.
     */
    synchronized void closeAsIfCrashed() {
        shutDown(false);
    }

    private void shutDown(boolean checkpoint) {
        if (closed) {
            return;
        }
        closed = true;
        long waitingSince = System.nanoTime();
        while (inFlight.get() != 0) {
            if (commitLog != null && System.nanoTime() - waitingSince > CLOSE_WAIT_NANOS) {
                // Writers held back for a checkpoint that keeps failing (RocksDB cannot flush) would wait forever:
                // closing the log fails them instead. The ones already applying finish first.
                commitLog.close();
            }
            LockSupport.parkNanos(100_000);
        }
        try {
            if (commitLog != null) {
                stopCheckpoints = true;
                LockSupport.unpark(checkpointer);
                joinUninterruptibly(checkpointer);
                if (checkpoint) {
                    try {
                        checkpoint(true, true);
                    } catch (RuntimeException e) {
                        log.warn("the closing checkpoint failed; the log will be replayed at the next open", e);
                    }
                }
                commitLog.close();
            }
        } finally {
            closer.close();
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
