package io.partita.storage.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Backups on real RocksDB: a point-in-time copy that survives a reopen, and a restore through the write path. */
class TableBackupsIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);

    private static TableMetadata table(String name) {
        return io.partita.storage.TestTables.onDemand(name, SCHEMA);
    }

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static void put(StorageEngine engine, Table t, String pk) {
        Map<String, AttributeValue> item = Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S(pk));
        engine.write(t, key(pk), old -> new WriteDecision.Put(item));
    }

    @Test
    void aBackupSurvivesAReopenAndRestoresItsMoment(@TempDir Path dir) {
        String id;
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = engine.tables().create(table("orders"));
            for (int i = 0; i < 1_200; i++) {
                put(engine, t, "k" + i);
            }
            TableBackups.Backup b = engine.backups().create(t, "nightly");
            id = b.id();
            assertThat(b.itemCount()).isEqualTo(1_200);
            assertThat(b.sizeBytes()).isEqualTo(t.stats().sizeBytes());
            put(engine, t, "after");
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            TableBackups.Backup b = engine.backups().find(id);
            assertThat(b).isNotNull();
            assertThat(b.name()).isEqualTo("nightly");
            assertThat(b.source().name()).isEqualTo("orders");
            Table restored = engine.backups().restore(b, table("orders-restored"), "in use");
            assertThat(restored.stats().itemCount()).isEqualTo(1_200);
            assertThat(engine.get(restored, key("k7"))).containsEntry("v", new AttributeValue.S("k7"));
            assertThat(engine.get(restored, key("after"))).isNull();
            // Nothing of the restore was charged to the new table.
            assertThat(restored.partitions().throughput().consumption().consumedWriteUnits())
                    .isZero();
            assertThat(engine.backups().delete(id, target -> "in use")).isNotNull();
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(engine.backups().find(id)).isNull();
            assertThat(engine.backups().all()).isEmpty();
        }
    }

    /**
     * A part of a backup of a table cut by ranges: made under the id and time it is given, once (the same id again is
     * the part made before, not a second copy); an id not of a backup's form is refused.
     */
    @Test
    void aBackupMadeUnderAGivenIdIsMadeOnce() {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.memory())) {
            Table t = engine.tables().create(table("orders"));
            put(engine, t, "k1");
            String id = TableBackups.newId(1_700_000_000_123L);
            assertThat(id).matches("01700000000123-[0-9a-f]{8}");
            TableBackups.Backup b = engine.backups().create(t, "nightly", id);
            assertThat(b.id()).isEqualTo(id);
            assertThat(b.creationMillis()).isEqualTo(1_700_000_000_123L);
            assertThat(b.itemCount()).isEqualTo(1);
            put(engine, t, "k2");
            TableBackups.Backup again = engine.backups().create(t, "nightly", id);
            assertThat(again).isEqualTo(b);
            assertThat(engine.backups().all()).containsExactly(b);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> engine.backups().create(t, "nightly", "1700000000123-abc"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(engine.backups().all()).hasSize(1);
        }
    }

    /** A restore that fails half way leaves no table behind: here the target's key is one the items do not have. */
    @Test
    void aFailedRestoreLeavesNoTable() {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.memory())) {
            Table t = engine.tables().create(table("orders"));
            put(engine, t, "k1");
            TableBackups.Backup b = engine.backups().create(t, "nightly");
            KeySchema other = new KeySchema(new KeySchema.KeyAttribute("other", ScalarType.S), null);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.backups()
                            .restore(b, io.partita.storage.TestTables.onDemand("broken", other), "in use"))
                    .isInstanceOf(RuntimeException.class);
            assertThat(engine.tables().find("broken")).isNull();
            // The backup is free again for a restore that works.
            assertThat(engine.backups()
                            .restore(b, table("fixed"), "in use")
                            .stats()
                            .itemCount())
                    .isEqualTo(1);
        }
    }

    @Test
    void aBackupWithoutItsRecordIsDroppedAtTheNextStart(@TempDir Path dir) {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            engine.tables().create(table("orders"));
        }
        // As a crash during the copy leaves it: the family made, the record not yet written.
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir))) {
            store.createItemFamily(RocksStore.BACKUP_PREFIX + "01700000000000-0000abcd");
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(engine.backups().all()).isEmpty();
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir))) {
            assertThat(store.familyNames()).noneMatch(f -> f.startsWith(RocksStore.BACKUP_PREFIX));
        }
    }
}
