package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.embedded.EmbeddedPartita;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HTTP contract, checked with a raw client: headers, error shapes, limits and the health line. */
class WireIT {
    private static EmbeddedPartita partita;
    private static RawApi api;

    @BeforeAll
    static void start() {
        partita = EmbeddedPartita.start();
        api = new RawApi(partita.endpoint());
    }

    @AfterAll
    static void stop() {
        partita.close();
    }

    @Test
    void healthLineOnGet() throws Exception {
        HttpResponse<String> r = api.get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        // The host the client addressed (the endpoint is 127.0.0.1:<port>), as DynamoDB names its own.
        assertThat(r.body()).isEqualTo("healthy: 127.0.0.1 ");
    }

    @Test
    void everyResponseCarriesARequestIdAndTheCrc32OfItsBody() throws Exception {
        for (HttpResponse<String> r : java.util.List.of(
                api.post("DynamoDB_20120810.ListTables", "{}"), api.post("DynamoDB_20120810.Nope", "{}"))) {
            assertThat(r.headers().firstValue("x-amzn-RequestId"))
                    .hasValueSatisfying(id -> assertThat(id).matches("[A-Z0-9]{52}"));
            CRC32 crc = new CRC32();
            crc.update(r.body().getBytes(StandardCharsets.UTF_8));
            assertThat(r.headers().firstValue("x-amz-crc32")).hasValue(Long.toString(crc.getValue()));
            assertThat(r.headers().firstValue("content-type")).hasValue("application/x-amz-json-1.0");
        }
    }

