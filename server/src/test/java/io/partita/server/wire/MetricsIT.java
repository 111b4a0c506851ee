package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * {@code /metrics} read by a real parser: the Prometheus project's Python client, in both its formats (the text
 * format, and OpenMetrics, whose parser refuses a family named twice or interleaved). Then what the metrics say is
 * checked against what the test did: CloudWatch's names, no series counted twice, latency histograms per operation,
 * errors, and the JVM's and RocksDB's statistics.
 *
 * <p>Without Debian's {@code python3-prometheus-client} the test is skipped, unless {@code
 * PARTITA_METRICS_PARSER_TESTS=required} (CI sets it, after installing it), where it fails.
 */
class MetricsIT {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static boolean parserPresent() throws Exception {
        if (!Files.isExecutable(PYTHON)) {
            return false;
        }
        Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import prometheus_client.openmetrics.parser")
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    private static void requireParser() throws Exception {
        boolean present = parserPresent();
        if (!present && "required".equals(System.getenv("PARTITA_METRICS_PARSER_TESTS"))) {
            throw new IllegalStateException("PARTITA_METRICS_PARSER_TESTS=required but " + PYTHON
                    + " cannot import prometheus_client (apt-get install python3-prometheus-client)");
        }
        Assumptions.assumeTrue(present, "no python3-prometheus-client here; the metrics parser test is skipped");
    }

