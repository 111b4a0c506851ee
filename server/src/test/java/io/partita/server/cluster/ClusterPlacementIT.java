package io.partita.server.cluster;

import static io.partita.server.cluster.ClusterStrictIT.await;
import static io.partita.server.cluster.ClusterStrictIT.get;
import static io.partita.server.cluster.ClusterStrictIT.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.cluster.ClusterNode;
import io.partita.server.auth.Accounts;
import io.partita.server.console.Chromium;
import io.partita.server.wire.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ContributorInsightsAction;
import software.amazon.awssdk.services.dynamodb.model.ContributorInsightsStatus;
import software.amazon.awssdk.services.dynamodb.model.ContributorInsightsSummary;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Four nodes whose groups are each placed on three of them ({@code --cluster-replicas 3}). In strict mode with four
 * accounts, account k's group is on nodes k, k+1 and k+2 (modulo four) and led by node k; the fourth node keeps no
 * replica of it, and sends its requests to the leader it learns from the group's members, also after that leader
 * stops. In open mode, the one group is on n0 to n2, and n3 only routes. With a Raft group per table ({@code
 * --cluster-table-groups}), each table an account makes is a group of its own, placed and led apart from the account's;
 * requests reach it through any node; its leader's death moves that table only; an empty one is closed.
 */
class ClusterPlacementIT {
    private static final List<String> ACCOUNTS =
            List.of("111111111111", "222222222222", "333333333333", "444444444444");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<ClusterConfig.Member> members = new ArrayList<>();
    private final ClusterMember[] nodes = new ClusterMember[5];
    private Accounts accounts;
    private final Map<String, DynamoDbClient> clients = new java.util.HashMap<>();
    /** Whether the nodes {@link #start} make a Raft group of each table ({@code --cluster-table-groups}). */
    private boolean tableGroups;

    @AfterEach
    void stopAll() {
        clients.values().forEach(DynamoDbClient::close);
        ClusterStrictIT.closeAtOnce(nodes);
    }

    private ClusterMember start(int i, int replicas) throws Exception {
        nodes[i] = ClusterStrictIT.startNode(
                dir,
                new ClusterConfig("placed", "n" + i, members)
                        .withReplicas(replicas)
                        .withTableGroups(tableGroups)
                        .withPartitionGroups(tableGroups)
                        .withFollowerReads(true),
                i,
                accounts);
        return nodes[i];
    }

    /** Starts node {@code i} with {@code flags} as its members, R = 3 and follower reads, on its data directory. */
    private ClusterMember startWith(int i, List<ClusterConfig.Member> flags, Accounts keys) throws Exception {
        nodes[i] = ClusterStrictIT.startNode(
                dir, new ClusterConfig("placed", "n" + i, flags).withReplicas(3).withFollowerReads(true), i, keys);
        return nodes[i];
    }

    private void startFour() throws Exception {
        for (int i = 0; i < 4; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        for (int i = 0; i < 4; i++) {
            start(i, 3);
        }
    }

    /** Account {@code a}'s client (key {@code AK<a>}; any key in open mode) through node {@code via}, made once. */
    private DynamoDbClient as(int a, int via) {
        return clients.computeIfAbsent(a + "@" + via, k -> client(a, members.get(via)));
    }

    /** Account {@code a}'s client (its key as {@link ClusterStrictIT#writeAccounts} writes it) through {@code via}. */
    static DynamoDbClient client(int a, ClusterConfig.Member via) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + via.apiPort()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AK" + a, "secret-" + a))
                .build();
    }

    /** A TransactWriteItems member that adds 1 to {@code c} of item {@code pk} of {@code table}, as JSON. */
    private static String adding(String table, String pk) {
        return "{\"Update\":{\"TableName\":\"" + table + "\",\"Key\":{\"pk\":{\"S\":\"" + pk + "\"}},"
                + "\"UpdateExpression\":\"ADD c :one\",\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}}";
    }

    /** Sends {@code json} as Partita's own operation {@code target} for account {@code a} to {@code via}, signed. */
    private int partita(int a, ClusterConfig.Member via, String target, String json) throws Exception {
        return partitaAnswer(a, via, target, json, null).statusCode();
    }

