package io.partita.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The item cache never changes what the engine answers: under concurrent writes, blind writes, deletes and reads,
 * with a budget so small that entries are evicted and refilled all the time, every read-modify-write sees the latest
 * image, and what the cache serves equals what RocksDB holds after a reopen with the cache off.
 */
class ItemCacheIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);

    private static TableMetadata table(String name) {
        return TestTables.onDemand(name, SCHEMA);
    }

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk, String payload, int n) {
        return Map.of(
                "pk", new AttributeValue.S(pk),
                "payload", new AttributeValue.S(payload),
                "n", AttributeValue.N.of(Integer.toString(n)));
    }

    private static int n(Map<String, AttributeValue> item) {
        return item == null ? 0 : ((AttributeValue.N) item.get("n")).value().intValue();
    }

    /** Throughput is off: these tests write faster than a partition's 1,000 units a second. */
    private static StorageConfig config(Path dir, long cacheBytes) {
        return StorageConfig.disk(dir)
                .withItemCacheBytes(cacheBytes)
                .withCapacity(CapacityConfig.defaults().withMode(ThroughputMode.OFF));
    }

    @Test
    void concurrentWritesAndReadsThroughATinyCacheMatchRocksDb(@TempDir Path dir) throws Exception {
        int threads = 4;
        int rounds = 1_500;
        int keys = 40;
        Map<String, Map<String, AttributeValue>> served = new HashMap<>();
        long count;
        long size;
        try (StorageEngine engine = StorageEngine.open(config(dir, 8 * 1024))) {
            Table t = engine.tables().create(table("t"));
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int seed = th;
                futures.add(pool.submit(() -> {
                    Random r = new Random(seed);
                    for (int i = 0; i < rounds; i++) {
                        // Counters only ever see increments: a stale cached image would lose one.
                        String c = "counter-" + r.nextInt(4);
                        engine.write(
                                t,
                                key(c),
                                old -> new WriteDecision.Put(item(c, "x".repeat(r.nextInt(300)), n(old) + 1)));
                        String k = "k" + r.nextInt(keys);
                        switch (r.nextInt(4)) {
                            case 0 ->
                                engine.write(
                                        t,
                                        key(k),
                                        ConditionalWrite.blind(
                                                new WriteDecision.Put(item(k, "v".repeat(r.nextInt(900)), 1))));
                            case 1 -> engine.write(t, key(k), ConditionalWrite.blind(new WriteDecision.Delete()));
                            case 2 ->
                                engine.write(
                                        t,
                                        key(k),
                                        old -> old == null
                                                ? new WriteDecision.Delete()
                                                : new WriteDecision.Put(item(k, "u", n(old) + 1)));
                            default -> engine.get(t, key(k));
                        }
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            int increments = 0;
            for (int i = 0; i < 4; i++) {
                increments += n(engine.get(t, key("counter-" + i)));
            }
            assertThat(increments).isEqualTo(threads * rounds);
            for (int i = 0; i < keys; i++) {
                served.put("k" + i, engine.get(t, key("k" + i)));
            }
            for (int i = 0; i < 4; i++) {
                served.put("counter-" + i, engine.get(t, key("counter-" + i)));
            }
            count = t.stats().itemCount();
            size = t.stats().sizeBytes();
        }
        try (StorageEngine engine = StorageEngine.open(config(dir, 0))) {
            Table t = engine.tables().find("t");
            long expectedCount = 0;
            long expectedSize = 0;
            for (Map.Entry<String, Map<String, AttributeValue>> e : served.entrySet()) {
                Map<String, AttributeValue> stored = engine.get(t, key(e.getKey()));
                assertThat(stored).as(e.getKey()).isEqualTo(e.getValue());
                if (stored != null) {
                    expectedCount++;
                    expectedSize += ItemSize.of(stored);
                }
            }
            assertThat(count).isEqualTo(expectedCount);
            assertThat(size).isEqualTo(expectedSize);
            assertThat(t.stats().itemCount()).isEqualTo(expectedCount);
        }
    }

    @Test
    void aBlindWriteCountsTheOldItemWithoutDecodingIt(@TempDir Path dir) {
        for (long cacheBytes : new long[] {0, 1 << 20}) {
            try (StorageEngine engine = StorageEngine.open(config(dir.resolve("c" + cacheBytes), cacheBytes))) {
                Table t = engine.tables().create(table("t"));
                Map<String, AttributeValue> first = item("a", "x".repeat(500), 1);
                WriteOutcome created = engine.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(first)))
                        .outcome();
                assertThat(created.oldBytes()).isZero();
                Map<String, AttributeValue> second = item("a", "y", 2);
                WriteOutcome replaced = engine.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(second)))
                        .outcome();
                assertThat(replaced.oldItem()).isNull();
                assertThat(replaced.oldBytes()).isEqualTo(ItemSize.of(first));
                assertThat(replaced.newBytes()).isEqualTo(ItemSize.of(second));
                assertThat(t.stats().itemCount()).isEqualTo(1);
                assertThat(t.stats().sizeBytes()).isEqualTo(ItemSize.of(second));
                WriteOutcome deleted = engine.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Delete()))
                        .outcome();
                assertThat(deleted.oldBytes()).isEqualTo(ItemSize.of(second));
                assertThat(t.stats().itemCount()).isZero();
                assertThat(t.stats().sizeBytes()).isZero();
                assertThat(engine.get(t, key("a"))).isNull();
            }
        }
    }

    @Test
    void aRecreatedTableDoesNotSeeCachedItemsOfTheOldOne(@TempDir Path dir) {
        try (StorageEngine engine = StorageEngine.open(config(dir, 1 << 20))) {
            Table t = engine.tables().create(table("t"));
            engine.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "old", 1))));
            assertThat(engine.get(t, key("a"))).isNotNull();
            engine.tables().delete("t");
            Table again = engine.tables().create(table("t"));
            assertThat(engine.get(again, key("a"))).isNull();
        }
    }

    @Test
    void aReadAfterAReopenFillsTheCacheFromRocksDb(@TempDir Path dir) {
        try (StorageEngine engine = StorageEngine.open(config(dir, 1 << 20))) {
            Table t = engine.tables().create(table("t"));
            engine.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "v", 7))));
        }
        try (StorageEngine engine = StorageEngine.open(config(dir, 1 << 20))) {
            Table t = engine.tables().find("t");
            assertThat(engine.getStored(t, io.partita.storage.key.ItemKeyEncoder.encode(SCHEMA, key("a"))))
                    .isNotNull()
                    .satisfies(e -> assertThat(e.itemSize()).isEqualTo(ItemSize.of(item("a", "v", 7))));
            assertThat(n(engine.get(t, key("a")))).isEqualTo(7);
            WriteOutcome o = engine.write(t, key("a"), old -> new WriteDecision.Put(item("a", "w", n(old) + 1)))
                    .outcome();
            assertThat(o.oldItem()).isEqualTo(item("a", "v", 7));
            assertThat(n(engine.get(t, key("a")))).isEqualTo(8);
        }
    }
}
