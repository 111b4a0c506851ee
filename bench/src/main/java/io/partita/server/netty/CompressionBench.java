package io.partita.server.netty;

import java.nio.charset.StandardCharsets;
import java.util.Random;
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
 * What HTTP compression costs the server per request, for DynamoDB JSON of 1 KB to 256 KB: gzipping an answer for a
 * client that sent {@code Accept-Encoding: gzip} ({@link HttpAnswer#gzip}) and inflating a request sent with
 * {@code Content-Encoding: gzip} ({@link HttpSurface#decode}). In the server's package, from the benchmark jar, to
 * call the very methods the server calls.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CompressionBench {
    @Param({"1024", "16384", "262144"})
    public int bodyBytes;

    private byte[] body;
    private byte[] compressed;

    @Setup
    public void setup() {
        body = items(bodyBytes);
        compressed = HttpAnswer.gzip(body);
    }

    /** A Query answer's shape: items with a key, a number, a short word and a random token each, to the size asked. */
    static byte[] items(int bytes) {
        Random random = new Random(7);
        String[] words = {"pending", "shipped", "delivered", "returned", "cancelled"};
        StringBuilder b = new StringBuilder(bytes + 200).append("{\"Count\":0,\"Items\":[");
        for (int i = 0; b.length() < bytes; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"pk\":{\"S\":\"customer#")
                    .append(random.nextInt(100_000))
                    .append("\"},\"sk\":{\"S\":\"order#")
                    .append(String.format("%08d", i))
                    .append("\"},\"total\":{\"N\":\"")
                    .append(random.nextInt(100_000) / 100.0)
                    .append("\"},\"status\":{\"S\":\"")
                    .append(words[random.nextInt(words.length)])
                    .append("\"},\"token\":{\"S\":\"")
                    .append(Long.toHexString(random.nextLong()))
                    .append("\"}}");
        }
        return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public byte[] gzipAnswer() {
        return HttpAnswer.gzip(body);
    }

    @Benchmark
    public byte[] inflateRequest() {
        return HttpSurface.decode("gzip", compressed, 16 << 20);
    }
}
