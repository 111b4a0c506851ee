package io.partita.bench;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.key.ItemKeyEncoder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Item key encoding: hash64 of the partition key plus order-preserving key bytes. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class OrderedBytesBench {
    private final KeySchema schema = new KeySchema(
            new KeySchema.KeyAttribute("pk", ScalarType.S), new KeySchema.KeyAttribute("sk", ScalarType.N));
    private final PrimaryKey key =
            new PrimaryKey(new AttributeValue.S("customer#000123"), AttributeValue.N.of("1732924800.125"));

    @Benchmark
    public Object encodeItemKey() {
        return ItemKeyEncoder.encode(schema, key);
    }
}
