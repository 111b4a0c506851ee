package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.cluster.ClusterNode;
import io.partita.server.cli.ServerConfig;
import io.partita.server.netty.Transport;
import io.partita.server.wire.FreePorts;
import io.partita.storage.StorageConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Three nodes on loopback, each a whole cluster node (its RocksDB replica, its Ratis server, its public port): the AWS
 * SDK talks to any of them, the leader's death costs clients only retries, no acknowledged increment is lost or
 * applied twice, and a node that was down catches up and can lead.
 */
class ClusterIT {
    private static final int COUNTERS = 4;

    @TempDir
    Path dir;

    private final List<ClusterConfig.Member> members = new ArrayList<>();
    private final ClusterMember[] nodes = new ClusterMember[4];

    @AfterEach
    void stopAll() {
        ClusterStrictIT.closeAtOnce(nodes);
    }

    private ClusterNode.LogRetention retention = ClusterNode.LogRetention.defaults();

    /** Whether the nodes this test starts answer eventually consistent reads as followers. */
    private boolean followerReads;

    private ClusterMember start(int i) throws Exception {
        nodes[i] = startNode(dir, "it", members, i, retention, false, followerReads);
        return nodes[i];
    }

    /** Node {@code n<i>} of {@code members} in this JVM, its replica under {@code dir}, with loopback's timings. */
    static ClusterMember startNode(Path dir, String cluster, List<ClusterConfig.Member> members, int i)
            throws Exception {
        return startNode(dir, cluster, members, i, ClusterNode.LogRetention.defaults());
    }

    private static ClusterMember startNode(
            Path dir, String cluster, List<ClusterConfig.Member> members, int i, ClusterNode.LogRetention retention)
            throws Exception {
        return startNode(dir, cluster, members, i, retention, false, false);
    }

    private static ClusterMember startNode(
            Path dir,
            String cluster,
            List<ClusterConfig.Member> members,
            int i,
            ClusterNode.LogRetention retention,
            boolean join,
            boolean followerReads)
            throws Exception {
        ServerConfig server = new ServerConfig(
                "127.0.0.1",
                members.get(i).apiPort(),
                // Every node's S3 is one directory, as a shared volume would be (docs/CLUSTER.md).
                StorageConfig.disk(dir.resolve("n" + i)).withS3Dir(dir.resolve("s3")),
                "us-east-1",
                4,
                Transport.NIO);
        return ClusterMember.start(
                new ClusterConfig(cluster, "n" + i, members).joining(join).withFollowerReads(followerReads),
                server,
                ClusterNode.Timings.loopback(),
                retention,
                s -> {});
    }

