package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A GSI across SIGKILL: writers put, move (change the index key of), strip (remove the index key of) and delete items
 * while the server is killed, with the index's changes held back by an injected lag (a backlog at the kill) or applied
 * as they come (the applier mid-batch at the kill). After a restart without lag and the await call, the index holds
 * exactly one entry for every item of the table that has the index key, with the item's current key, and nothing
 * else; its ItemCount agrees: no entry lost, none applied twice.
 */
class GsiCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WRITERS = 3;

    @ParameterizedTest(name = "gsi-lag={0}")
    @ValueSource(strings = {"1h", "0"})
    void theIndexConvergesOnTheTableAfterSigkill(String lag, @TempDir Path dir) throws Exception {
        AtomicBoolean failed = new AtomicBoolean();
        try (ServerProcess server = ServerProcess.start(dir, "--throughput", "off", "--gsi-lag", lag)) {
            HttpResponse<String> created = server.api().post("DynamoDB_20120810.CreateTable", """
                    {"TableName":"crashed","BillingMode":"PAY_PER_REQUEST",
                     "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},
                                             {"AttributeName":"g","AttributeType":"S"}],
                     "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
                     "GlobalSecondaryIndexes":[{"IndexName":"by-g",
                        "KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],
                        "Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["v"]}}]}""");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                threads.add(new Thread(() -> write(server.api(), writer, failed)));
            }
            threads.forEach(Thread::start);
            Thread.sleep(1500);
            if (lag.equals("1h")) {
                JsonNode gsi = indexes(server.api());
                assertThat(gsi.get("backlog").asLong())
                        .as("changes held back at the kill")
                        .isPositive();
            }
            server.kill();
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
        assertThat(failed).as("a write was refused before the kill").isFalse();
        try (ServerProcess again = ServerProcess.start(dir, "--throughput", "off")) {
            RawApi api = again.api();
            HttpResponse<String> awaited = api.send("POST", "/admin/indexes/await?table=crashed&timeoutSeconds=60");
            assertThat(awaited.statusCode()).as(awaited.body()).isEqualTo(200);
            TreeMap<String, String> expected = new TreeMap<>();
            for (JsonNode item : scan(api, null)) {
                if (item.has("g")) {
                    expected.put(
                            item.get("id").get("S").asText(),
                            item.get("g").get("S").asText() + "/"
                                    + item.get("v").get("S").asText());
                }
            }
            TreeMap<String, String> indexed = new TreeMap<>();
            List<JsonNode> entries = scan(api, "by-g");
            for (JsonNode e : entries) {
                String previous = indexed.put(
                        e.get("id").get("S").asText(),
                        e.get("g").get("S").asText() + "/" + e.get("v").get("S").asText());
                assertThat(previous).as("a second entry for %s", e.get("id")).isNull();
            }
            assertThat(expected).as("some items are indexed").isNotEmpty();
            assertThat(indexed).isEqualTo(expected);
            JsonNode describe = JSON.readTree(api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"crashed\"}")
                    .body());
            assertThat(describe.at("/Table/GlobalSecondaryIndexes/0/ItemCount").asLong())
                    .isEqualTo(expected.size());
            assertThat(indexes(api).get("backlog").asLong()).isZero();
        }
    }

    private static JsonNode indexes(RawApi api) throws Exception {
        return JSON.readTree(api.get("/admin/indexes?table=crashed").body())
                .get("tables")
                .get(0)
                .get("globalSecondaryIndexes")
                .get(0);
    }

    /** Every item of the table, or every entry of {@code index}, paging through. */
    private static List<JsonNode> scan(RawApi api, String index) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        String start = null;
        do {
            String body = "{\"TableName\":\"crashed\"" + (index == null ? "" : ",\"IndexName\":\"" + index + "\"")
                    + (start == null ? "" : ",\"ExclusiveStartKey\":" + start) + "}";
            HttpResponse<String> r = api.post("DynamoDB_20120810.Scan", body);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode page = JSON.readTree(r.body());
            page.get("Items").forEach(out::add);
            start = page.has("LastEvaluatedKey") ? page.get("LastEvaluatedKey").toString() : null;
        } while (start != null);
        return out;
    }

    /** Writes its own keys until the server dies: puts, index-key moves, removals of the key, deletes. */
    private static void write(RawApi api, int writer, AtomicBoolean failed) {
        Random random = new Random(writer);
        for (int op = 0; ; op++) {
            String id = "w" + writer + "-" + random.nextInt(40);
            String g = "G" + random.nextInt(6);
            String body;
            String target;
            int kind = random.nextInt(10);
            if (kind < 5) {
                target = "DynamoDB_20120810.PutItem";
                body = "{\"TableName\":\"crashed\",\"Item\":{\"id\":{\"S\":\"" + id + "\"},\"g\":{\"S\":\"" + g
                        + "\"},\"v\":{\"S\":\"op" + op + "\"}}}";
            } else if (kind < 7) {
                target = "DynamoDB_20120810.UpdateItem";
                body = "{\"TableName\":\"crashed\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}},"
                        + "\"UpdateExpression\":\"SET g = :g, v = :v\",\"ExpressionAttributeValues\":{\":g\":{\"S\":\""
                        + g + "\"},\":v\":{\"S\":\"op" + op + "\"}}}";
            } else if (kind < 8) {
                target = "DynamoDB_20120810.UpdateItem";
                body = "{\"TableName\":\"crashed\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}},"
                        + "\"UpdateExpression\":\"REMOVE g SET v = :v\",\"ExpressionAttributeValues\":{\":v\":{\"S\":\"op"
                        + op + "\"}}}";
            } else {
                target = "DynamoDB_20120810.DeleteItem";
                body = "{\"TableName\":\"crashed\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}}}";
            }
            try {
                HttpResponse<String> r = api.post(target, body);
                if (r.statusCode() != 200) {
                    failed.set(true);
                    return;
                }
            } catch (Exception e) {
                return; // the server is gone
            }
        }
    }
}
