package io.partita.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real RocksDB in a temporary directory: persistence across reopen, table lifecycle, use after close. */
class StorageEngineIT {
    private static final KeySchema SCHEMA = new KeySchema(
            new KeySchema.KeyAttribute("pk", ScalarType.S), new KeySchema.KeyAttribute("sk", ScalarType.N));

    private static TableMetadata table(String name) {
        return TableMetadata.create(
                name,
                UUID.randomUUID().toString(),
                SCHEMA,
                List.of(new AttributeDefinition("pk", "S"), new AttributeDefinition("sk", "N")),
                TableMetadata.PAY_PER_REQUEST,
                0,
                0,
                1_700_000_000_000L,
                null,
                false,
                Map.of("team", "storage"));
    }

    private static PrimaryKey key(String pk, int sk) {
        return new PrimaryKey(new AttributeValue.S(pk), AttributeValue.N.of(Integer.toString(sk)));
    }

    private static Map<String, AttributeValue> item(String pk, int sk, String payload) {
        return Map.of(
                "pk", new AttributeValue.S(pk),
                "sk", AttributeValue.N.of(Integer.toString(sk)),
                "payload", new AttributeValue.S(payload));
    }

    @Test
    void itemsMetadataAndCountersSurviveAReopen(@TempDir Path dir) {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = engine.tables().create(table("orders"));
            for (int i = 0; i < 50; i++) {
                Map<String, AttributeValue> next = item("p" + (i % 5), i, "v" + i);
                engine.write(t, key("p" + (i % 5), i), old -> new WriteDecision.Put(next));
            }
            engine.write(t, key("p0", 0), old -> new WriteDecision.Delete());
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = engine.tables().find("orders");
            assertThat(t).isNotNull();
            assertThat(t.metadata().tags()).containsEntry("team", "storage");
            assertThat(t.stats().itemCount()).isEqualTo(49);
            assertThat(t.stats().sizeBytes()).isPositive();
            assertThat(engine.get(t, key("p1", 1))).isEqualTo(item("p1", 1, "v1"));
            assertThat(engine.get(t, key("p0", 0))).isNull();
        }
    }

    @Test
    void aRecreatedTableStartsEmpty(@TempDir Path dir) {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = engine.tables().create(table("t1"));
            engine.write(t, key("a", 1), old -> new WriteDecision.Put(item("a", 1, "x")));
            engine.tables().delete("t1");
            Table again = engine.tables().create(table("t1"));
            assertThat(engine.get(again, key("a", 1))).isNull();
            assertThat(again.stats().itemCount()).isZero();
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(engine.tables().names()).containsExactly("t1");
        }
    }

    @Test
    void creatingAnExistingTableIsResourceInUse() {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.memory())) {
            engine.tables().create(table("dup"));
            assertThatThrownBy(() -> engine.tables().create(table("dup")))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_IN_USE))
                    .hasMessage("Table already exists: dup");
        }
    }

    @Test
    void aRejectedWriteChangesNothing() {
        try (StorageEngine engine = StorageEngine.open(StorageConfig.memory())) {
            Table t = engine.tables().create(table("t"));
            engine.write(t, key("a", 1), old -> new WriteDecision.Put(item("a", 1, "first")));
            ApiException rejection =
                    new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");
            assertThatThrownBy(() -> engine.write(t, key("a", 1), old -> new WriteDecision.Reject(rejection)))
                    .isSameAs(rejection);
            assertThat(engine.get(t, key("a", 1))).isEqualTo(item("a", 1, "first"));
            assertThat(t.stats().itemCount()).isEqualTo(1);
        }
    }

    @Test
    void readModifyWritesOnOneItemAreSerial() throws Exception {
        // Throughput off: 2,000 writes of one key would pass its partition's 1,000 units a second.
        StorageConfig config =
                StorageConfig.memory().withCapacity(CapacityConfig.defaults().withMode(ThroughputMode.OFF));
        try (StorageEngine engine = StorageEngine.open(config)) {
            Table t = engine.tables().create(table("counter"));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit(() -> {
                    for (int j = 0; j < 250; j++) {
                        engine.write(t, key("c", 0), old -> {
                            int n = old == null
                                    ? 0
                                    : ((AttributeValue.N) old.get("n")).value().intValue();
                            return new WriteDecision.Put(Map.of(
                                    "pk", new AttributeValue.S("c"),
                                    "sk", AttributeValue.N.of("0"),
                                    "n", AttributeValue.N.of(Integer.toString(n + 1))));
                        });
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            assertThat(engine.get(t, key("c", 0)).get("n")).isEqualTo(AttributeValue.N.of("2000"));
            assertThat(t.stats().itemCount()).isEqualTo(1);
        }
    }

    @Test
    void everyCallAfterCloseFailsWithStorageException(@TempDir Path dir) {
        StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir));
        Table t = engine.tables().create(table("t"));
        engine.close();
        assertThatThrownBy(() -> engine.get(t, key("a", 1))).isInstanceOf(StorageException.class);
        assertThatThrownBy(() -> engine.write(t, key("a", 1), old -> new WriteDecision.Delete()))
                .isInstanceOf(StorageException.class);
        assertThatThrownBy(() -> engine.tables().create(table("u"))).isInstanceOf(StorageException.class);
        engine.close();
    }

    @Test
    void aCleanCloseKeepsEveryWrite(@TempDir Path dir) {
        // The closing checkpoint flushes what is only in memtables and Partita's log.
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = engine.tables().create(table("t"));
            engine.write(t, key("a", 1), old -> new WriteDecision.Put(item("a", 1, "x")));
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(engine.get(engine.tables().find("t"), key("a", 1))).isNotNull();
        }
    }

    @Test
    void inMemoryModeWritesNothingToDisk(@TempDir Path dir) throws Exception {
        Path cwd = Path.of("").toAbsolutePath();
        long before;
        try (var files = Files.list(cwd)) {
            before = files.count();
        }
        try (StorageEngine engine = StorageEngine.open(StorageConfig.memory())) {
            Table t = engine.tables().create(table("mem"));
            engine.write(t, key("a", 1), old -> new WriteDecision.Put(item("a", 1, "x")));
            assertThat(engine.get(t, key("a", 1))).isNotNull();
        }
        try (var files = Files.list(cwd)) {
            assertThat(files.count()).isEqualTo(before);
        }
        assertThat(Path.of("/partita-in-memory")).doesNotExist();
    }
}
