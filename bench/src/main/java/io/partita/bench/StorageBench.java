package io.partita.bench;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The storage API without HTTP or JSON: GetItem- and PutItem-shaped calls on a persistent RocksDB (WAL on, no fsync)
 * holding 10,000 items of 1 KB, and DynamoDB item-size computation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StorageBench {
    static final int ITEMS = 10_000;
    private Path dir;
    private StorageEngine engine;
    private Table table;
    private Map<String, AttributeValue> item;

    @Setup
    public void setup() throws IOException {
        dir = Files.createTempDirectory("partita-storage-bench");
        // Throughput off, as before writes were charged in the storage engine: this measures storage alone.
        engine = StorageEngine.open(
                StorageConfig.disk(dir).withCapacity(CapacityConfig.defaults().withMode(ThroughputMode.OFF)));
        KeySchema schema = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
        table = engine.tables()
                .create(TableMetadata.create(
                        "bench",
                        UUID.randomUUID().toString(),
                        schema,
                        List.of(new AttributeDefinition("pk", "S")),
                        TableMetadata.PAY_PER_REQUEST,
                        0,
                        0,
                        0,
                        null,
                        false,
                        Map.of()));
        for (int i = 0; i < ITEMS; i++) {
            Map<String, AttributeValue> next = item(i);
            engine.write(table, key(i), old -> new WriteDecision.Put(next));
        }
        item = item(0);
    }

    private static PrimaryKey key(int i) {
        return new PrimaryKey(new AttributeValue.S("key-" + i), null);
    }

    private static Map<String, AttributeValue> item(int i) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("pk", new AttributeValue.S("key-" + i));
        for (int a = 0; a < 10; a++) {
            m.put("attr" + a, new AttributeValue.S("v".repeat(95)));
        }
        return m;
    }

    @TearDown
    public void tearDown() throws IOException {
        engine.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public Map<String, AttributeValue> get() {
        return engine.get(table, key(ThreadLocalRandom.current().nextInt(ITEMS)));
    }

    /** An unconditional overwrite: read the old image, write the new one and the counters through the WAL. */
    @Benchmark
    public WriteOutcome put() {
        int i = ThreadLocalRandom.current().nextInt(ITEMS);
        Map<String, AttributeValue> next = new LinkedHashMap<>(item);
        next.put("pk", new AttributeValue.S("key-" + i));
        return engine.write(table, key(i), old -> new WriteDecision.Put(next)).outcome();
    }

    @Benchmark
    public long itemSize() {
        return ItemSize.of(item);
    }
}
