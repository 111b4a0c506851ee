package io.partita.bench;

import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Query, Scan and BatchGetItem end to end through the AWS SDK for Java v2: against an embedded, persistent Partita by
 * default, or any endpoint given as {@code -p endpoint=URL}. The table holds {@code items} items of 1 KB: partition
 * {@code hot} has 100 of them (sort keys 0..99), the rest are spread over their own partitions.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class ReadPathBench {
    @Param("")
    public String endpoint;

    @Param("100000")
    public int items;

    private EmbeddedPartita partita;
    private Path dataDir;
    private DynamoDbClient ddb;
    private String table;
    private List<Map<String, AttributeValue>> batchKeys;

    @Setup
    public void setup() throws IOException {
        URI uri;
        if (endpoint.isBlank()) {
            dataDir = Files.createTempDirectory("partita-bench");
            partita = EmbeddedPartita.start(dataDir);
            uri = partita.endpoint();
        } else {
            uri = URI.create(endpoint);
        }
        ddb = DynamoDbClient.builder()
                .endpointOverride(uri)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.addMetricPublisher(SdkRetries.PUBLISHER))
                .build();
        table = "bench-" + System.nanoTime();
        ddb.createTable(b -> b.tableName(table)
                .billingMode("PAY_PER_REQUEST")
                .attributeDefinitions(
                        a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("sk").attributeType(ScalarAttributeType.N))
                .keySchema(
                        k -> k.attributeName("pk").keyType(KeyType.HASH),
                        k -> k.attributeName("sk").keyType(KeyType.RANGE)));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(table));
        String payload = "x".repeat(1000);
        List<WriteRequest> batch = new ArrayList<>();
        batchKeys = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            String pk = i < 100 ? "hot" : "p" + i;
            int sk = i < 100 ? i : 0;
            Map<String, AttributeValue> item = new HashMap<>();
            item.put("pk", AttributeValue.fromS(pk));
            item.put("sk", AttributeValue.fromN(Integer.toString(sk)));
            item.put("payload", AttributeValue.fromS(payload));
            batch.add(WriteRequest.builder()
                    .putRequest(PutRequest.builder().item(item).build())
                    .build());
            if (i >= 100 && batchKeys.size() < 100) {
                batchKeys.add(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("0")));
            }
            if (batch.size() == 25 || i == items - 1) {
                List<WriteRequest> send = List.copyOf(batch);
                ddb.batchWriteItem(b -> b.requestItems(Map.of(table, send)));
                batch.clear();
            }
        }
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

    /** Query returning the 100 items of 1 KB of one partition (one page). */
    @Benchmark
    public QueryResponse query100(SdkRetries.Counters sdk) {
        return ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("hot"))));
    }

    /** BatchGetItem of 100 keys from 100 partitions. */
    @Benchmark
    public Object batchGet100(SdkRetries.Counters sdk) {
        return ddb.batchGetItem(b -> b.requestItems(Map.of(
                table,
                software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                        .keys(batchKeys)
                        .build())));
    }

    /** A full Scan, page by page (1 MB each); divide the table's size by the time for MB/s. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    public long fullScan() {
        long seen = 0;
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            ScanResponse r = ddb.scan(b -> b.tableName(table).exclusiveStartKey(from));
            seen += r.count();
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        if (seen != items) {
            throw new IllegalStateException("scan saw " + seen + " of " + items + " items");
        }
        return seen;
    }
}
