package io.partita.bench.stream;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * What a stream's reader sees, through the AWS SDK: a writer puts items carrying their send time at a fixed rate
 * while one reader follows every shard of the table's stream (GetRecords on each in turn, as the Kinesis adapter's
 * workers do), and reports how long after its PutItem each record was read (p50/p99/max), then reads a backlog of
 * {@code --backlog} records from the oldest and reports records a second.
 *
 * <pre>java -cp bench/target/partita-bench.jar io.partita.bench.stream.StreamLag --endpoint http://127.0.0.1:8000
 *     [--rate 1000] [--seconds 20] [--backlog 100000]</pre>
 */
public final class StreamLag {
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        URI endpoint = URI.create(a.getOrDefault("--endpoint", "http://127.0.0.1:8000"));
        int rate = Integer.parseInt(a.getOrDefault("--rate", "1000"));
        int seconds = Integer.parseInt(a.getOrDefault("--seconds", "20"));
        int backlog = Integer.parseInt(a.getOrDefault("--backlog", "100000"));
        var creds = StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"));
        try (DynamoDbClient ddb = DynamoDbClient.builder()
                        .endpointOverride(endpoint)
                        .region(Region.US_EAST_1)
                        .credentialsProvider(creds)
                        .build();
                DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder()
                        .endpointOverride(endpoint)
                        .region(Region.US_EAST_1)
                        .credentialsProvider(creds)
                        .build()) {
            String table = "stream-lag-" + System.currentTimeMillis();
            ddb.createTable(b -> b.tableName(table)
                    .attributeDefinitions(d -> d.attributeName("pk").attributeType("S"))
                    .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST")
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
            String arn = ddb.describeTable(b -> b.tableName(table)).table().latestStreamArn();
            Map<String, String> iterators = new HashMap<>();
            for (Shard s : streams.describeStream(b -> b.streamArn(arn))
                    .streamDescription()
                    .shards()) {
                iterators.put(
                        s.shardId(),
                        streams.getShardIterator(b -> b.streamArn(arn)
                                        .shardId(s.shardId())
                                        .shardIteratorType(ShardIteratorType.LATEST))
                                .shardIterator());
            }
            Histogram lag = new Histogram(60_000, 2);
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicLong written = new AtomicLong();
            Thread writer = new Thread(() -> {
                long start = System.nanoTime();
                for (long i = 0;
                        System.nanoTime() - start < Duration.ofSeconds(seconds).toNanos();
                        i++) {
                    long due = start + i * 1_000_000_000L / rate;
                    while (System.nanoTime() < due) {
                        Thread.onSpinWait();
                    }
                    long id = i;
                    ddb.putItem(b -> b.tableName(table)
                            .item(Map.of(
                                    "pk", AttributeValue.fromS("k" + (id % 1000)),
                                    "sent", AttributeValue.fromN(Long.toString(System.currentTimeMillis())))));
                    written.incrementAndGet();
                }
                writing.set(false);
            });
            writer.start();
            long read = 0;
            while (writing.get() || read < written.get()) {
                for (Map.Entry<String, String> e : iterators.entrySet()) {
                    String it = e.getValue();
                    GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(it));
                    long now = System.currentTimeMillis();
                    for (Record rec : r.records()) {
                        lag.recordValue(Math.min(
                                60_000,
                                Math.max(
                                        0,
                                        now
                                                - Long.parseLong(rec.dynamodb()
                                                        .newImage()
                                                        .get("sent")
                                                        .n()))));
                        read++;
                    }
                    e.setValue(r.nextShardIterator());
                }
            }
            writer.join();
            System.out.printf(
                    Locale.ROOT,
                    "end-to-end lag, PutItem to GetRecords, %d records at %d/s: p50 %d ms, p99 %d ms, max %d ms%n",
                    lag.getTotalCount(),
                    rate,
                    lag.getValueAtPercentile(50),
                    lag.getValueAtPercentile(99),
                    lag.getMaxValue());

            // A backlog read from the oldest record: what one reader can do.
            List<Map<String, AttributeValue>> batch = new ArrayList<>();
            for (int i = 0; i < backlog; i++) {
                batch.add(Map.of("pk", AttributeValue.fromS("b" + i), "sent", AttributeValue.fromN("0")));
            }
            long loaded = 0;
            for (int from = 0; from < batch.size(); from += 25) {
                var chunk = batch.subList(from, Math.min(batch.size(), from + 25)).stream()
                        .map(item -> software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                .putRequest(p -> p.item(item))
                                .build())
                        .toList();
                Map<String, List<software.amazon.awssdk.services.dynamodb.model.WriteRequest>> request =
                        Map.of(table, chunk);
                while (!request.isEmpty()) {
                    var send = request;
                    var r = ddb.batchWriteItem(b -> b.requestItems(send));
                    loaded += send.get(table).size()
                            - r.unprocessedItems()
                                    .getOrDefault(table, List.of())
                                    .size();
                    request = r.unprocessedItems();
                }
            }
            long records = 0;
            long t0 = System.nanoTime();
            for (Map.Entry<String, String> e : iterators.entrySet()) {
                String it = e.getValue();
                while (it != null) {
                    String from = it;
                    GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(from));
                    records += r.records().size();
                    if (r.records().isEmpty()) {
                        break;
                    }
                    it = r.nextShardIterator();
                }
            }
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "GetRecords, one reader, a backlog of %,d records (%,d loaded): %.2f s, %,.0f records/s%n",
                    records,
                    loaded,
                    s,
                    records / s);
            ddb.deleteTable(b -> b.tableName(table));
        }
    }
}
