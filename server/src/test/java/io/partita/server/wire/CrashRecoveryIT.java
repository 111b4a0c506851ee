package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability: a write acknowledged by a server process survives that process being killed with SIGKILL (no
 * shutdown hook, no flush), because it was in Partita's write-ahead log before it was applied ({@link ServerProcess}).
 */
class CrashRecoveryIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A transaction that adds 1 to a counter, with its ClientRequestToken. */
    private static final String INCREMENT = "{\"ClientRequestToken\":\"increment-once\",\"TransactItems\":[{\"Update\":"
            + "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"counter\"}},\"UpdateExpression\":\"ADD c :one\","
            + "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}}]}";

    private static long scanCount(RawApi api) throws Exception {
        long count = 0;
        JsonNode start = null;
        do {
            ObjectNode request =
                    JSON.createObjectNode().put("TableName", "durable").put("Select", "COUNT");
            if (start != null) {
                request.set("ExclusiveStartKey", start);
            }
            HttpResponse<String> page = api.post("DynamoDB_20120810.Scan", JSON.writeValueAsString(request));
            assertThat(page.statusCode()).isEqualTo(200);
            JsonNode body = JSON.readTree(page.body());
            count += body.get("Count").asLong();
            start = body.get("LastEvaluatedKey");
        } while (start != null);
        return count;
    }

    @Test
    void anAcknowledgedWriteSurvivesSigkill(@TempDir Path dir) throws Exception {
        try (ServerProcess first = ServerProcess.start(dir)) {
            RawApi api = first.api();
            HttpResponse<String> created = api.createTable("durable");
            assertThat(created.statusCode()).isEqualTo(200);
            for (int i = 0; i < 100; i++) {
                HttpResponse<String> put = api.post(
                        "DynamoDB_20120810.PutItem",
                        "{\"TableName\":\"durable\",\"Item\":{\"id\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i
                                + "\"}}}");
                assertThat(put.statusCode()).isEqualTo(200);
            }
            assertThat(api.post("DynamoDB_20120810.TransactWriteItems", INCREMENT)
                            .statusCode())
                    .isEqualTo(200);
        }
        try (ServerProcess second = ServerProcess.start(dir)) {
            RawApi api = second.api();
            // A repeat of the transaction with its ClientRequestToken answers as a repeat: its token was kept with its
            // write, not in the first process's memory alone.
            assertThat(api.post("DynamoDB_20120810.TransactWriteItems", INCREMENT)
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<String> other =
                    api.post("DynamoDB_20120810.TransactWriteItems", INCREMENT.replace("\"1\"", "\"2\""));
            assertThat(other.statusCode()).isEqualTo(400);
            assertThat(other.body()).contains("IdempotentParameterMismatchException");
            assertThat(api.post(
                                    "DynamoDB_20120810.GetItem",
                                    "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"counter\"}}}")
                            .body())
                    .isEqualTo("{\"Item\":{\"id\":{\"S\":\"counter\"},\"c\":{\"N\":\"1\"}}}");
            for (int i = 0; i < 100; i += 33) {
                HttpResponse<String> got = api.post(
                        "DynamoDB_20120810.GetItem",
                        "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"k" + i + "\"}}}");
                assertThat(got.body())
                        .isEqualTo("{\"Item\":{\"id\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i + "\"}}}");
            }
            HttpResponse<String> described = api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"durable\"}");
            assertThat(described.body()).contains("\"ItemCount\":101");
        }
    }

    /**
     * While writers on several connections put items, readers probe the key each writer is about to put; the process
     * is killed mid-load. Every put that was answered, and every item a reader was shown, must be there after restart,
     * and the table's item count (kept by merges, which replay must apply exactly once) must match a scan.
     */
    @Test
    void acknowledgedAndObservedWritesOfConcurrentConnectionsSurviveSigkill(@TempDir Path dir) throws Exception {
        int writers = 4;
        AtomicIntegerArray acknowledged = new AtomicIntegerArray(writers); // count of answered puts per writer
        Set<String> observed = ConcurrentHashMap.newKeySet();
        ServerProcess first = ServerProcess.start(dir);
        int port = first.port();
        RawApi setup = first.api();
        assertThat(setup.createTable("durable").statusCode()).isEqualTo(200);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(new Thread(() -> {
                RawApi api = new RawApi(URI.create("http://127.0.0.1:" + port));
                try {
                    for (int i = 0; ; i++) {
                        HttpResponse<String> put = api.post(
                                "DynamoDB_20120810.PutItem",
                                "{\"TableName\":\"durable\",\"Item\":{\"id\":{\"S\":\"w" + writer + "-" + i + "\"}}}");
                        if (put.statusCode() != 200) return;
                        acknowledged.set(writer, i + 1);
                    }
                } catch (Exception killed) {
                    // the server went away: this writer's last answered put is recorded
                }
            }));
            threads.add(new Thread(() -> {
                RawApi api = new RawApi(URI.create("http://127.0.0.1:" + port));
                try {
                    while (true) {
                        String id = "w" + writer + "-" + acknowledged.get(writer);
                        HttpResponse<String> got = api.post(
                                "DynamoDB_20120810.GetItem",
                                "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}}}");
                        if (got.statusCode() != 200) return;
                        if (got.body().contains(id)) observed.add(id);
                    }
                } catch (Exception killed) {
                    // the server went away
                }
            }));
        }
        try {
            threads.forEach(Thread::start);
            Thread.sleep(1500);
        } finally {
            first.kill();
        }
        for (Thread t : threads) t.join(10_000);
        try (ServerProcess second = ServerProcess.start(dir)) {
            RawApi api = second.api();
            List<String> expected = new ArrayList<>(observed);
            for (int w = 0; w < writers; w++) {
                assertThat(acknowledged.get(w))
                        .as("puts answered by writer %d", w)
                        .isPositive();
                for (int i = 0; i < acknowledged.get(w); i++) expected.add("w" + w + "-" + i);
            }
            List<String> missing = new ArrayList<>();
            for (String id : expected) {
                HttpResponse<String> got = api.post(
                        "DynamoDB_20120810.GetItem",
                        "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}}}");
                if (!got.body().contains(id)) missing.add(id);
            }
            assertThat(missing)
                    .as("answered or observed before the kill, gone after it")
                    .isEmpty();
            JsonNode table = JSON.readTree(api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"durable\"}")
                            .body())
                    .get("Table");
            assertThat(table.get("ItemCount").asLong()).isEqualTo(scanCount(api));
        }
    }
}
