package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability: a write acknowledged by a server process survives that process being killed with SIGKILL (no
 * shutdown hook, no flush), because it went through the RocksDB WAL before the answer was sent.
 */
class CrashRecoveryIT {
    private static final Pattern PORT = Pattern.compile("listening on port (\\d+)");

    private static Process launch(Path dataDir) {
        try {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            return new ProcessBuilder(
                            java,
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
}