    /** The index of the node of {@code nodes} that serves the cluster, once one does (within a minute). */
    static int awaitServing(ClusterMember... nodes) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            if (System.nanoTime() - deadline > 0) {
                dumpCluster(nodes);
                throw new AssertionError("waiting for a leader: no node served within a minute");
            }
            for (int i = 0; i < nodes.length; i++) {
                if (nodes[i] != null && nodes[i].serving()) {
                    return i;
                }
            }
            Thread.sleep(20);
        }
    }

    /**
     * Prints, for a test that gave up waiting for a leader, each node's view ({@code GET /cluster}) and the stacks of
     * the threads that decide whether a node serves: the members' watches, Ratis's elections, followers' timers,
     * appenders and state machine updaters, and any thread blocked on a monitor.
     */
    static void dumpCluster(ClusterMember... nodes) {
        StringBuilder out = new StringBuilder("--- the cluster's nodes when no node served ---\n");
        for (ClusterMember node : nodes) {
            if (node != null) {
                try {
                    out.append(node.nodeId()).append(": ").append(node.status()).append('\n');
                } catch (RuntimeException e) {
                    out.append(node.nodeId()).append(": ").append(e).append('\n');
                }
            }
        }
        Thread.getAllStackTraces().forEach((t, stack) -> {
            String name = t.getName();
            boolean wanted = name.startsWith("partita-cluster")
                    || name.contains("LeaderElection")
                    || name.contains("FollowerState")
                    || name.contains("LogAppender")
                    || name.contains("StateMachineUpdater")
                    || t.getState() == Thread.State.BLOCKED;
            if (wanted) {
                out.append('"').append(name).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                    out.append("    at ").append(e).append('\n');
                }
            }
        });
        System.out.println(out);
    }

    /** The value of the sample {@code sample} (its name and labels) in Prometheus's text format. */
    private static long counter(String scrape, String sample) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(sample + " ")) {
                return (long)
                        Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + sample + " in " + scrape);
    }

    private static DynamoDbClient client(ClusterMember node) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + node.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                // Few retries per node: OnceCounters moves on to the next node when one is down.
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(3)))
                .build();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private int leader() throws InterruptedException {
        return awaitServing(nodes);
    }

    private static void assertCounters(DynamoDbClient ddb, AtomicLongArray acknowledged) {
        for (int c = 0; c < COUNTERS; c++) {
            long[] read = OnceCounters.read(ddb, c);
            assertThat(read[0])
                    .as("counter %d", c)
                    .isEqualTo(acknowledged.get(c))
                    .isEqualTo(read[1]);
        }
    }

    /** Starts nodes n0, n1 and n2 of a new cluster. */
    private void startThree() throws Exception {
        for (int i = 0; i < 3; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
    }

    /**
     * Makes {@code table}, keyed by {@code id}, with GSI {@code index} on {@code attribute} (every attribute
     * projected), and waits until it is ACTIVE.
     */
    @SuppressWarnings("unchecked")
    private static void createWithIndex(DynamoDbClient ddb, String table, String attribute, String index)
            throws InterruptedException {
        ddb.createTable(t -> t.tableName(table)
                .attributeDefinitions(
                        a -> a.attributeName("id").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName(attribute).attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType("HASH"))
                .globalSecondaryIndexes(g -> g.indexName(index)
                        .keySchema(k -> k.attributeName(attribute).keyType("HASH"))
                        .projection(p -> p.projectionType("ALL")))
                .billingMode("PAY_PER_REQUEST"));
        await(
                "the table ACTIVE",
                () -> ddb.describeTable(d -> d.tableName(table))
                        .table()
                        .tableStatusAsString()
                        .equals("ACTIVE"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void anyNodeAnswersAndALeadersDeathLosesNoAcknowledgedWrite() throws Exception {
        startThree();
        int first = leader();
        int follower = (first + 1) % 3;

        // A follower forwards: the table is made, and read back, through a node that does not lead.
        try (DynamoDbClient ddb = client(nodes[follower])) {
            ddb.createTable(t -> t.tableName(OnceCounters.TABLE)
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            await(
                    "the table ACTIVE",
                    () -> ddb.describeTable(d -> d.tableName(OnceCounters.TABLE))
                            .table()
                            .tableStatusAsString()
                            .equals("ACTIVE"));
            // An item's write, which goes through the leader's group commit (the table's own changes do not).
            ddb.putItem(p -> p.tableName(OnceCounters.TABLE).item(key("first")));
            // Strongly consistent reads: each within the leader's lease or after a barrier.
            for (int i = 0; i < 5; i++) {
                assertThat(ddb.getItem(g -> g.tableName(OnceCounters.TABLE)
                                        .key(key("first"))
                                        .consistentRead(true))
                                .hasItem())
                        .isTrue();
            }
        }
        HttpResponse<String> view = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[follower].port() + "/cluster"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(view.body()).contains("\"node\":\"n" + follower + "\"", "\"leader\":\"n" + first + "\"");
        String leaderMetrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + nodes[first].port() + "/cluster/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(leaderMetrics)
                .contains(
                        "partita_cluster_leader{group=\"000000000000\",node=\"n" + first + "\"} 1",
                        "partita_cluster_serving{group=\"000000000000\",node=\"n" + first + "\"} 1")
                .contains("partita_cluster_follower_lag_entries{follower=\"n" + follower
                        + "\",group=\"000000000000\",node=\"n" + first + "\"}");
        // The item's write went through the leader's group commit: some entries, carrying at least as many writes.
        long entries = counter(
                leaderMetrics,
                "partita_cluster_group_commit_entries_total{group=\"000000000000\",node=\"n" + first + "\"}");
        long writes = counter(
                leaderMetrics,
                "partita_cluster_group_commit_writes_total{group=\"000000000000\",node=\"n" + first + "\"}");
        assertThat(entries).isPositive();
        assertThat(writes).isGreaterThanOrEqualTo(entries);
        String labels = "{group=\"000000000000\",node=\"n" + first + "\"}";
        assertThat(counter(leaderMetrics, "partita_cluster_lease_reads_total" + labels)
                        + counter(leaderMetrics, "partita_cluster_barrier_reads_total" + labels))
                .isGreaterThanOrEqualTo(5);

        // An export through the follower, made by the leader: its record is in the replicated store.
        java.nio.file.Files.createDirectories(dir.resolve("s3/lake"));
        String exportArn;
        try (DynamoDbClient ddb = client(nodes[follower])) {
            ddb.updateContinuousBackups(u -> u.tableName(OnceCounters.TABLE)
                    .pointInTimeRecoverySpecification(p -> p.pointInTimeRecoveryEnabled(true)));
            String tableArn = ddb.describeTable(d -> d.tableName(OnceCounters.TABLE))
                    .table()
                    .tableArn();
            exportArn = ddb.exportTableToPointInTime(
                            e -> e.tableArn(tableArn).s3Bucket("lake").clientToken("before-failover"))
                    .exportDescription()
                    .exportArn();
        }

        // Concurrent increments through every node, while the leader stops half way.
        AtomicLongArray acknowledged = new AtomicLongArray(COUNTERS);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> load = new ArrayList<>();
        DynamoDbClient[] clients = {client(nodes[0]), client(nodes[1]), client(nodes[2])};
        for (int t = 0; t < 6; t++) {
            int thread = t;
            load.add(pool.submit(() -> {
                int[] preferred = {thread % 3};
                for (int i = 0; i < 40; i++) {
                    int counter = (thread + i) % COUNTERS;
                    OnceCounters.increment(clients, preferred, counter);
                    acknowledged.incrementAndGet(counter);
                }
                return null;
            }));
        }
        await("some increments", () -> sum(acknowledged) >= 40);
        nodes[first].close();
        nodes[first] = null;
        for (Future<?> f : load) {
            f.get();
        }
        pool.shutdown();
        int second = leader();
        assertThat(second).isNotEqualTo(first);
        assertThat(sum(acknowledged)).isEqualTo(240);
        try (DynamoDbClient ddb = client(nodes[second])) {
            assertCounters(ddb, acknowledged);
            // The new leader knows the export the old one made, and imports its data from the shared S3.
            var export = ddb.describeExport(d -> d.exportArn(exportArn)).exportDescription();
            assertThat(export.exportStatusAsString()).isEqualTo("COMPLETED");
            assertThat(export.itemCount()).isEqualTo(1L);
            assertThat(ddb.listExports(l -> l.tableArn(export.tableArn())).exportSummaries())
                    .extracting(x -> x.exportArn())
                    .containsExactly(exportArn);
            String id = exportArn.substring(exportArn.lastIndexOf('/') + 1);
            String importArn = ddb.importTable(r -> r.s3BucketSource(
                                    b -> b.s3Bucket("lake").s3KeyPrefix("AWSDynamoDB/" + id + "/data/"))
                            .inputFormat("DYNAMODB_JSON")
                            .inputCompressionType("GZIP")
                            .tableCreationParameters(c -> c.tableName("imported")
                                    .attributeDefinitions(
                                            a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                                    .billingMode("PAY_PER_REQUEST")))
                    .importTableDescription()
                    .importArn();
            assertThat(ddb.describeImport(d -> d.importArn(importArn))
                            .importTableDescription()
                            .importedItemCount())
                    .isEqualTo(1L);
            assertThat(ddb.getItem(g ->
                                    g.tableName("imported").key(key("first")).consistentRead(true))
                            .hasItem())
                    .isTrue();
        }

        // The stopped node comes back and catches up; then the second leader stops, so the two that are left, the
        // returned one among them, must hold every acknowledged increment to go on.
        start(first);
        nodes[second].close();
        nodes[second] = null;
        int third = leader();
        try (DynamoDbClient ddb = client(nodes[third])) {
            assertCounters(ddb, acknowledged);
            OnceCounters.increment(new DynamoDbClient[] {ddb}, new int[] {0}, 0);
            acknowledged.incrementAndGet(0);
            assertCounters(ddb, acknowledged);
        }
    }

    /** Node {@code m}'s count of the eventually consistent reads it answered from its own replica. */
    private static long followerReads(ClusterMember m) throws Exception {
        String scrape = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/cluster/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return counter(scrape, "partita_cluster_follower_reads_total{node=\"" + m.nodeId() + "\"}");
    }

    private static java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> key(String id) {
        return java.util.Map.of("id", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(id));
    }

    /** Item {@code id}'s attribute {@code v} read through {@code ddb}, eventually or strongly consistent; null if none. */
    private static String value(DynamoDbClient ddb, String table, String id, boolean consistent) {
        var item = ddb.getItem(g -> g.tableName(table).key(key(id)).consistentRead(consistent))
                .item();
        return item.containsKey("v") ? item.get("v").s() : null;
    }

    @Test
    @SuppressWarnings("unchecked")
    void followersAnswerEventuallyConsistentReadsFromTheirReplicasAndForwardTheRest() throws Exception {
        followerReads = true;
        startThree();
        int first = leader();
        int follower = (first + 1) % 3;
        try (DynamoDbClient ddb = client(nodes[follower])) {
            createWithIndex(ddb, "reads", "g", "byG");
            for (int i = 0; i < 20; i++) {
                String id = "k" + i;
                ddb.putItem(p -> p.tableName("reads")
                        .item(java.util.Map.of(
                                "id", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(id),
                                "g", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("G"),
                                "v", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("1"))));
            }
            // The follower's replica applies the leader's writes a moment later: an eventually consistent read
            // through it sees each in the end, and is counted as answered there.
            long before = followerReads(nodes[follower]);
            await("k19 on the follower", () -> "1".equals(value(ddb, "reads", "k19", false)));
            assertThat(followerReads(nodes[follower])).isGreaterThan(before);
            await(
                    "the whole table in a Scan of the follower",
                    () -> ddb.scan(r -> r.tableName("reads")).count() == 20);
            // The GSI's rows, which the leader's applier writes, are replicated like any write.
            await(
                    "the GSI's rows in a Query of the follower",
                    () -> ddb.query(q -> q.tableName("reads")
                                            .indexName("byG")
                                            .keyConditionExpression("g = :g")
                                            .expressionAttributeValues(java.util.Map.of(
                                                    ":g",
                                                    software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(
                                                            "G"))))
                                    .count()
                            == 20);
            assertThat(ddb.batchGetItem(b -> b.requestItems(java.util.Map.of(
                                    "reads",
                                    software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                                            .keys(key("k0"), key("k1"))
                                            .build())))
                            .responses()
                            .get("reads"))
                    .hasSize(2);
            // A PartiQL SELECT reads eventually consistently unless it asks otherwise, as DynamoDB's does.
            long selects = followerReads(nodes[follower]);
            assertThat(ddb.executeStatement(e -> e.statement("SELECT * FROM \"reads\" WHERE id = 'k3'"))
                            .items())
                    .hasSize(1);
            assertThat(followerReads(nodes[follower])).isEqualTo(selects + 1);

            // Strongly consistent reads and writes still go to the leader: they are not counted here, and a
            // consistent read sees a write at once.
            long counted = followerReads(nodes[follower]);
            ddb.updateItem(u -> u.tableName("reads")
                    .key(key("k0"))
                    .updateExpression("SET v = :v")
                    .expressionAttributeValues(java.util.Map.of(
                            ":v", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("2"))));
            assertThat(value(ddb, "reads", "k0", true)).isEqualTo("2");
            assertThat(ddb.executeStatement(e -> e.statement("SELECT v FROM \"reads\" WHERE id = 'k0'")
                                    .consistentRead(true))
                            .items()
                            .get(0)
                            .get("v")
                            .s())
                    .isEqualTo("2");
            ddb.executeStatement(e -> e.statement("UPDATE \"reads\" SET w = 1 WHERE id = 'k1'"));
            assertThat(followerReads(nodes[follower])).isEqualTo(counted);
            // Nothing is cached on the follower: its replica's new value reaches its readers.
            await("k0's new value on the follower", () -> "2".equals(value(ddb, "reads", "k0", false)));

            // A BatchWriteItem larger than a Raft entry may be (eight new items of 380 KB, each with its stream
            // record's image: about 6 MB, where Ratis takes entries up to 4 MB) commits in parts, every item written.
            ddb.createTable(t -> t.tableName("large")
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .streamSpecification(st -> st.streamEnabled(true).streamViewType("NEW_AND_OLD_IMAGES"))
                    .billingMode("PAY_PER_REQUEST"));
            await(
                    "the large table ACTIVE",
                    () -> ddb.describeTable(d -> d.tableName("large"))
                            .table()
                            .tableStatusAsString()
                            .equals("ACTIVE"));
            java.util.List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> large =
                    new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                var item = java.util.Map.of(
                        "id", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("L" + i),
                        "v", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("x".repeat(380_000)));
                large.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                        .putRequest(p -> p.item(item))
                        .build());
            }
            assertThat(ddb.batchWriteItem(b -> b.requestItems(java.util.Map.of("large", large)))
                            .unprocessedItems())
                    .isEmpty();
            for (int i = 0; i < 8; i++) {
                String id = "L" + i;
                assertThat(ddb.getItem(g -> g.tableName("large").key(key(id)).consistentRead(true))
                                .item()
                                .get("v")
                                .s())
                        .hasSize(380_000);
            }

            // A table made after the follower's reader opened: the reader opens again on the new catalog.
            ddb.createTable(t -> t.tableName("later")
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            ddb.putItem(p -> p.tableName("later")
                    .item(java.util.Map.of(
                            "id", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("x"),
                            "v", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("3"))));
            // Until the follower's reader knows the new table, the leader answers its reads: never "not found".
            await("the new table's item on the follower", () -> "3".equals(value(ddb, "later", "x", false)));
        }

        // The leader stops: the node that leads next closes its reader and serves; the one still following reads.
        nodes[first].close();
        nodes[first] = null;
        int second = leader();
        int still = java.util.stream.IntStream.range(0, 3)
                .filter(i -> i != first && i != second)
                .findFirst()
                .orElseThrow();
        try (DynamoDbClient ddb = client(nodes[still])) {
            long before = followerReads(nodes[still]);
            await("k0 through the remaining follower", () -> "2".equals(value(ddb, "reads", "k0", false)));
            assertThat(followerReads(nodes[still])).isGreaterThan(before);
        }
        try (DynamoDbClient ddb = client(nodes[second])) {
            long before = followerReads(nodes[second]);
            assertThat(value(ddb, "reads", "k1", false)).isEqualTo("1");
            assertThat(followerReads(nodes[second])).isEqualTo(before);
        }
    }

    private static long sum(AtomicLongArray a) {
        long s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** A field of node {@code m}'s own view of the cluster ({@code GET /cluster}). */
    private static long view(ClusterMember m, String field) {
        try {
            return JSON.readTree(m.status()).get(field).asLong();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aNodeThatMissedThePurgedLogCatchesUpFromACheckpointAndServesWhenItLeads() throws Exception {
        // A checkpoint every 40 entries, the log kept for 40 more, in small segments: a node down for 150 writes comes
        // back to find the entries it lacks purged everywhere.
        retention = new ClusterNode.LogRetention(40, 4096);
        startThree();
        int leader = leader();
        int away = (leader + 1) % 3;
        try (DynamoDbClient ddb = client(nodes[leader])) {
            createWithIndex(ddb, "snapshots", "group", "by-group");
            long appliedWhenStopped = view(nodes[away], "appliedIndex");
            nodes[away].close();
            nodes[away] = null;
            for (int i = 0; i < 150; i++) {
                String id = "item-" + i;
                ddb.putItem(p -> p.tableName("snapshots")
                        .item(java.util.Map.of(
                                "id", attr(id),
                                "group", attr("g"),
                                "n", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromN("1"))));
            }
            ClusterMember lead = nodes[leader];
            await("the leader purging its log", () -> view(lead, "logStartIndex") > appliedWhenStopped + 1);
        }

        // Back, it installs the leader's checkpoint and applies the log after it.
        start(away);
        ClusterMember back = nodes[away];
        ClusterMember lead = nodes[leader];
        await(
                "n" + away + " catching up",
                () -> view(back, "appliedIndex") >= view(lead, "commitIndex") && view(back, "snapshotIndex") > 0);

        // It leads once the others have stopped in turn until it is elected, and answers from the installed store:
        // the items, and the index's copies of them.
        for (int tries = 0; tries < 8 && leader() != away; tries++) {
            int old = leader();
            nodes[old].close();
            nodes[old] = null;
            leader();
            start(old);
        }
        assertThat(leader()).isEqualTo(away);
        try (DynamoDbClient ddb = client(nodes[away])) {
            assertThat(ddb.scan(r -> r.tableName("snapshots").consistentRead(true))
                            .count())
                    .isEqualTo(150);
            await(
                    "the index holding every item",
                    () -> ddb.query(q -> q.tableName("snapshots")
                                            .indexName("by-group")
                                            .keyConditionExpression("#g = :g")
                                            .expressionAttributeNames(java.util.Map.of("#g", "group"))
                                            .expressionAttributeValues(java.util.Map.of(":g", attr("g"))))
                                    .count()
                            == 150);
            ddb.putItem(p -> p.tableName("snapshots").item(java.util.Map.of("id", attr("after"), "group", attr("g"))));
            assertThat(ddb.getItem(g -> g.tableName("snapshots")
                                    .key(java.util.Map.of("id", attr("after")))
                                    .consistentRead(true))
                            .hasItem())
                    .isTrue();
        }
    }

    private static software.amazon.awssdk.services.dynamodb.model.AttributeValue attr(String s) {
        return software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(s);
    }

    private static HttpResponse<String> changeMembers(ClusterMember via, String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/cluster/members"))
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> memberIds(ClusterMember m) {
        try {
            List<String> out = new ArrayList<>();
            JSON.readTree(m.status())
                    .get("members")
                    .forEach(e -> out.add(e.get("id").asText()));
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aNodeJoinsThroughAnyNodeCatchesUpAndServesAfterTheNodeItReplacesIsRemoved() throws Exception {
        startThree();
        int leader = leader();
        int follower = (leader + 1) % 3;
        try (DynamoDbClient ddb = client(nodes[follower])) {
            ddb.createTable(t -> t.tableName("joined")
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            for (int i = 0; i < 50; i++) {
                String id = "item-" + i;
                ddb.putItem(p -> p.tableName("joined").item(java.util.Map.of("id", attr(id))));
            }
        }

        // Bad changes are refused, and change nothing.
        assertThat(changeMembers(nodes[follower], "{\"add\": \"n9=127.0.0.1:notaport:1\"}")
                        .statusCode())
                .isEqualTo(400);
        assertThat(changeMembers(nodes[follower], "not json").statusCode()).isEqualTo(400);
        HttpResponse<String> twice = changeMembers(nodes[follower], "{\"add\": \"n0=127.0.0.1:1:2\"}");
        assertThat(twice.statusCode()).isEqualTo(400);
        assertThat(twice.body()).contains("n0 is already a member");
        HttpResponse<String> tooFew = changeMembers(nodes[follower], "{\"remove\": \"n0\"}");
        assertThat(tooFew.statusCode()).isEqualTo(400);
        assertThat(tooFew.body()).contains("at least 3 members");
        assertThat(memberIds(nodes[leader])).containsExactly("n0", "n1", "n2");

        // n3 starts knowing only itself and the others' addresses; it waits to be added, through a follower.
        members.add(new ClusterConfig.Member("n3", "127.0.0.1", FreePorts.next(), FreePorts.next()));
        nodes[3] = startNode(dir, "it", members, 3, retention, true, false);
        assertThat(memberIds(nodes[3])).isEmpty();
        ClusterConfig.Member n3 = members.get(3);
        HttpResponse<String> added = changeMembers(
                nodes[follower], "{\"add\": \"n3=127.0.0.1:" + n3.raftPort() + ":" + n3.apiPort() + "\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        assertThat(added.body()).contains("\"n3\"");
        for (ClusterMember m : nodes) {
            await(m.nodeId() + " knowing four members", () -> memberIds(m).equals(List.of("n0", "n1", "n2", "n3")));
        }
        ClusterMember lead = nodes[leader];
        await("n3 catching up", () -> view(nodes[3], "appliedIndex") >= view(lead, "commitIndex"));

        // The leader is removed and stopped: the three others, n3 among them, elect a leader and serve every item.
        HttpResponse<String> removed = changeMembers(nodes[3], "{\"remove\": \"n" + leader + "\"}");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        nodes[leader].close();
        nodes[leader] = null;
        leader();
        try (DynamoDbClient ddb = client(nodes[3])) {
            assertThat(ddb.scan(r -> r.tableName("joined").consistentRead(true)).count())
                    .isEqualTo(50);
            ddb.putItem(p -> p.tableName("joined").item(java.util.Map.of("id", attr("after"))));
            assertThat(ddb.getItem(g -> g.tableName("joined")
                                    .key(java.util.Map.of("id", attr("after")))
                                    .consistentRead(true))
                            .hasItem())
                    .isTrue();
        }
        for (ClusterMember m : nodes) {
            if (m != null) {
                assertThat(memberIds(m)).hasSize(3).doesNotContain("n" + leader);
            }
        }
        // The removed node's id at another address is refused: the nodes' Raft servers would go on sending to the
        // address they first knew it by, and the new member would never catch up.
        ClusterConfig.Member gone = members.get(leader);
        int otherPort = FreePorts.next();
        HttpResponse<String> elsewhere = changeMembers(
                nodes[3], "{\"add\": \"" + gone.id() + "=127.0.0.1:" + otherPort + ":" + FreePorts.next() + "\"}");
        assertThat(elsewhere.statusCode()).as(elsewhere.body()).isEqualTo(400);
        assertThat(elsewhere.body())
                .contains("node " + gone.id() + " is known to this node's Raft server at 127.0.0.1:" + gone.raftPort())
                .contains("add the node at 127.0.0.1:" + otherPort + " with a new id");
        for (ClusterMember m : nodes) {
            if (m != null) {
                assertThat(memberIds(m)).hasSize(3).doesNotContain(gone.id());
            }
        }
    }
}
