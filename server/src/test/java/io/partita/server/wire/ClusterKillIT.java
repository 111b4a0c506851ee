package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.cluster.OnceCounters;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A 3-node cluster of real processes on loopback, its leader killed with SIGKILL and restarted in a loop ({@value
 * #DEFAULT_CYCLES} cycles, or {@code -Dpartita.cluster.cycles}) while clients of every node make conditional counter
 * increments. After each cycle every counter equals the increments acknowledged to clients: none lost, none applied
 * twice, though every kill cuts requests off half way.
 */
class ClusterKillIT {
    private static final int DEFAULT_CYCLES = 3;
    private static final int COUNTERS = 4;
    private static final int THREADS = 6;
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(n\\d)\"");

    @TempDir
    Path dir;

    private final List<String> members = new ArrayList<>();
    private final ServerProcess[] nodes = new ServerProcess[3];
    private final int[] apiPorts = new int[3];

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void start(int i) throws Exception {
        nodes[i] = ServerProcess.start(
                dir.resolve("n" + i),
                "--cluster-members",
                String.join(",", members),
                "--node-id",
                "n" + i,
                "--throughput",
                "off");
        assertThat(nodes[i].port()).isEqualTo(apiPorts[i]);
    }

    private DynamoDbClient client(int node) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + apiPorts[node]))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                .overrideConfiguration(
                        c -> c.retryStrategy(r -> r.maxAttempts(3)).apiCallAttemptTimeout(Duration.ofSeconds(15)))
                .build();
    }

    /** The leader's index as a live node sees it, once one is elected and serving. */
    private int leader() throws Exception {
        return leader(-1);
    }

    /** The leader's index as node {@code asking} sees it (any live node if -1), once one is elected and serving. */
    private int leader(int asking) throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (nodes[i] == null || (asking >= 0 && i != asking)) {
                    continue;
                }
                try {
                    String view = http.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPorts[i] + "/cluster"))
                                            .timeout(Duration.ofSeconds(1))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body();
                    Matcher m = LEADER.matcher(view);
                    if (m.find() && (asking >= 0 || view.contains("\"serving\":true"))) {
                        return Integer.parseInt(m.group(1).substring(1));
                    }
                } catch (java.io.IOException e) {
                    // not up yet
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader within 60 s");
    }

    private static void assertCounters(DynamoDbClient ddb, AtomicLongArray acknowledged, int cycle) {
        for (int c = 0; c < COUNTERS; c++) {
            long[] read = OnceCounters.read(ddb, c);
            assertThat(read[0])
                    .as("counter %d after cycle %d", c, cycle)
                    .isEqualTo(acknowledged.get(c))
                    .isEqualTo(read[1]);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void killingTheLeaderInALoopLosesAndDoublesNoAcknowledgedIncrement() throws Exception {
        int cycles = Integer.getInteger("partita.cluster.cycles", DEFAULT_CYCLES);
        for (int i = 0; i < 3; i++) {
            apiPorts[i] = freePort();
            members.add("n" + i + "=127.0.0.1:" + freePort() + ":" + apiPorts[i]);
        }
        try {
            for (int i = 0; i < 3; i++) {
                start(i);
            }
            int leader = leader();
            DynamoDbClient[] clients = {client(0), client(1), client(2)};
            clients[(leader + 1) % 3].createTable(t -> t.tableName(OnceCounters.TABLE)
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            AtomicLongArray acknowledged = new AtomicLongArray(COUNTERS);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                for (int cycle = 1; cycle <= cycles; cycle++) {
                    List<Future<?>> load = new ArrayList<>();
                    for (int t = 0; t < THREADS; t++) {
                        int thread = t;
                        load.add(pool.submit(() -> {
                            int[] preferred = {thread % 3};
                            for (int i = 0; i < 60; i++) {
                                int counter = (thread + i) % COUNTERS;
                                OnceCounters.increment(clients, preferred, counter);
                                acknowledged.incrementAndGet(counter);
                            }
                            return null;
                        }));
                    }
                    Thread.sleep(700);
                    int dead = leader();
                    nodes[dead].kill();
                    nodes[dead] = null;
                    for (Future<?> f : load) {
                        f.get();
                    }
                    start(dead);
                    // The returned node answers once it knows the leader: through it, the counters.
                    leader(dead);
                    assertCounters(clients[dead], acknowledged, cycle);
                }
            } finally {
                pool.shutdownNow();
            }
            long total = 0;
            for (int c = 0; c < COUNTERS; c++) {
                total += acknowledged.get(c);
            }
            assertThat(total).isEqualTo((long) cycles * THREADS * 60);
        } finally {
            for (ServerProcess p : nodes) {
                if (p != null) {
                    p.kill();
                }
            }
        }
    }
}