    @Test
    void unknownOrMissingTargetIsUnknownOperation() throws Exception {
        for (String target : new String[] {"DynamoDB_20120810.Nope", "Bogus", null}) {
            HttpResponse<String> r = api.post(target, "{}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body())
                    .isEqualTo("{\"__type\":\"com.amazon.coral.service#UnknownOperationException\","
                            + "\"message\":\"Unknown operation exception\"}");
        }
    }

    @Test
    void aRealOperationNotImplementedYetSaysSo() throws Exception {
        HttpResponse<String> r = api.post("DynamoDB_20120810.CreateGlobalTable", "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body())
                .contains("com.amazon.coral.service#UnknownOperationException")
                .contains("Partita does not implement CreateGlobalTable yet");
    }

    /** A body that is not JSON at all: DynamoDB's SerializationException has no message then. */
    @Test
    void aBodyThatIsNotJsonIsASerializationExceptionWithoutMessage() throws Exception {
        HttpResponse<String> r = api.post("DynamoDB_20120810.ListTables", "hi");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"__type\":\"com.amazon.coral.service#SerializationException\"}");
    }

    @Test
    void badJsonIsASerializationException() throws Exception {
        HttpResponse<String> r = api.post("DynamoDB_20120810.ListTables", "{\"Limit\":");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).startsWith("{\"__type\":\"com.amazon.coral.service#SerializationException\"");
        HttpResponse<String> wrongType = api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":5}");
        // DynamoDB spells this error's member "Message" (quoted from its answers, e.g. rusoto/rusoto#658).
        assertThat(wrongType.body())
                .isEqualTo("{\"__type\":\"com.amazon.coral.service#SerializationException\","
                        + "\"Message\":\"NUMBER_VALUE cannot be converted to String\"}");
        HttpResponse<String> list = api.post("DynamoDB_20120810.PutItem", "{\"TableName\":\"t\",\"Item\":[]}");
        assertThat(list.body())
                .isEqualTo("{\"__type\":\"com.amazon.coral.service#SerializationException\","
                        + "\"Message\":\"Start of list found where not expected\"}");
    }

    @Test
    void missingAuthorizationIsRefused() throws Exception {
        HttpResponse<String> r = api.post("DynamoDB_20120810.ListTables", "{}", null);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body())
                .isEqualTo("{\"__type\":\"com.amazon.coral.service#MissingAuthenticationTokenException\","
                        + "\"message\":\"Request is missing Authentication Token\"}");
    }

    @Test
    void malformedAuthorizationIsAnIncompleteSignature() throws Exception {
        HttpResponse<String> r = api.post("DynamoDB_20120810.ListTables", "{}", "AWS4-HMAC-SHA256 Credential=abc");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body())
                .contains("com.amazon.coral.service#IncompleteSignatureException")
                .contains("Authorization header requires 'Signature' parameter.")
                .contains("Authorization header requires 'SignedHeaders' parameter.");
    }

    @Test
    void openModeAcceptsAnyRegion() throws Exception {
        String auth = RawApi.AUTH.replace("us-east-1", "moon-base-7");
        HttpResponse<String> r = api.post("DynamoDB_20120810.ListTables", "{}", auth);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"TableNames\":[]}");
    }

    @Test
    void aBodyOver16MegabytesIsRefusedBeforeItIsSent() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", partita.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            String head = "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
                    + "Content-Type: application/x-amz-json-1.0\r\nAuthorization: " + RawApi.AUTH + "\r\n"
                    + "Content-Length: " + (16 * 1024 * 1024 + 1) + "\r\n\r\n";
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String response = readAll(socket.getInputStream());
            assertThat(response).startsWith("HTTP/1.1 413");
            assertThat(response).contains("x-amz-crc32");
        }
    }

    @Test
    void aChunkedBodyIsCollectedWhole() throws Exception {
        String head = "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                + "X-Amz-Date: 20261130T000000Z\r\nAuthorization: " + RawApi.AUTH + "\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        StringBuilder chunks = new StringBuilder();
        for (String piece : new String[] {"{", "\"Limit\":  ", "5}"}) {
            chunks.append(Integer.toHexString(piece.length()))
                    .append("\r\n")
                    .append(piece)
                    .append("\r\n");
        }
        chunks.append("0\r\n\r\n");
        String response = exchange(head + chunks);
        assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith("{\"TableNames\":[]}");
    }

    @Test
    void aBodyOfSeveralMegabytesArrivesWhole() throws Exception {
        // Bigger than the 1 MB the handler reserves ahead, so the body array grows while the chunks arrive.
        String big = "x".repeat(3 * 1024 * 1024);
        HttpResponse<String> r = api.post(
                "DynamoDB_20120810.PutItem",
                "{\"TableName\":\"no-such-table\",\"Item\":{\"pk\":{\"S\":\"" + big + "\"}}}");
        assertThat(r.statusCode()).isEqualTo(400);
        // Parsed whole (not a SerializationException), and refused for the item's size before the table is looked up.
        assertThat(r.body()).contains("Item size has exceeded the maximum allowed size");
    }

    @Test
    void expectContinueIsAnsweredBeforeTheBody() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", partita.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                            + "X-Amz-Date: 20261130T000000Z\r\nAuthorization: " + RawApi.AUTH + "\r\n"
                            + "Expect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] interim = in.readNBytes("HTTP/1.1 100 Continue\r\n\r\n".length());
            assertThat(new String(interim, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            out.write("{}".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readAll(in)).startsWith("HTTP/1.1 200 OK").endsWith("{\"TableNames\":[]}");
        }
    }

    @Test
    void anUnknownExpectationIsRefused() throws Exception {
        String response = exchange("POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables"
                + "\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(response).startsWith("HTTP/1.1 417 Expectation Failed");
    }

    @Test
    void nothingAfterARefusedRequestIsAnswered() throws Exception {
        String listTables = "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                + "X-Amz-Date: 20261130T000000Z\r\nAuthorization: " + RawApi.AUTH + "\r\nContent-Length: 2\r\n\r\n{}";
        String refused = listTables.replace("Content-Length", "Expect: something-else\r\nContent-Length");
        String response = exchange(refused + listTables);
        assertThat(response)
                .startsWith("HTTP/1.1 417")
                .doesNotContain("TableNames")
                .contains("connection: close");
    }

    @Test
    void aMalformedRequestIsABadRequest() throws Exception {
        String response = exchange("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n{}");
        assertThat(response).startsWith("HTTP/1.1 400 Bad Request");
    }

    private String exchange(String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", partita.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return readAll(socket.getInputStream());
        }
    }

    @Test
    void pipelinedRequestsOnOneConnectionAreAnsweredInOrder() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", partita.port())) {
            socket.setSoTimeout(5000);
            StringBuilder requests = new StringBuilder();
            String[] targets = {"ListTables", "DescribeLimits", "Nope", "ListTables"};
            for (String t : targets) {
                requests.append("POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.")
                        .append(t)
                        .append("\r\nX-Amz-Date: 20261130T000000Z\r\nAuthorization: ")
                        .append(RawApi.AUTH)
                        .append("\r\nContent-Length: 2\r\n\r\n{}");
            }
            requests.append("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            socket.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            String all = readAll(socket.getInputStream());
            int tables = all.indexOf("TableNames");
            int limits = all.indexOf("AccountMaxReadCapacityUnits");
            int unknown = all.indexOf("UnknownOperationException");
            int tablesAgain = all.indexOf("TableNames", unknown);
            int health = all.indexOf("healthy:");
            assertThat(tables).isPositive().isLessThan(limits);
            assertThat(limits).isLessThan(unknown);
            assertThat(unknown).isLessThan(tablesAgain);
            assertThat(tablesAgain).isLessThan(health);
        }
    }

    private static String readAll(InputStream in) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        try {
            while ((n = in.read(chunk)) > 0) {
                buf.write(chunk, 0, n);
            }
        } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
            // The server answered and closed, or stopped talking: either way we have what it sent.
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
