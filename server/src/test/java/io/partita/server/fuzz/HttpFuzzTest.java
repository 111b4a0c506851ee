package io.partita.server.fuzz;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The HTTP surface under Jazzer, through a real socket into the real pipeline (request decoder, body collection,
 * decompression, dispatch to every operation): whatever bytes a client sends, every answer has a status below 500, and
 * the server still answers its health check afterwards. Each input is sent on a fresh connection whose sending side is
 * then closed, so that a request cut short ends at once. Corpus in {@code HttpFuzzTestInputs/}.
 */
class HttpFuzzTest {
    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.[01] (\\d{3}) ");
    private static EmbeddedPartita partita;

    @BeforeAll
    static void start() throws IOException {
        partita = EmbeddedPartita.start();
        String table = "{\"TableName\":\"fuzz\",\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
                + "\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}],\"KeySchema\":["
                + "{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],"
                + "\"BillingMode\":\"PAY_PER_REQUEST\"}";
        String answer = exchange(("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                        + "X-Amz-Target: DynamoDB_20120810.CreateTable\r\nX-Amz-Date: 20261201T000000Z\r\n"
                        + "Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/dynamodb/aws4_request,"
                        + " SignedHeaders=host;x-amz-date, Signature=00\r\nContent-Length: " + table.length()
                        + "\r\n\r\n" + table)
                .getBytes(StandardCharsets.UTF_8));
        if (!answer.startsWith("HTTP/1.1 200 ")) {
            throw new IllegalStateException("could not create the fuzz table: " + answer);
        }
    }

    @AfterAll
    static void stop() {
        partita.close();
    }

    @FuzzTest(maxDuration = "20s")
    @SuppressWarnings("try") // the resource is held, not used
    void noBytesAClientSendsGetA5xx(byte[] input) throws IOException {
        int port = partita.endpoint().getPort();
        // Jazzer's SSRF detector refuses connections a fuzz test has not allowed: this one's, to its own server only.
        try (SilentCloseable allowed = BugDetectors.allowNetworkConnections((host, to) -> to == port)) {
            check(input);
        }
    }

    private static void check(byte[] input) throws IOException {
        String answers = exchange(input);
        Matcher m = STATUS.matcher(answers);
        while (m.find()) {
            if (m.group(1).charAt(0) == '5') {
                throw new AssertionError("a 5xx for a client's bytes:\n" + answers);
            }
        }
        String health = exchange("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        if (!health.startsWith("HTTP/1.1 200 ")) {
            throw new AssertionError("the server stopped answering after:\n" + answers + "\n" + health);
        }
    }

    /** Sends {@code input} on a new connection, closes the sending side, and reads until the server closes. */
    private static String exchange(byte[] input) throws IOException {
        try (Socket s = new Socket("127.0.0.1", partita.endpoint().getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(input);
                out.flush();
                s.shutdownOutput();
            } catch (SocketException closedEarly) {
                // The server refused the request before all of it was sent, and closed the connection.
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                in.transferTo(got);
            } catch (SocketException reset) {
                // A reset after a refusal: what was read is the answer.
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
