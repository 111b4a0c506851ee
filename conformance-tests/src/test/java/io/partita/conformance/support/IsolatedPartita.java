package io.partita.conformance.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.key.ItemKeyEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;

/**
 * A Partita of its own for one test class, with its own partition and throughput settings, a client that never
 * retries (so every throttle reaches the test), and readers for the admin endpoints ({@code /admin/metrics},
 * {@code /admin/contributor-insights}, {@code /metrics}). Throughput tests need this isolation: budgets and
 * counters are per server, and timing must not depend on what other tests did.
 */
public final class IsolatedPartita implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final EmbeddedPartita server;
    private final DynamoDbClient client;
    private final HttpClient http;

    private IsolatedPartita(EmbeddedPartita server) {
        this.server = server;
        this.client = DynamoDbClient.builder()
                .endpointOverride(server.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
        this.http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    public static IsolatedPartita start(CapacityConfig capacity) {
        return new IsolatedPartita(EmbeddedPartita.start(capacity));
    }

    public static IsolatedPartita start(io.partita.storage.StorageConfig storage) {
        return new IsolatedPartita(EmbeddedPartita.start(storage));
    }

    public DynamoDbClient client() {
        return client;
    }

    /** The embedded server itself, for its controls ({@code awaitIndexes}, {@code gsiLag}). */
    public EmbeddedPartita server() {
        return server;
    }

    /**
     * A new client with the SDK's standard retries and up to {@code maxAttempts} attempts (the caller closes it): its
     * backoff is jittered, so three attempts may all fall within one throttle's refill.
     */
    public DynamoDbClient retryingClient(int maxAttempts) {
        return DynamoDbClient.builder()
                .endpointOverride(server.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .maxAttempts(maxAttempts)
                        .build()))
                .build();
    }

    /** A new client with the SDK's standard retries (the caller closes it): what applications use. */
    public DynamoDbClient retryingClient() {
        return DynamoDbClient.builder()
                .endpointOverride(server.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD))
                .build();
    }

    /** Creates tables on this server (they go away with it). */
    public Tables tables() {
        return new Tables(client);
    }

    /** The table's ARN as the server reports it, to compare throttling reasons' resources with. */
    public String arn(String table) {
        return client.describeTable(b -> b.tableName(table)).table().tableArn();
    }

    /** The table's entry of {@code /admin/metrics}. */
    public JsonNode metrics(String table) {
        return only(getJson("/admin/metrics?table=" + encode(table)), table);
    }

    /** The table's entry of {@code /admin/contributor-insights}. */
    public JsonNode contributorInsights(String table) {
        return only(getJson("/admin/contributor-insights?table=" + encode(table)), table);
    }

    /** {@code /metrics}, Prometheus' text format. */
    public String prometheus() {
        return get("/metrics");
    }

    /** Polls the table's metrics until {@code done} holds, for up to {@code timeout}; returns the last reading. */
    public JsonNode awaitMetrics(String table, Duration timeout, Predicate<JsonNode> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode m = metrics(table);
        while (!done.test(m) && System.nanoTime() < deadline) {
            sleep(50);
            m = metrics(table);
        }
        return m;
    }

    /** The partition (from {@link #metrics}) whose hash range holds partition key {@code pk}. */
    public static JsonNode partitionOf(JsonNode tableMetrics, io.partita.protocol.model.AttributeValue pk) {
        long hash = ItemKeyEncoder.partitionHash(pk);
        for (JsonNode p : tableMetrics.get("partitions")) {
            long start = Long.parseUnsignedLong(p.get("hashStart").asText(), 16);
            long end = Long.parseUnsignedLong(p.get("hashEnd").asText(), 16);
            if (Long.compareUnsigned(hash, start) >= 0 && Long.compareUnsigned(hash, end) <= 0) {
                return p;
            }
        }
        throw new AssertionError("no partition holds hash " + Long.toHexString(hash) + " in " + tableMetrics);
    }

    /** The partition holding string partition key {@code pk}. */
    public static JsonNode partitionOf(JsonNode tableMetrics, String pk) {
        return partitionOf(tableMetrics, new io.partita.protocol.model.AttributeValue.S(pk));
    }

    /**
     * Writes {@code item}, waiting out throttling: for setting data up on tables whose limits the test is not about.
     */
    public void putPatiently(String table, Map<String, AttributeValue> item) {
        for (int attempt = 0; ; attempt++) {
            try {
                client.putItem(b -> b.tableName(table).item(item));
                return;
            } catch (ProvisionedThroughputExceededException | ThrottlingException e) {
                if (attempt >= 200) {
                    throw e;
                }
                sleep(25);
            }
        }
    }

    /** An item {@code {key: id, "v": <payload of chars ASCII characters>}}: its size is about {@code chars}. */
    public static Map<String, AttributeValue> item(String key, String id, int chars) {
        return Map.of(key, AttributeValue.fromS(id), "v", AttributeValue.fromS("x".repeat(chars)));
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode only(JsonNode answer, String table) {
        for (JsonNode t : answer.get("tables")) {
            if (t.get("tableName").asText().equals(table)) {
                return t;
            }
        }
        throw new AssertionError("table " + table + " missing from " + answer);
    }

    private JsonNode getJson(String path) {
        try {
            return JSON.readTree(get(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String get(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError("GET " + path + " answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
