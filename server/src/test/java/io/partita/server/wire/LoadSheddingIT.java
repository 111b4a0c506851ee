package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.PartitaServer;
import io.partita.server.cli.ServerConfig;
import io.partita.server.netty.Admission;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Load shedding over real sockets: past the bound on requests in flight or on the memory of request bodies, a request
 * is refused with DynamoDB's {@code ThrottlingException} (which the SDKs retry) on a connection that stays open; a
 * client that pipelines without reading is slowed, not refused; a request that takes too long to arrive is cut off.
 */
class LoadSheddingIT {
    private static final String SHED = "{\"__type\":\"com.amazon.coral.availability#ThrottlingException\","
            + "\"message\":\"Rate of requests exceeds the allowed throughput.\"}";

    private static PartitaServer server(int maxInFlight, long bodyBytes, Duration timeout) {
        return PartitaServer.start(
                ServerConfig.ephemeral().withLimits(new Admission.Limits(maxInFlight, bodyBytes, timeout)));
    }

    /** A request's head, with the headers every DynamoDB request carries. */
    private static String head(String target, String framing) {
        return "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: DynamoDB_20120810." + target + "\r\nX-Amz-Date: 20261130T000000Z\r\n"
                + "Authorization: " + RawApi.AUTH + "\r\n" + framing + "\r\n";
    }

    private static String request(String target, String body) {
        return head(target, "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n") + body;
    }

    private record Answer(int status, String body) {}

    /** One connection, read an answer at a time (every answer here has a Content-Length). */
    private static final class Connection implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Connection(PartitaServer server) throws IOException {
            socket = new Socket("127.0.0.1", server.port());
            socket.setSoTimeout(10_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        void write(String s) throws IOException {
            write(s.getBytes(StandardCharsets.UTF_8));
        }

        void write(byte[] b) throws IOException {
            out.write(b);
            out.flush();
        }

        Answer read() throws IOException {
            String status = line();
            int length = 0;
            for (String h = line(); !h.isEmpty(); h = line()) {
                if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(h.substring(15).trim());
                }
            }
            byte[] body = in.readNBytes(length);
            return new Answer(Integer.parseInt(status.split(" ")[1]), new String(body, StandardCharsets.UTF_8));
        }

        Answer call(String target, String body) throws IOException {
            write(request(target, body));
            return read();
        }