    /** {@link #partitaAnswer}'s status and body, as one string ("503 {...}"). */
    private String send(int a, int via, String target, String json, String group) {
        try {
            var answer = partitaAnswer(a, members.get(via), target, json, group);
            return answer.statusCode() + " " + answer.body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends {@code json} as operation {@code target} for account {@code a} to {@code via}, signed; as a share another
     * node sends to group {@code group} (its {@code x-partita-group}) when that is not null.
     */
    private java.net.http.HttpResponse<String> partitaAnswer(
            int a, ClusterConfig.Member via, String target, String json, String group) throws Exception {
        return signed(a, via, "/", target, json, group, java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A signed request of account {@code a} to {@code via}: a POST of {@code json} as operation {@code target} to
     * {@code path}, or a GET of {@code path} when {@code target} is null; sent to group {@code group} as a share
     * another node sends when that is not null; with the headers {@code more} (names and values, not signed).
     */
    private <T> java.net.http.HttpResponse<T> signed(
            int a,
            ClusterConfig.Member via,
            String path,
            String target,
            String json,
            String group,
            java.net.http.HttpResponse.BodyHandler<T> answer,
            String... more)
            throws Exception {
        byte[] body = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String date = io.partita.server.auth.SigV4Verifier.amzDate(java.time.Instant.now());
        var headers = new io.netty.handler.codec.http.DefaultHttpHeaders()
                .set("host", via.apiAddress())
                .set("x-amz-date", date);
        List<String> names = List.of("host", "x-amz-date");
        if (target != null) {
            headers.set("content-type", "application/x-amz-json-1.0").set("x-amz-target", target);
            names = List.of("content-type", "host", "x-amz-date", "x-amz-target");
        }
        String method = target == null ? "GET" : "POST";
        String authorization = new io.partita.server.auth.SigV4Verifier(accounts, java.time.Clock.systemUTC())
                .authorization(
                        new io.partita.server.auth.Credentials("AK" + a, "us-east-1", ACCOUNTS.get(a)),
                        new ClusterRouter.Sent(method, path, headers, body),
                        date,
                        names);
        var request = java.net.http.HttpRequest.newBuilder(URI.create("http://" + via.apiAddress() + path))
                .header("x-amz-date", date)
                .header("authorization", authorization);
        if (target != null) {
            request.header("content-type", "application/x-amz-json-1.0").header("x-amz-target", target);
        }
        if (group != null) {
            request.header(ClusterRouter.GROUP, group).header(ClusterRouter.FORWARDED, "n9");
        }
        for (int i = 0; i < more.length; i += 2) {
            request.header(more[i], more[i + 1]);
        }
        return java.net.http.HttpClient.newHttpClient()
                .send(
                        request.method(method, java.net.http.HttpRequest.BodyPublishers.ofByteArray(body))
                                .build(),
                        answer);
    }

    private static JsonNode view(ClusterMember m) {
        try {
            return JSON.readTree(m.status());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The accounts of the groups placed on node {@code m}, and of those it routes to only. */
    private static List<String> accountsOf(JsonNode view, String list) {
        List<String> out = new ArrayList<>();
        view.get(list).forEach(g -> out.add(g.get("account").asText()));
        return out;
    }

    /** Whether node {@code m} knows {@code leader} as the leader of {@code account}'s group, placed on it or not. */
    private static boolean knows(ClusterMember m, String account, String leader) {
        JsonNode v = view(m);
        for (String list : List.of("groups", "elsewhere")) {
            for (JsonNode g : v.get(list)) {
                if (g.get("account").asText().equals(account)) {
                    return leader.equals(g.get("leader").asText());
                }
            }
        }
        return false;
    }

    /** Item {@code id}'s {@code v}, read eventually consistently; null when there is none. */
    private static String eventual(DynamoDbClient ddb, String id) {
        Map<String, AttributeValue> item = ddb.getItem(
                        r -> r.tableName("orders").key(Map.of("pk", AttributeValue.fromS(id))))
                .item();
        return item.isEmpty() ? null : item.get("v").s();
    }

    @SuppressWarnings("unchecked")
    private static void createTable(DynamoDbClient ddb) {
        ddb.createTable(t -> t.tableName("orders")
                .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                .billingMode("PAY_PER_REQUEST"));
    }

    @Test
    void eachAccountsGroupIsOnThreeOfFourNodesAndReachedThroughTheFourth() throws Exception {
        accounts = ClusterStrictIT.writeAccounts(dir, ACCOUNTS, "");
        startFour();
        for (int k = 0; k < 4; k++) {
            int a = k;
            await(
                    "account " + a + "'s group led by n" + a + ", known to every node",
                    () -> nodes[a].serving(ACCOUNTS.get(a))
                            && java.util.Arrays.stream(nodes)
                                    .filter(java.util.Objects::nonNull)
                                    .allMatch(m -> knows(m, ACCOUNTS.get(a), "n" + a)));
        }
        for (int i = 0; i < 4; i++) {
            JsonNode v = view(nodes[i]);
            // Node i holds the groups of accounts i, i-1 and i-2; account i+1's is on the three others.
            int away = (i + 1) % 4;
            assertThat(accountsOf(v, "groups"))
                    .as("groups on n%d", i)
                    .containsExactlyInAnyOrder(ACCOUNTS.get(i), ACCOUNTS.get((i + 3) % 4), ACCOUNTS.get((i + 2) % 4));
            assertThat(accountsOf(v, "elsewhere")).as("groups n%d routes to", i).containsExactly(ACCOUNTS.get(away));
            assertThat(v.get("elsewhere").get(0).get("placed"))
                    .extracting(JsonNode::asText)
                    .containsExactly("n" + away, "n" + (away + 1) % 4, "n" + (away + 2) % 4);
            for (JsonNode g : v.get("groups")) {
                assertThat(g.get("members")).hasSize(3);
            }
            // No replica of a group placed elsewhere: neither its store nor its Raft log.
            assertThat(dir.resolve("n" + i + "/accounts/" + ACCOUNTS.get(away)))
                    .as("n%d's store of account %s", i, away)
                    .doesNotExist();
            assertThat(dir.resolve("n" + i + "/raft/" + ClusterNode.groupId("placed", ACCOUNTS.get(away))))
                    .doesNotExist();
            assertThat(dir.resolve("n" + i + "/raft/" + ClusterNode.groupId("placed", ACCOUNTS.get(i))))
                    .isDirectory();
        }

        // Each account makes a table and writes through the node its group is not on, and reads through every node.
        for (int a = 0; a < 4; a++) {
            int via = (a + 3) % 4;
            createTable(as(a, via));
            put(as(a, via), "item", "account " + a);
            for (int i = 0; i < 4; i++) {
                assertThat(get(as(a, i), "item"))
                        .as("account %d through n%d", a, i)
                        .isEqualTo("account " + a);
            }
        }

        // With follower reads on, n1, a follower of account 0's group, answers that account's eventually consistent
        // reads from its replica; n3, not on the group, sends them to the leader and answers none itself.
        HttpClient http = HttpClient.newHttpClient();
        long n1Before = ClusterStrictIT.followerReads(http, nodes[1]);
        await(
                "an eventually consistent read through n1 answered by its reader",
                () -> "account 0".equals(eventual(as(0, 1), "item"))
                        && ClusterStrictIT.followerReads(http, nodes[1]) > n1Before);
        long n3Before = ClusterStrictIT.followerReads(http, nodes[3]);
        for (int r = 0; r < 5; r++) {
            assertThat(eventual(as(0, 3), "item")).isEqualTo("account 0");
        }
        assertThat(ClusterStrictIT.followerReads(http, nodes[3])).isEqualTo(n3Before);

        // Account 0's leader stops: its group (n0, n1, n2) elects n1 or n2, and n3 learns which from them.
        nodes[0].close();
        nodes[0] = null;
        await(
                "n3 to learn account 0's new leader",
                () -> !knows(nodes[3], ACCOUNTS.get(0), "n0")
                        && view(nodes[3]).get("elsewhere").get(0).hasNonNull("leader"));
        DynamoDbClient throughN3 = as(0, 3);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                put(throughN3, "item", "after n0 stopped");
                break;
            } catch (SdkException e) {
                assertThat(System.nanoTime())
                        .as("a write through n3 after n0 stopped: " + e)
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        assertThat(get(as(0, 1), "item")).isEqualTo("after n0 stopped");
        // The other accounts' groups go on: those with n0 among their members still have a majority.
        for (int a = 1; a < 4; a++) {
            put(as(a, 3), "item", "account " + a + " again");
            assertThat(get(as(a, 1), "item")).isEqualTo("account " + a + " again");
        }

        // n0 returns, catches up and leads account 0's group again; n3 sends account 0's requests there.
        start(0, 3);
        await(
                "n0 to lead account 0's group again, known to n3",
                () -> nodes[0].serving(ACCOUNTS.get(0)) && knows(nodes[3], ACCOUNTS.get(0), "n0"));
        assertThat(get(as(0, 3), "item")).isEqualTo("after n0 stopped");

        // The placement is fixed once made: a node started with another is refused, and changes nothing.
        nodes[1].close();
        nodes[1] = null;
        assertThatThrownBy(() -> start(1, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicas=3 of members n0,n1,n2,n3")
                .hasMessageContaining("replicas=4 of members n0,n1,n2,n3")
                .hasMessageContaining("cannot change yet")
                .hasMessageContaining("POST /cluster/members changes the members");
        // So is one given an account whose id comes before the others': every group would move along.
        Path more = Files.createDirectories(dir.resolve("more"));
        accounts = ClusterStrictIT.writeAccounts(
                more, List.of("100000000000", ACCOUNTS.get(0), ACCOUNTS.get(1), ACCOUNTS.get(2), ACCOUNTS.get(3)), "");
        assertThatThrownBy(() -> start(1, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("account 111111111111's group is on n0,n1,n2, and would now be on n1,n2,n3");
        nodes[1] = null;
        assertThat(Files.readString(dir.resolve("n1/raft/" + PlacementRecord.FILE)))
                .isEqualTo("replicas=3\nmembers=n0,n1,n2,n3\ngroup.111111111111=n0,n1,n2\ngroup.222222222222=n1,n2,n3"
                        + "\ngroup.333333333333=n2,n3,n0\ngroup.444444444444=n3,n0,n1\n");
    }

    @Test
    void inOpenModeTheFourthNodeHoldsNoReplicaAndRoutesToTheGroupsLeader() throws Exception {
        startFour();
        // The group prefers its first member: once n0 leads, the leadership stays.
        await("n0 to lead, known to n3", () -> nodes[0].serving() && knows(nodes[3], "000000000000", "n0"));
        JsonNode v = view(nodes[3]);
        assertThat(v.get("role").asText()).isEqualTo("NONE");
        assertThat(v.get("groups")).isEmpty();
        assertThat(v.get("elsewhere").get(0).get("placed"))
                .extracting(JsonNode::asText)
                .containsExactly("n0", "n1", "n2");
        assertThat(v.get("members")).hasSize(4);

        createTable(as(0, 3));
        put(as(0, 3), "item", "through n3");
        for (int i = 0; i < 4; i++) {
            assertThat(get(as(0, i), "item")).isEqualTo("through n3");
        }
        assertThat(dir.resolve("n3/raft/" + ClusterNode.groupId("placed"))).doesNotExist();

        for (int i = 0; i < 3; i++) {
            assertThat(view(nodes[i]).get("groups").get(0).get("members")).hasSize(3);
        }

        // The console's Cluster page, served by n3: n3 takes part in no group, and the group's row names its leader
        // and the members it is on.
        Chromium.require();
        WebDriver browser = Chromium.start();
        try {
            browser.get("http://127.0.0.1:" + nodes[3].port() + "/console/#/cluster");
            // Read in one go, each time the page may have redrawn: the group's row (its leader, then its members),
            // the leader's row with what it leads, n3's with no group, and the members' group's leader as n3 knows it.
            new WebDriverWait(browser, Duration.ofSeconds(60))
                    .until(d -> text(browser, "#cluster-members-leader")
                                    .equals(view(nodes[3])
                                            .get("membersGroup")
                                            .get("leader")
                                            .asText("none"))
                            && text(browser, "#cluster-groups tr[data-group='000000000000']")
                                    .matches("(?s)000000000000\\s+\\S+\\s+n0\\b.*n0, n1, n2.*")
                            && text(browser, "#cluster-members tr[data-node=n0]")
                                    .matches("(?s)n0.*\\s1\\s+000000000000.*")
                            && text(browser, "#cluster-members tr[data-node=n3]")
                                    .matches("(?s)n3 \\(this page\\).*\\s0\\s*"));
        } finally {
            browser.quit();
        }

        // A fifth node joins, added through n3 (which sends the change to the members' group's leader): with five
        // members the group is still placed on n0..n2, so nothing moves.
        List<ClusterConfig.Member> five = new ArrayList<>(members);
        five.add(new ClusterConfig.Member("n4", "127.0.0.1", FreePorts.next(), FreePorts.next()));
        nodes[4] = ClusterStrictIT.startNode(
                dir, new ClusterConfig("placed", "n4", five).withReplicas(3).joining(true), 4, null);
        members.add(five.get(4));
        HttpResponse<String> added = changeMembers(3, "{\"add\": \"" + memberFlag(five.get(4)) + "\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        assertThat(JSON.readTree(added.body()).get("members")).hasSize(5);
        assertThat(view(nodes[4]).get("members")).hasSize(5);
        assertThat(get(as(0, 4), "item")).isEqualTo("through n3");

        // n0 is removed, through n4: the group moves from n0..n2 to n1..n3. n0 adds it to n3, changes its members,
        // steps down and takes it off itself; the answer comes once the group is where it belongs.
        HttpResponse<String> removed = changeMembers(4, "{\"remove\": \"n0\"}");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(JSON.readTree(removed.body()).get("members")).hasSize(4);
        // Answered once the group is on n1..n3 (not when the node that answers, on no group, merely expects it there):
        // its leader, one of them, has those members already.
        assertThat(java.util.stream.IntStream.range(1, 4).anyMatch(i -> {
                    JsonNode g = view(nodes[i]).get("groups").get(0);
                    return g != null
                            && g.get("role").asText().equals("LEADER")
                            && g.get("members").findValuesAsText("id").equals(List.of("n1", "n2", "n3"));
                }))
                .as("a leader of the group on n1..n3 when the removal is answered")
                .isTrue();
        // n3's view has the group once its mover has taken it up, half a second at most.
        await("n3 to hold the group on n1..n3", () -> {
            JsonNode moved = view(nodes[3]).get("groups").get(0);
            return moved != null && moved.get("members").findValuesAsText("id").equals(List.of("n1", "n2", "n3"));
        });
        await(
                "n0 to hold no group",
                () -> view(nodes[0]).get("groups").isEmpty()
                        && !Files.exists(dir.resolve("n0/raft/" + ClusterNode.groupId("placed")))
                        && !Files.exists(dir.resolve("n0/CURRENT")));
        for (int i = 1; i < 5; i++) {
            assertThat(get(as(0, i), "item")).as("through n%d", i).isEqualTo("through n3");
        }
        put(as(0, 4), "item", "after the move");
        // n3 follows the group (n1, placed first, leads it): its own replica answers the write, read eventually.
        HttpClient http = HttpClient.newHttpClient();
        long n3Reads = ClusterStrictIT.followerReads(http, nodes[3]);
        await(
                "n3's replica to answer the write",
                () -> "after the move".equals(eventual(as(0, 3), "item"))
                        && ClusterStrictIT.followerReads(http, nodes[3]) > n3Reads);
        // n3 restarts with the flags it was started with, which do not place the group on it: it holds it, as its
        // Raft storage has it, with the members its log has.
        nodes[3].close();
        startWith(3, five.subList(0, 4), null);
        await("n3 to hold the group again", () -> {
            JsonNode g = view(nodes[3]).get("groups").get(0);
            return g != null && g.get("members").findValuesAsText("id").equals(List.of("n1", "n2", "n3"));
        });
        put(as(0, 3), "item", "after n3's restart");
        assertThat(get(as(0, 2), "item")).isIn("after the move", "after n3's restart");
        // n2 loses its copy of the group (its Raft folder deleted while it is down) and restarts: the leader finds it
        // up without the group, takes it out of the group's members, and moves the group back onto it, where it
        // catches up from an empty replica.
        nodes[2].close();
        try (var files = Files.walk(dir.resolve("n2/raft/" + ClusterNode.groupId("placed")))) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
        nodes[2] = ClusterStrictIT.startNode(
                dir,
                new ClusterConfig("placed", "n2", five.subList(0, 4))
                        .withReplicas(3)
                        .withFollowerReads(true),
                2,
                null);
        assertThat(view(nodes[2]).get("groups")).isEmpty();
        await("n2 among the group's members again, and answering from its own copy", () -> {
            JsonNode g = view(nodes[2]).get("groups").get(0);
            return g != null
                    && g.get("members").findValuesAsText("id").equals(List.of("n1", "n2", "n3"))
                    // The leader's members: n2 catching up replays the members of before from the log.
                    && view(nodes[1])
                            .get("groups")
                            .get(0)
                            .get("members")
                            .findValuesAsText("id")
                            .equals(List.of("n1", "n2", "n3"))
                    && "after n3's restart".equals(eventual(as(0, 2), "item"))
                    && ClusterStrictIT.followerReads(http, nodes[2]) > 0;
        });
        // Down to three members, the group's number: then no fewer.
        HttpResponse<String> three = changeMembers(1, "{\"remove\": \"n4\"}");
        assertThat(three.statusCode()).as(three.body()).isEqualTo(200);
        // (n4, removed, may have led the members' group: the others elect a leader first.)
        java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> refused =
                new java.util.concurrent.atomic.AtomicReference<>();
        await("a removal below three refused", () -> {
            try {
                refused.set(changeMembers(1, "{\"remove\": \"n3\"}"));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return refused.get().statusCode() != 503;
        });
        assertThat(refused.get().statusCode()).as(refused.get().body()).isEqualTo(400);
        assertThat(refused.get().body()).contains("at least 3 members");
        assertThat(view(nodes[1]).get("members")).hasSize(3);
    }

    @Test
    void inStrictModeAMemberAddedOrRemovedMovesEachGroupWhosePlacementItChanges() throws Exception {
        accounts = ClusterStrictIT.writeAccounts(dir, ACCOUNTS, ", \"clusterAdmins\": [\"" + ACCOUNTS.get(0) + "\"]");
        startFour();
        for (int a = 0; a < 4; a++) {
            int k = a;
            await("account " + k + "'s group led by n" + k, () -> nodes[k].serving(ACCOUNTS.get(k)));
            createTable(as(k, (k + 1) % 4));
            put(as(k, (k + 1) % 4), "item", "account " + k);
        }

        // A fifth node joins: with five members, account 2's group moves from n2,n3,n0 to n2,n3,n4 and account 3's
        // from n3,n0,n1 to n3,n4,n0, each by its leader; the others stay.
        List<ClusterConfig.Member> five = new ArrayList<>(members);
        five.add(new ClusterConfig.Member("n4", "127.0.0.1", FreePorts.next(), FreePorts.next()));
        nodes[4] = ClusterStrictIT.startNode(
                dir, new ClusterConfig("placed", "n4", five).withReplicas(3).joining(true), 4, accounts);
        members.add(five.get(4));
        HttpResponse<String> added = ClusterStrictIT.signedPost(
                nodes[1], "{\"add\": \"" + memberFlag(five.get(4)) + "\"}", "AK0", "secret-0");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        awaitPlaced(List.of("n0", "n1", "n2", "n3", "n4"));
        // Every member names the same leader of the members' group, which says it leads it.
        await("every member to name the members' group's leader", () -> {
            String named = view(nodes[0]).get("membersGroup").get("leader").asText(null);
            for (ClusterMember m : nodes) {
                if (named == null
                        || !named.equals(
                                view(m).get("membersGroup").get("leader").asText(null))) {
                    return false;
                }
            }
            return "LEADER"
                    .equals(view(nodes[Integer.parseInt(named.substring(1))])
                            .get("membersGroup")
                            .get("role")
                            .asText());
        });
        assertThat(accountsOf(view(nodes[4]), "groups")).containsExactlyInAnyOrder(ACCOUNTS.get(2), ACCOUNTS.get(3));

        // n0 is removed (it leads account 0's group, and the members' group prefers it): every group on it moves off
        // it, and it is left with none. Account 3's goes from n3,n4,n0 to n4,n1,n2: two of its three members replaced,
        // a member at a time (Ratis refuses a change that adds as many members as it keeps).
        HttpResponse<String> removed = ClusterStrictIT.signedPost(nodes[4], "{\"remove\": \"n0\"}", "AK0", "secret-0");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        awaitPlaced(List.of("n1", "n2", "n3", "n4"));
        await("n0 to hold no group", () -> view(nodes[0]).get("groups").isEmpty());
        for (int a = 0; a < 4; a++) {
            for (int via : new int[] {1, 2, 3, 4}) {
                assertThat(get(as(a, via), "item"))
                        .as("account %d through n%d", a, via)
                        .isEqualTo("account " + a);
            }
            put(as(a, 4), "item", "after the moves " + a);
            assertThat(get(as(a, 1), "item")).isEqualTo("after the moves " + a);
        }

        // A fifth account, given to n1 to n4 as each restarts: its group is made where the members' group decides, on
        // the members its place (the fifth) gives it among n1 to n4, n1, n2 and n3, whatever the nodes' flags name
        // (n0 to n3 would give n0, n1 and n2; n4's, n0 to n4, n4, n0 and n1).
        List<String> fiveAccounts = new ArrayList<>(ACCOUNTS);
        fiveAccounts.add("555555555555");
        accounts = ClusterStrictIT.writeAccounts(
                Files.createDirectories(dir.resolve("five")),
                fiveAccounts,
                ", \"clusterAdmins\": [\"" + ACCOUNTS.get(0) + "\"]");
        for (int i = 1; i < 5; i++) {
            nodes[i].close();
            nodes[i] = null;
            if (i < 4) {
                startWith(i, members.subList(0, 4), accounts); // the flags it was made with: the first four
            } else {
                nodes[4] = ClusterStrictIT.startNode(
                        dir,
                        new ClusterConfig("placed", "n4", five).withReplicas(3).joining(true),
                        4,
                        accounts);
            }
            int k = i;
            // Those it had (a group made for the new account needs two restarted members to elect a leader).
            await("n" + k + "'s groups to have leaders again", () -> {
                JsonNode groups = view(nodes[k]).get("groups");
                boolean led = groups.size() > 0;
                for (JsonNode g : groups) {
                    led &= g.get("account").asText().equals("555555555555")
                            || !g.get("leader").isNull();
                }
                return led;
            });
        }
        List<String> made = List.of("n1", "n2", "n3");
        await(
                "account 4's group made on " + made,
                () -> made.stream().allMatch(m -> {
                    for (JsonNode g :
                            view(nodes[Integer.parseInt(m.substring(1))]).get("groups")) {
                        if (g.get("account").asText().equals("555555555555")) {
                            return g.get("members").findValuesAsText("id").equals(made)
                                    && !g.get("leader").isNull();
                        }
                    }
                    return false;
                }));
        assertThat(accountsOf(view(nodes[4]), "elsewhere")).contains("555555555555");
        createTable(as(4, 4));
        put(as(4, 4), "item", "account 4");
        for (int via : new int[] {1, 2, 3, 4}) {
            assertThat(get(as(4, via), "item")).as("account 4 through n%d", via).isEqualTo("account 4");
        }
        assertThat(Files.readString(dir.resolve("n1/raft/" + PlacementRecord.FILE)))
                .contains("new.555555555555=true", "formed.555555555555=true");
        // n1 restarts with the group it made, and is among its members again.
        nodes[1].close();
        startWith(1, members.subList(0, 4), accounts);
        await("n1 to follow account 4's group again", () -> {
            for (JsonNode g : view(nodes[1]).get("groups")) {
                if (g.get("account").asText().equals("555555555555")) {
                    return !g.get("leader").isNull();
                }
            }
            return false;
        });
        put(as(4, 1), "item", "account 4 again");
        assertThat(get(as(4, 2), "item")).isEqualTo("account 4 again");
        assertThat(Files.readString(dir.resolve("n4/raft/" + PlacementRecord.FILE)))
                .contains("new.555555555555=true")
                .doesNotContain("formed.555555555555");
    }

    /** Waits for each account's group to be on the members {@code memberIds} place it on, as those members see it. */
    @SuppressWarnings("unchecked")
    private static void create(DynamoDbClient ddb, String table) {
        TableStatus status = ddb.createTable(r -> r.tableName(table)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .billingMode(BillingMode.PAY_PER_REQUEST))
                .tableDescription()
                .tableStatus();
        assertThat(status).isEqualTo(TableStatus.CREATING);
    }

    private static void putIn(DynamoDbClient ddb, String table, String id, String value) {
        ddb.putItem(
                r -> r.tableName(table).item(Map.of("pk", AttributeValue.fromS(id), "v", AttributeValue.fromS(value))));
    }

    private static software.amazon.awssdk.services.dynamodb.model.WriteRequest putRequest(String id, String value) {
        return software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                .putRequest(p -> p.item(Map.of("pk", AttributeValue.fromS(id), "v", AttributeValue.fromS(value))))
                .build();
    }

    private static software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes keys(String... ids) {
        List<Map<String, AttributeValue>> keys = new java.util.ArrayList<>();
        for (String id : ids) {
            keys.add(Map.of("pk", AttributeValue.fromS(id)));
        }
        return software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                .keys(keys)
                .build();
    }

    private static String getFrom(DynamoDbClient ddb, String table, String id) {
        Map<String, AttributeValue> item = ddb.getItem(r -> r.tableName(table)
                        .key(Map.of("pk", AttributeValue.fromS(id)))
                        .consistentRead(true))
                .item();
        return item.isEmpty() ? null : item.get("v").s();
    }

    /**
     * Node {@code m}'s view of table {@code table}'s group of account {@code account}: from its {@code groups} (on it)
     * or {@code elsewhere}; null when it knows none.
     */
    private static JsonNode tableGroup(ClusterMember m, String account, String table) {
        JsonNode v = view(m);
        for (String list : List.of("groups", "elsewhere")) {
            for (JsonNode g : v.get(list)) {
                if (g.path("table").asText().equals(table)
                        && g.get("account").asText().equals(account)) {
                    return g;
                }
            }
        }
        return null;
    }

    /** How many tables' groups node {@code m} knows, on it or not. */
    private static int tableGroups(ClusterMember m) {
        JsonNode v = view(m);
        int n = 0;
        for (String list : List.of("groups", "elsewhere")) {
            for (JsonNode g : v.get(list)) {
                n += g.has("table") ? 1 : 0;
            }
        }
        return n;
    }

    private boolean onDisk(int node, String group) {
        Path data = dir.resolve("n" + node);
        return Files.exists(data.resolve("raft").resolve(group))
                || Files.exists(data.resolve("table-groups").resolve(group));
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachTableIsAGroupOfItsOwnReachedThroughAnyNodeAndAnEmptyOneIsClosed() throws Exception {
        accounts = ClusterStrictIT.writeAccounts(dir, ACCOUNTS.subList(0, 2), "");
        tableGroups = true;
        startFour();
        String a0 = ACCOUNTS.get(0);
        String a1 = ACCOUNTS.get(1);

        // Each table made through a node that is not the account's group's leader, each a group of its own; account 1
        // has a table of the same name, in a group of its own.
        create(as(0, 1), "orders");
        create(as(0, 2), "users");
        create(as(0, 3), "items");
        create(as(1, 0), "orders");
        for (int via = 0; via < 4; via++) {
            assertThat(as(0, via).listTables().tableNames()).containsExactly("items", "orders", "users");
            assertThat(as(1, via).listTables().tableNames()).containsExactly("orders");
            assertThat(as(0, via)
                            .describeTable(r -> r.tableName("users"))
                            .table()
                            .tableStatus())
                    .isEqualTo(TableStatus.ACTIVE);
        }
        ClusterMember n0 = nodes[0];
        await(
                "every node knowing the four tables' groups",
                () -> java.util.Arrays.stream(nodes, 0, 4).allMatch(m -> tableGroups(m) == 4));
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (String[] t : new String[][] {{a0, "orders"}, {a0, "users"}, {a0, "items"}, {a1, "orders"}}) {
            JsonNode g = tableGroup(n0, t[0], t[1]);
            ids.add(g.get("group").asText());
            assertThat(g.get("placed")).as(t[1] + "'s members").hasSize(3);
        }
        assertThat(ids).as("a group per table").hasSize(4);
        // The console's Cluster page names each table's group by its account and table, with its leader and members.
        Chromium.require();
        WebDriver browser = Chromium.start();
        try {
            browser.get("http://127.0.0.1:" + nodes[3].port() + "/console/#/cluster");
            // Strict mode: the console signs in first, with account 1's key.
            org.openqa.selenium.WebElement form = Chromium.waitFor(browser, org.openqa.selenium.By.id("sign-in"));
            form.findElement(org.openqa.selenium.By.name("accessKey")).sendKeys("AK1");
            form.findElement(org.openqa.selenium.By.name("secret")).sendKeys("secret-1");
            form.findElement(org.openqa.selenium.By.cssSelector("button[type=submit]"))
                    .click();
            // Read in one go, each time the page may have redrawn: the group's row names a leader, whose member's row
            // lists the group among those it leads.
            new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> {
                String row = text(browser, "#cluster-groups tr[data-group='" + a1 + "/orders']");
                java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                                "(?s)" + a1 + "/orders\\s+\\S+\\s+(n\\d)\\b.*")
                        .matcher(row);
                return m.matches()
                        && text(browser, "#cluster-members tr[data-node=" + m.group(1) + "]")
                                .contains(a1 + "/orders")
                        && text(browser, ".card p").contains("and per table (4)");
            });
        } finally {
            browser.quit();
        }

        // Items through every node; each account reads its own table of the same name.
        putIn(as(0, 3), "orders", "a", "zero");
        putIn(as(1, 2), "orders", "a", "one");
        putIn(as(0, 0), "users", "u", "user");
        for (int via = 0; via < 4; via++) {
            assertThat(getFrom(as(0, via), "orders", "a")).isEqualTo("zero");
            assertThat(getFrom(as(1, via), "orders", "a")).isEqualTo("one");
            assertThat(getFrom(as(0, via), "users", "u")).isEqualTo("user");
        }
        assertThat(as(0, 1).executeStatement(r -> r.statement("SELECT * FROM orders WHERE pk = 'a'"))
                        .items()
                        .get(0)
                        .get("v")
                        .s())
                .isEqualTo("zero");
        assertThat(as(0, 2).batchGetItem(r -> r.requestItems(Map.of(
                                "orders",
                                software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                                        .keys(Map.of("pk", AttributeValue.fromS("a")))
                                        .build())))
                        .responses()
                        .get("orders"))
                .hasSize(1);

        // A table that is not made places no group; a request over two groups, and a list over every table of the
        // account, are refused with what to do instead.
        assertThatThrownBy(() -> as(0, 1).createTable(r -> r.tableName("bad")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.RANGE))
                        .billingMode(BillingMode.PAY_PER_REQUEST)))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("The first KeySchemaElement is not a HASH key type");
        assertThat(as(0, 2).listTables().tableNames()).doesNotContain("bad");
        // A batch over three tables' groups, through a node, is one batch: each group writes and reads its share. The
        // node signs each share anew with the caller's key (strict mode), and the group verifies it.
        assertThat(as(0, 3).batchWriteItem(r -> r.requestItems(Map.of(
                                "orders", List.of(putRequest("c", "batched")),
                                "users", List.of(putRequest("v", "batched")),
                                "items", List.of(putRequest("i", "batched")))))
                        .unprocessedItems())
                .isEmpty();
        var batched = as(0, 1).batchGetItem(r -> r.returnConsumedCapacity(
                        software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL)
                .requestItems(Map.of(
                        "orders", keys("a", "c"),
                        "users", keys("v"),
                        "items", keys("i"))));
        assertThat(batched.unprocessedKeys()).isEmpty();
        assertThat(batched.responses().get("orders")).hasSize(2);
        assertThat(batched.responses().get("users")).hasSize(1);
        assertThat(batched.responses().get("items").get(0).get("v").s()).isEqualTo("batched");
        assertThat(batched.consumedCapacity())
                .extracting(software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity::tableName)
                .containsExactlyInAnyOrder("orders", "users", "items");
        // A table named by its ARN goes to its own group as well, its answer keyed as it was asked for.
        String usersArn = "arn:aws:dynamodb:us-east-1:" + a0 + ":table/users";
        assertThat(as(0, 2).batchGetItem(r -> r.requestItems(Map.of("orders", keys("a"), usersArn, keys("v"))))
                        .responses()
                        .get(usersArn))
                .hasSize(1);
        // Bad input in one table's share changes nothing in another's: every group checks its share first.
        assertThatThrownBy(() -> as(0, 2).batchWriteItem(r -> r.requestItems(Map.of(
                        "orders",
                        List.of(putRequest("d", "never")),
                        "users",
                        List.of(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                .putRequest(p -> p.item(Map.of("pk", AttributeValue.fromN("1"))))
                                .build())))))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("The provided key element does not match the schema");
        assertThat(getFrom(as(0, 0), "orders", "d")).isNull();
        // A TransactGetItems over three tables' groups, through a node, reads each group's items and answers them in
        // the request's order, with each table's units.
        var read = as(0, 3).transactGetItems(r -> r.returnConsumedCapacity(
                        software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL)
                .transactItems(
                        t -> t.get(g -> g.tableName("users").key(Map.of("pk", AttributeValue.fromS("v")))),
                        t -> t.get(g -> g.tableName("orders").key(Map.of("pk", AttributeValue.fromS("a")))),
                        t -> t.get(g -> g.tableName("items")
                                .key(Map.of("pk", AttributeValue.fromS("i")))
                                .projectionExpression("v")),
                        t -> t.get(g -> g.tableName("orders").key(Map.of("pk", AttributeValue.fromS("none"))))));
        assertThat(read.responses())
                .extracting(i -> i.hasItem() ? i.item().get("v").s() : null)
                .containsExactly("batched", "zero", "batched", null);
        assertThat(read.responses().get(2).item()).containsOnlyKeys("v");
        assertThat(read.consumedCapacity())
                .extracting(
                        software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity::tableName,
                        software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity::capacityUnits)
                .containsExactlyInAnyOrder(tuple("orders", 4.0), tuple("users", 2.0), tuple("items", 2.0));
        // A key that does not match its table's schema cancels the read, the reason in its Get's place.
        assertThatThrownBy(() -> as(0, 1).transactGetItems(r -> r.transactItems(
                        t -> t.get(g -> g.tableName("orders").key(Map.of("pk", AttributeValue.fromS("a")))),
                        t -> t.get(g -> g.tableName("users").key(Map.of("pk", AttributeValue.fromN("1")))))))
                .isInstanceOfSatisfying(
                        software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class,
                        e -> assertThat(e.cancellationReasons())
                                .extracting(software.amazon.awssdk.services.dynamodb.model.CancellationReason::code)
                                .containsExactly("None", "ValidationError"));
        // Reads over two groups during writes: a writer counts up in orders, then in users, one write at a time; every
        // read that is not cancelled finds users' count equal to orders' or one behind. (The groups read at nearly
        // the same moment, so a read without the holds seldom sees otherwise here: TransactionsIT breaks holds
        // deterministically.)
        putIn(as(0, 0), "orders", "n", "0");
        putIn(as(0, 0), "users", "n", "0");
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        var writer = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                for (int n = 1; n <= 80; n++) {
                    putIn(as(0, 1), "orders", "n", Integer.toString(n));
                    putIn(as(0, 2), "users", "n", Integer.toString(n));
                }
            } finally {
                writing.set(false);
            }
        });
        int consistent = 0;
        int cancelled = 0;
        long readUntil = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (writing.get() && System.nanoTime() < readUntil) {
            try {
                var both = as(0, 3).transactGetItems(r -> r.transactItems(
                        t -> t.get(g -> g.tableName("users").key(Map.of("pk", AttributeValue.fromS("n")))),
                        t -> t.get(g -> g.tableName("orders").key(Map.of("pk", AttributeValue.fromS("n"))))));
                int users =
                        Integer.parseInt(both.responses().get(0).item().get("v").s());
                int orders =
                        Integer.parseInt(both.responses().get(1).item().get("v").s());
                assertThat(orders - users)
                        .as("orders %d, users %d", orders, users)
                        .isBetween(0, 1);
                consistent++;
            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException e) {
                assertThat(e.cancellationReasons())
                        .extracting(software.amazon.awssdk.services.dynamodb.model.CancellationReason::code)
                        .contains("TransactionConflict");
                cancelled++;
            }
        }
        writer.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(consistent).isPositive();
        System.out.println("reads over two groups during writes: " + consistent + " read, " + cancelled + " cancelled");
        // A write transaction over two groups commits in both, or in neither: a failed condition in one cancels it,
        // with the reasons in the actions' places.
        var wrote = as(0, 3).transactWriteItems(r -> r.returnConsumedCapacity(
                        software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL)
                .transactItems(
                        t -> t.put(p -> p.tableName("users")
                                .item(Map.of("pk", AttributeValue.fromS("t"), "v", AttributeValue.fromS("1")))),
                        t -> t.put(p -> p.tableName("orders")
                                .item(Map.of("pk", AttributeValue.fromS("t"), "v", AttributeValue.fromS("1"))))));
        assertThat(wrote.consumedCapacity())
                .extracting(software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity::tableName)
                .containsExactly("users", "orders");
        assertThat(getFrom(as(0, 1), "users", "t")).isEqualTo("1");
        assertThat(getFrom(as(0, 2), "orders", "t")).isEqualTo("1");
        // Its ClientRequestToken is kept by each group with its part: a repeat through another node (which never saw
        // it) is answered as a repeat by the deciding group, and the same token with other parameters is refused.
        var once = software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest.builder()
                .clientRequestToken("once-over-two-groups")
                .transactItems(
                        software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder()
                                .update(u -> u.tableName("users")
                                        .key(Map.of("pk", AttributeValue.fromS("once")))
                                        .updateExpression("ADD c :one")
                                        .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))))
                                .build(),
                        software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder()
                                .update(u -> u.tableName("orders")
                                        .key(Map.of("pk", AttributeValue.fromS("once")))
                                        .updateExpression("ADD c :one")
                                        .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))))
                                .build())
                .build();
        as(0, 3).transactWriteItems(once);
        as(0, 1).transactWriteItems(once);
        // Other parameters: the same tables the other way round (the other group decides), and one table alone.
        for (var other : List.of(
                List.of(once.transactItems().get(1), once.transactItems().get(0)),
                once.transactItems().subList(1, 2))) {
            assertThatThrownBy(() -> as(0, 2).transactWriteItems(
                                    once.toBuilder().transactItems(other).build()))
                    .isInstanceOf(
                            software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException.class);
        }
        // While a first run still holds its part in the deciding group (prepared here by hand), a repeat is in
        // progress.
        String flight = "{\"TransactItems\":[" + adding("users", "flight") + "," + adding("orders", "flight") + "]}";
        String digest = java.util.Base64.getEncoder()
                .encodeToString(
                        io.partita.server.op.txn.IdempotencyTokens.digest(io.partita.protocol.json.DynamoJson.decode(
                                        flight.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        io.partita.protocol.message.TransactWriteItemsInput.class)
                                .idempotentParameters()));
        String heldPart = "{\"Transaction\":\"in-flight\",\"Decides\":true,\"DecidingTable\":\"users\","
                + "\"DecidingGroup\":\""
                + tableGroup(n0, a0, "users").get("group").asText() + "\","
                + "\"Deadline\":" + (System.currentTimeMillis() + 60_000) + ",\"Payload\":10,\"Token\":\"flight\","
                + "\"TokenDigest\":\"" + digest + "\",\"TransactItems\":[" + adding("users", "flight") + "]}";
        assertThat(partita(0, members.get(2), TransactWriteSpread.PREPARE, heldPart))
                .isEqualTo(200);
        var sdkFlight = software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest.builder()
                .clientRequestToken("flight")
                .transactItems(once.transactItems().stream()
                        .map(i -> i.toBuilder()
                                .update(i.update().toBuilder()
                                        .key(Map.of("pk", AttributeValue.fromS("flight")))
                                        .build())
                                .build())
                        .toList())
                .build();
        // (Sent once: the SDKs send TransactionInProgressException again, until the first run ends.)
        try (DynamoDbClient once3 = DynamoDbClient.builder()
                .endpointOverride(
                        URI.create("http://127.0.0.1:" + members.get(3).apiPort()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AK0", "secret-0"))
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1)))
                .build()) {
            assertThatThrownBy(() -> once3.transactWriteItems(sdkFlight))
                    .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException.class);
        }
        assertThat(partita(
                        0,
                        members.get(2),
                        TransactWriteSpread.ABORT,
                        "{\"Transaction\":\"in-flight\",\"Decides\":true,\"TransactItems\":[{\"ConditionCheck\":"
                                + "{\"TableName\":\"users\"}}]}"))
                .isEqualTo(200);
        as(0, 3).transactWriteItems(sdkFlight);
        for (String table : List.of("users", "orders")) {
            assertThat(as(0, 0).getItem(g -> g.tableName(table)
                                    .key(Map.of("pk", AttributeValue.fromS("once")))
                                    .consistentRead(true))
                            .item()
                            .get("c")
                            .n())
                    .as("%s added to once", table)
                    .isEqualTo("1");
        }
        assertThatThrownBy(() -> as(0, 1).transactWriteItems(r -> r.transactItems(
                        t -> t.put(p -> p.tableName("orders")
                                .item(Map.of("pk", AttributeValue.fromS("t"), "v", AttributeValue.fromS("2")))),
                        t -> t.conditionCheck(c -> c.tableName("users")
                                .key(Map.of("pk", AttributeValue.fromS("t")))
                                .conditionExpression("v = :two")
                                .expressionAttributeValues(Map.of(":two", AttributeValue.fromS("2")))
                                .returnValuesOnConditionCheckFailure("ALL_OLD")))))
                .isInstanceOfSatisfying(
                        software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class, e -> {
                            assertThat(e.cancellationReasons())
                                    .extracting(software.amazon.awssdk.services.dynamodb.model.CancellationReason::code)
                                    .containsExactly("None", "ConditionalCheckFailed");
                            assertThat(e.cancellationReasons()
                                            .get(1)
                                            .item()
                                            .get("v")
                                            .s())
                                    .isEqualTo("1");
                        });
        assertThat(getFrom(as(0, 0), "orders", "t")).isEqualTo("1");
        // A part whose coordinator is gone (prepared here by hand, its deadline passed) is ended by its group's
        // leader, which asks the deciding group: never prepared there, the transaction is aborted. Meanwhile the item
        // is held.
        String part = "{\"Transaction\":\"left-behind\",\"Decides\":false,\"DecidingTable\":\"orders\","
                + "\"DecidingGroup\":\""
                + tableGroup(n0, a0, "orders").get("group").asText() + "\","
                + "\"Deadline\":" + (System.currentTimeMillis() + 2_000) + ",\"Payload\":10,\"TransactItems\":"
                + "[{\"Put\":{\"TableName\":\"users\",\"Item\":{\"pk\":{\"S\":\"t\"},\"v\":{\"S\":\"x\"}}}}]}";
        assertThat(partita(0, members.get(2), TransactWriteSpread.PREPARE, part))
                .isEqualTo(200);
        assertThatThrownBy(() -> putIn(as(0, 0), "users", "t", "meanwhile"))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TransactionConflictException.class);
        await("the part left behind aborted by its group's leader", () -> {
            try {
                putIn(as(0, 0), "users", "t", "after");
                return true;
            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionConflictException held) {
                return false;
            }
        });
        assertThat(getFrom(as(0, 1), "users", "t")).isEqualTo("after");
        // A BatchExecuteStatement over two tables' groups is one batch: each statement's response in its place.
        var inserted = as(0, 2).batchExecuteStatement(r -> r.statements(
                s -> s.statement("INSERT INTO \"orders\" VALUE {'pk': ?, 'v': 'partiql'}")
                        .parameters(AttributeValue.fromS("p")),
                s -> s.statement("INSERT INTO \"users\" VALUE {'pk': ?, 'v': 'partiql-u'}")
                        .parameters(AttributeValue.fromS("p")),
                s -> s.statement("INSERT INTO \"orders\" VALUE {'pk': ?, 'v': 'again'}")
                        .parameters(AttributeValue.fromS("a"))));
        assertThat(inserted.responses())
                .extracting(r -> r.error() == null ? null : r.error().codeAsString())
                .containsExactly(null, null, "DuplicateItem");
        var selected = as(0, 1).batchExecuteStatement(r -> r.returnConsumedCapacity(
                        software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL)
                .statements(
                        s -> s.statement("SELECT * FROM \"users\" WHERE pk = ?").parameters(AttributeValue.fromS("p")),
                        s -> s.statement("SELECT * FROM \"orders\" WHERE pk = ?")
                                .parameters(AttributeValue.fromS("p")),
                        s -> s.statement("SELECT * FROM \"nothere\" WHERE pk = ?")
                                .parameters(AttributeValue.fromS("p"))));
        assertThat(selected.responses())
                .extracting(
                        r -> r.item() == null || r.item().isEmpty()
                                ? null
                                : r.item().get("v").s(),
                        r -> r.error() == null ? null : r.error().codeAsString())
                .containsExactly(tuple("partiql-u", null), tuple("partiql", null), tuple(null, "ResourceNotFound"));
        assertThat(selected.consumedCapacity())
                .extracting(software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity::tableName)
                .containsExactly("users", "orders");
        // An ExecuteTransaction of SELECTs over two groups is read as a TransactGetItems is; a statement's error names
        // its place in the whole request.
        var transaction = as(0, 3).executeTransaction(r -> r.transactStatements(
                s -> s.statement("SELECT v FROM \"orders\" WHERE pk = ?").parameters(AttributeValue.fromS("p")),
                s -> s.statement("SELECT * FROM \"users\" WHERE pk = ?").parameters(AttributeValue.fromS("p"))));
        assertThat(transaction.responses())
                .extracting(i -> i.item().get("v").s())
                .containsExactly("partiql", "partiql-u");
        assertThat(transaction.responses().get(0).item()).containsOnlyKeys("v");
        assertThatThrownBy(() -> as(0, 3).executeTransaction(r -> r.transactStatements(
                        s -> s.statement("SELECT * FROM \"orders\" WHERE pk = ?")
                                .parameters(AttributeValue.fromS("p")),
                        s -> s.statement("SELECT * FROM \"users\" WHERE v = ?").parameters(AttributeValue.fromS("p")))))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("Validation failed in TransactStatements[1]");
        // One of writes over two groups commits in both; an INSERT of a key there cancels it, DuplicateItem in its
        // place.
        as(0, 3).executeTransaction(r -> r.transactStatements(
                s -> s.statement("UPDATE \"orders\" SET v = 'both' WHERE pk = ?")
                        .parameters(AttributeValue.fromS("p")),
                s -> s.statement("UPDATE \"users\" SET v = 'both-u' WHERE pk = ?")
                        .parameters(AttributeValue.fromS("p"))));
        assertThat(getFrom(as(0, 1), "users", "p")).isEqualTo("both-u");
        assertThatThrownBy(() -> as(0, 2).executeTransaction(r -> r.transactStatements(
                        s -> s.statement("INSERT INTO \"users\" VALUE {'pk': ?}")
                                .parameters(AttributeValue.fromS("new")),
                        s -> s.statement("INSERT INTO \"orders\" VALUE {'pk': ?}")
                                .parameters(AttributeValue.fromS("p")))))
                .isInstanceOfSatisfying(
                        software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class,
                        e -> assertThat(e.cancellationReasons())
                                .extracting(software.amazon.awssdk.services.dynamodb.model.CancellationReason::code)
                                .containsExactly("None", "DuplicateItem"));
        assertThat(getFrom(as(0, 0), "users", "new")).isNull();
        // One of writes over a table and a name that is none: the table's group answers, as a single node does.
        assertThatThrownBy(() -> as(0, 3).executeTransaction(r -> r.transactStatements(
                        s -> s.statement("DELETE FROM \"orders\" WHERE pk = ?").parameters(AttributeValue.fromS("p")),
                        s -> s.statement("DELETE FROM \"nothere\" WHERE pk = ?")
                                .parameters(AttributeValue.fromS("p")))))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException.class);
        assertThat(getFrom(as(0, 0), "orders", "p")).isEqualTo("both");
        // ListContributorInsights over every table of the account: a summary per table, whichever group has it, in
        // the order of their names, a page at a time through two nodes.
        as(0, 2).updateContributorInsights(
                        r -> r.tableName("users").contributorInsightsAction(ContributorInsightsAction.ENABLE));
        var insights = as(0, 3).listContributorInsights(r -> r.maxResults(2));
        assertThat(insights.contributorInsightsSummaries())
                .extracting(ContributorInsightsSummary::tableName)
                .containsExactly("items", "orders");
        var moreInsights = as(0, 0).listContributorInsights(r -> r.nextToken(insights.nextToken()));
        assertThat(moreInsights.contributorInsightsSummaries())
                .extracting(
                        ContributorInsightsSummary::tableName, ContributorInsightsSummary::contributorInsightsStatus)
                .containsExactly(tuple("users", ContributorInsightsStatus.ENABLED));
        assertThat(moreInsights.nextToken()).isNull();
        // ListExports and ListImports over every table: none made yet; checked as a single node checks them, a token
        // by the node that lists.
        assertThat(as(0, 1).listExports(r -> {}).exportSummaries()).isEmpty();
        assertThatThrownBy(() -> as(0, 2).listExports(r -> r.nextToken("bm8tc3VjaC1leHBvcnQ")))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("Provided nextToken is invalid");
        assertThatThrownBy(() -> as(0, 3).listImports(r -> r.pageSize(26)))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("pageSize");
        assertThat(as(0, 0).listBackups(r -> r.tableName("orders")).backupSummaries())
                .isEmpty();
        // ListBackups over every table of the account lists each table's group's, oldest first, a page at a time.
        String ordersBackup = as(0, 1).createBackup(r -> r.tableName("orders").backupName("orders-1"))
                .backupDetails()
                .backupArn();
        String itemsBackup = as(0, 2).createBackup(r -> r.tableName("items").backupName("items-1"))
                .backupDetails()
                .backupArn();
        var firstPage = as(0, 3).listBackups(r -> r.limit(1));
        assertThat(firstPage.backupSummaries())
                .extracting(software.amazon.awssdk.services.dynamodb.model.BackupSummary::backupArn)
                .containsExactly(ordersBackup);
        var secondPage =
                as(0, 0).listBackups(r -> r.limit(1).exclusiveStartBackupArn(firstPage.lastEvaluatedBackupArn()));
        assertThat(secondPage.backupSummaries())
                .extracting(software.amazon.awssdk.services.dynamodb.model.BackupSummary::backupArn)
                .containsExactly(itemsBackup);
        assertThat(secondPage.lastEvaluatedBackupArn()).isNull();
        // Checked as a single node checks it, by the account's own group.
        assertThatThrownBy(() -> as(0, 1).listBackups(r -> r.limit(0)))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("limit");
        // A restore, from a backup or to a point in time, makes its table in its source's group, where the items are:
        // reached through any node, listed, and a name the account has in any group is refused.
        as(0, 3).restoreTableFromBackup(r -> r.backupArn(ordersBackup).targetTableName("orders-copy"));
        assertThat(getFrom(as(0, 0), "orders-copy", "a")).isEqualTo("zero");
        assertThat(tableGroups(n0)).as("no group made for it").isEqualTo(4);
        assertThat(as(0, 2).listTables().tableNames()).contains("orders-copy");
        for (String taken : List.of("orders-copy", "users")) {
            assertThatThrownBy(() -> as(0, 1).restoreTableFromBackup(
                                    r -> r.backupArn(ordersBackup).targetTableName(taken)))
                    .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TableAlreadyExistsException.class);
        }
        // A name in use is refused before the overrides are checked, as on a single node; a restore refused once its
        // name was recorded takes the record back, and the name is free.
        assertThatThrownBy(() -> as(0, 1).restoreTableFromBackup(r -> r.backupArn(ordersBackup)
                        .targetTableName("users")
                        .provisionedThroughputOverride(
                                p -> p.readCapacityUnits(1L).writeCapacityUnits(1L))))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TableAlreadyExistsException.class);
        assertThatThrownBy(() -> as(0, 2).restoreTableFromBackup(r -> r.backupArn(ordersBackup)
                        .targetTableName("orders-bad")
                        .provisionedThroughputOverride(
                                p -> p.readCapacityUnits(1L).writeCapacityUnits(1L))))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED");
        assertThat(as(0, 3).listTables().tableNames()).doesNotContain("orders-bad");
        as(0, 1).updateContinuousBackups(r ->
                r.tableName("orders").pointInTimeRecoverySpecification(p -> p.pointInTimeRecoveryEnabled(true)));
        putIn(as(0, 2), "orders", "p", "pitr");
        as(0, 0).restoreTableToPointInTime(r ->
                r.sourceTableName("orders").targetTableName("orders-then").useLatestRestorableTime(true));
        assertThat(getFrom(as(0, 3), "orders-then", "p")).isEqualTo("pitr");
        assertThat(getFrom(as(1, 3), "orders", "p")).isNull(); // account 1's orders: untouched
        // Deleted, each leaves ListTables; the group keeps its own table.
        as(0, 2).deleteTable(r -> r.tableName("orders-copy"));
        as(0, 3).deleteTable(r -> r.tableName("orders-then"));
        assertThat(as(0, 1).listTables().tableNames()).containsExactly("items", "orders", "users");
        assertThat(getFrom(as(0, 0), "orders", "p")).isEqualTo("pitr");
        // ListStreams without a table lists a table's stream in its own group, through any node.
        String ordersStream = as(0, 0).updateTable(r -> r.tableName("orders")
                        .streamSpecification(
                                st -> st.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)))
                .tableDescription()
                .latestStreamArn();
        try (DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + nodes[3].port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AK0", "secret-0"))
                .build()) {
            assertThat(streams.listStreams(r -> {}).streams())
                    .extracting(software.amazon.awssdk.services.dynamodb.model.Stream::streamArn)
                    .containsExactly(ordersStream);
        }
        assertThat(as(1, 0).listBackups(r -> {}).backupSummaries()).isEmpty(); // another account's: none
        as(0, 1).deleteBackup(r -> r.backupArn(itemsBackup)); // items is deleted below, and its group then closes
        assertThat(as(0, 2).listBackups(r -> {}).backupSummaries())
                .extracting(software.amazon.awssdk.services.dynamodb.model.BackupSummary::backupArn)
                .containsExactly(ordersBackup);
        assertThatThrownBy(() -> as(0, 0).describeTable(r -> r.tableName("nothing")))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException.class);

        // The node that leads account 0's orders stops: that group elects another leader among its two other members,
        // and a write through any node goes on; the tables led elsewhere do not notice.
        int led = Integer.parseInt(
                tableGroup(n0, a0, "orders").get("leader").asText().substring(1));
        int other = (led + 1) % 4;
        nodes[led].close();
        nodes[led] = null;
        putIn(as(0, other), "orders", "b", "after");
        assertThat(getFrom(as(0, (led + 2) % 4), "orders", "b")).isEqualTo("after");
        assertThat(getFrom(as(1, other), "orders", "a")).isEqualTo("one");
        start(led, 3);
        await("the restarted node holding its tables' groups again", () -> tableGroups(nodes[led]) == 4);
        assertThat(getFrom(as(0, led), "orders", "b")).isEqualTo("after");

        // A deciding group closes only once it has told the groups that took part of each decision COMMITTED it keeps:
        // a transaction prepared by hand in orders' group (its deadline ten minutes away) and in users' group, which
        // decides, and committed there, commits in orders' group once users is deleted.
        String users = tableGroup(n0, a0, "users").get("group").asText();
        String orders = tableGroup(n0, a0, "orders").get("group").asText();
        String told = "\"Transaction\":\"told\",\"DecidingTable\":\"users\",\"DecidingGroup\":\"" + users
                + "\",\"Participants\":[\"" + users + "\",\"" + orders + "\"],\"Deadline\":"
                + (System.currentTimeMillis() + 600_000) + ",\"Payload\":10,";
        assertThat(partita(
                        0,
                        members.get(1),
                        TransactWriteSpread.PREPARE,
                        "{" + told + "\"Decides\":false,\"TransactItems\":[{\"Put\":{\"TableName\":\"orders\","
                                + "\"Item\":{\"pk\":{\"S\":\"told\"},\"v\":{\"S\":\"committed\"}}}}]}"))
                .isEqualTo(200);
        assertThat(partita(
                        0,
                        members.get(2),
                        TransactWriteSpread.PREPARE,
                        "{" + told + "\"Decides\":true,\"TransactItems\":[{\"Put\":{\"TableName\":\"users\","
                                + "\"Item\":{\"pk\":{\"S\":\"told\"},\"v\":{\"S\":\"committed\"}}}}]}"))
                .isEqualTo(200);
        assertThat(partita(
                        0,
                        members.get(3),
                        TransactWriteSpread.COMMIT,
                        "{\"Transaction\":\"told\",\"Decides\":true,\"TransactItems\":[{\"ConditionCheck\":"
                                + "{\"TableName\":\"users\"}}]}"))
                .isEqualTo(200);
        assertThat(getFrom(as(0, 0), "users", "told")).isEqualTo("committed");
        assertThatThrownBy(() -> putIn(as(0, 0), "orders", "told", "meanwhile"))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TransactionConflictException.class);

        // A deleted table leaves ListTables at once; its group, empty, is closed, and every node takes it off.
        as(0, 2).deleteTable(r -> r.tableName("users"));
        assertThat(as(0, 1).listTables().tableNames()).containsExactly("items", "orders");
        await(
                "the users group closed on every node",
                () -> java.util.Arrays.stream(nodes, 0, 4).allMatch(m -> tableGroup(m, a0, "users") == null));
        for (int i = 0; i < 4; i++) {
            int node = i;
            await("n" + i + " deleting its copy of the users group", () -> !onDisk(node, users));
        }
        assertThatThrownBy(() -> as(0, 3).describeTable(r -> r.tableName("users")))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException.class);
        assertThat(getFrom(as(0, 1), "orders", "told")).isEqualTo("committed");
        // A part whose deciding group closed since (having told its decisions COMMITTED) was not committed: its
        // group's leader aborts it once its deadline has passed.
        assertThat(partita(
                        0,
                        members.get(1),
                        TransactWriteSpread.PREPARE,
                        "{\"Transaction\":\"orphan\",\"Decides\":false,\"DecidingTable\":\"users\","
                                + "\"DecidingGroup\":\"" + users + "\",\"Participants\":[\"" + users + "\",\""
                                + orders + "\"],\"Deadline\":" + (System.currentTimeMillis() + 2_000)
                                + ",\"Payload\":10,\"TransactItems\":[{\"Put\":{\"TableName\":\"orders\","
                                + "\"Item\":{\"pk\":{\"S\":\"told\"},\"v\":{\"S\":\"orphan\"}}}}]}"))
                .isEqualTo(200);
        await("the orphaned part aborted by its group's leader", () -> {
            try {
                putIn(as(0, 0), "orders", "told", "after");
                return true;
            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionConflictException held) {
                return false;
            }
        });
        assertThat(getFrom(as(0, 2), "orders", "told")).isEqualTo("after");

        // A node down while a table's group it holds is closed deletes its copy once it is back.
        JsonNode items = tableGroup(n0, a0, "items");
        String itemsGroup = items.get("group").asText();
        List<String> holders = new ArrayList<>();
        items.get("placed").forEach(m -> holders.add(m.asText()));
        int away = Integer.parseInt(holders.stream()
                .filter(m -> !m.equals(items.get("leader").asText()))
                .findFirst()
                .orElseThrow()
                .substring(1));
        assertThat(onDisk(away, itemsGroup)).isTrue();
        nodes[away].close();
        nodes[away] = null;
        int through = (away + 1) % 4;
        as(0, through).deleteTable(r -> r.tableName("items"));
        await(
                "the items group closed on the nodes up",
                () -> java.util.stream.IntStream.range(0, 4)
                        .filter(i -> nodes[i] != null)
                        .allMatch(i -> tableGroup(nodes[i], a0, "items") == null));
        start(away, 3);
        // Its replica of the members' group, behind at the start, still has the group: once it catches up, the node
        // takes the group off itself and deletes its copy.
        await("n" + away + " deleting its copy of the closed group", () -> !onDisk(away, itemsGroup));
        assertThat(tableGroup(nodes[away], a0, "items")).isNull();

        // The name again: a new group.
        create(as(0, away), "users");
        putIn(as(0, away), "users", "u2", "again");
        assertThat(getFrom(as(0, 1), "users", "u2")).isEqualTo("again");
        assertThat(getFrom(as(0, 1), "users", "u")).isNull();
        assertThat(tableGroup(nodes[1], a0, "users").get("group").asText()).isNotEqualTo(users);
        assertThat(as(0, 3).listTables().tableNames()).containsExactly("orders", "users");

        eachPartitionOfATableIsAGroupOfItsOwn(a0);
    }

    /**
     * With {@code --cluster-partition-groups} (on with table groups here; the on-demand tables above stayed whole): a
     * provisioned table's partitions at its creation are groups of their own, each its hash range's. Items, Query and
     * Scan through any node, a change every group makes, the refusals of what is not cut by ranges yet, and the
     * groups closed once the table is deleted.
     */
    @SuppressWarnings("unchecked")
    private void eachPartitionOfATableIsAGroupOfItsOwn(String account) throws Exception {
        // 2,500 write units need three partitions of 1,000: three groups.
        as(0, 1).createTable(r -> r.tableName("hot")
                .attributeDefinitions(
                        a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("sk").attributeType(ScalarAttributeType.N))
                .keySchema(
                        k -> k.attributeName("pk").keyType(KeyType.HASH),
                        k -> k.attributeName("sk").keyType(KeyType.RANGE))
                .provisionedThroughput(p -> p.readCapacityUnits(10L).writeCapacityUnits(2_500L)));
        await(
                "every node knowing the table's three groups",
                () -> java.util.Arrays.stream(nodes, 0, 4)
                        .allMatch(m -> rangeGroups(m, account, "hot").size() == 3));
        java.util.Map<String, Long> before = commits(account, "hot");
        for (int via = 0; via < 4; via++) {
            assertThat(as(0, via).describeTable(r -> r.tableName("hot")).table().tableStatus())
                    .isEqualTo(TableStatus.ACTIVE);
        }
        // Twenty partition keys of three items each, through every node; each item read back through another.
        for (int i = 0; i < 20; i++) {
            for (int j = 0; j < 3; j++) {
                int k = i;
                int n = j;
                as(0, (i + j) % 4)
                        .putItem(r -> r.tableName("hot")
                                .item(Map.of(
                                        "pk", AttributeValue.fromS("k" + k),
                                        "sk", AttributeValue.fromN(Integer.toString(n)),
                                        "v", AttributeValue.fromS("v" + k + "." + n))));
            }
        }
        for (int i = 0; i < 20; i++) {
            int k = i;
            assertThat(as(0, (i + 1) % 4)
                            .getItem(r -> r.tableName("hot")
                                    .consistentRead(true)
                                    .key(Map.of("pk", AttributeValue.fromS("k" + k), "sk", AttributeValue.fromN("2"))))
                            .item()
                            .get("v")
                            .s())
                    .isEqualTo("v" + k + ".2");
        }
        // Every group took writes: each range's group's log grew.
        java.util.Map<String, Long> after = commits(account, "hot");
        for (var e : before.entrySet()) {
            assertThat(after.get(e.getKey()))
                    .as("range %s's commits", e.getKey())
                    .isGreaterThan(e.getValue() + 3);
        }
        // A condition and an update go to the item's group.
        assertThatThrownBy(() -> as(0, 2).putItem(r -> r.tableName("hot")
                        .item(Map.of("pk", AttributeValue.fromS("k3"), "sk", AttributeValue.fromN("1")))
                        .conditionExpression("attribute_not_exists(pk)")))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException.class);
        assertThat(as(0, 3).updateItem(r -> r.tableName("hot")
                                .key(Map.of("pk", AttributeValue.fromS("k3"), "sk", AttributeValue.fromN("1")))
                                .updateExpression("ADD c :one")
                                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                                .returnValues("UPDATED_NEW"))
                        .attributes()
                        .get("c")
                        .n())
                .isEqualTo("1");
        // A Query goes to its partition key's group, by expression or by KeyConditions.
        assertThat(as(0, 1).query(r -> r.tableName("hot")
                                .keyConditionExpression("pk = :p AND sk >= :one")
                                .expressionAttributeValues(
                                        Map.of(":p", AttributeValue.fromS("k7"), ":one", AttributeValue.fromN("1"))))
                        .items())
                .extracting(i -> i.get("v").s())
                .containsExactly("v7.1", "v7.2");
        assertThat(as(0, 2).query(r -> r.tableName("hot")
                                .keyConditions(Map.of(
                                        "pk",
                                        software.amazon.awssdk.services.dynamodb.model.Condition.builder()
                                                .comparisonOperator("EQ")
                                                .attributeValueList(AttributeValue.fromS("k11"))
                                                .build())))
                        .count())
                .isEqualTo(3);
        // A Scan walks the groups in hash order: one page for the whole table, pages of a Limit, segments.
        var whole = as(0, 3).scan(r -> r.tableName("hot").returnConsumedCapacity("TOTAL"));
        assertThat(whole.count()).isEqualTo(60);
        assertThat(whole.lastEvaluatedKey()).isEmpty();
        // Walked from the node the client reached, for a client that accepts gzip: compressed, as a server's own answer
        // is, its CRC the compressed body's.
        var zipped = signed(
                0,
                members.get(3),
                "/",
                "DynamoDB_20120810.Scan",
                "{\"TableName\":\"hot\"}",
                null,
                java.net.http.HttpResponse.BodyHandlers.ofByteArray(),
                "accept-encoding",
                "gzip");
        assertThat(zipped.statusCode()).isEqualTo(200);
        assertThat(zipped.headers().firstValue("content-encoding")).hasValue("gzip");
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(zipped.body());
        assertThat(zipped.headers().firstValue("x-amz-crc32")).hasValue(Long.toString(crc.getValue()));
        try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(zipped.body()))) {
            assertThat(JSON.readTree(in.readAllBytes()).get("Count").asInt()).isEqualTo(60);
        }
        // Its units are the page's, as a single node counts them: what all three groups read (under 4 KB) rounded up
        // once, not each group's rounded up (1.5).
        assertThat(whole.consumedCapacity().capacityUnits()).isEqualTo(0.5);
        assertThat(as(0, 2).scan(r -> r.tableName("hot").consistentRead(true).returnConsumedCapacity("INDEXES"))
                        .consumedCapacity())
                .satisfies(c -> assertThat(c.capacityUnits()).isEqualTo(1.0))
                .satisfies(c -> assertThat(c.table().capacityUnits()).isEqualTo(1.0));
        java.util.Set<String> seen = new java.util.HashSet<>();
        Map<String, AttributeValue> start = null;
        int pages = 0;
        do {
            Map<String, AttributeValue> from = start;
            var page = as(0, pages % 4).scan(r -> r.tableName("hot").limit(7).exclusiveStartKey(from));
            assertThat(page.count()).isLessThanOrEqualTo(7);
            page.items().forEach(i -> assertThat(seen.add(i.get("v").s())).isTrue());
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            pages++;
        } while (start != null);
        assertThat(seen).hasSize(60);
        assertThat(pages).isBetween(9, 12); // 60 / 7, and a page that ends at a group's end
        int segmented = 0;
        for (int s = 0; s < 4; s++) {
            int segment = s;
            segmented += as(0, s).scan(r -> r.tableName("hot").segment(segment).totalSegments(4))
                    .count();
        }
        assertThat(segmented).isEqualTo(60);
        assertThat(as(0, 1).scan(r -> r.tableName("hot")
                                .select("COUNT")
                                .filterExpression("sk = :two")
                                .expressionAttributeValues(Map.of(":two", AttributeValue.fromN("2"))))
                        .count())
                .isEqualTo(20);
        // DescribeTable sums its groups' items; UpdateTable and UpdateTimeToLive reach every group.
        assertThat(as(0, 2).describeTable(r -> r.tableName("hot")).table().itemCount())
                .isEqualTo(60L);
        as(0, 0).updateTable(r -> r.tableName("hot")
                .provisionedThroughput(p -> p.readCapacityUnits(20L).writeCapacityUnits(2_500L)));
        await(
                "the new read capacity on the table",
                () -> as(0, 3).describeTable(r -> r.tableName("hot"))
                                .table()
                                .provisionedThroughput()
                                .readCapacityUnits()
                        == 20L);
        as(0, 1).updateTimeToLive(r ->
                r.tableName("hot").timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl")));
        assertThat(as(0, 2).describeTimeToLive(r -> r.tableName("hot"))
                        .timeToLiveDescription()
                        .attributeName())
                .isEqualTo("ttl");
        // A batch goes to each key's range's group: 24 puts and a delete in one BatchWriteItem, read back by one
        // BatchGetItem, its units one entry for the table.
        List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> writes = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            Map<String, AttributeValue> item =
                    Map.of("pk", AttributeValue.fromS("b" + i), "sk", AttributeValue.fromN("9"));
            writes.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                    .putRequest(p -> p.item(item))
                    .build());
        }
        writes.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                .deleteRequest(d -> d.key(Map.of("pk", AttributeValue.fromS("k5"), "sk", AttributeValue.fromN("0"))))
                .build());
        Map<String, List<software.amazon.awssdk.services.dynamodb.model.WriteRequest>> left = Map.of("hot", writes);
        for (int round = 0; !left.isEmpty(); round++) {
            assertThat(round).as("rounds of unprocessed writes").isLessThan(10);
            var todo = left;
            left = as(0, 3).batchWriteItem(r -> r.requestItems(todo)).unprocessedItems();
        }
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < 24; i += 2) {
            keys.add(Map.of("pk", AttributeValue.fromS("b" + i), "sk", AttributeValue.fromN("9")));
        }
        keys.add(Map.of("pk", AttributeValue.fromS("k5"), "sk", AttributeValue.fromN("0")));
        keys.add(Map.of("pk", AttributeValue.fromS("k6"), "sk", AttributeValue.fromN("0")));
        var got = as(0, 1).batchGetItem(r -> r.returnConsumedCapacity("TOTAL")
                .requestItems(Map.of(
                        "hot",
                        software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                                .keys(keys)
                                .consistentRead(true)
                                .build())));
        assertThat(got.unprocessedKeys()).isEmpty();
        assertThat(got.responses().get("hot"))
                .extracting(i -> i.get("pk").s())
                .containsExactlyInAnyOrder(
                        "b0", "b2", "b4", "b6", "b8", "b10", "b12", "b14", "b16", "b18", "b20", "b22", "k6");
        assertThat(got.consumedCapacity()).hasSize(1);
        assertThat(got.consumedCapacity().get(0).capacityUnits()).isEqualTo(14.0); // 14 keys, strongly consistent
        // A batch with one bad item in one range and good ones in others: refused as a whole, nothing written.
        assertThatThrownBy(() -> as(0, 2).batchWriteItem(r -> r.requestItems(Map.of(
                        "hot",
                        List.of(
                                software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                        .putRequest(p -> p.item(Map.of(
                                                "pk", AttributeValue.fromS("c1"), "sk", AttributeValue.fromN("1"))))
                                        .build(),
                                software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                        .putRequest(p -> p.item(Map.of(
                                                "pk", AttributeValue.fromS("c2"), "sk", AttributeValue.fromS("x"))))
                                        .build(),
                                software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                        .putRequest(p -> p.item(Map.of(
                                                "pk", AttributeValue.fromS("c3"), "sk", AttributeValue.fromN("1"))))
                                        .build())))))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("The provided key element does not match the schema");
        assertThat(as(0, 0).scan(r -> r.tableName("hot")
                                .filterExpression("begins_with(pk, :c)")
                                .expressionAttributeValues(Map.of(":c", AttributeValue.fromS("c"))))
                        .count())
                .isZero();
        // A share sent to a group (x-partita-group, as from another node) is served there only when its keys are in
        // the group's range: one of another range's key is refused, 503, and written nowhere (a Scan reads every
        // group's items, and would find it where it does not belong), as is a transaction's part to prepare.
        java.util.Map<String, String> ids = rangeGroupIds(nodes[0], account, "hot");
        String inFirst = java.util.stream.IntStream.range(0, 100)
                .mapToObj(i -> "f" + i)
                .filter(k -> rangeOf(k) == 0)
                .findFirst()
                .orElseThrow();
        String put = "{\"RequestItems\":{\"hot\":[{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"" + inFirst
                + "\"},\"sk\":{\"N\":\"1\"}}}}]}}";
        String batchWrite = "DynamoDB_20120810.BatchWriteItem";
        // Each sent to the node that leads the group it names (a forwarded request goes no further), until one leads.
        java.util.function.BiFunction<String, java.util.function.IntFunction<String>, String> toLeader =
                (group, send) -> {
                    for (int tries = 0; ; tries++) {
                        String leader = null;
                        for (String list : List.of("groups", "elsewhere")) {
                            for (JsonNode g : view(nodes[0]).get(list)) {
                                if (g.get("group").asText().equals(group)) {
                                    leader = g.path("leader").asText(null);
                                }
                            }
                        }
                        String answer = leader == null ? null : send.apply(Integer.parseInt(leader.substring(1)));
                        if (answer != null && !answer.contains("an election is under way") || tries == 100) {
                            return String.valueOf(answer);
                        }
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                };
        String outOfRange = "is not in the hash range of the group it names";
        assertThat(toLeader.apply(ids.get("1"), via -> send(0, via, batchWrite, put, ids.get("1"))))
                .startsWith("503 ")
                .contains(outOfRange);
        assertThat(toLeader.apply(
                        ids.get("2"),
                        via -> send(
                                0,
                                via,
                                TransactWriteSpread.PREPARE,
                                "{\"TransactItems\":[" + adding("hot", inFirst) + "],\"Transaction\":\"forged\"}",
                                ids.get("2"))))
                .startsWith("503 ")
                .contains(outOfRange);
        java.util.function.IntSupplier found = () -> as(0, 0).scan(r -> r.tableName("hot")
                        .filterExpression("pk = :f")
                        .expressionAttributeValues(Map.of(":f", AttributeValue.fromS(inFirst))))
                .count();
        assertThat(found.getAsInt()).isZero();
        // In its own range's group, the share is served.
        assertThat(toLeader.apply(ids.get("0"), via -> send(0, via, batchWrite, put, ids.get("0"))))
                .startsWith("200 ");
        assertThat(found.getAsInt()).isEqualTo(1);
        assertThat(as(0, 0).describeTable(r -> r.tableName("hot")).table().itemCount())
                .isEqualTo(84L); // the share's item once
        // Each group's store holds its own range's items alone: its CreateTable recorded the range in its own log (its
        // admin view names it), which it refuses any other key by (HashRangeIT, HashRangeRefusalsTest).
        long[] starts = io.partita.storage.partition.PartitionMap.evenStarts(3);
        for (int r = 0; r < 3; r++) {
            String group = ids.get(Integer.toString(r));
            String metrics = toLeader.apply(group, via -> {
                try {
                    var answer = signed(
                            0,
                            members.get(via),
                            "/admin/metrics?table=hot",
                            null,
                            "",
                            group,
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    return answer.statusCode() + " " + answer.body();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(metrics).startsWith("200 ");
            JsonNode range =
                    JSON.readTree(metrics.substring(4)).get("tables").get(0).get("hashRange");
            assertThat(range.get("hashStart").asText()).isEqualTo(String.format("%016x", starts[r]));
            assertThat(range.get("hashEnd").asText())
                    .isEqualTo(String.format("%016x", r < 2 ? starts[r + 1] - 1 : -1L));
        }
        // A transaction over several ranges' groups: cancelled by one range's condition, nothing written; then
        // committed in every one, and read back at once by a TransactGetItems.
        List<String> spread = List.of("t0", "t1", "t2", "t3", "t4", "t5");
        assertThat(spread.stream().map(ClusterPlacementIT::rangeOf).distinct().count())
                .as("ranges of the transaction's keys")
                .isGreaterThan(1L);
        List<software.amazon.awssdk.services.dynamodb.model.TransactWriteItem> puts = new ArrayList<>();
        for (String pk : spread) {
            puts.add(software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder()
                    .put(p -> p.tableName("hot")
                            .item(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("1"))))
                    .build());
        }
        List<software.amazon.awssdk.services.dynamodb.model.TransactWriteItem> failing = new ArrayList<>(puts);
        failing.add(software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName("hot")
                        .key(Map.of("pk", AttributeValue.fromS("k9"), "sk", AttributeValue.fromN("0")))
                        .conditionExpression("attribute_not_exists(pk)"))
                .build());
        assertThatThrownBy(() -> as(0, 2).transactWriteItems(r -> r.transactItems(failing)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class)
                .hasMessageContaining("ConditionalCheckFailed");
        assertThat(as(0, 3).scan(r -> r.tableName("hot")
                                .filterExpression("begins_with(pk, :t)")
                                .expressionAttributeValues(Map.of(":t", AttributeValue.fromS("t"))))
                        .count())
                .isZero();
        as(0, 3).transactWriteItems(r -> r.transactItems(puts));
        var read = as(0, 0).transactGetItems(r -> r.transactItems(spread.stream()
                .map(pk -> software.amazon.awssdk.services.dynamodb.model.TransactGetItem.builder()
                        .get(g -> g.tableName("hot")
                                .key(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("1"))))
                        .build())
                .toList()));
        assertThat(read.responses()).extracting(i -> i.item().get("pk").s()).containsExactlyElementsOf(spread);
        // PartiQL: each statement goes to the group of the partition key it binds. Single statements through every
        // node; a batch of updates and a transaction over several ranges; a SELECT of every range walks the groups.
        for (int i = 0; i < spread.size(); i++) {
            String pk = spread.get(i);
            as(0, i % 4)
                    .executeStatement(r -> r.statement("INSERT INTO hot VALUE {'pk': ?, 'sk': 2}")
                            .parameters(AttributeValue.fromS(pk)));
        }
        for (int i = 0; i < spread.size(); i++) {
            String pk = spread.get(i);
            assertThat(as(0, (i + 1) % 4)
                            .executeStatement(r -> r.statement("SELECT sk FROM hot WHERE pk = ?")
                                    .parameters(AttributeValue.fromS(pk))
                                    .consistentRead(true))
                            .items())
                    .extracting(item -> item.get("sk").n())
                    .containsExactly("1", "2");
        }
        var batch = as(0, 1).batchExecuteStatement(r -> r.statements(spread.stream()
                .map(pk -> software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest.builder()
                        .statement("UPDATE hot SET v = 'batched' WHERE pk = ? AND sk = 2")
                        .parameters(AttributeValue.fromS(pk))
                        .build())
                .toList()));
        assertThat(batch.responses()).allMatch(response -> response.error() == null);
        as(0, 2).executeTransaction(r -> r.transactStatements(spread.stream()
                .map(pk -> software.amazon.awssdk.services.dynamodb.model.ParameterizedStatement.builder()
                        .statement("UPDATE hot SET w = 'together' WHERE pk = ? AND sk = 2 AND v = 'batched'")
                        .parameters(AttributeValue.fromS(pk))
                        .build())
                .toList()));
        assertThat(as(0, 3).scan(r -> r.tableName("hot")
                                .filterExpression("w = :w")
                                .expressionAttributeValues(Map.of(":w", AttributeValue.fromS("together"))))
                        .count())
                .isEqualTo(spread.size());
        var scanned = as(0, 3).scan(r -> r.tableName("hot")
                        .consistentRead(true)
                        .filterExpression("sk = :two")
                        .expressionAttributeValues(Map.of(":two", AttributeValue.fromN("2"))))
                .items();
        assertThat(scanned).hasSizeGreaterThan(spread.size());
        var selected = as(0, 0).executeStatement(r -> r.statement("SELECT * FROM hot WHERE sk = 2")
                .consistentRead(true)
                .returnConsumedCapacity("TOTAL"));
        assertThat(selected.items()).as("one page, in the Scan's order").containsExactlyElementsOf(scanned);
        assertThat(selected.consumedCapacity().capacityUnits())
                .as("under 4 KB read")
                .isEqualTo(1.0);
        List<Map<String, AttributeValue>> paged = new ArrayList<>();
        String next = null;
        int statementPages = 0;
        do {
            String token = next;
            var page = as(0, statementPages % 4)
                    .executeStatement(r -> r.statement("SELECT * FROM hot WHERE sk = ?")
                            .parameters(AttributeValue.fromN("2"))
                            .consistentRead(true)
                            .limit(9)
                            .nextToken(token));
            assertThat(page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty())
                    .isEqualTo(page.nextToken() != null);
            paged.addAll(page.items());
            next = page.nextToken();
            statementPages++;
        } while (next != null && statementPages < 100);
        assertThat(paged).as("pages of 9 items read").containsExactlyElementsOf(scanned);
        long stored = as(0, 2).scan(r -> r.tableName("hot").select("COUNT")).count();
        // The Limit counts the items read: a page for each 9 of the table's, and one that ends at a group's end.
        assertThat(statementPages).isBetween((int) (stored + 8) / 9, (int) stored / 9 + 4);
        // Several partition key values, over several ranges: each value's Query in its group, in the IN list's order,
        // in one page and in pages of a Limit of 3 items read; an OR of them too.
        List<AttributeValue> reversed = new ArrayList<>();
        List<String> inOrder = new ArrayList<>();
        for (int i = spread.size() - 1; i >= 0; i--) {
            reversed.add(AttributeValue.fromS(spread.get(i)));
            inOrder.add(spread.get(i) + "/1");
            inOrder.add(spread.get(i) + "/2");
        }
        String in = "SELECT pk, sk FROM hot WHERE pk IN [?, ?, ?, ?, ?, ?]";
        assertThat(as(0, 1).executeStatement(
                                r -> r.statement(in).parameters(reversed).consistentRead(true))
                        .items())
                .extracting(i -> i.get("pk").s() + "/" + i.get("sk").n())
                .containsExactlyElementsOf(inOrder);
        List<String> inPaged = new ArrayList<>();
        String inNext = null;
        int inPages = 0;
        do {
            String token = inNext;
            var page = as(0, inPages % 4)
                    .executeStatement(r -> r.statement(in)
                            .parameters(reversed)
                            .consistentRead(true)
                            .limit(3)
                            .nextToken(token));
            page.items()
                    .forEach(
                            i -> inPaged.add(i.get("pk").s() + "/" + i.get("sk").n()));
            inNext = page.nextToken();
            inPages++;
        } while (inNext != null && inPages < 100);
        assertThat(inPaged).containsExactlyElementsOf(inOrder);
        assertThat(inPages).isBetween(4, 7);
        assertThat(as(0, 2).executeStatement(r -> r.statement("SELECT pk, sk FROM hot WHERE pk = ? OR pk = ?")
                                .parameters(reversed.get(0), reversed.get(5))
                                .consistentRead(true))
                        .items())
                .extracting(i -> i.get("pk").s() + "/" + i.get("sk").n())
                .containsExactly(inOrder.get(0), inOrder.get(1), inOrder.get(10), inOrder.get(11));
        // A backup is a part in each group under one ARN, in the account's name (strict mode): described as one
        // through any node, deleted in every group. A request's own error comes first.
        assertThatThrownBy(() -> as(0, 3).createBackup(r -> r.tableName("hot").backupName("b")))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("backupName");
        String hotBackup = as(0, 3).createBackup(r -> r.tableName("hot").backupName("hot-backup"))
                .backupDetails()
                .backupArn();
        assertThat(hotBackup).contains(":table/hot/backup/");
        int hotItems =
                as(0, 0).scan(r -> r.tableName("hot").consistentRead(true)).count();
        assertThat(as(0, 1).describeBackup(r -> r.backupArn(hotBackup))
                        .backupDescription()
                        .sourceTableDetails()
                        .itemCount())
                .isEqualTo(hotItems);
        assertThat(as(0, 2).deleteBackup(r -> r.backupArn(hotBackup))
                        .backupDescription()
                        .backupDetails()
                        .backupStatusAsString())
                .isEqualTo("DELETED");
        assertThatThrownBy(() -> as(0, 0).describeBackup(r -> r.backupArn(hotBackup)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.BackupNotFoundException.class);
        // A stream enabled through any node is one over the table's three groups (each asked with the account's
        // key), its records read through any node; disabled, it is in every group.
        String hotStream = as(0, 0).updateTable(r -> r.tableName("hot")
                        .streamSpecification(s -> s.streamEnabled(true).streamViewType("KEYS_ONLY")))
                .tableDescription()
                .latestStreamArn();
        java.util.Set<String> streamed = new java.util.TreeSet<>();
        for (int i = 0; i < 12; i++) {
            String pk = "streamed-" + i;
            streamed.add(pk);
            as(0, i % 4)
                    .putItem(r -> r.tableName("hot")
                            .item(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("0"))));
        }
        try (DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder()
                .endpointOverride(
                        URI.create("http://127.0.0.1:" + members.get(2).apiPort()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AK0", "secret-0"))
                .build()) {
            var shards = streams.describeStream(r -> r.streamArn(hotStream))
                    .streamDescription()
                    .shards();
            assertThat(shards.stream().map(sh -> sh.shardId().substring(8, 17)).distinct())
                    .hasSize(3);
            java.util.Set<String> fromStream = new java.util.TreeSet<>();
            for (var shard : shards) {
                String it = streams.getShardIterator(r ->
                                r.streamArn(hotStream).shardId(shard.shardId()).shardIteratorType("TRIM_HORIZON"))
                        .shardIterator();
                streams.getRecords(r -> r.shardIterator(it))
                        .records()
                        .forEach(rec ->
                                fromStream.add(rec.dynamodb().keys().get("pk").s()));
            }
            assertThat(fromStream).isEqualTo(streamed);
            as(0, 3).updateTable(r -> r.tableName("hot").streamSpecification(s -> s.streamEnabled(false)));
            assertThat(streams.describeStream(r -> r.streamArn(hotStream))
                            .streamDescription()
                            .shards())
                    .allSatisfy(sh -> assertThat(sh.sequenceNumberRange().endingSequenceNumber())
                            .isNotNull());
        }
        for (String pk : streamed) {
            as(0, 1).deleteItem(r ->
                    r.tableName("hot").key(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("0"))));
        }
        // A range moves only at the request of one of the credentials' clusterAdmins (none here): the table's account
        // is refused, and an unsigned request too; the table keeps its three ranges.
        var split = signed(
                0,
                members.get(1),
                "/cluster/ranges",
                "none",
                "{\"table\": \"hot\", \"split\": 0, \"account\": \"" + account + "\"}",
                null,
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(split.statusCode()).as(split.body()).isEqualTo(400);
        assertThat(split.body()).contains("AccessDenied").contains("not authorized to move a table's range");
        var unsigned = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        URI.create("http://" + members.get(2).apiAddress() + "/cluster/ranges"))
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                        "{\"table\": \"hot\", \"split\": 0, \"account\": \"" + account + "\"}"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).as(unsigned.body()).isBetween(400, 403);
        assertThat(rangeGroups(nodes[0], account, "hot")).hasSize(3);
        // Deleted, and made again at once with another key, on demand: placed anew, whole, in a group of its own;
        // the old groups, which no record names, close.
        as(0, 2).deleteTable(r -> r.tableName("hot"));
        assertThatThrownBy(() -> as(0, 3).describeTable(r -> r.tableName("hot")))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException.class);
        java.util.Set<String> old = groupIds(account, "hot");
        as(0, 3).createTable(r -> r.tableName("hot")
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.N))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        for (int i = 0; i < 8; i++) {
            int id = i;
            as(0, i % 4)
                    .putItem(r -> r.tableName("hot")
                            .item(Map.of(
                                    "id",
                                    AttributeValue.fromN(Integer.toString(id)),
                                    "pk",
                                    AttributeValue.fromS("k1"))));
        }
        // Strongly consistent: with follower reads on, a follower may not have applied the last put yet.
        assertThat(as(0, 1).scan(r -> r.tableName("hot").consistentRead(true)).count())
                .isEqualTo(8);
        await("the old groups closed, the new one alone", () -> {
            java.util.Set<String> now = groupIds(account, "hot");
            return now.size() == 1 && java.util.Collections.disjoint(now, old);
        });
        // A whole table deleted and made again at once: made again (in its group, which has not closed yet) and
        // served, with no refusal to wait out.
        as(0, 0).deleteTable(r -> r.tableName("hot"));
        as(0, 1).createTable(r -> r.tableName("hot")
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.N))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        as(0, 2).putItem(r -> r.tableName("hot").item(Map.of("id", AttributeValue.fromN("1"))));
        assertThat(as(0, 3).scan(r -> r.tableName("hot")).count()).isEqualTo(1);
        as(0, 0).deleteTable(r -> r.tableName("hot"));
    }

    /** The place among table hot's three ranges of the items of partition key {@code pk} (a string). */
    private static int rangeOf(String pk) {
        return TableRanges.even(
                        "pk", List.of(new java.util.UUID(0, 1), new java.util.UUID(0, 2), new java.util.UUID(0, 3)))
                .indexOf(io.partita.storage.key.ItemKeyEncoder.partitionHash(
                        new io.partita.protocol.model.AttributeValue.S(pk)));
    }

    /** The ids of the groups of table {@code table} of {@code account} that any node knows. */
    private java.util.Set<String> groupIds(String account, String table) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) {
            JsonNode v = view(nodes[i]);
            for (String list : List.of("groups", "elsewhere")) {
                for (JsonNode g : v.get(list)) {
                    if (g.path("table").asText().equals(table)
                            && g.get("account").asText().equals(account)) {
                        out.add(g.get("group").asText());
                    }
                }
            }
        }
        return out;
    }

    /** The commit index of each group of table {@code table} of {@code account}, the highest any node has. */
    private java.util.Map<String, Long> commits(String account, String table) {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        for (int i = 0; i < 4; i++) {
            rangeGroups(nodes[i], account, table).forEach((range, index) -> out.merge(range, index, Math::max));
        }
        return out;
    }

    /** Node {@code m}'s view of the ids of table {@code table}'s groups (account {@code account}), by their place. */
    private static java.util.Map<String, String> rangeGroupIds(ClusterMember m, String account, String table) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        rangeViews(m, account, table)
                .forEach((range, g) -> out.put(range, g.get("group").asText()));
        return out;
    }

    /**
     * Node {@code m}'s view of the groups of table {@code table} of account {@code account}, by their place among the
     * table's ranges, each with its commit index as the node has it (-1 for a group not on the node).
     */
    private static java.util.Map<String, Long> rangeGroups(ClusterMember m, String account, String table) {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        rangeViews(m, account, table)
                .forEach((range, g) -> out.put(range, g.path("commitIndex").asLong(-1)));
        return out;
    }

    /** Node {@code m}'s view of each group of table {@code table} (account {@code account}), by its place. */
    private static java.util.Map<String, JsonNode> rangeViews(ClusterMember m, String account, String table) {
        java.util.Map<String, JsonNode> out = new java.util.TreeMap<>();
        JsonNode v = view(m);
        for (String list : List.of("groups", "elsewhere")) {
            for (JsonNode g : v.get(list)) {
                if (g.path("table").asText().equals(table)
                        && g.get("account").asText().equals(account)) {
                    out.put(g.path("range").asText("0"), g);
                }
            }
        }
        return out;
    }

    private void awaitPlaced(List<String> memberIds) throws InterruptedException {
        for (int k = 0; k < ACCOUNTS.size(); k++) {
            List<String> placed = io.partita.cluster.Placement.of(memberIds, k, 3);
            String account = ACCOUNTS.get(k);
            await(
                    "account " + k + "'s group on " + placed,
                    () -> placed.stream().allMatch(m -> {
                        ClusterMember node = nodes[Integer.parseInt(m.substring(1))];
                        for (JsonNode g : view(node).get("groups")) {
                            if (g.get("account").asText().equals(account)) {
                                return g.get("members")
                                        .findValuesAsText("id")
                                        .equals(placed.stream().sorted().toList());
                            }
                        }
                        return false;
                    }));
        }
    }

    /** {@code POST /cluster/members} with {@code body} through node {@code via}. */
    private HttpResponse<String> changeMembers(int via, String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[via].port() + "/cluster/members"))
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static String memberFlag(ClusterConfig.Member m) {
        return m.id() + "=" + m.host() + ":" + m.raftPort() + ":" + m.apiPort();
    }

    /** The text of the element {@code selector} finds, read in one script (the page redraws its rows every second). */
    private static String text(WebDriver browser, String selector) {
        return String.valueOf(((JavascriptExecutor) browser)
                .executeScript(
                        "const e = document.querySelector(arguments[0]); return e === null ? '' : e.innerText;",
                        selector));
    }
}
