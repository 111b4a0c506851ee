package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * A local event-source mapping, as Lambda has for a table's stream: batches in Lambda's DynamoDB event format are
 * POSTed to a handler (here a small HTTP server in the test); a batch the handler refuses is bisected and retried,
 * and the one record that keeps failing goes to the on-failure file while every other record is delivered.
 */
@Tag("partita-only")
@ExtendWith(PartitaExtension.class)
class EventSourceMappingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void batchesAreDeliveredAndAFailingRecordIsBisectedOut(DynamoDbClient ddb, Tables tables, @TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "a Partita admin control");
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        List<Integer> refused = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        CountDownLatch good = new CountDownLatch(24);
        String[] sourceArn = new String[1];
        HttpServer handler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        handler.createContext("/", exchange -> {
            JsonNode event = JSON.readTree(exchange.getRequestBody().readAllBytes());
            boolean poison = false;
            for (JsonNode r : event.get("Records")) {
                poison |= r.at("/dynamodb/Keys/pk/S").asText().equals("poison");
            }
            if (poison) {
                refused.add(event.get("Records").size());
                exchange.sendResponseHeaders(500, -1);
            } else {
                for (JsonNode r : event.get("Records")) {
                    sourceArn[0] = r.get("eventSourceARN").asText();
                    assertThat(r.get("eventName").asText()).isEqualTo("INSERT");
                    assertThat(r.at("/dynamodb/NewImage/pk/S").asText()).isNotEmpty();
                    deliveries.merge(r.at("/dynamodb/Keys/pk/S").asText(), 1, Integer::sum);
                    good.countDown();
                }
                exchange.sendResponseHeaders(200, -1);
            }
            exchange.close();
        });
        handler.start();
        try {
            String t = StreamsTest.table(tables, StreamViewType.NEW_IMAGE);
            Path failures = dir.resolve("failures.jsonl");
            String url = "http://127.0.0.1:" + handler.getAddress().getPort() + "/";
            JsonNode created = JSON.readTree(Indexes.adminPost(
                    Endpoint.uri(),
                    "/admin/event-source-mappings?table=" + t + "&url=" + URLEncoder.encode(url, StandardCharsets.UTF_8)
                            + "&batchSize=10&batchWindowMillis=1000&maximumRetryAttempts=1&onFailure="
                            + URLEncoder.encode(failures.toString(), StandardCharsets.UTF_8)));
            String id = created.get("eventSourceMappings").get(0).get("id").asText();
            for (int i = 0; i < 25; i++) {
                String pk = i == 12 ? "poison" : "item-" + i;
                ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s(pk))));
            }
            assertThat(good.await(30, TimeUnit.SECONDS))
                    .as("every good record delivered")
                    .isTrue();
            assertThat(deliveries).hasSize(24).doesNotContainKey("poison");
            assertThat(sourceArn[0])
                    .isEqualTo(ddb.describeTable(b -> b.tableName(t)).table().latestStreamArn());
            JsonNode mapping = null;
            for (int i = 0; i < 500; i++) {
                mapping = JSON.readTree(Indexes.adminGet(Endpoint.uri(), "/admin/event-source-mappings"));
                if (failed(mapping, id) == 1) {
                    break;
                }
                Thread.sleep(20); // the failure is written after the retries, on the mapping's own thread
            }
            assertThat(failed(mapping, id)).isEqualTo(1);
            List<String> lines = Files.readAllLines(failures);
            assertThat(lines).singleElement().satisfies(l -> assertThat(l).contains("\"poison\""));
            // The poison was refused in its batch (gathered for up to a second: several records), then in halves, each
            // at most half the one before, then alone and once more.
            List<Integer> sizes = List.copyOf(refused);
            assertThat(sizes).hasSizeGreaterThanOrEqualTo(3);
            assertThat(sizes.get(0)).isGreaterThan(1);
            for (int i = 1; i < sizes.size() - 1; i++) {
                assertThat(sizes.get(i)).isLessThanOrEqualTo((sizes.get(i - 1) + 1) / 2);
            }
            assertThat(sizes.subList(sizes.size() - 2, sizes.size())).containsExactly(1, 1);
            Indexes.adminDelete(Endpoint.uri(), "/admin/event-source-mappings?id=" + id);
        } finally {
            handler.stop(0);
        }
    }

    private static long failed(JsonNode view, String id) {
        for (JsonNode m : view.get("eventSourceMappings")) {
            if (m.get("id").asText().equals(id)) {
                return m.get("failedRecords").asLong();
            }
        }
        return -1;
    }
}
