package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM under load: the server stops accepting, answers what it has started, flushes and exits 0 within 10 s. Every
 * write is checked after a restart: each one acknowledged is there, and none that its client saw fail is (a request
 * the server had accepted must not fail).
 */
class GracefulStopIT {
    private static final int CLIENTS = 8;

    @Test
    void aStopUnderLoadAnswersWhatItAcceptedAndExitsZero(@TempDir Path dir) throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> failed = ConcurrentHashMap.newKeySet();
        int exit;
        try (ServerProcess server = ServerProcess.start(dir)) {
            assertThat(server.api().createTable("stop").statusCode()).isEqualTo(200);
            AtomicBoolean refused = new AtomicBoolean();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                Thread t = new Thread(() -> load(server.port(), client, acknowledged, failed, refused));
                t.start();
                clients.add(t);
            }
            // Let the load run until a good number of writes are acknowledged, then ask the server to stop.
            while (acknowledged.size() < 2_000) {
                LockSupport.parkNanos(10_000_000L);
            }
            long asked = System.nanoTime();
            exit = server.terminate(10);
            long tookMillis = (System.nanoTime() - asked) / 1_000_000;
            for (Thread t : clients) {
                t.join();
            }
            assertThat(exit)
                    .as("exit code within 10 s (took %d ms)", tookMillis)
                    .isZero();
            assertThat(tookMillis).isLessThan(10_000);
        }
        try (ServerProcess again = ServerProcess.start(dir)) {
            RawApi api = again.api();
            for (String key : acknowledged) {
                assertThat(get(api, key)).as("acknowledged %s", key).contains("\"Item\"");
            }
            for (String key : failed) {
                assertThat(get(api, key)).as("failed %s was applied", key).doesNotContain("\"Item\"");
            }
        }
        assertThat(acknowledged.size()).isGreaterThanOrEqualTo(2_000);
    }

    private static String get(RawApi api, String key) throws Exception {
        return api.post(
                        "DynamoDB_20120810.GetItem",
                        "{\"TableName\":\"stop\",\"ConsistentRead\":true,\"Key\":{\"id\":{\"S\":\"" + key + "\"}}}")
                .body();
    }

    /**
     * One client: PutItems of fresh keys on a keep-alive connection, a new connection whenever the server closes one,
     * until connections are refused. A request that was sent and got no answer counts as failed.
     */
    private static void load(
            int port, int client, Set<String> acknowledged, Set<String> failed, AtomicBoolean refused) {
        int n = 0;
        while (true) {
            Socket s;
            try {
                s = new Socket("127.0.0.1", port);
                s.setSoTimeout(15_000);
            } catch (IOException e) {
                refused.set(true);
                return; // the server no longer accepts: done
            }
            try (s) {
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                boolean open = true;
                while (open) {
                    String key = "c" + client + "-" + n++;
                    String body = "{\"TableName\":\"stop\",\"Item\":{\"id\":{\"S\":\"" + key + "\"}}}";
                    byte[] request = ("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0"
                                    + "\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nX-Amz-Date: 20261201T000000Z\r\n"
                                    + "Authorization: " + RawApi.AUTH + "\r\nContent-Length: " + body.length()
                                    + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.UTF_8);
                    try {
                        out.write(request);
                        out.flush();
                    } catch (IOException e) {
                        // Never reached the server (it closed this idle connection first): not accepted.
                        break;
                    }
                    String[] answer;
                    try {
                        answer = read(in);
                    } catch (IOException e) {
                        failed.add(key);
                        break;
                    }
                    if (answer == null) {
                        // Closed without an answer: the server may not have read it, or may have. Checked after.
                        failed.add(key);
                        break;
                    }
                    if (answer[0].equals("200")) {
                        acknowledged.add(key);
                    } else {
                        failed.add(key);
                    }
                    open = !answer[1].equals("close");
                }
            } catch (IOException e) {
                // closing the socket
            }
        }
    }

    /** Status and Connection header of one answer; null when the connection closed before one arrived. */
    private static String[] read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
        int length = 0;
        String connection = "keep-alive";
        for (String line : lines) {
            String l = line.toLowerCase(Locale.ROOT);
            if (l.startsWith("content-length:")) {
                length = Integer.parseInt(l.substring(15).strip());
            } else if (l.startsWith("connection:")) {
                connection = l.substring(11).strip();
            }
        }
        in.readNBytes(length);
        return new String[] {lines[0].split(" ")[1], connection};
    }
}