        private String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) throw new IOException("connection closed");
                if (c != '\r') b.write(c);
            }
            return b.toString(StandardCharsets.US_ASCII);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void pastTheBoundOnRequestsInFlightARequestIsThrottledAndItsConnectionStaysOpen() throws Exception {
        try (PartitaServer server = server(2, 64 << 20, Duration.ofSeconds(60));
                Connection first = new Connection(server);
                Connection second = new Connection(server);
                Connection third = new Connection(server)) {
            // Two requests whose bodies have not arrived yet: both in flight.
            first.write(head("ListTables", "Content-Length: 2\r\n"));
            second.write(head("ListTables", "Content-Length: 2\r\n"));
            Answer refused = null;
            for (int i = 0; i < 200 && refused == null; i++) {
                Answer a = third.call("ListTables", "{}");
                if (a.status() == 400) refused = a;
                else Thread.sleep(10);
            }
            assertThat(refused).as("a third request refused").isNotNull();
            assertThat(refused.body()).isEqualTo(SHED);
            first.write("{}");
            assertThat(first.read().status()).isEqualTo(200);
            // One in flight now: the refused connection's next request goes through.
            assertThat(third.call("ListTables", "{}")).isEqualTo(new Answer(200, "{\"TableNames\":[]}"));
            // The second was admitted, or refused if one of the third's tries was in flight when it arrived.
            second.write("{}");
            assertThat(second.read()).isIn(new Answer(200, "{\"TableNames\":[]}"), new Answer(400, SHED));
            assertThat(metric(third, "partita_requests_shed_total")).isPositive();
        }
    }

    @Test
    void pastTheMemoryForBodiesARequestIsReadDroppedAndThrottled() throws Exception {
        try (PartitaServer server = server(4096, 1 << 20, Duration.ofSeconds(60));
                Connection c = new Connection(server)) {
            createTable(c, "big");
            // 300 KB fits: written.
            String item = "{\"TableName\":\"big\",\"Item\":{\"id\":{\"S\":\"a\"},\"pad\":{\"S\":\""
                    + "x".repeat(300_000) + "\"}}}";
            assertThat(c.call("PutItem", item)).isEqualTo(new Answer(200, "{}"));
            // 2 MB declared: past the 1 MB for bodies.
            String large = "{\"TableName\":\"big\",\"Item\":{\"id\":{\"S\":\"b\"},\"pad\":{\"S\":\""
                    + "x".repeat(2_000_000) + "\"}}}";
            assertThat(c.call("PutItem", large)).isEqualTo(new Answer(400, SHED));
            // Chunked, without a length: refused once its chunks pass the bound, answered when the last arrives.
            c.write(head("PutItem", "Transfer-Encoding: chunked\r\n"));
            String chunk = "x".repeat(600_000);
            for (int i = 0; i < 3; i++) {
                c.write(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
            }
            c.write("0\r\n\r\n");
            assertThat(c.read()).isEqualTo(new Answer(400, SHED));
            // Nothing of the refused requests was written, the connection still serves, and no memory is held.
            assertThat(c.call("GetItem", "{\"TableName\":\"big\",\"Key\":{\"id\":{\"S\":\"b\"}}}"))
                    .isEqualTo(new Answer(200, "{}"));
            assertThat(metric(c, "partita_request_body_bytes")).isZero();
            assertThat(metric(c, "partita_requests_shed_total")).isEqualTo(2);
        }
    }

    /** Through the AWS SDK: a shed request is a throttling error, which the SDK retries before it gives up. */
    @Test
    void theSdkSeesAShedRequestAsThrottlingAndRetriesIt() throws Exception {
        try (PartitaServer server = server(4096, 1 << 20, Duration.ofSeconds(60));
                Connection c = new Connection(server)) {
            createTable(c, "big");
            java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
            // 25 items of 60 KB: a 1.5 MB body, past the 1 MB for bodies every time.
            java.util.List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> writes =
                    new java.util.ArrayList<>();
            for (int n = 0; n < 25; n++) {
                String i = Integer.toString(n);
                writes.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                        .putRequest(p -> p.item(java.util.Map.of(
                                "id",
                                software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("k" + i),
                                "pad",
                                software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(
                                        "x".repeat(60_000)))))
                        .build());
            }
            try (software.amazon.awssdk.services.dynamodb.DynamoDbClient sdk =
                    CountingClient.of(java.net.URI.create("http://127.0.0.1:" + server.port()), 3, attempts)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> sdk.batchWriteItem(b -> b.requestItems(java.util.Map.of("big", writes))))
                        .isInstanceOfSatisfying(
                                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class, e -> {
                                    assertThat(e.isThrottlingException()).isTrue();
                                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
                                    assertThat(e.awsErrorDetails().errorMessage())
                                            .isEqualTo("Rate of requests exceeds the allowed throughput.");
                                });
            }
            assertThat(attempts.get()).as("attempts the SDK made").isEqualTo(3);
            assertThat(metric(c, "partita_requests_shed_total")).isEqualTo(3);
        }
    }

    @Test
    void aClientPipeliningWithoutReadingIsSlowedNotRefused() throws Exception {
        try (PartitaServer server = server(4096, 64 << 20, Duration.ofSeconds(60));
                Connection c = new Connection(server)) {
            createTable(c, "piped");
            // Scans run on the connection's worker: far more of them wait than the 32 that pause reading.
            int n = 500;
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < n; i++) {
                burst.append(request("Scan", "{\"TableName\":\"piped\",\"Limit\":" + (1 + i % 100) + "}"));
            }
            c.write(burst.toString());
            for (int i = 0; i < n; i++) {
                assertThat(c.read())
                        .as("answer %d", i)
                        .isEqualTo(new Answer(200, "{\"Items\":[],\"Count\":0,\"ScannedCount\":0}"));
            }
        }
    }

    @Test
    void aRequestThatTakesLongerThanTheTimeoutToArriveIsCutOff() throws Exception {
        try (PartitaServer server = server(4096, 64 << 20, Duration.ofMillis(400));
                Connection slow = new Connection(server);
                Connection fast = new Connection(server)) {
            slow.write("POST / HTTP/1.1\r\nHost: localhost\r\n");
            long sent = System.nanoTime();
            assertThat(fast.call("ListTables", "{}").status()).isEqualTo(200);
            int read;
            try {
                read = slow.in.read();
            } catch (SocketTimeoutException e) {
                read = -2;
            }
            long waited = (System.nanoTime() - sent) / 1_000_000;
            assertThat(read)
                    .as("the slow connection closed (after %d ms)", waited)
                    .isEqualTo(-1);
            assertThat(waited).isGreaterThanOrEqualTo(400);
            // A connection idle between requests is not a slow sender.
            Thread.sleep(600);
            assertThat(fast.call("ListTables", "{}").status()).isEqualTo(200);
        }
    }

    private static void createTable(Connection c, String name) throws IOException {
        Answer created = c.call(
                "CreateTable",
                "{\"TableName\":\"" + name + "\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                        + "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":"
                        + "\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}");
        assertThat(created.status()).isEqualTo(200);
    }

    private static long metric(Connection c, String name) throws IOException {
        c.write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
        for (String line : c.read().body().split("\n")) {
            if (line.startsWith(name + " ")) return (long) Double.parseDouble(line.substring(name.length() + 1));
        }
        throw new AssertionError(name + " missing from the metrics");
    }
}
