package io.partita.storage.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.KeySchema.KeyAttribute;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import io.partita.storage.table.TableStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GSIs against real RocksDB: the applier applies every change exactly once across a restart with a backlog, and a
 * backfill of a table with data ends with exactly the table's items in the index although writers kept changing them
 * meanwhile; the index's count and size agree with its rows.
 */
class GlobalIndexesIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeyAttribute("id", ScalarType.S), null);

    private static StorageConfig disk(Path dir) {
        return StorageConfig.disk(dir).withCapacity(CapacityConfig.defaults().withMode(ThroughputMode.OFF));
    }

    static IndexDefinition byG(String status, boolean backfilling) {
        return new IndexDefinition(
                "by-g",
                UUID.randomUUID().toString(),
                true,
                List.of(new KeyAttribute("g", ScalarType.S)),
                List.of(),
                IndexDefinition.INCLUDE,
                List.of("v"),
                0,
                0,
                null,
                null,
                status,
                backfilling,
                0,
                null,
                null);
    }

    static TableMetadata table(String name, List<IndexDefinition> indexes) {
        TableMetadata m = TestTables.onDemand(name, SCHEMA);
        return m.withAttributeDefinitions(
                        List.of(new AttributeDefinition("id", "S"), new AttributeDefinition("g", "S")))
                .withIndexes(indexes);
    }

    static void put(StorageEngine e, Table t, String id, String g, String v) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("id", new AttributeValue.S(id));
        item.put("v", new AttributeValue.S(v));
        if (g != null) {
            item.put("g", new AttributeValue.S(g));
        }
        e.write(t, new PrimaryKey(new AttributeValue.S(id), null), ConditionalWrite.blind(new WriteDecision.Put(item)));
    }

    static void delete(StorageEngine e, Table t, String id) {
        e.write(t, new PrimaryKey(new AttributeValue.S(id), null), ConditionalWrite.blind(new WriteDecision.Delete()));
    }

    /** A random change to one of 200 items: put with a g, put without, delete. */
    static void change(StorageEngine e, Table t, Random r, int op) {
        String id = "item-" + r.nextInt(200);
        int kind = r.nextInt(10);
        if (kind < 6) {
            put(e, t, id, "G" + r.nextInt(8), "op" + op);
        } else if (kind < 8) {
            put(e, t, id, null, "op" + op);
        } else {
            delete(e, t, id);
        }
    }

    /** What the index must hold: id → g/v for every item with a g. */
    static TreeMap<String, String> expected(StorageEngine e, Table t) {
        TreeMap<String, String> out = new TreeMap<>();
        e.range(t, new KeyRanges.Range(null, null), true, (k, item, n) -> {
            AttributeValue g = item.get("g");
            if (g != null) {
                out.put(id(item), ((AttributeValue.S) g).value() + "/" + ((AttributeValue.S) item.get("v")).value());
            }
            return true;
        });
        return out;
    }

    /** What the index holds; fails on a second row for one item. */
    static TreeMap<String, String> indexed(StorageEngine e, Table t) {
        TreeMap<String, String> out = new TreeMap<>();
        LiveIndex i = t.indexes().find("by-g");
        e.rangeIndex(i, new KeyRanges.Range(null, null), true, (k, row, n) -> {
            String previous = out.put(
                    id(row),
                    ((AttributeValue.S) row.get("g")).value() + "/" + ((AttributeValue.S) row.get("v")).value());
            assertThat(previous).as("a second row for %s", id(row)).isNull();
            assertThat(row.keySet()).containsExactlyInAnyOrder("id", "g", "v");
            return true;
        });
        return out;
    }

    private static String id(Map<String, AttributeValue> item) {
        return ((AttributeValue.S) item.get("id")).value();
    }

    static void assertConverged(StorageEngine e, Table t) {
        TreeMap<String, String> expected = expected(e, t);
        assertThat(indexed(e, t)).isEqualTo(expected);
        TableStats stats =
                e.tables().indexStats(t, t.indexes().find("by-g").definition().id());
        assertThat(stats.itemCount()).isEqualTo(expected.size());
        assertThat(stats.sizeBytes()).isPositive();
    }

    @Test
    void aBacklogIsAppliedExactlyOnceAfterARestart(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().create(table("lagged", List.of(byG("ACTIVE", false))));
            Random r = new Random(7);
            for (int op = 0; op < 400; op++) {
                change(e, t, r, op);
            }
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(30))).isTrue();
            assertConverged(e, t);
            // Now hold the index back, and leave a backlog behind at close.
            t.indexes().find("by-g").lagMillis(3_600_000);
            for (int op = 400; op < 900; op++) {
                change(e, t, r, op);
            }
            assertThat(e.globalIndexes().lag(t).get(0).backlog()).isPositive();
        }
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().find("lagged");
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(30))).isTrue();
            assertConverged(e, t);
            assertThat(e.globalIndexes().lag(t).get(0).backlog()).isZero();
        }
    }

    @Test
    void aBackfillWhileWritersChangeTheTableConverges(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().create(table("filled", List.of()));
            Random r = new Random(11);
            for (int i = 0; i < 10_000; i++) {
                put(e, t, "bulk-" + i, "G" + (i % 13), "v" + i);
            }
            for (int op = 0; op < 500; op++) {
                change(e, t, r, op);
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                Random w = new Random(13);
                for (int op = 1000; !stop.get(); op++) {
                    change(e, t, w, op);
                }
            });
            writer.start();
            TableMetadata created = e.globalIndexes().create(t, byG("CREATING", true));
            assertThat(created.index("by-g").backfilling()).isTrue();
            assertThat(created.index("by-g").status()).isEqualTo("CREATING");
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(60))).isTrue();
            stop.set(true);
            writer.join();
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(30))).isTrue();
            assertThat(t.indexes().find("by-g").definition().status()).isEqualTo("ACTIVE");
            assertThat(t.metadata().index("by-g").status()).isEqualTo("ACTIVE");
            assertConverged(e, t);
            assertThat(t.indexes().find("by-g").backfilled()).isGreaterThanOrEqualTo(10_000);
        }
        // The index and its state survive a restart.
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().find("filled");
            assertThat(t.indexes().find("by-g").definition().status()).isEqualTo("ACTIVE");
            assertConverged(e, t);
        }
    }

    /**
     * A backfill that the store refuses (free space under the floor, for real: a ballast file on the disk) waits and
     * tries again by itself, and the index turns ACTIVE once space returns, without a restart.
     */
    @Test
    void aBackfillRefusedForWantOfDiskResumesOnceSpaceReturns(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().create(table("waits", List.of()));
            for (int i = 0; i < 200; i++) {
                put(e, t, "id" + i, "G" + (i % 7), "v");
            }
            // The index's consumer and definition, as GlobalIndexes.create stores them, without starting its
            // backfill: that starts when the engine opens again.
            IndexDefinition d = byG("CREATING", true);
            e.feed().register(t, d.consumerName(), null);
            e.tables().addIndex(t, d);
        }
        java.nio.file.FileStore disk = java.nio.file.Files.getFileStore(dir);
        Path ballast = dir.getParent().resolve(dir.getFileName() + "-ballast");
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(
                ballast, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocate(1 << 20);
            for (int mb = 0; mb < 512; mb++) {
                c.write(zeros.clear());
            }
            c.force(true);
        }
        // Measured once the ballast is down, halfway between the free space now and with the ballast gone: the
        // disk may be shared, and others' files come and go while the ballast is written.
        long floor = disk.getUsableSpace() + (256L << 20);
        try (StorageEngine e = StorageEngine.open(disk(dir).withMinFreeBytes(floor))) {
            Table t = e.tables().find("waits");
            assertThat(e.globalIndexes().await(t, Duration.ofMillis(1500)))
                    .as("the backfill cannot write")
                    .isFalse();
            assertThat(t.indexes().find("by-g").definition().status()).isEqualTo("CREATING");
            java.nio.file.Files.delete(ballast);
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(30))).isTrue();
            assertThat(t.indexes().find("by-g").definition().status()).isEqualTo("ACTIVE");
            assertConverged(e, t);
        } finally {
            java.nio.file.Files.deleteIfExists(ballast);
        }
    }

    @Test
    void aDeletedIndexLeavesNothingBehind(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(disk(dir))) {
            Table t = e.tables().create(table("dropped", List.of(byG("ACTIVE", false))));
            put(e, t, "a", "G", "v");
            String consumer = t.indexes().find("by-g").definition().consumerName();
            assertThat(t.feed().consumer(consumer)).isNotNull();
            assertThat(e.globalIndexes().delete(t, "by-g").index("by-g").status())
                    .isEqualTo("DELETING");
            assertThat(e.globalIndexes().await(t, Duration.ofSeconds(30))).isTrue();
            assertThat(t.indexes().find("by-g")).isNull();
            assertThat(t.metadata().indexes()).isEmpty();
            assertThat(t.feed().consumer(consumer)).isNull();
            assertThat(t.feed().recording())
                    .as("no consumer left, no recording")
                    .isFalse();
        }
    }
}
