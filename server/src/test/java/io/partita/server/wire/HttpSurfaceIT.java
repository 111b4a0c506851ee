package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.embedded.EmbeddedPartita;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DynamoDB's HTTP surface, byte for byte over a socket: Date and Server headers, the health line, CORS, compressed
 * request bodies and compressed answers.
 */
class HttpSurfaceIT {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH);
    private static EmbeddedPartita partita;

    @BeforeAll
    static void start() throws Exception {
        partita = EmbeddedPartita.start();
        Answer created = api(
                "CreateTable",
                "{\"TableName\":\"surface\",\"AttributeDefinitions\":[{\"AttributeName\":"
                        + "\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
                        + "\"BillingMode\":\"PAY_PER_REQUEST\"}");
        assertThat(created.status).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        partita.close();
    }

    @Test
    void everyAnswerCarriesDateAndServer() throws Exception {
        for (Answer a : new Answer[] {
            api("ListTables", "{}"),
            api("Nope", "{}"),
            send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            send("GET /admin/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            send("GET /console/ HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            send("PUT / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        }) {
            assertThat(a.headers.get("server")).isEqualTo("Server");
            // RFC 9110's IMF-fixdate, e.g. "Tue, 01 Dec 2026 18:00:00 GMT".
            assertThat(a.headers.get("date"))
                    .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
            ZonedDateTime.parse(a.headers.get("date"), IMF_FIXDATE.withZone(java.time.ZoneOffset.UTC));
        }
    }

    @Test
    void theHealthLineNamesTheHostAddressedAndOnlyRootAnswersIt() throws Exception {
        Answer dynamo = send("GET / HTTP/1.1\r\nHost: dynamodb.eu-west-1.amazonaws.com\r\n\r\n");
        assertThat(dynamo.status).isEqualTo(200);
        assertThat(dynamo.text()).isEqualTo("healthy: dynamodb.eu-west-1.amazonaws.com ");
        assertThat(send("GET /?x=1 HTTP/1.1\r\nHost: localhost:8000\r\n\r\n").text())
                .isEqualTo("healthy: localhost ");
        assertThat(send("GET / HTTP/1.1\r\nHost: [::1]:8000\r\n\r\n").text()).isEqualTo("healthy: [::1] ");
        // No Host (HTTP/1.0, as the Docker health check sends), or one that is not a host name: the region's host.
        assertThat(send("GET / HTTP/1.0\r\n\r\n").text()).isEqualTo("healthy: dynamodb.us-east-1.amazonaws.com ");
        assertThat(send("GET / HTTP/1.1\r\nHost: <script>\r\n\r\n").text())
                .isEqualTo("healthy: dynamodb.us-east-1.amazonaws.com ");
        Answer head = send("HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(head.status).isEqualTo(200);
        assertThat(head.body).isEmpty();
        assertThat(send("GET /favicon.ico HTTP/1.1\r\nHost: localhost\r\n\r\n").status)
                .isEqualTo(404);
        assertThat(send("GET /shell HTTP/1.1\r\nHost: localhost\r\n\r\n").status)
                .isEqualTo(404);
    }

    @Test
    void browsersGetCorsPreflightsAndHeaders() throws Exception {
        Answer preflight = send("OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://app.example\r\n"
                + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, x-amz-date,"
                + " x-amz-target, authorization, x-amz-user-agent\r\n\r\n");
        assertThat(preflight.status).isEqualTo(200);
        assertThat(preflight.headers)
                .containsEntry("access-control-allow-origin", "*")
                .containsEntry("access-control-allow-methods", "POST")
                .containsEntry(
                        "access-control-allow-headers",
                        "content-type, x-amz-date, x-amz-target, authorization, x-amz-user-agent")
                .containsEntry("access-control-max-age", "172800");
        // A header list that is not one is not echoed.
        Answer odd = send("OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://a\r\n"
                + "Access-Control-Request-Headers: a\"b<c>\r\n\r\n");
        assertThat(odd.headers).doesNotContainKey("access-control-allow-headers");

        Answer call = api("ListTables", "{}", "Origin: http://app.example\r\n");
        assertThat(call.status).isEqualTo(200);
        assertThat(call.headers.get("access-control-allow-origin")).isEqualTo("*");
        assertThat(call.headers.get("access-control-expose-headers")).contains("x-amzn-RequestId", "x-amzn-ErrorType");
        assertThat(api("ListTables", "{}").headers).doesNotContainKey("access-control-allow-origin");
    }

    @Test
    void compressedRequestBodiesAreRead() throws Exception {
        String put = "{\"TableName\":\"surface\",\"Item\":{\"pk\":{\"S\":\"%s\"}}}";
        assertThat(api("PutItem", gzip(put.formatted("gz")), "Content-Encoding: gzip\r\n").status)
                .isEqualTo(200);
        assertThat(api("PutItem", deflate(put.formatted("zlib"), false), "Content-Encoding: deflate\r\n").status)
                .isEqualTo(200);
        assertThat(api("PutItem", deflate(put.formatted("raw"), true), "Content-Encoding: deflate\r\n").status)
                .isEqualTo(200);
        Answer scan = api("Scan", "{\"TableName\":\"surface\",\"Select\":\"COUNT\"}");
        assertThat(scan.text()).contains("\"Count\":3");

        // Garbage that claims to be gzip: refused as a body that cannot be read, and nothing written.
        Answer garbage = api(
                "PutItem",
                "{\"TableName\":\"surface\",\"Item\":{\"pk\":{\"S\":\"x\"}}}".getBytes(StandardCharsets.UTF_8),
                "Content-Encoding: gzip\r\n");
        assertThat(garbage.status).isEqualTo(400);
        assertThat(garbage.text()).contains("SerializationException");
        assertThat(api("Scan", "{\"TableName\":\"surface\",\"Select\":\"COUNT\"}")
                        .text())
                .contains("\"Count\":3");

        // The 16 MB limit is on the decompressed size: 17 MB of spaces gzip to 17 KB, and are refused unread.
        byte[] big = new byte[17 * 1024 * 1024];
        Arrays.fill(big, (byte) ' ');
        Answer bomb = api("PutItem", gzipBytes(big), "Content-Encoding: gzip\r\n");
        assertThat(bomb.status).isEqualTo(413);
        assertThat(bomb.text()).contains("Request size exceeds the limit of 16777216 bytes");
    }

    @Test
    void answersAreCompressedWhenTheClientAsks() throws Exception {
        for (int i = 0; i < 20; i++) {
            api(
                    "PutItem",
                    "{\"TableName\":\"surface\",\"Item\":{\"pk\":{\"S\":\"item-" + i + "\"},\"v\":{\"S\":\""
                            + "x".repeat(500) + "\"}}}");
        }
        String scan = "{\"TableName\":\"surface\"}";
        Answer plain = api("Scan", scan);
        Answer zipped = api("Scan", scan, "Accept-Encoding: gzip, deflate\r\n");
        assertThat(zipped.status).isEqualTo(200);
        assertThat(zipped.headers.get("content-encoding")).isEqualTo("gzip");
        assertThat(zipped.body.length).isLessThan(plain.body.length / 4);
        byte[] inflated = new GZIPInputStream(new ByteArrayInputStream(zipped.body)).readAllBytes();
        assertThat(new String(inflated, StandardCharsets.UTF_8)).isEqualTo(plain.text());
        // The checksum is of the bytes sent, as DynamoDB's is (the SDKs check it before decompressing).
        CRC32 crc = new CRC32();
        crc.update(zipped.body);
        assertThat(zipped.headers.get("x-amz-crc32")).isEqualTo(Long.toString(crc.getValue()));
        // Not asked, or refused with q=0: not compressed.
        assertThat(plain.headers).doesNotContainKey("content-encoding");
        assertThat(api("Scan", scan, "Accept-Encoding: gzip;q=0, identity\r\n").headers)
                .doesNotContainKey("content-encoding");
        // Admin views and the console too.
        Answer metrics = send("GET /admin/metrics HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n");
        assertThat(metrics.headers.get("content-encoding")).isEqualTo("gzip");
        assertThat(new String(
                        new GZIPInputStream(new ByteArrayInputStream(metrics.body)).readAllBytes(),
                        StandardCharsets.UTF_8))
                .contains("\"tables\"");
    }

    @Test
    void overlongRequestLinesAndHeadersAreRefusedUnread() throws Exception {
        Answer line = send("GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertThat(line.status).isEqualTo(414);
        Answer header = send("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b".repeat(20_000) + "\r\n\r\n");
        assertThat(header.status).isEqualTo(431);
        assertThat(header.headers.get("connection")).isEqualTo("close");
    }

    @Test
    void aChunkedBodyWithoutContentLengthIsReadUpTo16Mb() throws Exception {
        String item = "{\"TableName\":\"surface\",\"Item\":{\"pk\":{\"S\":\"chunked\"}}}";
        String head = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: DynamoDB_20120810.PutItem\r\nX-Amz-Date: 20261201T000000Z\r\nAuthorization: "
                + RawApi.AUTH + "\r\nTransfer-Encoding: chunked\r\n\r\n";
        String half = item.substring(0, 20);
        String rest = item.substring(20);
        String chunked = head + Integer.toHexString(half.length()) + "\r\n" + half + "\r\n"
                + Integer.toHexString(rest.length()) + "\r\n" + rest + "\r\n0\r\n\r\n";
        assertThat(send(chunked).status).isEqualTo(200);

        // 17 MB in 1 MB chunks: refused at 16 MB, with DynamoDB's 413, the rest left unread.
        ByteArrayOutputStream big = new ByteArrayOutputStream();
        big.write(head.getBytes(StandardCharsets.US_ASCII));
        byte[] chunk = new byte[1024 * 1024];
        Arrays.fill(chunk, (byte) ' ');
        for (int i = 0; i < 17; i++) {
            big.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            big.write(chunk);
            big.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        big.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        Answer tooLarge = send(big.toByteArray());
        assertThat(tooLarge.status).isEqualTo(413);
        assertThat(tooLarge.text()).contains("Request size exceeds the limit of 16777216 bytes");
    }

    /**
     * A client that shuts down its sending side after its requests (half-close) still reads every answer, inline or
     * from the worker, and then the server closes; a request cut short by the shutdown is dropped.
     */
    @Test
    void aHalfClosedConnectionIsAnsweredThenClosed() throws Exception {
        String scan = "{\"TableName\":\"surface\",\"Select\":\"COUNT\"}";
        String request = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: DynamoDB_20120810.Scan\r\nX-Amz-Date: 20261201T000000Z\r\nAuthorization: "
                + RawApi.AUTH + "\r\nContent-Length: " + scan.length() + "\r\n\r\n" + scan;
        try (Socket s = new Socket("127.0.0.1", partita.port())) {
            s.setSoTimeout(10_000);
            // Two Scans (run on the worker), a health check (inline), then half of a request.
            s.getOutputStream()
                    .write((request + request + "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n" + request.substring(0, 40))
                            .getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(all.split("HTTP/1.1 200 OK", -1)).hasSize(4);
            assertThat(all).contains("\"Count\":").contains("healthy: localhost");
        }
    }

    private static Answer api(String operation, String body) throws IOException {
        return api(operation, body.getBytes(StandardCharsets.UTF_8), "");
    }

    private static Answer api(String operation, String body, String headers) throws IOException {
        return api(operation, body.getBytes(StandardCharsets.UTF_8), headers);
    }

    private static Answer api(String operation, byte[] body, String headers) throws IOException {
        String head = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: DynamoDB_20120810." + operation + "\r\nX-Amz-Date: 20261201T000000Z\r\n"
                + "Authorization: " + RawApi.AUTH + "\r\n" + headers + "Content-Length: " + body.length + "\r\n\r\n";
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(head.getBytes(StandardCharsets.US_ASCII));
        request.write(body);
        return send(request.toByteArray());
    }

    private static Answer send(String request) throws IOException {
        return send(request.getBytes(StandardCharsets.US_ASCII));
    }

    /** One request on its own connection; reads one answer (by its Content-Length). */
    private static Answer send(byte[] request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", partita.port())) {
            s.setSoTimeout(30_000);
            // Written by another thread: a server that refuses a request early stops reading it and closes.
            Thread writer = new Thread(() -> {
                try {
                    s.getOutputStream().write(request);
                } catch (IOException e) {
                    // the server closed the connection before reading the rest
                }
            });
            writer.start();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("connection closed in the headers: " + head);
                }
                head.write(b);
                matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.put(
                            lines[i].substring(0, colon).toLowerCase(Locale.ROOT),
                            lines[i].substring(colon + 1).strip());
                }
            }
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            boolean isHead = new String(request, 0, 4, StandardCharsets.US_ASCII).equals("HEAD");
            int length = isHead ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
            return new Answer(status, headers, in.readNBytes(length));
        }
    }

    private record Answer(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static byte[] gzip(String s) throws IOException {
        return gzipBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] gzipBytes(byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(b);
        }
        return out.toByteArray();
    }

    private static byte[] deflate(String s, boolean raw) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(out, new Deflater(Deflater.DEFAULT_COMPRESSION, raw))) {
            z.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }
}
