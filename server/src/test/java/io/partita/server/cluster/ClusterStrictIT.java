package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.cluster.ClusterNode;
import io.partita.server.auth.Accounts;
import io.partita.server.cli.ServerConfig;
import io.partita.server.fault.FaultPlan;
import io.partita.server.fault.FaultRule;
import io.partita.server.netty.Transport;
import io.partita.server.wire.FreePorts;
import io.partita.storage.StorageConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Three nodes in strict mode: each account's store is a Raft group of its own, led by a node of its own. A request
 * signed with an account's key reaches its account's leader through any node; the accounts stay apart; one account's
 * leader's death moves that account's group only, and the node catches up and leads it again when it returns.
 */
class ClusterStrictIT {
    /** Three accounts, in the order their groups prefer n0, n1 and n2 as leaders. */
    private static final List<String> ACCOUNTS = List.of("111111111111", "222222222222", "333333333333");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<ClusterConfig.Member> members = new ArrayList<>();
    private final ClusterMember[] nodes = new ClusterMember[3];
    /** A fourth node, when a test adds one. */
    private ClusterMember fourth;

    private Accounts accounts;

    @AfterEach
    void stopAll() {
        closeAtOnce(nodes[0], nodes[1], nodes[2], fourth);
    }

    /**
     * Closes {@code members} (nulls skipped) at once, each on a thread of its own, and waits for them all. A node's
     * close waits up to a second for each of its groups' log writers (Ratis's worker polls its queue by the second, and
     * stops only when a poll ends): nodes closed in turn would add their waits up.
     */
    static void closeAtOnce(ClusterMember... members) {
        List<Thread> closing = new java.util.ArrayList<>();
        for (ClusterMember m : members) {
            if (m != null) {
                Thread t = new Thread(m::close, "closing-" + m.nodeId());
                t.start();
                closing.add(t);
            }
        }
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Keys {@code AK<a>} (secret {@code secret-<a>}) for the three accounts, and {@code extra} fields of the file. */
    private void writeAccounts(String extra) throws Exception {
        accounts = writeAccounts(dir, ACCOUNTS, extra);
    }

    /**
     * A credentials file in {@code dir} with a key {@code AK<a>} (secret {@code secret-<a>}) for account {@code a} of
     * {@code ids}, and {@code extra} fields.
     */
    static Accounts writeAccounts(Path dir, List<String> ids, String extra) throws Exception {
        StringBuilder keys = new StringBuilder("{\"accounts\": [");
        for (int a = 0; a < ids.size(); a++) {
            keys.append(a == 0 ? "" : ", ")
                    .append("{\"accountId\": \"")
                    .append(ids.get(a))
                    .append("\", \"accessKeyId\": \"AK")
                    .append(a)
                    .append("\", \"secretAccessKey\": \"secret-")
                    .append(a)
                    .append("\"}");
        }
        Path file = dir.resolve("credentials.json");
        Files.writeString(file, keys.append("]").append(extra).append("}").toString());
        return Accounts.load(file);
    }

    /** A request on this table (which is never made) answers {@value #SLOW_MILLIS} ms late on the nodes of start. */
    private static final String SLOW = "slow";

    private static final long SLOW_MILLIS = 6_000;

    private ClusterMember start(int i) throws Exception {
        nodes[i] = startNode(
                dir,
                new ClusterConfig("strict", "n" + i, members).withFollowerReads(true),
                i,
                accounts,
                new FaultPlan(
                        1, List.of(FaultRule.Spec.parse("fault=latency,table=" + SLOW + ",latency=" + SLOW_MILLIS))));
        return nodes[i];
    }

    /**
     * Node {@code i} of {@code cluster}'s members in this JVM, its replica under {@code dir}, with loopback's timings,
     * strict with {@code accounts} (open mode when null).
     */
    static ClusterMember startNode(Path dir, ClusterConfig cluster, int i, Accounts accounts) throws Exception {
        return startNode(dir, cluster, i, accounts, FaultPlan.none());
    }

    private static ClusterMember startNode(Path dir, ClusterConfig cluster, int i, Accounts accounts, FaultPlan faults)
            throws Exception {
        return startNode(cluster, i, accounts, faults, StorageConfig.disk(dir.resolve("n" + i)));
    }

    /**
     * Node {@code i} of {@code cluster}, in open mode, each of its stores splitting a partition for its size past
     * {@code partitionBytes} (DynamoDB's 10 GB by default).
     */
    static ClusterMember startNode(Path dir, ClusterConfig cluster, int i, long partitionBytes) throws Exception {
        return startNode(dir, cluster, i, partitionBytes, 0);
    }

    /** As above, each global secondary index applying each change {@code gsiLagMillis} after it (--gsi-lag). */
    static ClusterMember startNode(Path dir, ClusterConfig cluster, int i, long partitionBytes, long gsiLagMillis)
            throws Exception {
        StorageConfig storage = StorageConfig.disk(dir.resolve("n" + i)).withGsiLagMillis(gsiLagMillis);
        return startNode(
                cluster,
                i,
                null,
                FaultPlan.none(),
                storage.withCapacity(storage.capacity().withPartitionSizeLimit(partitionBytes)));
    }

    private static ClusterMember startNode(
            ClusterConfig cluster, int i, Accounts accounts, FaultPlan faults, StorageConfig storage) throws Exception {
        ServerConfig server = new ServerConfig(
                        "127.0.0.1", cluster.members().get(i).apiPort(), storage, "us-east-1", 4, Transport.NIO)
                .withFaults(faults);
        if (accounts != null) {
            server = server.strict(accounts);
        }
        return ClusterMember.start(cluster, server, ClusterNode.Timings.loopback(), s -> {});
    }

    private static DynamoDbClient client(ClusterMember node, String key, String secret) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + node.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create(key, secret))
                .build();
    }

    /** Account {@code a}'s client (key {@code AK<a>}) through node {@code via}. */
    private DynamoDbClient as(int a, int via) {
        return client(nodes[via], "AK" + a, "secret-" + a);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    static void put(DynamoDbClient ddb, String id, String value) {
        ddb.putItem(r ->
                r.tableName("orders").item(Map.of("pk", AttributeValue.fromS(id), "v", AttributeValue.fromS(value))));
    }

    static String get(DynamoDbClient ddb, String id) {
        Map<String, AttributeValue> item = ddb.getItem(r -> r.tableName("orders")
                        .key(Map.of("pk", AttributeValue.fromS(id)))
                        .consistentRead(true))
                .item();
        return item.isEmpty() ? null : item.get("v").s();
    }

    private static JsonNode view(ClusterMember m) throws Exception {
        return JSON.readTree(m.status());
    }

    /** Which node leads each account's group, as node {@code m} sees it. */
    private static Map<String, String> leaders(ClusterMember m) throws Exception {
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode g : view(m).get("groups")) {
            out.put(g.get("account").asText(), g.get("leader").asText());
        }
        return out;
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachAccountIsAGroupOfItsOwnLedByANodeOfItsOwnAndReachedThroughAnyNode() throws Exception {
        writeAccounts("");
        for (int i = 0; i < 3; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        // Account k's group prefers node k: the leaders spread over the three nodes.
        for (int a = 0; a < 3; a++) {
            int at = a;
            await("account " + a + "'s group served by n" + a, () -> nodes[at].serving(ACCOUNTS.get(at)));
        }
        await(
                "every node knowing each group's leader",
                () -> java.util.Arrays.stream(nodes).allMatch(n -> {
                    try {
                        return leaders(n)
                                .equals(Map.of(ACCOUNTS.get(0), "n0", ACCOUNTS.get(1), "n1", ACCOUNTS.get(2), "n2"));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));

        // Each account makes a table of the same name through a node that does not lead its group, and puts an item
        // of its own in it: the accounts' tables are apart, as on a single node in strict mode.
        for (int a = 0; a < 3; a++) {
            try (DynamoDbClient ddb = as(a, (a + 1) % 3)) {
                ddb.createTable(r -> r.tableName("orders")
                        .attributeDefinitions(d -> d.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                        .billingMode("PAY_PER_REQUEST"));
                put(ddb, "k", "of-" + a);
                String arn =
                        ddb.describeTable(r -> r.tableName("orders")).table().tableArn();
                assertThat(arn).contains(":" + ACCOUNTS.get(a) + ":table/orders");
            }
        }
        for (int a = 0; a < 3; a++) {
            for (int via = 0; via < 3; via++) {
                try (DynamoDbClient ddb = as(a, via)) {
                    assertThat(get(ddb, "k"))
                            .as("account %d through n%d", a, via)
                            .isEqualTo("of-" + a);
                }
            }
        }

        // A key of no account, a wrong secret and no signature are refused through any node, as a single node
        // refuses them.
        try (DynamoDbClient nobody = client(nodes[1], "AKNOBODY", "x")) {
            assertThatThrownBy(nobody::listTables)
                    .isInstanceOf(DynamoDbException.class)
                    .hasMessageContaining("The security token included in the request is invalid");
        }
        try (DynamoDbClient wrong = client(nodes[2], "AK1", "not-the-secret")) {
            assertThatThrownBy(wrong::listTables)
                    .isInstanceOf(DynamoDbException.class)
                    .satisfies(e -> assertThat(
                                    ((DynamoDbException) e).awsErrorDetails().errorCode())
                            .isEqualTo("InvalidSignatureException"));
        }
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> unsigned = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[0].port() + "/"))
                        .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                        .header("Content-Type", "application/x-amz-json-1.0")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(400);
        assertThat(unsigned.body()).contains("MissingAuthenticationTokenException");
        // A presigned URL whose credential does not decode (which no HTTP client of Java's sends) is answered too, not
        // dropped by the router.
        try (java.net.Socket raw = new java.net.Socket("127.0.0.1", nodes[2].port())) {
            raw.setSoTimeout(10_000);
            raw.getOutputStream()
                    .write(
                            ("POST /?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=%ZZ&X-Amz-Signature=00 HTTP/1.1\r\n"
                                            + "Host: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                                            + "Content-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n"
                                            + "Connection: close\r\n\r\n{}")
                                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String answer = new String(raw.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("InvalidSignatureException");
        }

        // With follower reads, a node that follows account 0's group answers that account's eventually consistent
        // reads from its own replica of that group, not from the group it leads: n1 leads account 1's.
        long before = followerReads(http, nodes[1]);
        try (DynamoDbClient ddb = as(0, 1)) {
            await("an eventually consistent read through n1 answered by its reader", () -> {
                Map<String, AttributeValue> item = ddb.getItem(
                                r -> r.tableName("orders").key(Map.of("pk", AttributeValue.fromS("k"))))
                        .item();
                assertThat(item.get("v").s()).isEqualTo("of-0");
                return followerReads(http, nodes[1]) > before;
            });
        }

        // Each node's view and metrics name every group and its leader.
        JsonNode v = view(nodes[0]);
        assertThat(v.get("groups")).hasSize(3);
        Set<String> groupIds = new HashSet<>();
        v.get("groups").forEach(g -> groupIds.add(g.get("group").asText()));
        assertThat(groupIds).hasSize(3);
        String metrics = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[1].port() + "/cluster/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .contains(
                        "partita_cluster_leader{group=\"222222222222\",node=\"n1\"} 1",
                        "partita_cluster_leader{group=\"111111111111\",node=\"n1\"} 0",
                        "partita_cluster_serving{group=\"222222222222\",node=\"n1\"} 1");
        // A change of the members must be signed by one of the credentials' clusterAdmins, and this file has none:
        // refused, and nothing changes.
        HttpResponse<String> change = signedPost(nodes[0], "{\"remove\": \"n2\"}", "AK0", "secret-0");
        assertThat(change.statusCode()).isEqualTo(400);
        assertThat(change.body())
                .contains("AccessDeniedException")
                .contains("the credentials file lists no account in clusterAdmins");
        assertThat(view(nodes[0]).get("members")).hasSize(3);

        // n1, account 1's leader, stops: account 1's group elects another leader and takes writes through any node;
        // the other accounts' leaders stay where they were.
        nodes[1].close();
        nodes[1] = null;
        await(
                "account 1's group served again",
                () -> nodes[0].serving(ACCOUNTS.get(1)) || nodes[2].serving(ACCOUNTS.get(1)));
        try (DynamoDbClient ddb = as(1, 0)) {
            put(ddb, "while-down", "written");
            assertThat(get(ddb, "k")).isEqualTo("of-1");
        }
        assertThat(nodes[0].serving(ACCOUNTS.get(0))).isTrue();
        assertThat(nodes[2].serving(ACCOUNTS.get(2))).isTrue();

        // It returns, catches up on every group, and leads account 1's again, with the write it missed.
        start(1);
        await("n1 leading account 1's group again", () -> nodes[1].serving(ACCOUNTS.get(1)));
        try (DynamoDbClient ddb = as(1, 1)) {
            assertThat(get(ddb, "while-down")).isEqualTo("written");
            assertThat(ddb.listTables().tableNames()).containsExactly("orders");
        }
        try (DynamoDbClient ddb = as(2, 1)) {
            assertThat(get(ddb, "k")).isEqualTo("of-2");
            assertThat(get(ddb, "while-down")).isNull();
        }
    }

    /** The reads node {@code m} answered from its own replica as a follower. */
    static long followerReads(HttpClient http, ClusterMember m) {
        try {
            String scrape = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/cluster/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            String sample = "partita_cluster_follower_reads_total{node=\"" + m.nodeId() + "\"} ";
            for (String line : scrape.split("\n")) {
                if (line.startsWith(sample)) {
                    return (long)
                            Double.parseDouble(line.substring(sample.length()).trim());
                }
            }
            throw new AssertionError("no " + sample + " in " + scrape);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOpenClustersTablesBecomeAccountZerosWhoseGroupThenPrefersALeaderOfItsOwn() throws Exception {
        for (int i = 0; i < 3; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        // Open mode first: one group, which prefers no member.
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        ClusterIT.awaitServing(nodes);
        try (DynamoDbClient ddb = client(nodes[2], "anyone", "anything")) {
            ddb.createTable(r -> r.tableName("orders")
                    .attributeDefinitions(d -> d.attributeName("pk").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            put(ddb, "k", "from-open-mode");
        }
        closeAtOnce(nodes);
        java.util.Arrays.fill(nodes, null);

        // Strict mode on the same directories, with account 000000000000 first and another: the open cluster's group is
        // account 000000000000's, and its leader makes it prefer n0; the new account's group prefers n1 from the start.
        Path file = dir.resolve("credentials.json");
        Files.writeString(
                file,
                "{\"accounts\": [{\"accountId\": \"000000000000\", \"accessKeyId\": \"AK0\", \"secretAccessKey\":"
                        + " \"secret-0\"}, {\"accountId\": \"111111111111\", \"accessKeyId\": \"AK1\","
                        + " \"secretAccessKey\": \"secret-1\"}]}");
        accounts = Accounts.load(file);
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        await("account 000000000000's group led by n0", () -> nodes[0].serving("000000000000"));
        await("account 111111111111's group led by n1", () -> nodes[1].serving("111111111111"));
        try (DynamoDbClient ddb = as(0, 2)) {
            assertThat(get(ddb, "k")).isEqualTo("from-open-mode");
        }
        try (DynamoDbClient ddb = as(1, 2)) {
            assertThat(ddb.listTables().tableNames()).isEmpty();
        }
    }

    /** {@code body} to {@code /cluster/members} through {@code node}, signed with the key as the AWS SDK signs. */
    static HttpResponse<String> signedPost(ClusterMember node, String body, String key, String secret)
            throws Exception {
        return signed(node, "POST", "/cluster/members", body, key, secret);
    }

    /** {@code method} of {@code path} with {@code body} through {@code node}, signed with {@code key}. */
    static HttpResponse<String> signed(
            ClusterMember node, String method, String path, String body, String key, String secret) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + node.port() + path);
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        software.amazon.awssdk.http.SdkHttpRequest signed =
                software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.create()
                        .sign(r -> r.identity(
                                        software.amazon.awssdk.identity.spi.AwsCredentialsIdentity.create(key, secret))
                                .request(software.amazon.awssdk.http.SdkHttpRequest.builder()
                                        .method(software.amazon.awssdk.http.SdkHttpMethod.fromValue(method))
                                        .uri(uri)
                                        .build())
                                .payload(() -> new java.io.ByteArrayInputStream(bytes))
                                .putProperty(
                                        software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner
                                                .SERVICE_SIGNING_NAME,
                                        "dynamodb")
                                .putProperty(
                                        software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.REGION_NAME,
                                        "us-east-1"))
                        .request();
        HttpRequest.Builder b =
                HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
        signed.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host") && !name.equalsIgnoreCase("content-length")) {
                values.forEach(v -> b.header(name, v));
            }
        });
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Each group's members, by account, as node {@code m} knows them. */
    private static Map<String, Set<String>> groupMembers(ClusterMember m) throws Exception {
        Map<String, Set<String>> out = new java.util.TreeMap<>();
        for (JsonNode g : view(m).get("groups")) {
            Set<String> ids = new java.util.TreeSet<>();
            g.get("members").forEach(p -> ids.add(p.get("id").asText()));
            out.put(g.get("account").asText(), ids);
        }
        return out;
    }

    private static boolean everyGroupHas(ClusterMember m, Set<String> ids) {
        try {
            return groupMembers(m).values().stream().allMatch(ids::equals);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aClusterAdminAddsANodeToEveryGroupThenRemovesOneAndTheLeadersSpreadAgain() throws Exception {
        writeAccounts(", \"clusterAdmins\": [\"" + ACCOUNTS.get(2) + "\"]");
        for (int i = 0; i < 4; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        List<ClusterConfig.Member> four = List.copyOf(members);
        members.remove(3);
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        for (int a = 0; a < 3; a++) {
            int at = a;
            await("account " + a + "'s group served by n" + a, () -> nodes[at].serving(ACCOUNTS.get(at)));
            try (DynamoDbClient ddb = as(a, a)) {
                ddb.createTable(r -> r.tableName("orders")
                        .attributeDefinitions(d -> d.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                        .billingMode("PAY_PER_REQUEST"));
                put(ddb, "k", "of-" + a);
            }
        }
        // n3 starts new to the cluster: it waits, in no group's configuration.
        fourth = ClusterMember.start(
                new ClusterConfig("strict", "n3", four).joining(true),
                new ServerConfig(
                                "127.0.0.1",
                                four.get(3).apiPort(),
                                StorageConfig.disk(dir.resolve("n3")),
                                "us-east-1",
                                4,
                                Transport.NIO)
                        .strict(accounts),
                ClusterNode.Timings.loopback(),
                s -> {});
        String add = "{\"add\": \"" + four.get(3).id() + "=127.0.0.1:"
                + four.get(3).raftPort() + ":" + four.get(3).apiPort() + "\"}";

        // Unsigned, or signed by an account that is not a cluster admin: refused as DynamoDB refuses, nothing changes.
        HttpResponse<String> unsigned = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[1].port() + "/cluster/members"))
                                .POST(HttpRequest.BodyPublishers.ofString(add))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(400);
        assertThat(unsigned.body()).contains("MissingAuthenticationTokenException");
        HttpResponse<String> notAdmin = signedPost(nodes[1], add, "AK0", "secret-0");
        assertThat(notAdmin.statusCode()).isEqualTo(400);
        assertThat(notAdmin.body())
                .contains("AccessDeniedException")
                .contains(
                        "arn:aws:iam::" + ACCOUNTS.get(0) + ":root is not authorized to change the cluster's members");
        HttpResponse<String> badSecret = signedPost(nodes[1], add, "AK2", "wrong");
        assertThat(badSecret.statusCode()).isEqualTo(400);
        assertThat(badSecret.body()).contains("InvalidSignatureException");
        assertThat(everyGroupHas(nodes[0], Set.of("n0", "n1", "n2"))).isTrue();

        // The admin's change, sent to a node that does not make it (n1: n0 leads the first group), is made to every
        // group; each node learns each group's new members.
        HttpResponse<String> added = signedPost(nodes[1], add, "AK2", "secret-2");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        assertThat(JSON.readTree(added.body()).get("members")).hasSize(4);
        Set<String> withN3 = Set.of("n0", "n1", "n2", "n3");
        for (ClusterMember m : List.of(nodes[0], nodes[1], nodes[2], fourth)) {
            await(m.nodeId() + " knowing n3 in every group", () -> everyGroupHas(m, withN3));
        }
        // The same change again: every group has it already.
        HttpResponse<String> again = signedPost(nodes[2], add, "AK2", "secret-2");
        assertThat(again.statusCode()).isEqualTo(400);
        assertThat(again.body()).contains("node n3 is already a member");

        // n0 removed, through n3: every group keeps n1, n2 and n3, account 0's group (n0's) elects another leader,
        // and the preferences follow the members that are left, in their order: account 2's group is now n3's.
        // Account 1's group goes from n1 to n2 while n1's server for it has a request in flight, which it lets finish
        // as it closes: n1 meanwhile leads account 0's group, and serves it. The request is not retried: it ends as
        // n1's server for account 1 answers it or closes its connection.
        DynamoDbClient slowClient = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + nodes[1].port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AK1", "secret-1"))
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1)))
                .build();
        java.util.concurrent.CompletableFuture<Void> slow = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                slowClient.getItem(r -> r.tableName(SLOW).key(Map.of("pk", AttributeValue.fromS("k"))));
            } catch (software.amazon.awssdk.core.exception.SdkException expected) {
                // No such table, answered once the latency has passed; or the server's connection closed.
            }
        });
        await("the slow request to reach n1's server for account 1", () -> {
            try {
                HttpResponse<String> faults = signed(nodes[1], "GET", "/admin/faults", "", "AK1", "secret-1");
                return JSON.readTree(faults.body())
                                .get("faults")
                                .get(0)
                                .get("injected")
                                .asInt()
                        == 1;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        HttpResponse<String> removed = signedPost(fourth, "{\"remove\": \"n0\"}", "AK2", "secret-2");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        await(
                "account 0's group led by n1, and account 1's no longer",
                () -> nodes[1].serving(ACCOUNTS.get(0)) && !nodes[1].serving(ACCOUNTS.get(1)));
        assertThat(slow)
                .as("the request in flight on n1's server for account 1")
                .isNotDone();
        slowClient.close(); // not waited for: n1's server lets it finish as it closes
        Set<String> withoutN0 = Set.of("n1", "n2", "n3");
        for (ClusterMember m : List.of(nodes[1], nodes[2], fourth)) {
            await(m.nodeId() + " knowing every group without n0", () -> everyGroupHas(m, withoutN0));
        }
        // n0 led account 0's group and removed itself from it: it steps down once the change is committed.
        await("n0 no longer serving account 0", () -> !nodes[0].serving(ACCOUNTS.get(0)));
        nodes[0].close();
        nodes[0] = null;
        await("account 0's group led by n1", () -> nodes[1].serving(ACCOUNTS.get(0)));
        await("account 1's group led by n2", () -> nodes[2].serving(ACCOUNTS.get(1)));
        await("account 2's group led by n3", () -> fourth.serving(ACCOUNTS.get(2)));
        for (int a = 0; a < 3; a++) {
            try (DynamoDbClient ddb = client(fourth, "AK" + a, "secret-" + a)) {
                assertThat(get(ddb, "k")).isEqualTo("of-" + a);
                put(ddb, "after", "n0-removed");
            }
            try (DynamoDbClient ddb = as(a, 1)) {
                assertThat(get(ddb, "after")).isEqualTo("n0-removed");
            }
        }
        HttpResponse<String> gone = signedPost(nodes[2], "{\"remove\": \"n0\"}", "AK2", "secret-2");
        assertThat(gone.statusCode()).isEqualTo(400);
        assertThat(gone.body()).contains("node n0 is not a member");

        // Every group on every member: an account new to n1 would get its group on the members its flags name (n0 to
        // n2), so n1, whose members changed, refuses to start with one, and starts again as it was.
        await("n1 to record the members now", () -> {
            try {
                return Files.readString(dir.resolve("n1/raft/" + PlacementRecord.FILE))
                        .contains("current=n1,n2,n3");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        nodes[1].close();
        nodes[1] = null;
        List<String> more = new java.util.ArrayList<>(ACCOUNTS);
        more.add("444444444444");
        Accounts before = accounts;
        accounts = writeAccounts(Files.createDirectories(dir.resolve("more")), more, "");
        assertThatThrownBy(() -> start(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("account 444444444444's group is not on it")
                .hasMessageContaining("made with --cluster-replicas");
        nodes[1] = null;
        accounts = before;
        start(1);
        try (DynamoDbClient ddb = as(1, 1)) {
            assertThat(get(ddb, "after")).isEqualTo("n0-removed");
        }
    }
}
