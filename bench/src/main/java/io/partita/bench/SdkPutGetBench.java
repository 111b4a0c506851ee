package io.partita.bench;

import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * GetItem and PutItem of 1 KB items through the AWS SDK for Java v2, one call at a time: against an embedded
 * persistent Partita by default, or any endpoint with {@code -p endpoint=URL -p region=…} (credentials from the
 * default chain) — the same benchmark against real DynamoDB is how users compare. Beside each score JMH reports the
 * SDK's retries and throttled attempts ({@link SdkRetries}): a hot key's throttling shows there, not only as latency.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class SdkPutGetBench {
    static final int ITEMS = 1_000;

    @Param("")
    public String endpoint;

    @Param("us-east-1")
    public String region;

    private EmbeddedPartita partita;
    private Path dataDir;
    private DynamoDbClient ddb;
    private String table;
    private String payload;

    @Setup
    public void setup() throws IOException {
        URI uri;
        boolean local = endpoint.isBlank();
        if (local) {
            dataDir = Files.createTempDirectory("partita-sdk-bench");
            partita = EmbeddedPartita.start(dataDir);
            uri = partita.endpoint();
        } else {
            uri = URI.create(endpoint);
        }
        ddb = DynamoDbClient.builder()
                .endpointOverride(uri)
                .region(Region.of(region))
                .credentialsProvider(
                        local
                                ? StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))
                                : DefaultCredentialsProvider.builder().build())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.addMetricPublisher(SdkRetries.PUBLISHER))
                .build();
        table = "sdk-bench-" + System.nanoTime();
        ddb.createTable(b -> b.tableName(table)
                .billingMode("PAY_PER_REQUEST")
                .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(table));
        payload = "x".repeat(1000);
        for (int i = 0; i < ITEMS; i++) {
            put(i);
        }
    }

    private PutItemResponse put(int i) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", AttributeValue.fromS("k" + i));
        item.put("payload", AttributeValue.fromS(payload));
        return ddb.putItem(b -> b.tableName(table).item(item));
    }

    @TearDown
    public void tearDown() throws IOException {
        ddb.deleteTable(b -> b.tableName(table));
        ddb.close();
        if (partita != null) {
            partita.close();
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Benchmark
    public GetItemResponse getItem(SdkRetries.Counters sdk) {
        String k = "k" + ThreadLocalRandom.current().nextInt(ITEMS);
        return ddb.getItem(b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS(k))));
    }

    @Benchmark
    public PutItemResponse putItem(SdkRetries.Counters sdk) {
        return put(ThreadLocalRandom.current().nextInt(ITEMS));
    }
}
