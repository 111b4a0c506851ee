package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.wire.Linearizability.Op;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linearizability of single items: concurrent clients make compare-and-set UpdateItems and strongly consistent GetItems
 * on a few keys for {@value #DEFAULT_SECONDS} s (or {@code -Dpartita.lin.seconds}), while the server process is killed
 * with SIGKILL and restarted twice. Each key's history, with the outcome of every request cut off by a kill unknown, is
 * checked by {@link Linearizability}: there must be an order of the operations, consistent with their real times, in
 * which each read sees the latest write.
 */
class LinearizabilityIT {
    private static final int DEFAULT_SECONDS = 24;
    private static final int KEYS = 4;
    private static final int CLIENTS_PER_KEY = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void compareAndSetAndConsistentReadsAreLinearizableAcrossKills(@TempDir Path dir) throws Exception {
        long seconds = Integer.getInteger("partita.lin.seconds", DEFAULT_SECONDS);
        AtomicReference<URI> endpoint = new AtomicReference<>();
        ServerProcess server = ServerProcess.start(dir, "--throughput", "off");
        endpoint.set(uri(server));
        RawApi api = server.api();
        createKeys(api, KEYS);
        List<List<Op>> histories = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) histories.add(Collections.synchronizedList(new ArrayList<>()));
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> clients = new ArrayList<>();
        List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
        for (int c = 0; c < KEYS * CLIENTS_PER_KEY; c++) {
            int client = c;
            int key = c % KEYS;
            Thread t = new Thread(() -> run(client, key, endpoint::get, deadline, histories.get(key), unexpected));
            t.start();
            clients.add(t);
        }
        try {
            for (int restart = 1; restart <= 2; restart++) {
                long at = deadline - (seconds * 1_000_000_000L) * (3 - restart) / 3;
                while (System.nanoTime() < at) LockSupport.parkNanos(50_000_000L);
                endpoint.set(null);
                server.kill();
                server = ServerProcess.start(dir, "--throughput", "off");
                endpoint.set(uri(server));
            }
            for (Thread t : clients) t.join();
        } finally {
            server.kill();
        }
        assertLinearizable(histories, unexpected, 100);
    }

    /**
     * Every key's history is linearizable, and no answer was unexpected; each key saw more than {@code minimum}
     * successful compare-and-sets and reads, and some refused ones.
     */
    static void assertLinearizable(List<List<Op>> histories, List<String> unexpected, int minimum) {
        assertThat(unexpected)
                .as("answers neither a success nor a refused condition")
                .isEmpty();
        for (int k = 0; k < histories.size(); k++) {
            List<Op> history = new ArrayList<>(histories.get(k));
            long ok = history.stream()
                    .filter(op -> op.kind() == Linearizability.Kind.CAS_OK)
                    .count();
            long refused = history.stream()
                    .filter(op -> op.kind() == Linearizability.Kind.CAS_FAILED)
                    .count();
            long reads = history.stream()
                    .filter(op -> op.kind() == Linearizability.Kind.READ)
                    .count();
            long lost = history.size() - ok - refused - reads;
            assertThat(ok).as("successful compare-and-sets on k%d", k).isGreaterThan(minimum);
            assertThat(refused).as("refused compare-and-sets on k%d", k).isPositive();
            assertThat(reads).as("reads of k%d", k).isGreaterThan(minimum);
            long started = System.nanoTime();
            boolean linearizable = Linearizability.check(0, history);
            String summary = String.format(
                    "k%d: %d reads, %d writes, %d refused, %d cut off by a kill; checked in %d ms",
                    k, reads, ok, refused, lost, (System.nanoTime() - started) / 1_000_000);
            System.out.println(summary);
            if (!linearizable) {
                summary += "; the history is in " + dump(k, history);
            }
            assertThat(linearizable).as(summary).isTrue();
        }
    }

    /**
     * Writes key {@code k}'s history, in the order the operations were sent, to {@code target/} for the failure's
     * reader: each operation's kind, values, and when it was sent and answered (ms from the first); returns the file.
     */
    private static java.nio.file.Path dump(int k, List<Op> history) {
        List<Op> sorted = new ArrayList<>(history);
        sorted.sort(java.util.Comparator.comparingLong(Op::invoked));
        long start = sorted.isEmpty() ? 0 : sorted.get(0).invoked();
        StringBuilder text = new StringBuilder("kind expected value sent_ms answered_ms\n");
        for (Op op : sorted) {
            text.append(String.format(
                    "%s %d %d %.3f %.3f%n",
                    op.kind(), op.expected(), op.value(), (op.invoked() - start) / 1e6, (op.answered() - start) / 1e6));
        }
        java.nio.file.Path file =
                java.nio.file.Path.of("target", "linearizability-k" + k + "-" + System.nanoTime() + ".txt");
        try {
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.writeString(file, text);
        } catch (java.io.IOException e) {
            return java.nio.file.Path.of("(not written: " + e + ")");
        }
        return file.toAbsolutePath();
    }

    /** Creates the table {@code lin} with keys {@code k0}.. each holding 0. */
    static void createKeys(RawApi api, int keys) throws Exception {
        assertThat(api.createTable("lin").statusCode()).isEqualTo(200);
        for (int k = 0; k < keys; k++) {
            assertThat(api.post(
                                    "DynamoDB_20120810.PutItem",
                                    "{\"TableName\":\"lin\",\"Item\":{\"id\":{\"S\":\"k" + k
                                            + "\"},\"v\":{\"N\":\"0\"}}}")
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    private static URI uri(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    /**
     * One client of one key: reads and compare-and-sets at random, each from the value it last saw to a value no other
     * write uses. A request that could not connect never reached a server, and one refused with a 503 changed nothing:
     * both are left out. One whose answer was lost, or a 500, is recorded with an unknown outcome.
     */
    static void run(
            int client,
            int key,
            java.util.function.Supplier<URI> endpoint,
            long deadline,
            List<Op> history,
            List<String> unexpected) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        Random random = new Random(client);
        long seen = 0;
        long seq = 0;
        String id = "{\"id\":{\"S\":\"k" + key + "\"}}";
        while (System.nanoTime() < deadline) {
            URI uri = endpoint.get();
            if (uri == null) {
                LockSupport.parkNanos(5_000_000L);
                continue;
            }
            boolean read = random.nextBoolean();
            long next = (client + 1) * 1_000_000_000L + ++seq;
            String body = read
                    ? "{\"TableName\":\"lin\",\"ConsistentRead\":true,\"Key\":" + id + "}"
                    : "{\"TableName\":\"lin\",\"Key\":" + id + ",\"UpdateExpression\":\"SET v = :next\","
                            + "\"ConditionExpression\":\"v = :seen\",\"ExpressionAttributeValues\":{\":seen\":{\"N\":\""
                            + seen + "\"},\":next\":{\"N\":\"" + next + "\"}}}";
            HttpRequest request = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/x-amz-json-1.0")
                    .header("X-Amz-Target", "DynamoDB_20120810." + (read ? "GetItem" : "UpdateItem"))
                    .header("X-Amz-Date", "20261130T000000Z")
                    .header("Authorization", RawApi.AUTH)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            long invoked = System.nanoTime();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (ConnectException | HttpConnectTimeoutException notSent) {
                continue;
            } catch (IOException cutOff) {
                if (!read) history.add(Op.unknown(seen, next, invoked));
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long answered = System.nanoTime();
            if (response.statusCode() == 200 && read) {
                try {
                    JsonNode item = JSON.readTree(response.body()).get("Item");
                    seen = item.get("v").get("N").asLong();
                } catch (IOException e) {
                    unexpected.add(response.body());
                    return;
                }
                history.add(Op.read(seen, invoked, answered));
            } else if (response.statusCode() == 200) {
                history.add(Op.cas(true, seen, next, invoked, answered));
                seen = next;
            } else if (!read && response.body().contains("ConditionalCheckFailedException")) {
                history.add(Op.cas(false, seen, next, invoked, answered));
            } else if (response.statusCode() == 503) {
                // ServiceUnavailable: refused before anything was written (a full disk, an election).
                continue;
            } else if (response.statusCode() >= 500 && !read) {
                history.add(Op.unknown(seen, next, invoked));
            } else if (response.statusCode() < 500) {
                unexpected.add(response.statusCode() + " " + response.body());
                return;
            }
        }
    }
}
