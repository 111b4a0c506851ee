package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.partita.server.metrics.ClusterMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router on real sockets, in front of stand-ins for the serving node: what it passes on, and which error it answers
 * when it cannot: a 503 (nothing was done) when no node serves or the serving node cannot be reached, a 500 (the
 * outcome is unknown) when the request was sent and its answer lost.
 */
class ClusterRouterTest {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final AtomicReference<ClusterRouter.Target> target = new AtomicReference<>();
    private ClusterRouter router;

    @BeforeEach
    void start() throws InterruptedException {
        router = new ClusterRouter(
                "127.0.0.1",
                0,
                "n1",
                target::get,
                () -> "{\"node\":\"n1\",\"members\":[]}",
                new ClusterMetrics(() -> new ClusterMetrics.View("n1", false, false, 3, 7, 7, Map.of(), 0, 0)),
                null,
                null,
                null);
    }

    @AfterEach
    void stop() {
        router.close();
    }

    private HttpResponse<String> put(String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "DynamoDB_20120810.PutItem")
                .POST(HttpRequest.BodyPublishers.ofString("{\"TableName\":\"t\"}"));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void whileNoNodeServesTheAnswerIsA503() throws Exception {
        HttpResponse<String> r = put();
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body())
                .contains("com.amazonaws.dynamodb.v20120810#ServiceUnavailableException", "an election is under way");
        assertThat(r.headers().firstValue("x-amzn-RequestId")).isPresent();
    }

    @Test
    void aForwardedRequestIsNotForwardedAgain() throws Exception {
        target.set(new ClusterRouter.Target("127.0.0.1:1", false));
        HttpResponse<String> r = put(ClusterRouter.FORWARDED, "n2");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("ServiceUnavailableException");
    }

    @Test
    void aServingNodeThatCannotBeReachedIsA503() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        target.set(new ClusterRouter.Target("127.0.0.1:" + closed, false));
        HttpResponse<String> r = put();
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("ServiceUnavailableException", "cannot be reached");
    }

    @Test
    void anAnswerLostAfterTheRequestWasSentIsA500() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0)) {
            Thread reader = new Thread(() -> {
                // Reads the request's first bytes, then dies without answering, as a leader killed mid-request.
                try (Socket s = upstream.accept();
                        InputStream in = s.getInputStream()) {
                    in.read(new byte[64]);
                } catch (IOException ignored) {
                    // the test sees the router's answer
                }
            });
            reader.start();
            target.set(new ClusterRouter.Target("127.0.0.1:" + upstream.getLocalPort(), false));
            HttpResponse<String> r = put();
            reader.join();
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(r.body()).contains("com.amazonaws.dynamodb.v20120810#InternalServerError");
        }
    }

    @Test
    void requestsAndAnswersPassAsTheyCameOverOneConnectionOnwards() throws Exception {
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        AtomicInteger connections = new AtomicInteger();
        AtomicReference<String> seen = new AtomicReference<>();
        upstream.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            seen.set(exchange.getRequestHeaders().getFirst("X-Amz-Target") + " "
                    + exchange.getRequestHeaders().getFirst(ClusterRouter.FORWARDED) + " "
                    + new String(body, StandardCharsets.UTF_8));
            byte[] answer = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException\"}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("x-amzn-RequestId", "REQ1");
            exchange.sendResponseHeaders(400, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        upstream.start();
        try (ServerSocket counter = new ServerSocket(0)) {
            // A relay in front of the stand-in counts the connections the router opens onwards.
            Thread relay = new Thread(() -> relay(counter, upstream.getAddress().getPort(), connections));
            relay.setDaemon(true);
            relay.start();
            target.set(new ClusterRouter.Target("127.0.0.1:" + counter.getLocalPort(), false));
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = put();
                assertThat(r.statusCode()).isEqualTo(400);
                assertThat(r.body()).contains("ResourceNotFoundException");
                assertThat(r.headers().firstValue("x-amzn-RequestId")).hasValue("REQ1");
            }
            assertThat(seen.get()).isEqualTo("DynamoDB_20120810.PutItem n1 {\"TableName\":\"t\"}");
            assertThat(connections.get()).isEqualTo(1);
        } finally {
            upstream.stop(0);
        }
    }

    @Test
    void pipelinedRequestsAreEachAnsweredInTheOrderTheyCame() throws Exception {
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", exchange -> {
            byte[] answer = ("echo:" + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        upstream.start();
        target.set(new ClusterRouter.Target("127.0.0.1:" + upstream.getAddress().getPort(), false));
        try (Socket client = new Socket("127.0.0.1", router.port())) {
            client.setSoTimeout(10_000);
            // Three requests in one write: the router decodes them together, while the first is on its way.
            StringBuilder requests = new StringBuilder();
            for (String body : List.of("one", "two", "three")) {
                requests.append("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n")
                        .append("Content-Length: ")
                        .append(body.length())
                        .append("\r\n\r\n")
                        .append(body);
            }
            client.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            StringBuilder answers = new StringBuilder();
            byte[] buffer = new byte[4096];
            while (!answers.toString().contains("echo:three")) {
                int n = client.getInputStream().read(buffer);
                assertThat(n).as("answers so far: %s", answers).isPositive();
                answers.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
            }
            String all = answers.toString();
            assertThat(all.split("HTTP/1.1 200", -1)).hasSize(4);
            assertThat(all.indexOf("echo:one")).isLessThan(all.indexOf("echo:two"));
            assertThat(all.indexOf("echo:two")).isLessThan(all.indexOf("echo:three"));
        } finally {
            upstream.stop(0);
        }
    }

    /** Accepts connections on {@code from} and pipes each to {@code port}, counting them. */
    private static void relay(ServerSocket from, int port, AtomicInteger connections) {
        while (!from.isClosed()) {
            try {
                Socket in = from.accept();
                connections.incrementAndGet();
                Socket out = new Socket("127.0.0.1", port);
                pipe(in, out);
                pipe(out, in);
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pipe(Socket a, Socket b) {
        Thread t = new Thread(() -> {
            try {
                a.getInputStream().transferTo(b.getOutputStream());
            } catch (IOException ignored) {
                // the other side closed
            }
        });
        t.setDaemon(true);
        t.start();
    }

    @Test
    void theClusterViewIsAnsweredHereAndReadableFromAnyOrigin() throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/cluster"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"node\":\"n1\",\"members\":[]}");
        assertThat(r.headers().allValues("access-control-allow-origin")).isEqualTo(List.of("*"));
        HttpResponse<String> m = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/cluster/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(m.body()).contains("partita_cluster_term{node=\"n1\"} 3");
    }

    @Test
    void aChangeOfTheMembersThatFailsUnexpectedlyIsStillAnsweredAndTheConnectionGoesOn() throws Exception {
        router.close();
        router = new ClusterRouter(
                "127.0.0.1",
                0,
                "n1",
                target::get,
                () -> "{\"node\":\"n1\",\"members\":[]}",
                new ClusterMetrics(() -> new ClusterMetrics.View("n1", true, true, 3, 7, 7, Map.of(), 0, 0)),
                new ClusterRouter.Members() {
                    @Override
                    public boolean leads() {
                        return true;
                    }

                    @Override
                    public ClusterRouter.Made change(byte[] body) {
                        throw new IllegalStateException("no division for the group on n1");
                    }
                },
                null,
                null);
        URI members = URI.create("http://127.0.0.1:" + router.port() + "/cluster/members");
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(members)
                            .timeout(java.time.Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"remove\":\"n2\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(r.body()).contains("the change failed").contains("no division for the group on n1");
        }
    }
}