    /** The families the Python client parsed from {@code body} in {@code format}; fails with its error. */
    private static List<JsonNode> parse(String format, String body) throws Exception {
        Path script = Files.createTempFile("parse", ".py");
        try (InputStream in = MetricsIT.class.getResourceAsStream("/metrics/parse.py")) {
            Files.write(script, in.readAllBytes());
        }
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), script.toString(), format).start();
            try (var stdin = p.getOutputStream()) {
                stdin.write(body.getBytes(StandardCharsets.UTF_8));
            }
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("the %s parser: %s", format, err).isZero();
            List<JsonNode> families = new ArrayList<>();
            JSON.readTree(out).forEach(families::add);
            return families;
        } finally {
            Files.delete(script);
        }
    }

    private static HttpResponse<String> scrape(EmbeddedPartita partita, String accept) throws IOException {
        HttpRequest.Builder r = HttpRequest.newBuilder(partita.endpoint().resolve("/metrics"));
        if (accept != null) {
            r.header("Accept", accept);
        }
        try {
            return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static JsonNode family(List<JsonNode> families, String name) {
        return families.stream()
                .filter(f -> f.get("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no family " + name));
    }

    /** The value of the sample {@code sample} of family {@code name} whose labels are exactly {@code labels}. */
    private static double value(List<JsonNode> families, String name, String sample, Map<String, String> labels) {
        for (JsonNode s : family(families, name).get("samples")) {
            if (!s.get("name").asText().equals(sample)) {
                continue;
            }
            boolean match = s.get("labels").size() == labels.size()
                    && labels.entrySet().stream()
                            .allMatch(e -> e.getValue()
                                    .equals(s.get("labels").path(e.getKey()).asText(null)));
            if (match) {
                return s.get("value").asDouble();
            }
        }
        throw new AssertionError("no sample " + sample + labels + " in " + name);
    }

    private static double sum(List<JsonNode> families, String name, String sample, String table) {
        double total = 0;
        for (JsonNode s : family(families, name).get("samples")) {
            if (s.get("name").asText().equals(sample)
                    && table.equals(s.get("labels").path("table").asText(null))) {
                total += s.get("value").asDouble();
            }
        }
        return total;
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of builder lambdas
    void bothFormatsParseAndSayWhatHappened() throws Exception {
        requireParser();
        try (EmbeddedPartita partita = EmbeddedPartita.start();
                DynamoDbClient ddb = DynamoDbClient.builder()
                        .endpointOverride(partita.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                        .build()) {
            ddb.createTable(c -> c.tableName("orders")
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            a -> a.attributeName("id").attributeType(ScalarAttributeType.S),
                            a -> a.attributeName("customer").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                    .globalSecondaryIndexes(g -> g.indexName("byCustomer")
                            .keySchema(k -> k.attributeName("customer").keyType(KeyType.HASH))
                            .projection(p -> p.projectionType(ProjectionType.ALL))));
            ddb.updateTimeToLive(u -> u.tableName("orders")
                    .timeToLiveSpecification(s -> s.enabled(true).attributeName("expires")));
            for (int i = 0; i < 20; i++) {
                String id = "o" + i;
                ddb.putItem(p -> p.tableName("orders")
                        .item(Map.of("id", AttributeValue.fromS(id), "customer", AttributeValue.fromS("c" + id))));
            }
            ddb.getItem(g -> g.tableName("orders").key(Map.of("id", AttributeValue.fromS("o1"))));
            assertThatThrownBy(() -> ddb.putItem(p -> p.tableName("orders")
                            .item(Map.of("id", AttributeValue.fromS("o1")))
                            .conditionExpression("attribute_not_exists(id)")))
                    .isInstanceOf(ConditionalCheckFailedException.class);
            assertThatThrownBy(() ->
                            ddb.getItem(g -> g.tableName("missing-table").key(Map.of("id", AttributeValue.fromS("x")))))
                    .isInstanceOf(ResourceNotFoundException.class);
            partita.awaitIndexes();

            HttpResponse<String> plain = scrape(partita, null);
            assertThat(plain.headers().firstValue("Content-Type").orElseThrow())
                    .startsWith("text/plain; version=0.0.4");
            HttpResponse<String> open = scrape(partita, "application/openmetrics-text; version=1.0.0; charset=utf-8");
            assertThat(open.headers().firstValue("Content-Type").orElseThrow())
                    .startsWith("application/openmetrics-text");
            assertThat(open.body()).endsWith("# EOF\n");

            List<JsonNode> text = parse("prometheus", plain.body());
            List<JsonNode> families = parse("openmetrics", open.body());
            Set<String> names = new HashSet<>();
            for (JsonNode f : families) {
                assertThat(names.add(f.get("name").asText()))
                        .as("family %s once", f.get("name"))
                        .isTrue();
            }
            // The two scrapes are moments apart (the JVM's families may differ by then); the server's are in both.
            for (String name : List.of(
                    "partita_consumed_write_capacity_units",
                    "partita_successful_request_latency_seconds",
                    "partita_rocksdb_estimate_num_keys")) {
                assertThat(family(text, name)).isNotNull();
            }

            // CloudWatch's names, one family each; a table's total and its partitions' parts in families apart.
            double table = value(
                    families,
                    "partita_consumed_write_capacity_units",
                    "partita_consumed_write_capacity_units_total",
                    Map.of("table", "orders"));
            assertThat(table).isEqualTo(21.0); // 20 puts and the failed condition, 1 unit each
            assertThat(sum(
                            families,
                            "partita_partition_consumed_write_capacity_units",
                            "partita_partition_consumed_write_capacity_units_total",
                            "orders"))
                    .isEqualTo(table);
            // The GSI's own capacity, under its index label: its 20 writes.
            assertThat(value(
                            families,
                            "partita_consumed_write_capacity_units",
                            "partita_consumed_write_capacity_units_total",
                            Map.of("table", "orders", "index", "byCustomer")))
                    .isEqualTo(20.0);
            assertThat(value(families, "partita_item_count", "partita_item_count", Map.of("table", "orders")))
                    .isEqualTo(20.0);
            assertThat(family(families, "partita_consumed_write_capacity_units")
                            .get("type")
                            .asText())
                    .isEqualTo("counter");

            // Latency per operation: a histogram whose count is the successful requests.
            JsonNode latency = family(families, "partita_successful_request_latency_seconds");
            assertThat(latency.get("type").asText()).isEqualTo("histogram");
            assertThat(value(
                            families,
                            "partita_successful_request_latency_seconds",
                            "partita_successful_request_latency_seconds_count",
                            Map.of("operation", "PutItem")))
                    .isEqualTo(20.0);
            assertThat(value(
                            families,
                            "partita_successful_request_latency_seconds",
                            "partita_successful_request_latency_seconds_bucket",
                            Map.of("operation", "PutItem", "le", "+Inf")))
                    .isEqualTo(20.0);
            assertThat(value(
                            families,
                            "partita_conditional_check_failed_requests",
                            "partita_conditional_check_failed_requests_total",
                            Map.of("operation", "PutItem")))
                    .isEqualTo(1.0);
            assertThat(value(
                            families,
                            "partita_user_errors",
                            "partita_user_errors_total",
                            Map.of("operation", "GetItem")))
                    .isEqualTo(1.0);
            // The failed condition is ConditionalCheckFailedRequests, not UserErrors.
            assertThat(value(
                            families,
                            "partita_user_errors",
                            "partita_user_errors_total",
                            Map.of("operation", "PutItem")))
                    .isZero();

            // GSI lag, TTL, the JVM and RocksDB.
            assertThat(value(
                            families,
                            "partita_gsi_backlog",
                            "partita_gsi_backlog",
                            Map.of("table", "orders", "index", "byCustomer")))
                    .isZero();
            assertThat(value(
                            families,
                            "partita_time_to_live_deleted_item_count",
                            "partita_time_to_live_deleted_item_count_total",
                            Map.of("table", "orders")))
                    .isZero();
            assertThat(family(families, "jvm_memory_used_bytes").get("samples")).isNotEmpty();
            assertThat(value(
                            families,
                            "partita_rocksdb_estimate_num_keys",
                            "partita_rocksdb_estimate_num_keys",
                            Map.of()))
                    .isPositive();
        }
    }
}
