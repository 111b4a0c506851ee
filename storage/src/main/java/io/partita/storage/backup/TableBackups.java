package io.partita.storage.backup;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.storage.StorageException;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import io.partita.storage.write.ItemWrites;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On-demand backups ("Using on-demand backup and restore for DynamoDB"): a backup is a column family of its own,
 * {@code backup/<id>}, holding a copy of the table's items as one RocksDB iterator saw them (a consistent point in
 * time) and, under the empty key (no item key is empty), its {@link Backup} record, written last. A crash during the
 * copy leaves a family without a record, dropped at the next start. A restore creates the new table (its indexes
 * ACTIVE) and writes every item into it through the one write path as {@code ChangeCause.RESTORE}: indexes are
 * built as for any write, and nothing is admitted or charged.
 */
public final class TableBackups {
    private static final Logger log = LoggerFactory.getLogger(TableBackups.class);
    private static final byte[] RECORD_KEY = new byte[0];
    private static final int COPY_BATCH = 512;

    /**
     * One backup.
     *
     * @param id its part of the ARN: the creation time in epoch milliseconds, zero-padded to 14 digits, a dash and 8
     *     hex digits ({@code 01576616366715-b4e58d3a}, as DynamoDB's)
     * @param source the table's metadata when it was backed up: what a restore recreates
     */
    public record Backup(
            String id, String name, long creationMillis, long sizeBytes, long itemCount, TableMetadata source) {
        String family() {
            return RocksStore.BACKUP_PREFIX + id;
        }
    }

    private final RocksStore store;
    private final TableCatalog catalog;
    private final ItemWrites writes;
    private final Clock clock;
    private final Map<String, Backup> backups = new ConcurrentHashMap<>();
    /** Backups a restore is reading: DeleteBackup refuses them (BackupInUseException). */
    private final Map<String, String> restoring = new ConcurrentHashMap<>();

    public TableBackups(RocksStore store, TableCatalog catalog, ItemWrites writes, Clock clock) {
        this(store, catalog, writes, clock, false);
    }

    /**
     * With {@code reader} (a cluster follower's read-only engine, which writes nothing), a backup still being made is
     * left alone instead of dropped as unfinished: the leader is making it.
     */
    public TableBackups(RocksStore store, TableCatalog catalog, ItemWrites writes, Clock clock, boolean reader) {
        this.store = store;
        this.catalog = catalog;
        this.writes = writes;
        this.clock = clock;
        for (String family : store.familyNames()) {
            if (!family.startsWith(RocksStore.BACKUP_PREFIX)) {
                continue;
            }
            byte[] record = store.get(store.family(family), RECORD_KEY);
            if (record == null) {
                if (!reader) {
                    log.info("dropping the unfinished backup {}", family);
                    store.dropFamily(family);
                }
                continue;
            }
            Backup b = decode(record);
            backups.put(b.id(), b);
        }
    }

    /** Copies {@code t}'s items into a new backup named {@code name}. */
    public Backup create(Table t, String name) {
        return create(t, name, newId(clock.millis()));
    }

    /** A new backup's id, made at {@code millis}: {@link Backup#id}'s form. */
    public static String newId(long millis) {
        return String.format("%014d-%08x", millis, ThreadLocalRandom.current().nextInt());
    }

