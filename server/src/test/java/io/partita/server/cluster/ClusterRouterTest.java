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
    /** This node's reader, as a follower with follower reads: null while it has none (or is not recent enough). */
    private final AtomicReference<ClusterRouter.Target> reads = new AtomicReference<>();

    private ClusterRouter router;

    @BeforeEach
    void start() throws InterruptedException {
        router = new ClusterRouter(
                "127.0.0.1",
                0,
                "n1",
                request -> target.get(),
                request -> reads.get(),
                () -> "{\"node\":\"n1\",\"members\":[]}",
                new ClusterMetrics(() -> new ClusterMetrics.View(
                        "n1",
                        List.of(new ClusterMetrics.GroupView(
                                "000000000000", false, false, 3, 7, 7, Map.of(), 0, 0, 0, 0)),
                        0)),
                null,
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

    /** A PutItem of a client that accepts gzip, its answer's bytes as they came. */
    private HttpResponse<byte[]> putAcceptingGzip() throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/"))
                        .header("Content-Type", "application/x-amz-json-1.0")
                        .header("X-Amz-Target", "DynamoDB_20120810.PutItem")
                        .header("Accept-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"TableName\":\"t\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The body of {@code zipped}, checked gzip-compressed with the compressed bytes' checksum, decompressed. */
    private static byte[] gunzipped(HttpResponse<byte[]> zipped) throws IOException {
        assertThat(zipped.headers().firstValue("content-encoding")).hasValue("gzip");
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(zipped.body());
        assertThat(zipped.headers().firstValue("x-amz-crc32")).hasValue(Long.toString(crc.getValue()));
        try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(zipped.body()))) {
            return in.readAllBytes();
        }
    }

    @Test
    void whileNoNodeServesTheAnswerIsA503() throws Exception {
        HttpResponse<String> r = put();
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body())
                .contains("com.amazonaws.dynamodb.v20120810#ServiceUnavailableException", "an election is under way");
        assertThat(r.headers().firstValue("x-amzn-RequestId")).isPresent();
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(r.body().getBytes(StandardCharsets.UTF_8));
        assertThat(r.headers().firstValue("x-amz-crc32")).hasValue(Long.toString(crc.getValue()));
        // A browser's gets the CORS headers a server's own error carries: without them the page sees no error.
        assertThat(put("Origin", "http://console.example").headers().firstValue("access-control-allow-origin"))
                .hasValue("*");
        assertThat(r.headers().firstValue("access-control-allow-origin")).isEmpty();
        // A client that accepts gzip gets it compressed, as a server's own error, its checksum the compressed body's.
        HttpResponse<byte[]> zipped = putAcceptingGzip();
        assertThat(zipped.statusCode()).isEqualTo(503);
        assertThat(gunzipped(zipped)).isEqualTo(r.body().getBytes(StandardCharsets.UTF_8));
        // The mark between nodes that nothing was done goes only to a node that forwarded the request.
        assertThat(r.headers().firstValue(ClusterRouter.UNSERVED)).isEmpty();
        assertThat(put(ClusterRouter.FORWARDED, "n2").headers().firstValue(ClusterRouter.UNSERVED))
                .hasValue("true");
    }

    /** The router again, sending requests where {@code by} says, with no reader and no changes of the members. */
    private void routeBy(
            java.util.function.Function<io.netty.handler.codec.http.FullHttpRequest, ClusterRouter.Target> by)
            throws InterruptedException {
        routeBy(by, null);
    }

    /** As above, with a group per table: {@code tables} places tables and runs batches over several groups. */
    private void routeBy(
            java.util.function.Function<io.netty.handler.codec.http.FullHttpRequest, ClusterRouter.Target> by,
            ClusterRouter.Tables tables)
            throws InterruptedException {
        router.close();
        router = new ClusterRouter(
                "127.0.0.1",
                0,
                "n1",
                by,
                null,
                () -> "{}",
                new ClusterMetrics(() -> new ClusterMetrics.View("n1", List.of(), 0)),
                null,
                null,
                null,
                tables);
    }

    /** Tables that {@code places} says may be placed in a group of their own, and batches {@code spread} runs. */
    private static ClusterRouter.Tables tables(
            java.util.function.Predicate<io.netty.handler.codec.http.FullHttpRequest> places,
            java.util.function.Function<ClusterRouter.Sent, java.util.concurrent.CompletableFuture<ClusterRouter.Reply>>
                    spread) {
        return new ClusterRouter.Tables() {
            @Override
            public boolean places(io.netty.handler.codec.http.FullHttpRequest request) {
                return places.test(request);
            }

            @Override
            public java.util.concurrent.CompletableFuture<ClusterRouter.Reply> spread(ClusterRouter.Sent request) {
                return spread.apply(request);
            }
        };
    }

    @Test
    void aRequestWaitsAWhileForANodeThatServesIt() throws Exception {
        HttpServer upstream = answering(200, "{}", new java.util.ArrayList<>());
        // No node serves when the request comes (an election); one does by the router's fourth look.
        AtomicInteger looks = new AtomicInteger();
        ClusterRouter.Target serving =
                new ClusterRouter.Target("127.0.0.1:" + upstream.getAddress().getPort(), false);
        target.set(serving);
        routeBy(request -> looks.incrementAndGet() < 4 ? null : target.get());
        try {
            HttpResponse<String> r = put();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(looks.get()).isEqualTo(4);
        } finally {
            upstream.stop(0);
        }
    }

    @Test
    void aForwardedRequestWaitsForThisNodesOwnServerButIsNotForwardedOnce() throws Exception {
        HttpServer own = answering(200, "{}", new java.util.ArrayList<>());
        try {
            // This node leads the request's group and opens its engine: its own server serves by the fourth look.
            AtomicInteger looks = new AtomicInteger();
            ClusterRouter.Target local =
                    new ClusterRouter.Target("127.0.0.1:" + own.getAddress().getPort(), true);
            routeBy(request -> looks.incrementAndGet() < 4 ? null : local);
            HttpResponse<String> r = put(ClusterRouter.FORWARDED, "n2");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(looks.get()).isEqualTo(4);
            // Led elsewhere by the time it looks again: 503 at once, not sent on.
            looks.set(0);
            routeBy(request -> looks.incrementAndGet() < 2 ? null : new ClusterRouter.Target("127.0.0.1:1", false));
            r = put(ClusterRouter.FORWARDED, "n2");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(looks.get()).isEqualTo(2);
        } finally {
            own.stop(0);
        }
    }

    @Test
    void aRequestThatANodeNoLongerServingRefusedIsSentOnWhereItCameFirst() throws Exception {
        List<com.sun.net.httpserver.Headers> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer leader = answering(200, "{}", seen);
        // n2 learnt of another leader a moment before n1 did: it answers what n1 forwards it that none serves it there.
        ClusterRouter n2 = new ClusterRouter(
                "127.0.0.1",
                0,
                "n2",
                request -> new ClusterRouter.Target("127.0.0.1:1", false),
                null,
                () -> "{}",
                new ClusterMetrics(() -> new ClusterMetrics.View("n2", List.of(), 0)),
                null,
                null,
                null,
                null);
        try {
            ClusterRouter.Target atN2 = new ClusterRouter.Target("127.0.0.1:" + n2.port(), false);
            ClusterRouter.Target atLeader =
                    new ClusterRouter.Target("127.0.0.1:" + leader.getAddress().getPort(), false);
            AtomicInteger looks = new AtomicInteger();
            routeBy(request -> looks.incrementAndGet() < 3 ? atN2 : atLeader);
            HttpResponse<String> r = put();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(looks.get()).isEqualTo(3);
            assertThat(seen).hasSize(1);
            assertThat(seen.get(0).getFirst(ClusterRouter.FORWARDED)).isEqualTo("n1");

            // The same for a request of this node's own (a share of a batch over several groups).
            looks.set(0);
            ClusterRouter.Reply reply = router.call(
                            () -> looks.incrementAndGet() < 3 ? atN2 : atLeader,
                            new io.netty.handler.codec.http.DefaultHttpHeaders()
                                    .set("X-Amz-Target", "DynamoDB_20120810.BatchGetItem"),
                            "{}".getBytes(StandardCharsets.UTF_8))
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reply.status()).isEqualTo(200);
            assertThat(looks.get()).isEqualTo(3);
            assertThat(seen).hasSize(2);

            // n1 never learns better: the client gets n2's 503 once its wait is over, without the mark between nodes.
            routeBy(request -> atN2);
            r = put();
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("ServiceUnavailableException", "an election is under way");
            assertThat(r.headers().firstValue(ClusterRouter.UNSERVED)).isEmpty();
            reply = router.call(() -> atN2, new io.netty.handler.codec.http.DefaultHttpHeaders(), new byte[] {'{', '}'})
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reply.status()).isEqualTo(503);
            assertThat(seen).hasSize(2);
        } finally {
            n2.close();
            leader.stop(0);
        }
    }

    /** A stand-in server that answers every request with {@code status} and {@code body}, noting each one's headers. */
    private static HttpServer answering(int status, String body, List<com.sun.net.httpserver.Headers> seen)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            seen.add(exchange.getRequestHeaders());
            byte[] answer = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return server;
    }

    @Test
    void aTablePlacedElsewhereIsSentThereOnceItsGroupServesAndARefusalIsAnsweredHere() throws Exception {
        List<com.sun.net.httpserver.Headers> atHome = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<com.sun.net.httpserver.Headers> atTable = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer home = answering(421, "{\"__type\":\"io.partita.cluster#TablePlacedElsewhere\"}", atHome);
        HttpServer table = answering(200, "{\"TableDescription\":{}}", atTable);
        try {
            // The account's group places the table (421); the request then waits for the table's group, which serves
            // from the third look on, and is never sent back to the account's group.
            AtomicInteger placedLooks = new AtomicInteger();
            routeBy(
                    request -> {
                        if (!request.headers().contains(ClusterRouter.PLACED)) {
                            return new ClusterRouter.Target(
                                    "127.0.0.1:" + home.getAddress().getPort(), true);
                        }
                        return placedLooks.incrementAndGet() < 3
                                ? null
                                : new ClusterRouter.Target(
                                        "127.0.0.1:" + table.getAddress().getPort(), false);
                    },
                    tables(
                            request -> "DynamoDB_20120810.CreateTable"
                                    .equals(request.headers().get("x-amz-target")),
                            sent -> {
                                throw new AssertionError("no batch here");
                            }));
            HttpRequest create = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/"))
                    .header("X-Amz-Target", "DynamoDB_20120810.CreateTable")
                    .header(ClusterRouter.PLACED, "a client's") // the router's own mark: a client's is dropped
                    .POST(HttpRequest.BodyPublishers.ofString("{\"TableName\":\"t\"}"))
                    .build();
            HttpResponse<String> r = HTTP.send(create, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).contains("TableDescription");
            assertThat(atHome).hasSize(1);
            assertThat(atHome.get(0).containsKey(ClusterRouter.PLACED)).isFalse();
            assertThat(atTable).hasSize(1);
            assertThat(atTable.get(0).getFirst(ClusterRouter.PLACED)).isEqualTo("true");
            assertThat(placedLooks.get()).isEqualTo(3);
            // Another operation's 421 is passed on as it is; a refusal is answered by the router itself.
            r = put();
            assertThat(r.statusCode()).isEqualTo(421);
            assertThat(atHome).hasSize(2);
            routeBy(request -> ClusterRouter.Target.refusing(
                    io.partita.protocol.error.ApiException.validation("over two groups")));
            r = put();
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("ValidationException").contains("over two groups");
            assertThat(put("Origin", "http://console.example").headers().firstValue("access-control-allow-origin"))
                    .hasValue("*");
        } finally {
            home.stop(0);
            table.stop(0);
        }
    }

    @Test
    void aBatchOverSeveralGroupsIsAnsweredAsItsSpreadAnswersWithItsChecksum() throws Exception {
        List<ClusterRouter.Sent> spread = new java.util.concurrent.CopyOnWriteArrayList<>();
        byte[] merged = "{\"UnprocessedItems\":{}}".getBytes(StandardCharsets.UTF_8);
        routeBy(request -> ClusterRouter.Target.SPREAD, tables(request -> false, sent -> {
            spread.add(sent);
            return java.util.concurrent.CompletableFuture.supplyAsync(() -> new ClusterRouter.Reply(200, merged));
        }));
        for (int i = 0; i < 2; i++) { // the connection reads its next request once the first is answered
            HttpResponse<String> r = put();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"UnprocessedItems\":{}}");
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(merged);
            assertThat(r.headers().firstValue("x-amz-crc32")).contains(Long.toString(crc.getValue()));
            assertThat(r.headers().firstValue("x-amzn-RequestId")).isPresent();
        }
        // A browser's (with an Origin) gets the CORS headers a single node gives.
        HttpResponse<String> browser = put("Origin", "http://console.example");
        assertThat(browser.headers().firstValue("access-control-allow-origin")).contains("*");
        assertThat(browser.headers().firstValue("access-control-expose-headers"))
                .hasValueSatisfying(v -> assertThat(v).contains("x-amzn-RequestId"));
        // A client that accepts gzip gets it compressed, as a server's own answer, its checksum the compressed body's.
        assertThat(gunzipped(putAcceptingGzip())).isEqualTo(merged);
        assertThat(spread).hasSize(4);
        assertThat(spread.get(0).headers().get("x-amz-target")).isEqualTo("DynamoDB_20120810.PutItem");
        assertThat(new String(spread.get(0).body(), StandardCharsets.UTF_8)).contains("TableName");
        // A spread that fails answers a 500: its outcome is unknown.
        routeBy(request -> ClusterRouter.Target.SPREAD, tables(request -> false, sent -> {
            return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("lost"));
        }));
        HttpResponse<String> r = put();
        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).contains("InternalServerError");
    }

    @Test
    void aCallWaitsForANodeThatServesAndMarksWhatItForwards() throws Exception {
        List<com.sun.net.httpserver.Headers> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer other = answering(200, "{\"Responses\":{}}", seen);
        try {
            AtomicInteger looks = new AtomicInteger();
            io.netty.handler.codec.http.HttpHeaders headers = new io.netty.handler.codec.http.DefaultHttpHeaders()
                    .set("X-Amz-Target", "DynamoDB_20120810.BatchGetItem")
                    .set("Host", "client.example");
            byte[] body = "{\"RequestItems\":{}}".getBytes(StandardCharsets.UTF_8);
            ClusterRouter.Reply reply = router.call(
                            () -> looks.incrementAndGet() < 3
                                    ? null
                                    : new ClusterRouter.Target(
                                            "127.0.0.1:" + other.getAddress().getPort(), false, null, "g-1"),
                            headers,
                            body)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reply.status()).isEqualTo(200);
            assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("{\"Responses\":{}}");
            assertThat(looks.get()).isEqualTo(3);
            assertThat(seen).hasSize(1);
            assertThat(seen.get(0).getFirst(ClusterRouter.FORWARDED)).isEqualTo("n1");
            assertThat(seen.get(0).getFirst(ClusterRouter.GROUP)).isEqualTo("g-1");
            assertThat(seen.get(0).getFirst("Host")).isEqualTo("client.example");
            assertThat(seen.get(0).getFirst("X-Amz-Target")).isEqualTo("DynamoDB_20120810.BatchGetItem");
            // No node serves at all: a 503 once the wait is over (nothing was sent).
            reply = router.call(() -> null, headers, body).get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reply.status()).isEqualTo(503);
            assertThat(new String(reply.body(), StandardCharsets.UTF_8)).contains("ServiceUnavailableException");
            assertThat(seen).hasSize(1);
        } finally {
            other.stop(0);
        }
        // A node that cannot be reached: a 503, nothing sent.
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        ClusterRouter.Reply unreached = router.call(
                        () -> new ClusterRouter.Target("127.0.0.1:" + closed, false),
                        new io.netty.handler.codec.http.DefaultHttpHeaders(),
                        new byte[] {'{', '}'})
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(unreached.status()).isEqualTo(503);
        // A node that dies after reading the request: a 500, its outcome unknown.
        try (ServerSocket upstream = new ServerSocket(0)) {
            Thread reader = dyingAfterReading(upstream);
            ClusterRouter.Reply reply = router.call(
                            () -> new ClusterRouter.Target("127.0.0.1:" + upstream.getLocalPort(), true),
                            new io.netty.handler.codec.http.DefaultHttpHeaders(),
                            new byte[] {'{', '}'})
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            reader.join();
            assertThat(reply.status()).isEqualTo(500);
        }
    }

    @Test
    void callsKeepTheirConnectionsForTheNextCallButNotOneTheNodeCloses() throws Exception {
        AtomicInteger answered = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", exchange -> {
            byte[] answer = ("{\"n\":" + answered.incrementAndGet() + ",\"body\":"
                            + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8) + "}")
                    .getBytes(StandardCharsets.UTF_8);
            if (closing.get()) {
                exchange.getResponseHeaders().add("Connection", "close");
            }
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        upstream.start();
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket counter = new ServerSocket(0)) {
            Thread relay = new Thread(() -> relay(counter, upstream.getAddress().getPort(), connections));
            relay.setDaemon(true);
            relay.start();
            ClusterRouter.Target to = new ClusterRouter.Target("127.0.0.1:" + counter.getLocalPort(), false);
            int before = 0;
            for (int i = 1; i <= 14; i++) {
                // From the eleventh on, the node answers "Connection: close".
                closing.set(i > 10);
                ClusterRouter.Reply reply = router.call(
                                () -> to,
                                new io.netty.handler.codec.http.DefaultHttpHeaders(),
                                ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                        .get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(reply.status()).isEqualTo(200);
                assertThat(new String(reply.body(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"n\":" + i + ",\"body\":{\"i\":" + i + "}}");
                if (i == 10) {
                    // Each of the router's two event loops keeps its own: ten calls in turn, at most two connections.
                    assertThat(connections.get()).isBetween(1, 2);
                    before = connections.get();
                }
            }
            // Each call then has a connection of its own, and none fails; the first on each loop may go over a
            // connection kept from before.
            assertThat(connections.get() - before).isBetween(2, 4);
        } finally {
            upstream.stop(0);
        }
    }

    @Test
    void aReadOverAKeptConnectionClosedBeforeItsAnswerIsSentAgainAndAWriteIsA500() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket node = new ServerSocket(0)) {
            // A node that answers each connection's first request and closes it on its second, unanswered: as if it
            // closed the connection just as the router took it again.
            Thread accepting = new Thread(() -> {
                while (!node.isClosed()) {
                    try {
                        Socket c = node.accept();
                        connections.incrementAndGet();
                        Thread t = new Thread(() -> answerFirstOnly(c));
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            accepting.setDaemon(true);
            accepting.start();
            ClusterRouter.Target to = new ClusterRouter.Target("127.0.0.1:" + node.getLocalPort(), false);
            // Two calls, one on each of the router's event loops, each on a new connection, kept.
            for (int i = 0; i < 2; i++) {
                assertThat(callAs(to, "Scan").status()).isEqualTo(200);
            }
            assertThat(connections.get()).isEqualTo(2);
            // A read that meets a kept connection's close is sent again on a new one, and answered.
            ClusterRouter.Reply read = callAs(to, "Scan");
            assertThat(read.status()).isEqualTo(200);
            assertThat(connections.get()).isEqualTo(3);
            // A write that meets one may have been read there: its outcome is unknown, a 500.
            ClusterRouter.Reply write = callAs(to, "BatchWriteItem");
            assertThat(write.status()).isEqualTo(500);
            assertThat(connections.get()).isEqualTo(3);
        }
    }

    private ClusterRouter.Reply callAs(ClusterRouter.Target to, String operation) throws Exception {
        return router.call(
                        () -> to,
                        new io.netty.handler.codec.http.DefaultHttpHeaders()
                                .set("X-Amz-Target", "DynamoDB_20120810." + operation),
                        new byte[] {'{', '}'})
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Answers the first request on {@code c} (kept alive), and closes {@code c} when the second comes. */
    private static void answerFirstOnly(Socket c) {
        try (c) {
            InputStream in = c.getInputStream();
            for (int request = 0; ; request++) {
                int length = 0;
                StringBuilder line = new StringBuilder();
                int b;
                boolean headers = true;
                while (headers && (b = in.read()) >= 0) {
                    if (b != '\n') {
                        line.append((char) b);
                        continue;
                    }
                    String l = line.toString().trim();
                    line.setLength(0);
                    if (l.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(
                                l.substring("content-length:".length()).trim());
                    }
                    headers = !l.isEmpty();
                }
                if (headers || request > 0) {
                    return; // the connection ended, or its second request: closed unanswered
                }
                in.readNBytes(length);
                c.getOutputStream()
                        .write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.US_ASCII));
                c.getOutputStream().flush();
            }
        } catch (IOException ignored) {
            // the router closed it
        }
    }

    @Test
    void aWaitingRequestWhoseLookFailsIsA503AndTheConnectionGoesOn() throws Exception {
        // The first look finds no node; the next ones fail (this node closing, say).
        AtomicInteger looks = new AtomicInteger();
        routeBy(request -> {
            if (looks.incrementAndGet() % 2 == 1) {
                return null;
            }
            throw new IllegalStateException("no division for the group on n1");
        });
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = put();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(r.body()).contains("ServiceUnavailableException");
        }
        assertThat(looks.get()).isEqualTo(4);
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

    /**
     * A node on {@code upstream} that reads a request's first bytes, then dies without answering, as a leader killed
     * mid-request: its thread, started.
     */
    private static Thread dyingAfterReading(ServerSocket upstream) {
        Thread reader = new Thread(() -> {
            try (Socket s = upstream.accept();
                    InputStream in = s.getInputStream()) {
                in.read(new byte[64]);
            } catch (IOException ignored) {
                // the test sees the answer
            }
        });
        reader.start();
        return reader;
    }

    @Test
    void anAnswerLostAfterTheRequestWasSentIsA500() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0)) {
            Thread reader = dyingAfterReading(upstream);
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

    /** A stand-in for a node's server that answers every request with {@code name} and counts them. */
    private static HttpServer standIn(String name, AtomicInteger requests) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            byte[] answer = (name + " " + exchange.getRequestHeaders().getFirst(ClusterRouter.FORWARDED))
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        s.setExecutor(null);
        s.start();
        return s;
    }

    private HttpResponse<String> call(String operation, String body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.port() + "/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "DynamoDB_20120810." + operation)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFollowerAnswersEventuallyConsistentReadsItselfAndForwardsTheRest() throws Exception {
        AtomicInteger toLeader = new AtomicInteger();
        AtomicInteger toReader = new AtomicInteger();
        HttpServer leader = standIn("leader", toLeader);
        HttpServer reader = standIn("reader", toReader);
        try {
            target.set(
                    new ClusterRouter.Target("127.0.0.1:" + leader.getAddress().getPort(), false));
            reads.set(
                    new ClusterRouter.Target("127.0.0.1:" + reader.getAddress().getPort(), true));
            String key = "{\"TableName\":\"t\",\"Key\":{\"pk\":{\"S\":\"a\"}}";
            // One client connection: each request goes where it should, over a connection kept to each.
            for (int i = 0; i < 2; i++) {
                assertThat(call("GetItem", key + "}").body()).isEqualTo("reader null");
                assertThat(call("GetItem", key + ",\"ConsistentRead\":true}").body())
                        .isEqualTo("leader n1");
                assertThat(call("PutItem", "{\"TableName\":\"t\",\"Item\":{}}").body())
                        .isEqualTo("leader n1");
                assertThat(call("Query", "{\"TableName\":\"t\",\"ConsistentRead\":false}")
                                .body())
                        .isEqualTo("reader null");
            }
            assertThat(router.followerReads()).isEqualTo(4);
            assertThat(toReader.get()).isEqualTo(4);
            assertThat(toLeader.get()).isEqualTo(4);
            // A follower whose reader is not recent enough (or closed) forwards its reads too.
            reads.set(null);
            assertThat(call("Scan", "{\"TableName\":\"t\"}").body()).isEqualTo("leader n1");
            assertThat(router.followerReads()).isEqualTo(4);
        } finally {
            leader.stop(0);
            reader.stop(0);
        }
    }

    @Test
    void aReadTheFollowersReaderDoesNotKnowTheTableOfIsAskedOfTheLeader() throws Exception {
        AtomicInteger toLeader = new AtomicInteger();
        HttpServer leader = standIn("leader", toLeader);
        AtomicReference<String> readerAnswer = new AtomicReference<>();
        HttpServer reader = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        reader.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] answer = readerAnswer.get().getBytes(StandardCharsets.UTF_8);
            String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
            if (accepted != null && accepted.contains("gzip")) {
                // As a server answers a client that accepts gzip: its error compressed.
                answer = io.partita.server.netty.HttpSurface.gzip(answer);
                exchange.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            exchange.sendResponseHeaders(400, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        reader.start();
        try {
            target.set(
                    new ClusterRouter.Target("127.0.0.1:" + leader.getAddress().getPort(), false));
            reads.set(
                    new ClusterRouter.Target("127.0.0.1:" + reader.getAddress().getPort(), true));
            String get = "{\"TableName\":\"new\",\"Key\":{}}";
            // A table (or an index) the follower has not applied yet: the leader answers.
            readerAnswer.set("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException\"}");
            assertThat(call("GetItem", get).body()).isEqualTo("leader n1");
            readerAnswer.set("{\"__type\":\"com.amazon.coral.validate#ValidationException\","
                    + "\"message\":\"The table does not have the specified index: byG\"}");
            assertThat(call("Query", get).body()).isEqualTo("leader n1");
            // So too when the client accepts gzip, and the reader's error comes compressed.
            assertThat(call("GetItem", get, "Accept-Encoding", "gzip").body()).isEqualTo("leader n1");
            assertThat(router.followerReads()).isZero();
            // A throttle is the reader's own answer.
            readerAnswer.set(
                    "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\"}");
            HttpResponse<String> throttled = call("GetItem", get);
            assertThat(throttled.statusCode()).isEqualTo(400);
            assertThat(throttled.body()).contains("ProvisionedThroughputExceededException");
            assertThat(router.followerReads()).isEqualTo(1);
            assertThat(toLeader.get()).isEqualTo(3);
        } finally {
            leader.stop(0);
            reader.stop(0);
        }
    }

    @Test
    void aReadWhoseReaderClosedGoesToTheLeaderAndNoLeaderIsA503() throws Exception {
        AtomicInteger toLeader = new AtomicInteger();
        HttpServer leader = standIn("leader", toLeader);
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (ServerSocket dying = new ServerSocket(0)) {
            // A reader that takes the read and closes (it opens again on a new catalog) without answering.
            Thread reader = new Thread(() -> {
                try (Socket s = dying.accept();
                        InputStream in = s.getInputStream()) {
                    in.read(new byte[64]);
                } catch (IOException ignored) {
                    // the test sees the router's answer
                }
            });
            reader.start();
            target.set(
                    new ClusterRouter.Target("127.0.0.1:" + leader.getAddress().getPort(), false));
            reads.set(new ClusterRouter.Target("127.0.0.1:" + dying.getLocalPort(), true));
            String get = "{\"TableName\":\"t\",\"Key\":{}}";
            assertThat(call("GetItem", get).body()).isEqualTo("leader n1");
            reader.join();
            // A reader that cannot be reached at all.
            reads.set(new ClusterRouter.Target("127.0.0.1:" + closed, true));
            assertThat(call("GetItem", get).body()).isEqualTo("leader n1");
            assertThat(toLeader.get()).isEqualTo(2);
            assertThat(router.followerReads()).isZero();
            // Nor a leader: a 503, which the SDKs retry.
            target.set(null);
            HttpResponse<String> none = call("GetItem", get);
            assertThat(none.statusCode()).isEqualTo(503);
            assertThat(none.body()).contains("ServiceUnavailableException");
        } finally {
            leader.stop(0);
        }
    }

    private static boolean eventual(String operation, String body) {
        io.netty.handler.codec.http.DefaultFullHttpRequest r = new io.netty.handler.codec.http.DefaultFullHttpRequest(
                io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
                io.netty.handler.codec.http.HttpMethod.POST,
                "/",
                io.netty.buffer.Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        r.headers().set("X-Amz-Target", "DynamoDB_20120810." + operation);
        try {
            return ClusterRouter.eventualRead(r);
        } finally {
            r.release();
        }
    }

    @Test
    void onlyReadsThatAskNoConsistentReadAreEventuallyConsistent() {
        assertThat(eventual("GetItem", "{\"TableName\":\"t\",\"Key\":{\"pk\":{\"S\":\"a\"}}}"))
                .isTrue();
        assertThat(eventual("GetItem", "{\"TableName\":\"t\",\"ConsistentRead\":true}"))
                .isFalse();
        assertThat(eventual("Scan", "{\"ConsistentRead\":false,\"TableName\":\"t\"}"))
                .isTrue();
        assertThat(eventual("Query", "{ \"TableName\" : \"t\" ,\n \"ConsistentRead\" : true }"))
                .isFalse();
        // BatchGetItem asks it per table: one consistent table makes the whole request go to the leader.
        assertThat(eventual(
                        "BatchGetItem",
                        "{\"RequestItems\":{\"a\":{\"Keys\":[]},\"b\":{\"Keys\":[],\"ConsistentRead\":true}}}"))
                .isFalse();
        assertThat(eventual("BatchGetItem", "{\"RequestItems\":{\"a\":{\"Keys\":[],\"ConsistentRead\":false}}}"))
                .isTrue();
        // An attribute called ConsistentRead is not the parameter.
        assertThat(eventual("GetItem", "{\"TableName\":\"t\",\"Key\":{\"ConsistentRead\":{\"S\":\"x\"}}}"))
                .isTrue();
        // Writes, other operations, and bodies that are not JSON (the leader answers their error) are not.
        assertThat(eventual("PutItem", "{\"TableName\":\"t\"}")).isFalse();
        assertThat(eventual("TransactGetItems", "{}")).isFalse();
        assertThat(eventual("DescribeTable", "{\"TableName\":\"t\"}")).isFalse();
        assertThat(eventual("GetItem", "{\"TableName\":")).isFalse();
        assertThat(eventual("GetItem", "[]")).isFalse();
        assertThat(eventual("GetItem", "{\"ConsistentRead\":\"yes\"}")).isFalse();
        // A PartiQL SELECT is a read like the others; any other statement is a write, and goes to the leader.
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"  select * FROM t WHERE pk = 'a'\"}"))
                .isTrue();
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"SELECT\\n* FROM t\",\"ConsistentRead\":false}"))
                .isTrue();
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"SELECT * FROM t\",\"ConsistentRead\":true}"))
                .isFalse();
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"UPDATE t SET v = 1 WHERE pk = 'a'\"}"))
                .isFalse();
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"INSERT INTO t VALUE {'pk': 'select'}\"}"))
                .isFalse();
        assertThat(eventual("ExecuteStatement", "{\"Statement\":\"SELECTED\"}")).isFalse();
        assertThat(eventual("ExecuteStatement", "{\"ConsistentRead\":false}")).isFalse();
        // A parameter's map attribute called Statement is not the statement.
        assertThat(eventual(
                        "ExecuteStatement",
                        "{\"Statement\":\"DELETE FROM t WHERE pk = ?\",\"Parameters\":[{\"M\":{\"Statement\":"
                                + "{\"S\":\"SELECT\"}}}]}"))
                .isFalse();
        assertThat(eventual("BatchExecuteStatement", "{\"Statements\":[{\"Statement\":\"SELECT * FROM t\"}]}"))
                .isFalse();
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
        assertThat(m.body()).contains("partita_cluster_term{group=\"000000000000\",node=\"n1\"} 3");
    }

    @Test
    void aChangeOfTheMembersThatFailsUnexpectedlyIsStillAnsweredAndTheConnectionGoesOn() throws Exception {
        router.close();
        router = new ClusterRouter(
                "127.0.0.1",
                0,
                "n1",
                request -> target.get(),
                request -> reads.get(),
                () -> "{\"node\":\"n1\",\"members\":[]}",
                new ClusterMetrics(() -> new ClusterMetrics.View(
                        "n1",
                        List.of(new ClusterMetrics.GroupView(
                                "000000000000", true, true, 3, 7, 7, Map.of(), 0, 0, 0, 0)),
                        0)),
                new ClusterRouter.Members() {
                    @Override
                    public boolean leads() {
                        return true;
                    }

                    @Override
                    public ClusterRouter.Made change(ClusterRouter.Sent request) {
                        throw new IllegalStateException("no division for the group on n1");
                    }

                    @Override
                    public ClusterRouter.Made ranges(ClusterRouter.Sent request) {
                        throw new IllegalStateException("no range here");
                    }

                    @Override
                    public java.time.Duration limit() {
                        return java.time.Duration.ofMinutes(2);
                    }
                },
                null,
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
