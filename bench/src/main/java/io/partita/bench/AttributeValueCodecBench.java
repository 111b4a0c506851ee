package io.partita.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.GetItemOutput;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.StoredItem;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** JSON decode/encode of a PutItem body with a 1 KB item, and the storage codec for the same item. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AttributeValueCodecBench {
    private byte[] putItemBody;
    private PutItemInput decoded;
    private byte[] stored;

    @Setup
    public void setup() {
        StringBuilder item = new StringBuilder("{\"pk\":{\"S\":\"customer#000123\"},\"sk\":{\"N\":\"42\"}");
        for (int i = 0; i < 12; i++) {
            item.append(",\"attr")
                    .append(i)
                    .append("\":{\"S\":\"")
                    .append("x".repeat(60))
                    .append("\"}");
        }
        item.append(",\"tags\":{\"SS\":[\"a\",\"b\",\"c\"]},\"m\":{\"M\":{\"n\":{\"N\":\"3.14\"}}}}");
        putItemBody = ("{\"TableName\":\"bench\",\"Item\":" + item + "}").getBytes(StandardCharsets.UTF_8);
        decoded = DynamoJson.decode(putItemBody, PutItemInput.class);
        stored = ItemCodec.encode(decoded.item());
    }

    @Benchmark
    public PutItemInput decodePutItem() {
        return DynamoJson.decode(putItemBody, PutItemInput.class);
    }

    @Benchmark
    public byte[] encodeGetItemOutput() {
        return DynamoJson.encode(new GetItemOutput(decoded.item(), null));
    }

    /** What GetItem did before the stored form was written straight to JSON: decode, then encode the map. */
    @Benchmark
    public byte[] getItemOutputViaDecode() {
        return DynamoJson.encode(new GetItemOutput(ItemCodec.decode(stored), null));
    }

    /** What GetItem does now: the stored bytes transcoded to the response JSON ({@link StoredItem}). */
    @Benchmark
    public byte[] getItemOutputFromStored() {
        return DynamoJson.encode(new GetItemOutput(new StoredItem(stored), null));
    }

    /** A PutItem answer that asked for nothing back, as every PutItem without ReturnValues gets. */
    @Benchmark
    public byte[] encodeEmptyWriteOutput() {
        return DynamoJson.encode(new WriteItemOutput(null, null, null));
    }

    /** The same answer through Jackson's serializer, as {@code DynamoJson.encode} wrote it before its shortcut. */
    @Benchmark
    public byte[] encodeEmptyWriteOutputViaMapper() throws JsonProcessingException {
        return DynamoJson.mapper().writeValueAsBytes(new WriteItemOutput(null, null, null));
    }

    @Benchmark
    public byte[] storageEncode() {
        return ItemCodec.encode(decoded.item());
    }

    @Benchmark
    public Object storageDecode() {
        return ItemCodec.decode(stored);
    }
}
