package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability: a write acknowledged by a server process survives that process being killed with SIGKILL (no
 * shutdown hook, no flush), because it was in Partita's write-ahead log before it was applied. The servers run with
 * log segments of 64 KB, so that checkpoints (a flush and a cut of the log) happen all through the load.
 */
class CrashRecoveryIT {
    private static final Pattern PORT = Pattern.compile("listening on port (\\d+)");

    private static Process launch(Path dataDir) {
        try {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            return new ProcessBuilder(
                            java,
                            "-Dpartita.log.segmentBytes=65536",
                            "-cp",
                            System.getProperty("java.class.path"),
                            "io.partita.server.cli.Main",
                            "--port",
                            "0",
                            "--host",
                            "127.0.0.1",
                            "--data-dir",
                            dataDir.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int portOf(Process p) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            Matcher m = PORT.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> r.lines().forEach(l -> {}));
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("server exited before announcing its port");
    }

    private static final ObjectMapper JSON = new ObjectMapper();

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
        Process first = launch(dir);
        try {
            RawApi api = new RawApi(URI.create("http://127.0.0.1:" + portOf(first)));
            HttpResponse<String> created = api.post(
                    "DynamoDB_20120810.CreateTable",
                    "{\"TableName\":\"durable\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                            + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}");
            assertThat(created.statusCode()).isEqualTo(200);
            for (int i = 0; i < 100; i++) {
                HttpResponse<String> put = api.post(
                        "DynamoDB_20120810.PutItem",
                        "{\"TableName\":\"durable\",\"Item\":{\"id\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i
                                + "\"}}}");
                assertThat(put.statusCode()).isEqualTo(200);
            }
        } finally {
            first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Process second = launch(dir);
        try {
            RawApi api = new RawApi(URI.create("http://127.0.0.1:" + portOf(second)));
            for (int i = 0; i < 100; i += 33) {
                HttpResponse<String> got = api.post(
                        "DynamoDB_20120810.GetItem",
                        "{\"TableName\":\"durable\",\"Key\":{\"id\":{\"S\":\"k" + i + "\"}}}");
                assertThat(got.body())
                        .isEqualTo("{\"Item\":{\"id\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i + "\"}}}");
            }
            HttpResponse<String> described = api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"durable\"}");
            assertThat(described.body()).contains("\"ItemCount\":100");
        } finally {
            second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
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
        Process first = launch(dir);
        int port = portOf(first);
        RawApi setup = new RawApi(URI.create("http://127.0.0.1:" + port));
        assertThat(setup.post(
                                "DynamoDB_20120810.CreateTable",
                                "{\"TableName\":\"durable\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                                        + "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"id\","
                                        + "\"KeyType\":\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}")
                        .statusCode())
                .isEqualTo(200);
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
            first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        for (Thread t : threads) t.join(10_000);
        Process second = launch(dir);
        try {
            RawApi api = new RawApi(URI.create("http://127.0.0.1:" + portOf(second)));
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
        } finally {
            second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
