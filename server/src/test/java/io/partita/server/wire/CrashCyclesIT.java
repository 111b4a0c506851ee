package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness: {@value #DEFAULT_CYCLES} cycles (or {@code -Dpartita.crash.cycles}) of SIGKILL while concurrent
 * clients make acknowledged conditional writes, counter updates, conditional puts and two-item transactions, with and
 * without {@code --sync}. After each restart, every outcome a client was told is checked against the stored state: no
 * acknowledged write lost, none applied twice, counters equal to the acknowledged increments (plus, at most, the one a
 * client had in flight when the process died, whose outcome it never learned), and no transaction half applied.
 */
class CrashCyclesIT {
    private static final int DEFAULT_CYCLES = 15;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TABLE = "crash";
    private static final int CAS_WORKERS = 3;
    private static final int ADD_WORKERS = 2;
    private static final int PUT_WORKERS = 2;

    /**
     * Both harnesses at once, each with its own server process and data directory: much of a cycle is a process
     * starting, dying, or (with {@code --sync}) waiting for the disk, and two overlap on two cores.
     */
    @Test
    void acknowledgedWritesSurviveRepeatedKillsWithAndWithoutSync(@TempDir Path dir) throws Exception {
        java.util.concurrent.ExecutorService both = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<?> withoutSync = both.submit(() -> {
                new Harness(java.nio.file.Files.createDirectories(dir.resolve("without-sync")), new Random(21), false)
                        .run(cycles());
                return null;
            });
            java.util.concurrent.Future<?> withSync = both.submit(() -> {
                new Harness(java.nio.file.Files.createDirectories(dir.resolve("with-sync")), new Random(2121), true)
                        .run(cycles());
                return null;
            });
            rethrow(withoutSync, "without --sync");
            rethrow(withSync, "with --sync");
        } finally {
            both.shutdownNow();
        }
    }

    /** Waits for {@code harness} and fails as it did. */
    private static void rethrow(java.util.concurrent.Future<?> harness, String which) throws Exception {
        try {
            harness.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(
                    "the harness " + which + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    private static int cycles() {
        return Integer.getInteger("partita.crash.cycles", DEFAULT_CYCLES);
    }

    /** What one request came to: answered (200 or a 4xx, with its body), or unknown (the process died under it). */
    private record Outcome(int status, String body) {
        static final Outcome UNKNOWN = new Outcome(-1, "");

        boolean ok() {
            return status == 200;
        }

        boolean unknown() {
            return status < 0 || status >= 500;
        }

        boolean conditionFailed() {
            return status == 400 && body.contains("ConditionalCheckFailedException");
        }
    }

    /** One client connection: HTTP/1.1 with short timeouts, so that a killed server ends every request quickly. */
    private static final class Client {
        private final HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        private final URI endpoint;

        Client(int port) {
            this.endpoint = URI.create("http://127.0.0.1:" + port);
        }

        Outcome call(String operation, String body) {
            HttpRequest request = RawApi.request(endpoint, operation, body, Duration.ofSeconds(5));
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                return new Outcome(response.statusCode(), response.body());
            } catch (IOException e) {
                return Outcome.UNKNOWN;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Outcome.UNKNOWN;
            }
        }

        /** The answer of a request that must succeed (the harness's own reads and setup). */
        JsonNode must(String operation, String body) throws IOException {
            Outcome o = call(operation, body);
            if (!o.ok()) {
                throw new AssertionError(operation + " answered " + o.status() + ": " + o.body());
            }
            return JSON.readTree(o.body());
        }
    }

    /**
     * The clients' knowledge, carried from cycle to cycle: what each was told, and which request it had in flight when
     * the server died. Each check after a restart turns that uncertainty into a known value again.
     */
    private static final class Harness {
        private final Path dir;
        private final Random random;
        private final boolean sync;
        private final long[] casValue = new long[CAS_WORKERS];
        private final boolean[] casPending = new boolean[CAS_WORKERS];
        private long hitsAcked;
        private int hitsPending;
        private long transfersAcked;
        private boolean transferPending;
        private final List<String> putsAcked = Collections.synchronizedList(new ArrayList<>());
        private final List<String> putsPending = Collections.synchronizedList(new ArrayList<>());
        private final List<String> putsStored = new ArrayList<>();
        private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        /** Acknowledgements in the current cycle, counted by the workers as they come. */
        private final AtomicLong acksThisCycle = new AtomicLong();

        private int putSeq;

        Harness(Path dir, Random random, boolean sync) {
            this.dir = dir;
            this.random = random;
            this.sync = sync;
        }

        void run(int cycles) throws Exception {
            long acknowledged = 0;
            for (int cycle = 0; cycle < cycles; cycle++) {
                try (ServerProcess server = sync
                        ? ServerProcess.start(dir, "--throughput", "off", "--sync")
                        : ServerProcess.start(dir, "--throughput", "off")) {
                    Client client = new Client(server.port());
                    if (cycle == 0) {
                        setUp(client);
                    } else {
                        check(client, cycle);
                    }
                    long before = acknowledgedSoFar();
                    load(server, 150 + random.nextInt(500));
                    long during = acknowledgedSoFar() - before;
                    assertThat(during)
                            .as("writes acknowledged in cycle %d", cycle)
                            .isPositive();
                    acknowledged += during;
                }
                assertThat(violations).as("after cycle %d", cycle).isEmpty();
            }
            try (ServerProcess server = ServerProcess.start(dir, "--throughput", "off")) {
                Client client = new Client(server.port());
                check(client, cycles);
                long scanned = scanCount(client);
                assertThat(scanned)
                        .as("items stored: counters, accounts and puts")
                        .isEqualTo(CAS_WORKERS + 3 + putsStored.size());
                JsonNode table = client.must("DescribeTable", "{\"TableName\":\"" + TABLE + "\"}")
                        .get("Table");
                assertThat(table.get("ItemCount").asLong())
                        .as("ItemCount kept through replays")
                        .isEqualTo(scanned);
            }
            assertThat(acknowledged).as("writes acknowledged over all cycles").isGreaterThan(cycles * 20L);
        }

        private long acknowledgedSoFar() {
            long sum = hitsAcked + transfersAcked + putsAcked.size();
            for (long v : casValue) sum += v;
            return sum;
        }

        private void setUp(Client client) throws IOException {
            client.must(
                    "CreateTable",
                    "{\"TableName\":\"" + TABLE + "\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                            + "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":"
                            + "\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}");
            for (int i = 0; i < CAS_WORKERS; i++) {
                client.must("PutItem", item("cas-" + i, "n", 0));
            }
            client.must("PutItem", item("hits", "n", 0));
            client.must("PutItem", item("acct-a", "bal", 0));
            client.must("PutItem", item("acct-b", "bal", 0));
        }

        private static String item(String id, String attribute, long value) {
            return "{\"TableName\":\"" + TABLE + "\",\"Item\":{\"id\":{\"S\":\"" + id + "\"},\"" + attribute
                    + "\":{\"N\":\"" + value + "\"}}}";
        }

        /**
         * Runs every worker against the server for {@code millis}, and on until it has acknowledged a write, then kills
         * it under them. (A freshly started JVM with {@code --sync}, beside the other harness on two cores, has been
         * seen to acknowledge nothing in 650 ms; such a cycle would test nothing.)
         */
        private void load(ServerProcess server, int millis) throws InterruptedException {
            acksThisCycle.set(0);
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < CAS_WORKERS; i++) {
                int w = i;
                workers.add(new Thread(() -> casWorker(new Client(server.port()), w)));
            }
            long[] hitsAckedBy = new long[ADD_WORKERS];
            boolean[] hitsPendingBy = new boolean[ADD_WORKERS];
            for (int i = 0; i < ADD_WORKERS; i++) {
                int w = i;
                workers.add(new Thread(() -> addWorker(new Client(server.port()), w, hitsAckedBy, hitsPendingBy)));
            }
            for (int i = 0; i < PUT_WORKERS; i++) {
                String prefix = "p" + putSeq++ + "-";
                workers.add(new Thread(() -> putWorker(new Client(server.port()), prefix)));
            }
            workers.add(new Thread(() -> transferWorker(new Client(server.port()))));
            workers.forEach(Thread::start);
            Thread.sleep(millis);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (acksThisCycle.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            server.kill();
            for (Thread t : workers) {
                t.join(15_000);
                assertThat(t.isAlive())
                        .as("a worker still waiting on a killed server")
                        .isFalse();
            }
            for (int i = 0; i < ADD_WORKERS; i++) {
                hitsAcked += hitsAckedBy[i];
                if (hitsPendingBy[i]) hitsPending++;
            }
        }

        /** Compare-and-set increments of the worker's own counter: a refused condition means a write went astray. */
        private void casWorker(Client client, int w) {
            String key = "{\"id\":{\"S\":\"cas-" + w + "\"}}";
            while (true) {
                long cur = casValue[w];
                Outcome o = client.call(
                        "UpdateItem",
                        "{\"TableName\":\"" + TABLE + "\",\"Key\":" + key + ",\"UpdateExpression\":\"SET n = :next\","
                                + "\"ConditionExpression\":\"n = :cur\",\"ExpressionAttributeValues\":{\":cur\":"
                                + "{\"N\":\"" + cur + "\"},\":next\":{\"N\":\"" + (cur + 1) + "\"}}}");
                if (o.ok()) {
                    casValue[w] = cur + 1;
                    acksThisCycle.incrementAndGet();
                } else if (o.unknown()) {
                    casPending[w] = true;
                    return;
                } else {
                    violations.add("cas-" + w + " at " + cur + ": " + o.status() + " " + o.body());
                    return;
                }
            }
        }

        /** Unconditional {@code ADD} to one counter shared by the workers. */
        private void addWorker(Client client, int w, long[] acked, boolean[] pending) {
            while (true) {
                Outcome o = client.call(
                        "UpdateItem",
                        "{\"TableName\":\"" + TABLE + "\",\"Key\":{\"id\":{\"S\":\"hits\"}},\"UpdateExpression\":"
                                + "\"ADD n :one\",\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}");
                if (o.ok()) {
                    acked[w]++;
                    acksThisCycle.incrementAndGet();
                } else if (o.unknown()) {
                    pending[w] = true;
                    return;
                } else {
                    violations.add("hits: " + o.status() + " " + o.body());
                    return;
                }
            }
        }

        /** Puts of fresh keys, each only if absent: a refused condition means a put was applied twice. */
        private void putWorker(Client client, String prefix) {
            for (int i = 0; ; i++) {
                String id = prefix + i;
                Outcome o = client.call(
                        "PutItem",
                        "{\"TableName\":\"" + TABLE + "\",\"Item\":{\"id\":{\"S\":\"" + id + "\"},\"pad\":{\"S\":\""
                                + "x".repeat(200) + "\"}},\"ConditionExpression\":\"attribute_not_exists(id)\"}");
                if (o.ok()) {
                    putsAcked.add(id);
                    acksThisCycle.incrementAndGet();
                } else if (o.unknown()) {
                    putsPending.add(id);
                    return;
                } else {
                    violations.add(id + ": " + o.status() + " " + o.body());
                    return;
                }
            }
        }

        /** Moves one unit from one account to another in a transaction: the two balances always sum to zero. */
        private void transferWorker(Client client) {
            while (true) {
                Outcome o = client.call(
                        "TransactWriteItems",
                        "{\"TransactItems\":[" + transfer("acct-a", "-1") + "," + transfer("acct-b", "1") + "]}");
                if (o.ok()) {
                    transfersAcked++;
                    acksThisCycle.incrementAndGet();
                } else if (o.unknown()) {
                    transferPending = true;
                    return;
                } else {
                    violations.add("transfer: " + o.status() + " " + o.body());
                    return;
                }
            }
        }

        private static String transfer(String id, String amount) {
            return "{\"Update\":{\"TableName\":\"" + TABLE + "\",\"Key\":{\"id\":{\"S\":\"" + id + "\"}},"
                    + "\"UpdateExpression\":\"ADD bal :d\",\"ExpressionAttributeValues\":{\":d\":{\"N\":\"" + amount
                    + "\"}}}}";
        }

        /** After a restart: what every client was told is what is stored. */
        private void check(Client client, int cycle) throws IOException {
            for (int w = 0; w < CAS_WORKERS; w++) {
                long stored = number(client, "cas-" + w, "n");
                long told = casValue[w];
                assertThat(stored)
                        .as("cas-%d after cycle %d (acknowledged %d, one in flight: %s)", w, cycle, told, casPending[w])
                        .isBetween(told, casPending[w] ? told + 1 : told);
                casValue[w] = stored;
                casPending[w] = false;
            }
            long hits = number(client, "hits", "n");
            assertThat(hits)
                    .as("hits after cycle %d (acknowledged %d, in flight %d)", cycle, hitsAcked, hitsPending)
                    .isBetween(hitsAcked, hitsAcked + hitsPending);
            hitsAcked = hits;
            hitsPending = 0;
            long a = number(client, "acct-a", "bal");
            long b = number(client, "acct-b", "bal");
            assertThat(a + b)
                    .as("balances after cycle %d: a transaction half applied", cycle)
                    .isZero();
            assertThat(-a)
                    .as("transfers after cycle %d (acknowledged %d)", cycle, transfersAcked)
                    .isBetween(transfersAcked, transferPending ? transfersAcked + 1 : transfersAcked);
            transfersAcked = -a;
            transferPending = false;
            List<String> lost = new ArrayList<>(putsAcked);
            lost.removeAll(new HashSet<>(present(client, putsAcked)));
            assertThat(lost).as("acknowledged puts lost in cycle %d", cycle).isEmpty();
            putsStored.addAll(putsAcked);
            putsStored.addAll(present(client, putsPending));
            putsAcked.clear();
            putsPending.clear();
        }

        private static long number(Client client, String id, String attribute) throws IOException {
            JsonNode item = client.must(
                            "GetItem",
                            "{\"TableName\":\"" + TABLE + "\",\"ConsistentRead\":true,\"Key\":{\"id\":{\"S\":\"" + id
                                    + "\"}}}")
                    .get("Item");
            assertThat(item).as("item %s", id).isNotNull();
            return item.get(attribute).get("N").asLong();
        }

        /** The ids of {@code ids} stored, read with strongly consistent BatchGetItems of 100 keys. */
        private static List<String> present(Client client, List<String> ids) throws IOException {
            List<String> found = new ArrayList<>();
            List<String> all = new ArrayList<>(ids);
            for (int from = 0; from < all.size(); from += 100) {
                StringBuilder keys = new StringBuilder();
                for (String id : all.subList(from, Math.min(all.size(), from + 100))) {
                    if (keys.length() > 0) keys.append(',');
                    keys.append("{\"id\":{\"S\":\"").append(id).append("\"}}");
                }
                String request = "{\"RequestItems\":{\"" + TABLE + "\":{\"ConsistentRead\":true,\"Keys\":[" + keys
                        + "],\"ProjectionExpression\":\"id\"}}}";
                JsonNode answer = client.must("BatchGetItem", request);
                assertThat(answer.path("UnprocessedKeys").size())
                        .as("unprocessed keys")
                        .isZero();
                for (JsonNode item : answer.get("Responses").get(TABLE)) {
                    found.add(item.get("id").get("S").asText());
                }
            }
            return found;
        }

        private static long scanCount(Client client) throws IOException {
            long count = 0;
            String start = null;
            do {
                String request = "{\"TableName\":\"" + TABLE + "\",\"Select\":\"COUNT\",\"ConsistentRead\":true"
                        + (start == null ? "" : ",\"ExclusiveStartKey\":" + start) + "}";
                JsonNode page = client.must("Scan", request);
                count += page.get("Count").asLong();
                start = page.has("LastEvaluatedKey")
                        ? page.get("LastEvaluatedKey").toString()
                        : null;
            } while (start != null);
            return count;
        }
    }
}
