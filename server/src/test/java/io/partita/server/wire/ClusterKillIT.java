package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.cluster.OnceCounters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
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

    @TempDir
    Path dir;

    private static DynamoDbClient client(ClusterProcesses cluster, int node) {
        return DynamoDbClient.builder()
                .endpointOverride(cluster.endpoint(node))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                .overrideConfiguration(
                        c -> c.retryStrategy(r -> r.maxAttempts(3)).apiCallAttemptTimeout(Duration.ofSeconds(15)))
                .build();
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
        try (ClusterProcesses cluster = ClusterProcesses.start(dir)) {
            int leader = cluster.leader();
            DynamoDbClient[] clients = {client(cluster, 0), client(cluster, 1), client(cluster, 2)};
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
                    int dead = cluster.leader();
                    cluster.kill(dead);
                    for (Future<?> f : load) {
                        f.get();
                    }
                    cluster.start(dead);
                    // The returned node answers once it knows the leader: through it, the counters.
                    cluster.leader(dead);
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
        }
    }
}
