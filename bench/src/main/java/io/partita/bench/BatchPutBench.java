package io.partita.bench;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.key.ByteSink;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
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
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The step of a PutItem between the decided item and {@code RocksDB.write}: encode a 1 KB item (11 attributes) to its
 * stored form and add it to a write batch. {@code arrayPut} is the byte-array way (a fresh array per item, which
 * RocksDB's JNI copies into a malloc'd buffer); {@code directPut} is {@link RocksStore#put}, which PutItem uses.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BatchPutBench {
    private Path dir;
    private Options options;
    private RocksDB db;
    private ColumnFamilyHandle cf;
    private WriteBatch batch;
    private final ByteSink sink = new ByteSink(4096);
    private final byte[] key = "0123456789abcdef-key-42".getBytes();
    private Map<String, AttributeValue> item;

    @Setup
    public void setup() throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        dir = Files.createTempDirectory("partita-batch-bench");
        options = new Options().setCreateIfMissing(true);
        db = RocksDB.open(options, dir.toString());
        cf = db.getDefaultColumnFamily();
        batch = new WriteBatch();
        item = new LinkedHashMap<>();
        item.put("pk", new AttributeValue.S("key-42"));
        for (int a = 0; a < 10; a++) {
            item.put("attr" + a, new AttributeValue.S("v".repeat(95)));
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        batch.close();
        db.close();
        options.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public long arrayPut() throws RocksDBException {
        batch.put(cf, key, ItemCodec.encode(item));
        long size = batch.getDataSize();
        batch.clear();
        return size;
    }

    @Benchmark
    public long directPut() throws RocksDBException {
        ItemCodec.encode(item, sink.clear());
        RocksStore.put(batch, cf, key, sink);
        long size = batch.getDataSize();
        batch.clear();
        return size;
    }
}