    /**
     * Copies {@code t}'s items into a new backup named {@code name} whose id is {@code id} (made by {@link #newId},
     * its time the backup's), as one part of a backup of a table cut by hash ranges over a cluster's Raft groups: each
     * group backs up its own range under the one id. A backup of that id here already (the part made by this request
     * sent before) is answered as it is.
     *
     * @throws IllegalArgumentException an id not of {@link #newId}'s form
     */
    public Backup create(Table t, String name, String id) {
        if (!id.matches("\\d{14}-[0-9a-f]{8}")) {
            throw new IllegalArgumentException("not a backup's id: " + id);
        }
        Backup made = backups.get(id);
        if (made != null) {
            return made;
        }
        long now = Long.parseLong(id.substring(0, 14));
        String family = RocksStore.BACKUP_PREFIX + id;
        ColumnFamilyHandle cf = store.createItemFamily(family);
        long[] counted = new long[2];
        try {
            List<byte[][]> pending = new ArrayList<>(COPY_BATCH);
            store.forEach(t.items(), (key, value) -> {
                pending.add(new byte[][] {key, value});
                counted[0]++;
                counted[1] += ItemSizes.of(value);
                if (pending.size() >= COPY_BATCH) {
                    flush(cf, pending);
                }
            });
            flush(cf, pending);
            Backup b = new Backup(id, name, now, counted[1], counted[0], t.metadata());
            store.write(batch -> put(batch, cf, RECORD_KEY, encode(b)));
            backups.put(id, b);
            return b;
        } catch (RuntimeException e) {
            store.dropFamily(family);
            throw e;
        }
    }

    private void flush(ColumnFamilyHandle cf, List<byte[][]> pending) {
        if (pending.isEmpty()) {
            return;
        }
        store.write(batch -> {
            for (byte[][] kv : pending) {
                put(batch, cf, kv[0], kv[1]);
            }
        });
        pending.clear();
    }

    private static void put(org.rocksdb.WriteBatch batch, ColumnFamilyHandle cf, byte[] key, byte[] value) {
        try {
            batch.put(cf, key, value);
        } catch (RocksDBException e) {
            throw new StorageException("backup write failed", e);
        }
    }

    public Backup find(String id) {
        return backups.get(id);
    }

    /** Every backup, oldest first. */
    public List<Backup> all() {
        List<Backup> out = new ArrayList<>(backups.values());
        out.sort(Comparator.comparingLong(Backup::creationMillis).thenComparing(Backup::id));
        return out;
    }

    /**
     * Deletes backup {@code id}; one a restore is reading is refused with {@code BackupInUseException}, worded by
     * {@code inUse} from the name of the table being restored.
     *
     * @return the backup deleted, or null if there is none
     */
    public Backup delete(String id, UnaryOperator<String> inUse) {
        String target = restoring.get(id);
        if (target != null) {
            throw new ApiException(ErrorCode.BACKUP_IN_USE, inUse.apply(target));
        }
        Backup b = backups.remove(id);
        if (b != null) {
            store.dropFamily(b.family());
        }
        return b;
    }

    /**
     * Creates table {@code target} (new name, id and creation time, the indexes to keep, settings to override) and
     * copies backup {@code b}'s items into it. A backup feeds one restore at a time: another is refused with
     * {@code BackupInUseException} and {@code inUseMessage}.
     */
    public Table restore(Backup b, TableMetadata target, String inUseMessage) {
        if (restoring.putIfAbsent(b.id(), target.name()) != null) {
            throw new ApiException(ErrorCode.BACKUP_IN_USE, inUseMessage);
        }
        try {
            ColumnFamilyHandle cf = store.family(b.family());
            return Restores.into(catalog, target, t -> {
                RestoreBatch batch = new RestoreBatch(writes);
                store.forEach(cf, (key, value) -> {
                    if (key.length != 0) {
                        batch.put(t, ItemCodec.decode(value));
                    }
                });
                batch.flush();
            });
        } finally {
            restoring.remove(b.id());
        }
    }

    private static byte[] encode(Backup b) {
        try {
            return DynamoJson.mapper().writeValueAsBytes(b);
        } catch (IOException e) {
            throw new StorageException("cannot encode a backup's record", e);
        }
    }

    private static Backup decode(byte[] json) {
        try {
            return DynamoJson.mapper().readValue(json, Backup.class);
        } catch (IOException e) {
            throw new StorageException("cannot decode a backup's record", e);
        }
    }

    /** The DynamoDB size of a stored item, from its encoded bytes. */
    private static final class ItemSizes {
        static long of(byte[] stored) {
            return io.partita.protocol.model.ItemSize.of(ItemCodec.decode(stored));
        }
    }
}
