package io.partita.bench;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.capacity.TokenBucket;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.PartitionMap;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableMetadata;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What throughput accounting adds to every request: a token bucket's admit and charge, and the whole per-request path
 * (partition lookup, admission against the partition and table buckets, charge with heat tracking) on a provisioned
 * table of 134 partitions, in each {@code --throughput} mode. Zero units are charged so nothing ever throttles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CapacityBench {
    @Param({"ENFORCE", "OFF"})
    public ThroughputMode mode;

    private final TokenBucket bucket = new TokenBucket(1e12, 1e12, 1e12, 0);
    private TablePartitions table;
    private long hash;

    @Setup
    public void setup() {
        TableMetadata m = TableMetadata.create(
                "bench",
                "id",
                new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null),
                List.of(new AttributeDefinition("pk", "S")),
                TableMetadata.PROVISIONED,
                100_000,
                100_000,
                0,
                null,
                false,
                Map.of());
        table = new TablePartitions(
                m,
                CapacityConfig.defaults().withMode(mode),
                new TablePartitions.Listener() {
                    @Override
                    public void splitWanted(TablePartitions t, Partition p, TablePartitions.SplitReason reason) {}

                    @Override
                    public void mapChanged(TablePartitions t, PartitionMap map, int nextId) {}
                },
                null,
                null,
                0,
                0);
        hash = 0x5eed_1234_abcd_0042L;
    }

    @Benchmark
    public boolean tokenBucketAdmitAndCharge() {
        long now = System.currentTimeMillis();
        boolean ok = bucket.available(now);
        bucket.consume(0, now);
        return ok;
    }

    @Benchmark
    public Throttle admitAndChargeRequest() {
        Partition p = table.partitionFor(hash);
        Throttle t = table.admit(p, CapacityKind.WRITE, () -> "key");
        table.charge(p, CapacityKind.WRITE, 0, hash, () -> "key");
        return t;
    }
}
