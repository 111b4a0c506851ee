package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.server.cluster.OnceCounters;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.Identity;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * A 3-node cluster of real processes on loopback, its leader killed with SIGKILL and restarted in a loop ({@value
 * #DEFAULT_CYCLES} cycles, or {@code -Dpartita.cluster.cycles}) while clients of every node make conditional counter
 * increments. After each cycle every counter equals the increments acknowledged to clients: none lost, none applied
 * twice, though every kill cuts requests off half way. Each node takes a checkpoint every 20 entries and keeps a log
 * of 20 more, so a killed node restarts on a store past its newest checkpoint and needs entries its peers purged.
 *
 * <p>The table has a stream and TTL. Each leader goes on with the stream its predecessor wrote: at the end every
 * counter's records carry its values 1, 2, 3 … in order, one each, and each shard's sequence numbers only grow. Items
 * that expire around each kill are deleted by one leader or the next, once: one {@code REMOVE} record each, by the TTL
 * service. A transaction with a {@code ClientRequestToken}, committed just before the first kill, is answered as a
 * repeat by the next leader.
 */
class ClusterKillIT {
    private static final int DEFAULT_CYCLES = 3;
    private static final int COUNTERS = 4;
    private static final int THREADS = 6;
    private static final int EXPIRING = 5;

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

    /** A transaction that adds 1 to an item of its own, with its ClientRequestToken. */
    private static final TransactWriteItemsRequest ONCE = adding(1);

    private static TransactWriteItemsRequest adding(int n) {
        return TransactWriteItemsRequest.builder()
                .clientRequestToken("increment-once")
                .transactItems(TransactWriteItem.builder()
                        .update(u -> u.tableName(OnceCounters.TABLE)
                                .key(Map.of("id", AttributeValue.fromS("once")))
                                .updateExpression("ADD c :n")
                                .expressionAttributeValues(Map.of(":n", AttributeValue.fromN(Integer.toString(n)))))
                        .build())
                .build();
    }

    /**
     * {@link #ONCE}, committed by the leader since killed, sent again with its token: the new leader answers it as a
     * repeat (its token was kept in the group's store with its write, not in the killed leader's memory alone), and
     * the item was added to once. With another payload, the token is refused.
     */
    private static void assertRepeatedOnce(DynamoDbClient ddb) {
        ddb.transactWriteItems(ONCE);
        assertThatThrownBy(() -> ddb.transactWriteItems(adding(2)))
                .isInstanceOf(IdempotentParameterMismatchException.class);
        assertThat(ddb.getItem(g -> g.tableName(OnceCounters.TABLE)
                                .key(Map.of("id", AttributeValue.fromS("once")))
                                .consistentRead(true))
                        .item()
                        .get("c")
                        .n())
                .isEqualTo("1");
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
        // A checkpoint every 20 entries: a killed node restarts on a store past its newest checkpoint, and comes back
        // after the others purged their logs (see CLUSTER.md, "Snapshots and the log's size").
        try (ClusterProcesses cluster = ClusterProcesses.start(dir, "--cluster-snapshot-entries", "20")) {
            int leader = cluster.leader();
            DynamoDbClient[] clients = {client(cluster, 0), client(cluster, 1), client(cluster, 2)};
            clients[(leader + 1) % 3].createTable(t -> t.tableName(OnceCounters.TABLE)
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST")
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
            clients[leader].updateTimeToLive(t -> t.tableName(OnceCounters.TABLE)
                    .timeToLiveSpecification(s -> s.enabled(true).attributeName("expires")));
            AtomicLongArray acknowledged = new AtomicLongArray(COUNTERS);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                for (int cycle = 1; cycle <= cycles; cycle++) {
                    // Items that expire in a second: the reaper finds them around the kill, before or after it.
                    long expires = System.currentTimeMillis() / 1000 + 1;
                    for (int e = 0; e < EXPIRING; e++) {
                        Map<String, AttributeValue> item = Map.of(
                                "id", AttributeValue.fromS("expiring-" + cycle + "-" + e),
                                "expires", AttributeValue.fromN(Long.toString(expires)));
                        clients[e % 3].putItem(
                                p -> p.tableName(OnceCounters.TABLE).item(item));
                    }
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
                    if (cycle == 1) {
                        clients[dead].transactWriteItems(ONCE);
                    }
                    cluster.kill(dead);
                    for (Future<?> f : load) {
                        f.get();
                    }
                    cluster.start(dead);
                    // The returned node answers once it knows the leader: through it, the counters.
                    cluster.leader(dead);
                    assertCounters(clients[dead], acknowledged, cycle);
                    if (cycle == 1) {
                        assertRepeatedOnce(clients[dead]);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            long total = 0;
            for (int c = 0; c < COUNTERS; c++) {
                total += acknowledged.get(c);
            }
            assertThat(total).isEqualTo((long) cycles * THREADS * 60);
            assertStream(cluster, clients[0], acknowledged, cycles);
        }
    }

    /** The stream after every cycle: each increment once, in order, and each expired item removed once. */
    private static void assertStream(
            ClusterProcesses cluster, DynamoDbClient ddb, AtomicLongArray acknowledged, int cycles)
            throws InterruptedException {
        // The last cycle's expiring items are deleted within a second or two of the reaper's next pass.
        for (int cycle = 1; cycle <= cycles; cycle++) {
            for (int e = 0; e < EXPIRING; e++) {
                Map<String, AttributeValue> key = Map.of("id", AttributeValue.fromS("expiring-" + cycle + "-" + e));
                for (int wait = 0;
                        ddb.getItem(g ->
                                        g.tableName(OnceCounters.TABLE).key(key).consistentRead(true))
                                .hasItem();
                        wait++) {
                    assertThat(wait).as("%s deleted by TTL within 20 s", key).isLessThan(200);
                    Thread.sleep(100);
                }
            }
        }
        Map<String, List<Long>> values = new HashMap<>();
        Map<String, Integer> removes = new HashMap<>();
        try (DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder()
                .endpointOverride(cluster.endpoint(1))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                .build()) {
            String arn = ddb.describeTable(d -> d.tableName(OnceCounters.TABLE))
                    .table()
                    .latestStreamArn();
            for (Shard shard : streams.describeStream(d -> d.streamArn(arn))
                    .streamDescription()
                    .shards()) {
                String iterator = streams.getShardIterator(g -> g.streamArn(arn)
                                .shardId(shard.shardId())
                                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                        .shardIterator();
                BigInteger last = BigInteger.ZERO;
                while (iterator != null) {
                    String from = iterator;
                    GetRecordsResponse page = streams.getRecords(g -> g.shardIterator(from));
                    for (Record r : page.records()) {
                        BigInteger sequence = new BigInteger(r.dynamodb().sequenceNumber());
                        assertThat(sequence)
                                .as("sequence in %s", shard.shardId())
                                .isGreaterThan(last);
                        last = sequence;
                        String id = r.dynamodb().keys().get("id").s();
                        if (r.eventName() == OperationType.REMOVE) {
                            assertThat(r.userIdentity())
                                    .as("who removed %s", id)
                                    .isEqualTo(Identity.builder()
                                            .type("Service")
                                            .principalId("dynamodb.amazonaws.com")
                                            .build());
                            removes.merge(id, 1, Integer::sum);
                        } else if (id.startsWith("counter-")) {
                            values.computeIfAbsent(id, k -> new ArrayList<>())
                                    .add(Long.parseLong(
                                            r.dynamodb().newImage().get("c").n()));
                        }
                    }
                    iterator = page.records().isEmpty() ? null : page.nextShardIterator();
                }
            }
        }
        for (int c = 0; c < COUNTERS; c++) {
            List<Long> expected = new ArrayList<>();
            for (long v = 1; v <= acknowledged.get(c); v++) {
                expected.add(v);
            }
            assertThat(values.get("counter-" + c)).as("counter %d's records", c).isEqualTo(expected);
        }
        Map<String, Integer> expectedRemoves = new HashMap<>();
        for (int cycle = 1; cycle <= cycles; cycle++) {
            for (int e = 0; e < EXPIRING; e++) {
                expectedRemoves.put("expiring-" + cycle + "-" + e, 1);
            }
        }
        assertThat(removes).as("TTL deletions").isEqualTo(expectedRemoves);
    }
}
