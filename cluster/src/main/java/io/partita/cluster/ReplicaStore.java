package io.partita.cluster;

import io.partita.storage.StorageConfig;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.Replication;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's replica of the store, which a snapshot from the leader may replace whole: a replica that fell behind the
 * leader's log (the entries it lacks were purged after a snapshot) installs the leader's RocksDB checkpoint in place of
 * its own state and goes on from the checkpoint's entry.
 *
 * <p>The replacement is recorded before it starts ({@value #INSTALLING} in the data directory, naming the checkpoint),
 * so a crash in the middle of it is finished at the next {@link #open}; the checkpoint stays in the Raft storage
 * (it is this node's latest snapshot) until a newer one replaces it.
 */
public final class ReplicaStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaStore.class);
    static final String INSTALLING = "partita-installing-checkpoint";

    private final StorageConfig config;
    private volatile RocksStore store;
    private volatile Replication replication;
    /** Whether a checkpoint is replacing the store now; no engine may open on it meanwhile. */
    private volatile boolean installing;
    /** Runs before the store closes for an install: whatever uses it stops (the leader's server). */
    private volatile Runnable beforeInstall = () -> {};

    private ReplicaStore(StorageConfig config, RocksStore store) {
        this.config = config;
        this.store = store;
    }

    /**
     * Deletes the closed replica in {@code config}'s data directory: its store ({@link RocksStore#delete}) and the
     * record of an install under way, whose checkpoint went with the group's Raft storage.
     */
    public static void delete(StorageConfig config) throws IOException {
        Files.deleteIfExists(config.dataDir().resolve(INSTALLING));
        RocksStore.delete(config);
    }

    /** Opens the replica in {@code config}'s data directory, first finishing an install a crash interrupted. */
    public static ReplicaStore open(StorageConfig config) throws IOException {
        if (config.inMemory()) {
            throw new IllegalArgumentException("a replica keeps its store on disk: give it a data directory");
        }
        Path marker = config.dataDir().resolve(INSTALLING);
        if (Files.exists(marker)) {
            Path checkpoint = Path.of(Files.readString(marker, StandardCharsets.UTF_8));
            log.info("finishing the install of checkpoint {} that stopped midway", checkpoint);
            RocksStore.replaceWithCheckpoint(config, checkpoint);
            Files.delete(marker);
        }
        return new ReplicaStore(config, RocksStore.open(config));
    }

    /** The store as it is now; a new one after each install. */
    public RocksStore store() {
        return store;
    }

    /**
     * Runs {@code use} on the store unless a checkpoint is replacing it, in which case it returns null; no install
     * replaces the store while {@code use} runs.
     */
    public synchronized <T> T unlessInstalling(java.util.function.Function<RocksStore, T> use) {
        return installing ? null : use.apply(store);
    }

    /**
     * The value recorded under {@code key} ({@link #record}) as this replica has applied it, or null: none, or a
     * checkpoint is replacing the store now.
     */
    public byte[] recorded(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return unlessInstalling(s -> s.get(s.family(RocksStore.META), k));
    }

    /**
     * Every value recorded under a key that begins with {@code prefix}, by key in order, as this replica has applied
     * them; null while a checkpoint replaces the store (the records are then unknown, not absent).
     */
    public java.util.SortedMap<String, byte[]> recordedUnder(String prefix) {
        byte[] lower = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] upper = java.util.Arrays.copyOf(lower, lower.length + 1);
        upper[lower.length] = (byte) 0xFF; // past every key of the prefix (UTF-8 has no 0xFF byte)
        return unlessInstalling(s -> {
            java.util.SortedMap<String, byte[]> out = new java.util.TreeMap<>();
            s.range(s.family(RocksStore.META), lower, upper, true, (k, v) -> {
                out.put(new String(k, StandardCharsets.UTF_8), v);
                return true;
            });
            return out;
        });
    }

    /**
     * Records {@code value} under {@code key} in the store's {@code meta} family, through the group when the store is
     * replicated: returns once the group committed it and this replica applied it. For a group whose store holds no
     * tables (the members' group's), whose entries are the cluster's own records: a table's catalog reads every key of
     * {@code meta} as a table's.
     *
     * @throws io.partita.storage.StorageUnavailableException when this node does not lead the group, or the group did
     *     not commit it (its outcome then unknown: see {@link StorageUnavailableException#mayHaveBeenWritten})
     */
    public void record(String key, byte[] value) {
        write(RocksStore.META, key, value);
    }

    /**
     * The family of a store's own marks ({@link #mark}): the default one, which holds the store's own keys (the log's
     * position, the applied entry, the engine's records), never read as a table's.
     */
    private static final String MARKS = "default";

    /** The value marked under {@code key} ({@link #mark}) as this replica has applied it, or null. */
    public byte[] marked(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return unlessInstalling(s -> s.get(s.family(MARKS), k));
    }

    /**
     * Marks {@code key} with {@code value} (removes the mark for null) in a store that may hold tables, through the
     * group as {@link #record} does. Only the group's leader proposes it, so a mark committed says that this node still
     * led when the group committed it, and every later leader has it before it serves.
     *
     * @throws io.partita.storage.StorageUnavailableException when this node does not lead the group, or the group did
     *     not commit it
     */
    public void mark(String key, byte[] value) {
        write(MARKS, key, value);
    }

    private void write(String family, String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        RocksStore s = store;
        s.write(batch -> {
            try {
                if (value == null) {
                    batch.delete(s.family(family), k);
                } else {
                    batch.put(s.family(family), k, value);
                }
            } catch (org.rocksdb.RocksDBException e) {
                throw new StorageException("cannot record " + key, e);
            }
        });
    }

    /** Whether a checkpoint is replacing the store now (read without waiting for the install). */
    public boolean installing() {
        return installing;
    }

    /** Sets what runs before an install closes the store: whatever uses the store must stop using it. */
    public void beforeInstall(Runnable hook) {
        beforeInstall = hook;
    }

    void replicateThrough(Replication through) {
        replication = through;
        store.replicateThrough(through);
    }

    /**
     * Replaces the store with a copy of {@code checkpoint}: closes it, replaces its files, opens it again. Called on
     * the thread that applies entries, so nothing applies meanwhile.
     */
    void install(Path checkpoint) throws IOException {
        installing = true;
        try {
            beforeInstall.run();
            synchronized (this) {
                store.close();
                Path marker = config.dataDir().resolve(INSTALLING);
                try (FileChannel out = FileChannel.open(
                        marker,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
                    out.write(StandardCharsets.UTF_8.encode(
                            checkpoint.toAbsolutePath().toString()));
                    out.force(true);
                }
                RocksStore.replaceWithCheckpoint(config, checkpoint);
                Files.delete(marker);
                RocksStore opened;
                try {
                    opened = RocksStore.open(config);
                } catch (StorageException e) {
                    throw new IOException("cannot open the store installed from " + checkpoint, e);
                }
                opened.replicateThrough(replication);
                store = opened;
            }
        } finally {
            installing = false;
        }
    }

    @Override
    public synchronized void close() {
        store.close();
    }
}
