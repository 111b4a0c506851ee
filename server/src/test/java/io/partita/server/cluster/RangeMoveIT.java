package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.wire.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A range of a table cut by hash ranges moved to a new Raft group ({@code POST /cluster/ranges}, docs/CLUSTER.md
 * "Moving a range") on three nodes, under a counting load through every node: no item lost or doubled, no increment
 * lost or applied twice, and the table whole through any node afterwards.
 */
class RangeMoveIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private final List<ClusterConfig.Member> members = new ArrayList<>();
    private final ClusterMember[] nodes = new ClusterMember[3];
    private final List<DynamoDbClient> clients = new ArrayList<>();

    @AfterEach
    void stopAll() {
        clients.forEach(DynamoDbClient::close);
        ClusterStrictIT.closeAtOnce(nodes);
    }

    private DynamoDbClient client(int via) {
        return clients.get(via);
    }

    private HttpResponse<String> split(int via, String json) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + members.get(via).apiPort() + "/cluster/ranges"))
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, AttributeValue> key(String pk, int sk) {
        return Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN(Integer.toString(sk)));
    }

    /**
     * Past how many bytes of items a store splits a partition (DynamoDB's 10 GB otherwise): table {@code moved} (about
     * 10 KB) never reaches it, table {@code grows} does ({@link #aRangeThatGrowsSplitsByItself}).
     */
    private static final long PARTITION_BYTES = 40 * 1024;

    /**
     * How long after a change each global secondary index applies it (--gsi-lag): a move's new group must have applied
     * every copied item before the source gives the range up, or the index would miss them that long.
     */
    private static final long GSI_LAG_MILLIS = 1_500;

    private ClusterConfig config(int i) {
        return new ClusterConfig("moves", "n" + i, members)
                .withReplicas(3)
                .withTableGroups(true)
                .withPartitionGroups(true)
                .withFollowerReads(true);
    }

    /**
     * Three nodes, and table {@code moved} cut in two ranges (1,500 write units and 100 read units need two
     * partitions), with a local secondary index and a global one ({@code byG}: {@code g}, {@code v}), holding forty
     * partition keys of five items each, put through every node, each with {@code g} {@code g0} or {@code g1}.
     */
    @SuppressWarnings("unchecked")
    private void startWithATable() throws Exception {
        for (int i = 0; i < 3; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", FreePorts.next(), FreePorts.next()));
        }
        for (int i = 0; i < 3; i++) {
            nodes[i] = ClusterStrictIT.startNode(dir, config(i), i, PARTITION_BYTES, GSI_LAG_MILLIS);
            clients.add(DynamoDbClient.builder()
                    .endpointOverride(
                            URI.create("http://127.0.0.1:" + members.get(i).apiPort()))
                    .region(Region.US_EAST_1)
                    .credentialsProvider(() -> AwsBasicCredentials.create("x", "y"))
                    .build());
        }
        client(0)
                .createTable(r -> r.tableName("moved")
                        .attributeDefinitions(
                                a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                                a -> a.attributeName("sk").attributeType(ScalarAttributeType.N),
                                a -> a.attributeName("v").attributeType(ScalarAttributeType.S),
                                a -> a.attributeName("g").attributeType(ScalarAttributeType.S))
                        .keySchema(
                                k -> k.attributeName("pk").keyType(KeyType.HASH),
                                k -> k.attributeName("sk").keyType(KeyType.RANGE))
                        .localSecondaryIndexes(l -> l.indexName("byV")
                                .keySchema(
                                        k -> k.attributeName("pk").keyType(KeyType.HASH),
                                        k -> k.attributeName("v").keyType(KeyType.RANGE))
                                .projection(p -> p.projectionType(ProjectionType.ALL)))
                        .globalSecondaryIndexes(g -> g.indexName("byG")
                                .keySchema(
                                        k -> k.attributeName("g").keyType(KeyType.HASH),
                                        k -> k.attributeName("v").keyType(KeyType.RANGE))
                                .projection(p -> p.projectionType(ProjectionType.KEYS_ONLY))
                                .provisionedThroughput(
                                        p -> p.readCapacityUnits(100L).writeCapacityUnits(100L)))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        for (int i = 0; i < 40; i++) {
            for (int j = 0; j < 5; j++) {
                int k = i;
                int n = j;
                client((i + j) % 3)
                        .putItem(r -> r.tableName("moved")
                                .item(Map.of(
                                        "pk", AttributeValue.fromS("k" + k),
                                        "sk", AttributeValue.fromN(Integer.toString(n)),
                                        "v", AttributeValue.fromS("v" + (9 - n)),
                                        "g", AttributeValue.fromS("g" + (k % 2)))));
            }
        }
    }

    /**
     * Every item once through node {@code via}, {@code extra} besides the two hundred: a Scan walked over the groups;
     * and each partition key's items through the local index, in its order.
     */
    private void wholeThrough(int via, int extra) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        client(via)
                .scanPaginator(r -> r.tableName("moved").consistentRead(true))
                .items()
                .forEach(items::add);
        Set<String> keys = new HashSet<>();
        for (Map<String, AttributeValue> item : items) {
            assertThat(keys.add(item.get("pk").s() + "/" + item.get("sk").n()))
                    .as("item %s once", item)
                    .isTrue();
        }
        assertThat(items).as("items through node %d", via).hasSize(200 + extra);
        for (int i = 0; i < 40; i++) {
            int k = i;
            assertThat(client(via)
                            .query(r -> r.tableName("moved")
                                    .indexName("byV")
                                    .consistentRead(true)
                                    .keyConditionExpression("pk = :p")
                                    .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("k" + k))))
                            .items())
                    .extracting(item -> item.get("sk").n())
                    .as("k%d's items in the local index's order", k)
                    .containsExactly("4", "3", "2", "1", "0");
        }
    }

    /**
     * The rows of global index {@code index} with {@code g} = {@code g0} through node {@code via}, as a client pages
     * through them (Limit {@code limit}, 0 for none) in the index's order or the reverse: "pk/sk v" each.
     */
    private List<String> indexPages(String index, int via, int limit, boolean forward) {
        return indexPages(index, "g0", via, limit, forward);
    }

    /** As above, the rows whose {@code g} is {@code value}. */
    private List<String> indexPages(String index, String value, int via, int limit, boolean forward) {
        List<String> rows = new ArrayList<>();
        client(via)
                .queryPaginator(r -> {
                    r.tableName("moved")
                            .indexName(index)
                            .keyConditionExpression("g = :g")
                            .scanIndexForward(forward)
                            .expressionAttributeValues(Map.of(":g", AttributeValue.fromS(value)));
                    if (limit > 0) {
                        r.limit(limit);
                    }
                })
                .items()
                .forEach(i -> rows.add(i.get("pk").s() + "/" + i.get("sk").n() + " "
                        + i.get("v").s()));
        return rows;
    }

    /**
     * {@code POST /admin/indexes/lag} of index {@code byG} of the cut table {@code moved}, through a node: every group's
     * index has it (each group's own view, asked by its id), then the default again; an index the table lacks, 404.
     */
    private void indexLagThrough() throws Exception {
        assertThat(indexLag(1, "byG", "600000").statusCode()).isEqualTo(200);
        assertThat(groupsLag("byG"))
                .as("each group's index lag")
                .hasSizeGreaterThanOrEqualTo(2)
                .containsOnly(600_000L);
        assertThat(indexLag(2, "byG", "-1").statusCode()).isEqualTo(200);
        assertThat(groupsLag("byG"))
                .as("each group's index lag, the default again")
                .containsOnly(GSI_LAG_MILLIS);
        HttpResponse<String> none = indexLag(0, "none", "10");
        assertThat(none.statusCode()).as(none.body()).isEqualTo(404);
        assertThat(none.body()).contains("no global secondary index none of table moved");
        assertThat(indexLag(0, "byG", "soon").statusCode()).isEqualTo(400);
    }

    private HttpResponse<String> indexLag(int via, String index, String millis) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + members.get(via).apiPort()
                                        + "/admin/indexes/lag?table=moved&index=" + index + "&millis=" + millis))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The lag each group of table {@code moved} injects before its index {@code index} applies a change. */
    private List<Long> groupsLag(String index) throws Exception {
        List<Long> lags = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        clusterView().get("groups").forEach(g -> {
            if (g.path("table").asText().equals("moved")) {
                groups.add(g.get("group").asText());
            }
        });
        for (String group : groups) {
            for (JsonNode i : askGroup(group, "/admin/indexes?table=moved").path("globalSecondaryIndexes")) {
                if (i.path("indexName").asText().equals(index)) {
                    lags.add(i.path("injectedLagMillis").asLong());
                }
            }
        }
        return lags;
    }

    /**
     * The admin view {@code path} of table {@code moved} in group {@code group}: asked of the group's leader as another
     * node asks a group for its own (its id, and forwarded: served there); again after a moment if that leader has
     * just changed.
     */
    private JsonNode askGroup(String group, String path) throws Exception {
        HttpResponse<String> asked = null;
        for (int tries = 0; tries < 50 && (asked == null || asked.statusCode() == 503); tries++) {
            if (asked != null) {
                Thread.sleep(100);
            }
            String leader = "";
            for (JsonNode g : clusterView().get("groups")) {
                if (g.path("group").asText().equals(group)) {
                    leader = g.path("leader").asText();
                }
            }
            asked = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                    + members.get(Integer.parseInt(leader.substring(1)))
                                            .apiPort()
                                    + path))
                            .header(ClusterRouter.GROUP, group)
                            .header(ClusterRouter.FORWARDED, "test")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(200);
        return JSON.readTree(asked.body()).path("tables").path(0);
    }

    /**
     * The groups of table {@code moved} charge each other what they consume (docs/CLUSTER.md, "Capacity over
     * ranges"): items put in the first range alone, each a write unit, show in the second group's metrics as charged
     * from elsewhere, within seconds (each range's leader reports twice a second), and not as its own consumption.
     */
    private void rangesChargeEachOther() throws Exception {
        String first = null;
        String second = null;
        for (JsonNode g : clusterView().get("groups")) {
            if (g.path("table").asText().equals("moved")) {
                if (g.has("range")) {
                    second = g.get("group").asText();
                } else {
                    first = g.get("group").asText();
                }
            }
        }
        // A leader that changes counts anew, and a report it had not sent is lost: once, the round is made again.
        String leaders = leadersOf(first, second);
        try {
            chargeRound(first, second, "charged");
        } catch (AssertionError e) {
            if (leadersOf(first, second).equals(leaders)) {
                throw e;
            }
            chargeRound(first, second, "chargedAgain");
        }
    }

    /** The leaders of groups {@code first} and {@code second}, as node 0 sees them. */
    private String leadersOf(String first, String second) throws Exception {
        StringBuilder out = new StringBuilder();
        for (JsonNode g : clusterView().get("groups")) {
            String id = g.path("group").asText();
            if (id.equals(first) || id.equals(second)) {
                out.append(id).append('=').append(g.path("leader").asText()).append(' ');
            }
        }
        return out.toString();
    }

    /** One round of {@link #rangesChargeEachOther}: 30 puts of keys {@code <prefix>N} in the first range. */
    private void chargeRound(String first, String second, String prefix) throws Exception {
        String metrics = "/admin/metrics?table=moved";
        JsonNode before = askGroup(second, metrics);
        double charged = before.path("hashRange")
                .path("chargedElsewhereWriteCapacityUnits")
                .asDouble();
        double own = before.path("consumedWriteCapacityUnits").asDouble();
        double firstOwn =
                askGroup(first, metrics).path("consumedWriteCapacityUnits").asDouble();
        int puts = 0;
        List<String> put = new ArrayList<>();
        try {
            for (int i = 0; puts < 30; i++) {
                String pk = prefix + i;
                long hash = io.partita.storage.key.ItemKeyEncoder.partitionHash(
                        new io.partita.protocol.model.AttributeValue.S(pk));
                if (Long.compareUnsigned(hash, Long.MIN_VALUE) >= 0) {
                    continue; // the second range's
                }
                put.add(pk);
                int via = puts++ % 3;
                client(via)
                        .putItem(r -> r.tableName("moved")
                                .item(Map.of(
                                        "pk", AttributeValue.fromS(pk),
                                        "sk", AttributeValue.fromN("0"),
                                        "v", AttributeValue.fromS("v"))));
            }
            assertThat(askGroup(first, metrics)
                                    .path("consumedWriteCapacityUnits")
                                    .asDouble()
                            - firstOwn)
                    .as("the first range's own consumption")
                    .isGreaterThanOrEqualTo(puts);
            JsonNode after = before;
            long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (chargedFromElsewhere(after) - charged < puts && System.nanoTime() < until) {
                Thread.sleep(200);
                after = askGroup(second, metrics);
            }
            assertThat(chargedFromElsewhere(after) - charged)
                    .as("charged from the first range")
                    .isGreaterThanOrEqualTo(puts);
            assertThat(after.path("consumedWriteCapacityUnits").asDouble())
                    .as("not the second range's own")
                    .isEqualTo(own);
        } finally {
            for (String pk : put) {
                client(0).deleteItem(r -> r.tableName("moved").key(key(pk, 0)));
            }
        }
    }

    /**
     * {@code GET path} of group {@code group}, asked of each node in turn until one serves it ({@link #toGroup}): the
     * first table of its answer.
     */
    private JsonNode askGroupOfAnyNode(String group, String path) throws Exception {
        return JSON.readTree(toGroup(group, node -> HttpRequest.newBuilder(URI.create(node + path)))
                        .body())
                .path("tables")
                .path(0);
    }

    /**
     * The request {@code request} makes (given a node's address) to group {@code group}, sent to each node in turn
     * until one serves it, its leader, whichever node's view of the leaders is behind: for 20 s at most.
     */
    private HttpResponse<String> toGroup(String group, java.util.function.Function<String, HttpRequest.Builder> request)
            throws Exception {
        return toGroup(group, request, status -> status == 200);
    }

    /** As {@link #toGroup}, until a node answers a status {@code answered} takes. */
    private HttpResponse<String> toGroup(
            String group,
            java.util.function.Function<String, HttpRequest.Builder> request,
            java.util.function.IntPredicate answered)
            throws Exception {
        String last = "";
        for (int tries = 0; tries < 60; tries++) {
            try {
                HttpResponse<String> asked = HTTP.send(
                        request.apply("http://127.0.0.1:"
                                        + members.get(tries % 3).apiPort())
                                .header(ClusterRouter.GROUP, group)
                                .header(ClusterRouter.FORWARDED, "test")
                                .timeout(java.time.Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (answered.test(asked.statusCode())) {
                    return asked;
                }
                last = asked.body();
            } catch (java.net.http.HttpTimeoutException waited) {
                last = "no answer within 2 s";
            }
            Thread.sleep(tries % 3 == 2 ? 300 : 0);
        }
        throw new AssertionError("no node served group " + group + ": " + last);
    }

    /** The write units a group's metrics of table {@code moved} say the other groups reported. */
    private static double chargedFromElsewhere(JsonNode metrics) {
        return metrics.path("hashRange")
                .path("chargedElsewhereWriteCapacityUnits")
                .asDouble();
    }

    /** Node 0's view of the cluster ({@code GET /cluster}). */
    private JsonNode clusterView() throws Exception {
        return JSON.readTree(HTTP.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + members.get(0).apiPort() + "/cluster"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
    }

    /** The rows of PartiQL SELECT {@code statement} through node {@code via}, paged by {@code limit}: "pk/sk v". */
    private List<String> selectPages(int via, String statement, int limit) {
        List<String> rows = new ArrayList<>();
        String next = null;
        do {
            String token = next;
            var page = client(via)
                    .executeStatement(r -> r.statement(statement).limit(limit).nextToken(token));
            assertThat(page.items()).hasSizeLessThanOrEqualTo(limit);
            page.items()
                    .forEach(i -> rows.add(i.get("pk").s() + "/" + i.get("sk").n() + " "
                            + i.get("v").s()));
            next = page.nextToken();
        } while (next != null && rows.size() <= 400);
        return rows;
    }

    /**
     * Global index {@code byG} through every node, once each node's groups have indexed every item (eventually
     * consistent): the hundred rows of {@code g0} once each, in the index's order ({@code v}, then the table's key,
     * the same whichever node merges and however paged), the reverse backwards, by Query and by PartiQL; a filter's
     * Count; a Scan of the index walked over the groups, whole and in parallel segments, every row once.
     */
    private void globalIndexThrough() throws Exception {
        // Every group's indexes caught up at once, through any node (the indexes lag 1.5 s here).
        HttpResponse<String> awaited = HTTP.send(
                HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + members.get(2).apiPort() + "/admin/indexes/await?table=moved"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(awaited.statusCode()).as(awaited.body()).isEqualTo(200);
        indexLagThrough();
        for (int via = 0; via < 3; via++) {
            assertThat(indexPages("byG", via, 0, true))
                    .as("g0's rows through node %d", via)
                    .hasSize(100);
        }
        List<String> order = indexPages("byG", 0, 0, true);
        assertThat(new HashSet<>(order)).hasSize(100);
        List<String> values =
                order.stream().map(r -> r.substring(r.indexOf(' ') + 1)).toList();
        assertThat(values).isSorted().startsWith("v5").endsWith("v9");
        for (int via = 0; via < 3; via++) {
            assertThat(indexPages("byG", via, 7, true))
                    .as("paged by 7 through node %d", via)
                    .isEqualTo(order);
            List<String> reversed = new ArrayList<>(order);
            java.util.Collections.reverse(reversed);
            assertThat(indexPages("byG", via, 9, false))
                    .as("backwards through node %d", via)
                    .isEqualTo(reversed);
        }
        // A PartiQL SELECT of the index by its key, merged alike, paged by its Limit.
        List<String> backwards = new ArrayList<>(order);
        java.util.Collections.reverse(backwards);
        assertThat(selectPages(2, "SELECT pk, sk, v FROM \"moved\".\"byG\" WHERE g = 'g0' ORDER BY v DESC", 12))
                .as("a SELECT of the index, backwards, by 12")
                .isEqualTo(backwards);
        // One of two values of the index's key: each value's rows merged over the groups, the values in the IN list's
        // order, paged by 7.
        List<String> both = new ArrayList<>(indexPages("byG", "g1", 0, 0, true));
        assertThat(both).hasSize(100);
        both.addAll(order);
        assertThat(selectPages(1, "SELECT pk, sk, v FROM \"moved\".\"byG\" WHERE g IN ['g1', 'g0']", 7))
                .as("a SELECT of two values of the index's key, by 7")
                .isEqualTo(both);
        var counted = client(1)
                .query(r -> r.tableName("moved")
                        .indexName("byG")
                        .select("COUNT")
                        .keyConditionExpression("g = :g AND v > :v")
                        .filterExpression("sk > :zero")
                        .expressionAttributeValues(Map.of(
                                ":g", AttributeValue.fromS("g0"),
                                ":v", AttributeValue.fromS("v5"),
                                ":zero", AttributeValue.fromN("0"))));
        assertThat(counted.scannedCount()).as("rows of v6 to v9").isEqualTo(80);
        assertThat(counted.count()).as("of which sk > 0 (v9 is sk 0)").isEqualTo(60);
        assertThat(counted.items()).isEmpty();
        List<String> scanned = new ArrayList<>();
        client(2)
                .scanPaginator(r -> r.tableName("moved").indexName("byG").limit(33))
                .items()
                .forEach(i -> scanned.add(i.get("pk").s() + "/" + i.get("sk").n()));
        for (int segment = 0; segment < 3; segment++) {
            int s = segment;
            client(s)
                    .scanPaginator(r ->
                            r.tableName("moved").indexName("byG").segment(s).totalSegments(3))
                    .items()
                    .forEach(
                            i -> scanned.add(i.get("pk").s() + "/" + i.get("sk").n()));
        }
        assertThat(scanned).as("a Scan of the index, then its three segments").hasSize(400);
        assertThat(new HashSet<>(scanned)).hasSize(200);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRangeMovesToANewGroupUnderWritesWithNothingLostOrDoubled() throws Exception {
        startWithATable();
        rangesChargeEachOther();
        globalIndexThrough();
        // Counters, incremented through every node while the range moves; each acknowledged increment counted.
        int counters = 12;
        Map<String, AtomicLong> acked = new ConcurrentHashMap<>();
        AtomicLong failed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            int via = w;
            Thread t = new Thread(() -> {
                java.util.Random random = new java.util.Random(via);
                while (!stop.get()) {
                    String pk = "c" + random.nextInt(counters);
                    try {
                        client(via)
                                .updateItem(r -> r.tableName("moved")
                                        .key(key(pk, 0))
                                        .updateExpression("ADD c :one SET v = :v")
                                        .expressionAttributeValues(Map.of(
                                                ":one", AttributeValue.fromN("1"), ":v", AttributeValue.fromS("c"))));
                        acked.computeIfAbsent(pk, p -> new AtomicLong()).incrementAndGet();
                    } catch (RuntimeException e) {
                        failed.incrementAndGet(); // its outcome unknown: the check below allows for it
                    }
                }
            });
            t.start();
            writers.add(t);
        }
        // Whole Scans walked over the groups meanwhile (always through each group's leader), each that completes
        // holding every item once; between them, eventually consistent GetItems through every node, which a
        // follower's reader may answer: the "k" items never change, so each is found, however far behind it is.
        List<String> torn = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicLong scans = new AtomicLong();
        Thread scanner = new Thread(() -> {
            java.util.Random random = new java.util.Random(7);
            while (!stop.get()) {
                try {
                    Set<String> seen = new HashSet<>();
                    long[] items = {0};
                    client(2)
                            .scanPaginator(r -> r.tableName("moved").consistentRead(true))
                            .items()
                            .forEach(item -> {
                                if (item.get("pk").s().startsWith("k")) {
                                    items[0]++;
                                    seen.add(item.get("pk").s() + "/"
                                            + item.get("sk").n());
                                }
                            });
                    if (items[0] != 200 || seen.size() != 200) {
                        torn.add(items[0] + " items, " + seen.size() + " distinct");
                    }
                    scans.incrementAndGet();
                } catch (RuntimeException e) {
                    // A page refused past the SDK's retries (a walk whose record of the ranges was behind): sent again.
                }
                for (int n = 0; n < 12 && !stop.get(); n++) {
                    String pk = "k" + random.nextInt(40);
                    int sk = random.nextInt(5);
                    try {
                        if (!client(n % 3)
                                .getItem(r -> r.tableName("moved").key(key(pk, sk)))
                                .hasItem()) {
                            torn.add(pk + "/" + sk + " not found by an eventually consistent read");
                        }
                    } catch (RuntimeException e) {
                        // Refused past the SDK's retries (a reader whose tables changed meanwhile): sent again.
                    }
                }
            }
        });
        scanner.start();
        writers.add(scanner);
        Thread.sleep(500);

        // A transaction with a ClientRequestToken on a key the move takes: sent again after it (to the new group),
        // a repeat, not made twice.
        String tokened = keyWhoseHash(true, "t", Integer.MAX_VALUE);
        Runnable once = () -> client(0)
                .transactWriteItems(r -> r.clientRequestToken("before-the-move")
                        .transactItems(i -> i.update(u -> u.tableName("moved")
                                .key(key(tokened, 0))
                                .updateExpression("ADD c :one")
                                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))))));
        once.run();

        // During the first copy, which runs while the writes go on: a moved item copied already is deleted, and one
        // not there before is put. The copy after the fence takes both changes over (the deleted item is not
        // brought back).
        String gone = keyWhoseHash(true, "g", Integer.MAX_VALUE);
        String late = keyWhoseHash(true, "l", Integer.MAX_VALUE);
        client(2)
                .putItem(r -> r.tableName("moved")
                        .item(Map.of(
                                "pk",
                                AttributeValue.fromS(gone),
                                "sk",
                                AttributeValue.fromN("0"),
                                "v",
                                AttributeValue.fromS("g"))));
        AtomicBoolean duringCopy = new AtomicBoolean();
        String[] statusDuring = {null};
        RangeMove.afterStep = step -> {
            if (step.equals("copied once") && duringCopy.compareAndSet(false, true)) {
                // A move refuses changes of the table's settings: the table is described UPDATING meanwhile.
                statusDuring[0] = client(2)
                        .describeTable(r -> r.tableName("moved"))
                        .table()
                        .tableStatusAsString();
                client(0).deleteItem(r -> r.tableName("moved").key(key(gone, 0)));
                client(1)
                        .putItem(r -> r.tableName("moved")
                                .item(Map.of(
                                        "pk",
                                        AttributeValue.fromS(late),
                                        "sk",
                                        AttributeValue.fromN("0"),
                                        "v",
                                        AttributeValue.fromS("l"))));
            }
        };
        // The first pages of a Scan and a Query of the global index, whose next pages are read after the move.
        var scanned = client(0).scan(r -> r.tableName("moved").indexName("byG").limit(60));
        var queried = client(1)
                .query(r -> r.tableName("moved")
                        .indexName("byG")
                        .keyConditionExpression("g = :g")
                        .expressionAttributeValues(Map.of(":g", AttributeValue.fromS("g0")))
                        .limit(30));
        HttpResponse<String> moved;
        try {
            moved = split(1, "{\"table\": \"moved\", \"split\": 0}");
        } finally {
            RangeMove.afterStep = step -> {};
        }
        // At once: the new group indexed the moved items before the source gave their range up.
        assertThat(indexPages("byG", 2, 0, true))
                .as("the global index's rows of g0 right after the move")
                .hasSize(100);
        List<String> acrossTheMove = new ArrayList<>();
        scanned.items()
                .forEach(i ->
                        acrossTheMove.add(i.get("pk").s() + "/" + i.get("sk").n()));
        client(2)
                .scanPaginator(r ->
                        r.tableName("moved").indexName("byG").limit(60).exclusiveStartKey(scanned.lastEvaluatedKey()))
                .items()
                .forEach(i ->
                        acrossTheMove.add(i.get("pk").s() + "/" + i.get("sk").n()));
        assertThat(acrossTheMove)
                .as("a Scan of the index paged across the move")
                .hasSize(200);
        assertThat(new HashSet<>(acrossTheMove)).hasSize(200);
        List<String> queriedAcross = new ArrayList<>();
        queried.items()
                .forEach(i -> queriedAcross.add(i.get("pk").s() + "/"
                        + i.get("sk").n() + " " + i.get("v").s()));
        client(0)
                .queryPaginator(r -> r.tableName("moved")
                        .indexName("byG")
                        .keyConditionExpression("g = :g")
                        .expressionAttributeValues(Map.of(":g", AttributeValue.fromS("g0")))
                        .limit(30)
                        .exclusiveStartKey(queried.lastEvaluatedKey()))
                .items()
                .forEach(i -> queriedAcross.add(i.get("pk").s() + "/"
                        + i.get("sk").n() + " " + i.get("v").s()));
        assertThat(queriedAcross)
                .as("a Query of the index paged across the move")
                .isEqualTo(indexPages("byG", 1, 0, true));
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        assertThat(duringCopy).as("written during the first copy").isTrue();
        assertThat(statusDuring[0]).as("the table's status during the move").isEqualTo("UPDATING");
        ClusterStrictIT.await(
                "the table active again through node 2 (its record of the move's end may lag a moment)",
                () -> client(2)
                        .describeTable(r -> r.tableName("moved"))
                        .table()
                        .tableStatusAsString()
                        .equals("ACTIVE"));
        for (int via = 0; via < 3; via++) {
            DynamoDbClient c = client(via);
            assertThat(c.getItem(r -> r.tableName("moved").consistentRead(true).key(key(gone, 0)))
                            .hasItem())
                    .as("the item deleted during the first copy, through node %d", via)
                    .isFalse();
            assertThat(c.getItem(r -> r.tableName("moved").consistentRead(true).key(key(late, 0)))
                            .hasItem())
                    .as("the item put during the first copy, through node %d", via)
                    .isTrue();
        }
        once.run();
        assertThat(client(1)
                        .getItem(r -> r.tableName("moved").consistentRead(true).key(key(tokened, 0)))
                        .item()
                        .get("c")
                        .n())
                .as("the transaction made once")
                .isEqualTo("1");
        JsonNode ranges = JSON.readTree(moved.body()).get("ranges");
        assertThat(ranges).as("three ranges now").hasSize(3);
        Set<String> groups = new HashSet<>();
        ranges.forEach(r -> groups.add(r.get("group").asText()));
        assertThat(groups).hasSize(3);
        assertThat(Long.parseUnsignedLong(ranges.get(1).get("from").asText()))
                .as("the new range starts halfway through the first")
                .isEqualTo(Long.parseUnsignedLong("4611686018427387904"));

        Thread.sleep(500); // writes to every range go on after the move
        stop.set(true);
        for (Thread t : writers) {
            t.join();
        }
        assertThat(acked.values().stream().mapToLong(AtomicLong::get).sum())
                .as("increments acknowledged")
                .isGreaterThan(20);
        System.err.println("RangeMoveIT: increments answered an error: " + failed.get() + ", scans " + scans.get());
        assertThat(torn)
                .as("Scans that lost or doubled an item, reads that did not find one")
                .isEmpty();
        assertThat(scans.get()).as("Scans completed").isPositive();

        for (int via = 0; via < 3; via++) {
            wholeThrough(via, acked.size() + 2);
        }
        // The global index's rows moved with their items (each group indexes its own), none left in the source.
        globalIndexThrough();
        ClusterStrictIT.await(
                "the global index's count of rows, its three groups' summed",
                () -> client(0)
                                .describeTable(r -> r.tableName("moved"))
                                .table()
                                .globalSecondaryIndexes()
                                .get(0)
                                .itemCount()
                        == 200);
        // A global index made on the table cut by ranges: every group backfills the rows of its own items, and the
        // index is ACTIVE once every one has.
        client(1)
                .updateTable(r -> r.tableName("moved")
                        .attributeDefinitions(
                                a -> a.attributeName("g").attributeType(ScalarAttributeType.S),
                                a -> a.attributeName("sk").attributeType(ScalarAttributeType.N))
                        .globalSecondaryIndexUpdates(u -> u.create(c -> c.indexName("byGsk")
                                .keySchema(
                                        k -> k.attributeName("g").keyType(KeyType.HASH),
                                        k -> k.attributeName("sk").keyType(KeyType.RANGE))
                                .projection(p -> p.projectionType(ProjectionType.ALL))
                                .provisionedThroughput(
                                        p -> p.readCapacityUnits(50L).writeCapacityUnits(50L)))));
        ClusterStrictIT.await(
                "the new global index active",
                () -> client(2).describeTable(r -> r.tableName("moved")).table().globalSecondaryIndexes().stream()
                        .anyMatch(g -> g.indexName().equals("byGsk")
                                && g.indexStatusAsString().equals("ACTIVE")
                                && !Boolean.TRUE.equals(g.backfilling())));
        List<String> bySk = indexPages("byGsk", 2, 11, true);
        assertThat(new HashSet<>(bySk)).as("the new index's rows of g0").hasSize(100);
        assertThat(bySk.stream()
                        .map(r -> Integer.parseInt(r.substring(r.indexOf('/') + 1, r.indexOf(' '))))
                        .toList())
                .isSorted();
        // No increment lost, none applied twice (one whose answer was lost may have been applied).
        long sum = 0;
        for (var e : acked.entrySet()) {
            long c = Long.parseLong(client(0)
                    .getItem(r -> r.tableName("moved").consistentRead(true).key(key(e.getKey(), 0)))
                    .item()
                    .get("c")
                    .n());
            assertThat(c)
                    .as("counter %s", e.getKey())
                    .isGreaterThanOrEqualTo(e.getValue().get());
            sum += c - e.getValue().get();
        }
        assertThat(sum).as("increments beyond those acknowledged").isLessThanOrEqualTo(failed.get());
        // The table's description sums its three groups, the copies the source deleted no longer among them.
        ClusterStrictIT.await(
                "the table's count of items",
                () -> client(2).describeTable(r -> r.tableName("moved")).table().itemCount() == 202 + acked.size());

        // What cannot be moved is refused, and changes nothing.
        assertThat(split(0, "{\"table\": \"moved\", \"split\": 3}").statusCode())
                .isEqualTo(400);
        assertThat(split(0, "{\"table\": \"absent\", \"split\": 0}").statusCode())
                .isEqualTo(400);
        assertThat(split(0, "{\"table\": \"moved\"}").statusCode()).isEqualTo(400);
        createWhole();
        HttpResponse<String> whole = split(2, "{\"table\": \"whole\", \"split\": 0}");
        assertThat(whole.statusCode()).isEqualTo(400);
        assertThat(whole.body()).contains("kept whole");

        // A backup is checked by the first group as on any table first.
        assertThatThrownBy(
                        () -> client(2).createBackup(r -> r.tableName("moved").backupName("ab")))
                .hasMessageContaining("backupName")
                .hasMessageNotContaining("does not run");
        // A stream with a change of throughput: DynamoDB's own refusal, from the first group.
        assertThatThrownBy(() -> client(0)
                        .updateTable(r -> r.tableName("moved")
                                .streamSpecification(
                                        st -> st.streamEnabled(true).streamViewType("NEW_IMAGE"))
                                .provisionedThroughput(
                                        p -> p.readCapacityUnits(5L).writeCapacityUnits(5L))))
                .as("a stream with a change of throughput")
                .hasMessageContaining("You cannot modify stream status while updating table IOPS");

        aRangeThatGrowsSplitsByItself();
    }

    /**
     * Table {@code grows}, cut in two ranges, written through every node past the stores' partition size (40 KB
     * here): each range's store splits its partition for size, and each range then moves the part after that cut to
     * a new group by itself (--cluster-auto-split, on by default), one move of the table after the other, with nothing
     * lost or doubled.
     */
    @SuppressWarnings("unchecked")
    private void aRangeThatGrowsSplitsByItself() throws Exception {
        client(1)
                .createTable(r -> r.tableName("grows")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        String pad = "x".repeat(1_000);
        int items = 120;
        for (int i = 0; i < items; i++) {
            int n = i;
            for (int tries = 1; ; tries++) {
                try {
                    client(i % 3)
                            .putItem(r -> r.tableName("grows")
                                    .item(Map.of(
                                            "pk", AttributeValue.fromS("g" + n), "pad", AttributeValue.fromS(pad))));
                    break;
                } catch (software.amazon.awssdk.services.dynamodb.model.DynamoDbException e) {
                    // A move's fence refuses its keys' writes (503) for longer than the SDK's retries may last.
                    assertThat(e.statusCode()).as(e.getMessage()).isEqualTo(503);
                    assertThat(tries).as("tries of item g%d", n).isLessThan(50);
                    Thread.sleep(100);
                }
            }
        }
        // 120 KB over two ranges: each range's store splits at the middle of its bytes, and its range moves there.
        ClusterStrictIT.await("table grows cut in four ranges, its moves over", () -> {
            try {
                HttpResponse<String> asked = split(0, "{\"table\": \"grows\", \"split\": 99}");
                return asked.statusCode() == 400 && asked.body().contains("has 4 ranges");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        for (int via = 0; via < 3; via++) {
            Set<String> seen = new HashSet<>();
            long[] count = {0};
            client(via)
                    .scanPaginator(r -> r.tableName("grows").consistentRead(true))
                    .items()
                    .forEach(item -> {
                        count[0]++;
                        seen.add(item.get("pk").s());
                    });
            assertThat(count[0]).as("items scanned through node %d", via).isEqualTo(items);
            assertThat(seen).as("distinct items through node %d", via).hasSize(items);
        }
        ClusterStrictIT.await(
                "table grows's count of items",
                () -> client(2).describeTable(r -> r.tableName("grows")).table().itemCount() == items);
        // Each new range starts at the cut its store's split made (the middle of its bytes), not at the range's middle
        // (where a move asked for cuts it); and none moved again meanwhile.
        Set<String> starts = new HashSet<>();
        JSON.readTree(HTTP.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                                + members.get(0).apiPort() + "/cluster"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body())
                .get("groups")
                .forEach(g -> {
                    if (g.path("table").asText().equals("grows")) {
                        starts.add(g.get("hashStart").asText());
                    }
                });
        assertThat(starts)
                .hasSize(4)
                .contains("0000000000000000", "8000000000000000")
                .doesNotContain("4000000000000000", "c000000000000000");
        assertThat(split(0, "{\"table\": \"grows\", \"split\": 99}").body()).contains("has 4 ranges");
    }

    @SuppressWarnings("unchecked")
    private void createWhole() {
        client(0)
                .createTable(r -> r.tableName("whole")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .billingMode("PAY_PER_REQUEST"));
    }

    /**
     * The leader of the range's group stops after it copied the moved items and before the ranges name the new group:
     * meanwhile a write of a moved key is refused (the SDK's retries run out), one of the other range goes ahead. The
     * group's next leader finishes the move (it copies again, then switches and deletes), and the table is whole.
     * Then a second table is deleted during a move of its own ({@link #aTableDeletedDuringAMoveEndsIt}).
     */
    @Test
    void aMoveWhoseLeaderStopsMidwayIsFinishedByTheNextLeader() throws Exception {
        startWithATable();
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        RangeMove.afterStep = step -> {
            if (step.equals("copied") && once.compareAndSet(false, true)) {
                stopped.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE); // until its node closes
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("its node closed");
                }
            }
        };
        try {
            int leader = leaderOfTheFirstRange();
            int via = (leader + 1) % 3;
            var moved = HTTP.sendAsync(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + members.get(via).apiPort() + "/cluster/ranges"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"table\": \"moved\", \"split\": 0}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(stopped.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            String movedKey = keyWhoseHash(true, "m", Integer.MAX_VALUE);
            String keptKey = keyWhoseHash(false, "m", Integer.MAX_VALUE);
            assertThatThrownBy(() ->
                            client(via).putItem(r -> r.tableName("moved").item(key(movedKey, 9))))
                    .isInstanceOfSatisfying(
                            software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(503));
            client(via).putItem(r -> r.tableName("moved").item(key(keptKey, 9)));
            // Its items are read meanwhile, as they stay; a change to the table waits for the move's end.
            String movedItem = keyWhoseHash(true, "k", 40);
            assertThat(client(via)
                            .getItem(r ->
                                    r.tableName("moved").consistentRead(true).key(key(movedItem, 3)))
                            .item())
                    .containsEntry("v", AttributeValue.fromS("v6"));
            assertThatThrownBy(() -> client(via)
                            .updateTimeToLive(r -> r.tableName("moved")
                                    .timeToLiveSpecification(
                                            t -> t.enabled(true).attributeName("ttl"))))
                    .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ResourceInUseException.class);

            nodes[leader].close();
            nodes[leader] = null;
            HttpResponse<String> done = moved.get(3, java.util.concurrent.TimeUnit.MINUTES);
            assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
            assertThat(JSON.readTree(done.body()).get("ranges")).hasSize(3);
            client(via).putItem(r -> r.tableName("moved").item(key(movedKey, 9)));
            for (int i = 1; i < 3; i++) {
                wholeThrough((leader + i) % 3, 2);
            }
            nodes[leader] = ClusterStrictIT.startNode(dir, config(leader), leader, PARTITION_BYTES, GSI_LAG_MILLIS);
            wholeThrough(leader, 2);
        } finally {
            RangeMove.afterStep = step -> {};
        }
        aTableDeletedDuringAMoveEndsIt();
        aStreamOverRanges();
        pointInTimeRecoveryOverRanges();
        backupsOverRanges();
    }

    /**
     * A backup of a table cut in two ranges: a part in each group under one ARN, described and listed through any node
     * as one backup; restored into a table cut by the same ranges, through any node, before and after its source is
     * deleted and its name made anew elsewhere; deleted in every group.
     */
    @SuppressWarnings("unchecked")
    private void backupsOverRanges() throws Exception {
        List<String> groups = createCut("saved");
        assertThat(groups).hasSize(2);
        for (int i = 0; i < 30; i++) {
            int k = i;
            client(i % 3)
                    .putItem(r -> r.tableName("saved")
                            .item(Map.of("pk", AttributeValue.fromS("s" + k), "n", AttributeValue.fromN("1"))));
        }
        var made = client(1)
                .createBackup(r -> r.tableName("saved").backupName("nightly"))
                .backupDetails();
        String arn = made.backupArn();
        assertThat(arn).contains(":table/saved/backup/");
        long parts = 0;
        long partsSize = 0;
        for (String group : groups) {
            JsonNode own = askGroupApi(group, "DescribeBackup", "{\"BackupArn\":\"" + arn + "\"}")
                    .path("BackupDescription");
            assertThat(own.path("BackupDetails").path("BackupArn").asText())
                    .as("a part in group " + group)
                    .isEqualTo(arn);
            long count = own.path("SourceTableDetails").path("ItemCount").asLong();
            assertThat(count).as("group " + group + "'s own range").isBetween(1L, 29L);
            parts += count;
            partsSize += own.path("BackupDetails").path("BackupSizeBytes").asLong();
        }
        assertThat(parts).isEqualTo(30);
        long size = partsSize;
        assertThat(made.backupSizeBytes()).isEqualTo(size);
        var described = client(2).describeBackup(r -> r.backupArn(arn)).backupDescription();
        assertThat(described.sourceTableDetails().itemCount()).isEqualTo(30);
        assertThat(described.backupDetails().backupSizeBytes()).isEqualTo(size);
        assertThat(described.backupDetails().backupStatusAsString()).isEqualTo("AVAILABLE");
        var listed = client(0).listBackups(r -> r.tableName("saved")).backupSummaries();
        assertThat(listed).singleElement().satisfies(b -> {
            assertThat(b.backupArn()).isEqualTo(arn);
            assertThat(b.backupSizeBytes()).isEqualTo(size);
        });

        for (int i = 0; i < 10; i++) {
            int k = i;
            client(i % 3)
                    .putItem(r -> r.tableName("saved")
                            .item(Map.of("pk", AttributeValue.fromS("late" + k), "n", AttributeValue.fromN("2"))));
        }
        var restoring = client(2)
                .restoreTableFromBackup(r -> r.backupArn(arn).targetTableName("savedCopy"))
                .tableDescription();
        assertThat(restoring.restoreSummary().sourceBackupArn()).isEqualTo(arn);
        assertThatThrownBy(() ->
                        client(0).restoreTableFromBackup(r -> r.backupArn(arn).targetTableName("savedCopy")))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TableAlreadyExistsException.class);
        assertThat(scanned(1, "savedCopy"))
                .as("the backup's moment")
                .hasSize(30)
                .allSatisfy((k, n) -> {
                    assertThat(k).startsWith("s");
                    assertThat(n).isEqualTo("1");
                });
        assertThat(client(0)
                        .describeTable(r -> r.tableName("savedCopy"))
                        .table()
                        .itemCount())
                .isEqualTo(30);
        client(1)
                .putItem(r -> r.tableName("savedCopy")
                        .item(Map.of("pk", AttributeValue.fromS("s7"), "n", AttributeValue.fromN("3"))));
        assertThat(client(2)
                        .getItem(r -> r.tableName("savedCopy")
                                .key(Map.of("pk", AttributeValue.fromS("s7")))
                                .consistentRead(true))
                        .item()
                        .get("n")
                        .n())
                .isEqualTo("3");

        // The source deleted, and its name made anew (in groups of its own): the backup is still its parts' groups'.
        client(0).deleteTable(r -> r.tableName("saved"));
        client(1)
                .createTable(r -> r.tableName("saved")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        assertThat(client(0)
                        .describeBackup(r -> r.backupArn(arn))
                        .backupDescription()
                        .sourceTableDetails()
                        .itemCount())
                .isEqualTo(30);
        client(0).restoreTableFromBackup(r -> r.backupArn(arn).targetTableName("savedAgain"));
        assertThat(scanned(2, "savedAgain")).hasSize(30);
        assertThat(client(1)
                        .scan(r -> r.tableName("saved").consistentRead(true))
                        .count())
                .as("the new table of the name")
                .isZero();

        // An ARN of the same id but another region is not this backup's: not found, and nothing deleted.
        String elsewhere = arn.replace(":us-east-1:", ":eu-west-1:");
        assertThatThrownBy(() -> client(2).deleteBackup(r -> r.backupArn(elsewhere)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.BackupNotFoundException.class);
        assertThat(client(2)
                        .describeBackup(r -> r.backupArn(arn))
                        .backupDescription()
                        .sourceTableDetails()
                        .itemCount())
                .isEqualTo(30);
        var deleted = client(1).deleteBackup(r -> r.backupArn(arn)).backupDescription();
        assertThat(deleted.backupDetails().backupStatusAsString()).isEqualTo("DELETED");
        assertThat(deleted.sourceTableDetails().itemCount()).isEqualTo(30);
        assertThatThrownBy(() -> client(2).describeBackup(r -> r.backupArn(arn)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.BackupNotFoundException.class);
        assertThat(client(0).listBackups(r -> r.tableName("saved")).backupSummaries())
                .isEmpty();
        for (String group : groups) {
            assertThat(askGroupApi(group, "DescribeBackup", "{\"BackupArn\":\"" + arn + "\"}", status -> status == 400)
                            .path("__type")
                            .asText())
                    .as("no part left in group " + group)
                    .endsWith("BackupNotFoundException");
        }
        assertThat(scanned(0, "savedCopy"))
                .as("restored tables are tables of their own")
                .hasSize(30);
        for (String t : List.of("savedCopy", "savedAgain", "saved")) {
            client(2).deleteTable(r -> r.tableName(t));
        }
    }

    /** Every item of table {@code table}, read through node {@code via}: its partition key's value to its {@code n}. */
    private Map<String, String> scanned(int via, String table) {
        Map<String, String> out = new java.util.TreeMap<>();
        client(via)
                .scanPaginator(r -> r.tableName(table).consistentRead(true))
                .items()
                .forEach(item -> out.put(item.get("pk").s(), item.get("n").n()));
        return out;
    }

    /**
     * A table with a stream, cut in two ranges: one stream, whose shards are both groups' (their ids naming their
     * group), listed once; every change read once, each key's in order, its shards described, iterated and read through
     * different nodes. It keeps its ranges (a move asked for is given up); disabled, every group's is (each shard
     * closed); enabled again, every group's is the new stream.
     */
    @SuppressWarnings("unchecked")
    private void aStreamOverRanges() throws Exception {
        client(0)
                .createTable(r -> r.tableName("streamed")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L))
                        .streamSpecification(s -> s.streamEnabled(true).streamViewType("NEW_AND_OLD_IMAGES")));
        for (int i = 0; i < 30; i++) {
            int k = i;
            client(i % 3)
                    .putItem(r -> r.tableName("streamed")
                            .item(Map.of("pk", AttributeValue.fromS("s" + k), "n", AttributeValue.fromN("0"))));
            client((i + 1) % 3)
                    .updateItem(r -> r.tableName("streamed")
                            .key(Map.of("pk", AttributeValue.fromS("s" + k)))
                            .updateExpression("ADD n :one")
                            .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
        }
        List<software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient> streams = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                streams.add(software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient.builder()
                        .endpointOverride(
                                URI.create("http://127.0.0.1:" + members.get(i).apiPort()))
                        .region(Region.US_EAST_1)
                        .credentialsProvider(() -> AwsBasicCredentials.create("x", "y"))
                        .build());
            }
            String arn = client(1)
                    .describeTable(r -> r.tableName("streamed"))
                    .table()
                    .latestStreamArn();
            assertThat(streams.get(2).listStreams(r -> r.tableName("streamed")).streams())
                    .singleElement()
                    .satisfies(s -> assertThat(s.streamArn()).isEqualTo(arn));
            assertThat(streams.get(0).listStreams().streams())
                    .filteredOn(s -> s.tableName().equals("streamed"))
                    .hasSize(1);
            var shards = streams.get(2)
                    .describeStream(r -> r.streamArn(arn))
                    .streamDescription()
                    .shards();
            assertThat(shards.stream().map(s -> s.shardId().substring(8, 17)).distinct())
                    .as("each group's shards")
                    .hasSize(2);
            Map<String, List<String>> events = new java.util.TreeMap<>();
            int n = 0;
            for (var shard : shards) {
                n++;
                String iterator = streams.get(n % 3)
                        .getShardIterator(
                                r -> r.streamArn(arn).shardId(shard.shardId()).shardIteratorType("TRIM_HORIZON"))
                        .shardIterator();
                for (int page = 0; iterator != null && page < 20; page++) {
                    String asked = iterator;
                    var got = streams.get((n + page) % 3).getRecords(r -> r.shardIterator(asked));
                    got.records()
                            .forEach(record -> events.computeIfAbsent(
                                            record.dynamodb().keys().get("pk").s(), k -> new ArrayList<>())
                                    .add(record.eventNameAsString()));
                    iterator = got.records().isEmpty() ? null : got.nextShardIterator();
                }
            }
            assertThat(events).hasSize(30);
            assertThat(events.values()).allSatisfy(e -> assertThat(e).containsExactly("INSERT", "MODIFY"));

            // A mapping of one group's stream would deliver that group's records alone: refused.
            HttpResponse<String> mapping = HTTP.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + members.get(2).apiPort()
                                            + "/admin/event-source-mappings?table=streamed"
                                            + "&url=http%3A%2F%2F127.0.0.1%3A9%2F"))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(mapping.statusCode()).as(mapping.body()).isEqualTo(400);
            assertThat(mapping.body()).contains("event-source mapping");

            // A table with a stream keeps its ranges.
            HttpResponse<String> move = split(1, "{\"table\": \"streamed\", \"split\": 0}");
            assertThat(move.statusCode()).as(move.body()).isEqualTo(409);
            assertThat(move.body()).contains("given up");
            assertThat(client(0)
                            .describeTable(r -> r.tableName("streamed"))
                            .table()
                            .tableStatusAsString())
                    .isEqualTo("ACTIVE");

            client(1).updateTable(r -> r.tableName("streamed").streamSpecification(s -> s.streamEnabled(false)));
            var disabled = streams.get(0).describeStream(r -> r.streamArn(arn)).streamDescription();
            assertThat(disabled.streamStatusAsString()).isEqualTo("DISABLED");
            assertThat(disabled.shards())
                    .hasSize(shards.size())
                    .allSatisfy(s -> assertThat(s.sequenceNumberRange().endingSequenceNumber())
                            .as("closed in its group")
                            .isNotNull());
            client(2)
                    .updateTable(r -> r.tableName("streamed")
                            .streamSpecification(s -> s.streamEnabled(true).streamViewType("KEYS_ONLY")));
            String again = client(0)
                    .describeTable(r -> r.tableName("streamed"))
                    .table()
                    .latestStreamArn();
            assertThat(again).isNotEqualTo(arn);
            assertThat(streams.get(1).describeStream(r -> r.streamArn(again)).streamDescription().shards().stream()
                            .map(s -> s.shardId().substring(8, 17))
                            .distinct())
                    .as("the new stream in each group, labelled alike")
                    .hasSize(2);
        } finally {
            streams.forEach(software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient::close);
        }
    }

    /**
     * PITR of a table cut in two ranges: enabled through one node in every group (each keeps its own items' change
     * log), described through another as the window every group can restore (the latest of their earliest times);
     * the table keeps its ranges while it is on (a move asked for is given up); a restore to a point in time makes a
     * table cut by the same ranges in the same groups, each restored at one time (a moment between two runs of puts, or
     * the latest), read and written through any node, deleted alone; PITR then disabled in every group.
     */
    @SuppressWarnings("unchecked")
    private void pointInTimeRecoveryOverRanges() throws Exception {
        List<String> groups = createCut("recovered");
        assertThat(groups).hasSize(2);
        assertThat(client(2)
                        .describeContinuousBackups(r -> r.tableName("recovered"))
                        .continuousBackupsDescription()
                        .pointInTimeRecoveryDescription()
                        .pointInTimeRecoveryStatusAsString())
                .isEqualTo("DISABLED");
        var on = client(1)
                .updateContinuousBackups(r -> r.tableName("recovered")
                        .pointInTimeRecoverySpecification(p -> p.pointInTimeRecoveryEnabled(true)))
                .continuousBackupsDescription()
                .pointInTimeRecoveryDescription();
        assertThat(on.pointInTimeRecoveryStatusAsString()).isEqualTo("ENABLED");
        double latestEarliest = 0;
        for (String group : groups) {
            JsonNode own = askGroupApi(group, "DescribeContinuousBackups", "{\"TableName\":\"recovered\"}")
                    .path("ContinuousBackupsDescription")
                    .path("PointInTimeRecoveryDescription");
            assertThat(own.path("PointInTimeRecoveryStatus").asText())
                    .as("in group " + group)
                    .isEqualTo("ENABLED");
            latestEarliest = Math.max(
                    latestEarliest, own.path("EarliestRestorableDateTime").asDouble());
        }
        var merged = client(2)
                .describeContinuousBackups(r -> r.tableName("recovered"))
                .continuousBackupsDescription()
                .pointInTimeRecoveryDescription();
        assertThat(merged.pointInTimeRecoveryStatusAsString()).isEqualTo("ENABLED");
        assertThat(merged.recoveryPeriodInDays()).isEqualTo(35);
        assertThat(merged.earliestRestorableDateTime().toEpochMilli())
                .as("the latest of the groups' earliest times")
                .isEqualTo(Math.round(latestEarliest * 1000));
        assertThat(merged.latestRestorableDateTime()).isAfterOrEqualTo(merged.earliestRestorableDateTime());

        HttpResponse<String> move = split(0, "{\"table\": \"recovered\", \"split\": 0}");
        assertThat(move.statusCode()).as(move.body()).isEqualTo(409);
        assertThat(move.body()).contains("given up", "point-in-time recovery");

        // Items in both ranges; a moment between two runs of puts; a restore to it, and one to the latest time.
        for (int i = 0; i < 20; i++) {
            int k = i;
            client(i % 3)
                    .putItem(r -> r.tableName("recovered")
                            .item(Map.of("pk", AttributeValue.fromS("r" + k), "n", AttributeValue.fromN("1"))));
        }
        java.time.Instant between = client(1)
                .describeContinuousBackups(r -> r.tableName("recovered"))
                .continuousBackupsDescription()
                .pointInTimeRecoveryDescription()
                .latestRestorableDateTime();
        Thread.sleep(50); // the next writes a moment later than it, by the nodes' clock
        for (int i = 0; i < 20; i++) {
            int k = i;
            client(i % 3)
                    .putItem(r -> r.tableName("recovered")
                            .item(Map.of("pk", AttributeValue.fromS("r" + k), "n", AttributeValue.fromN("2"))));
            client((i + 1) % 3)
                    .putItem(r -> r.tableName("recovered")
                            .item(Map.of("pk", AttributeValue.fromS("late" + k), "n", AttributeValue.fromN("2"))));
        }
        var restoring = client(0)
                .restoreTableToPointInTime(r -> r.sourceTableName("recovered")
                        .targetTableName("recoveredThen")
                        .restoreDateTime(between))
                .tableDescription();
        assertThat(restoring.restoreSummary().restoreDateTime()).isEqualTo(between);
        client(2)
                .restoreTableToPointInTime(r -> r.sourceTableName("recovered")
                        .targetTableName("recoveredNow")
                        .useLatestRestorableTime(true));
        assertThatThrownBy(() -> client(1)
                        .restoreTableToPointInTime(r -> r.sourceTableName("recovered")
                                .targetTableName("recoveredNow")
                                .useLatestRestorableTime(true)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TableAlreadyExistsException.class);
        assertThat(client(1).listTables().tableNames()).contains("recoveredThen", "recoveredNow");
        Map<String, String> then = new java.util.TreeMap<>();
        client(1)
                .scanPaginator(r -> r.tableName("recoveredThen").consistentRead(true))
                .items()
                .forEach(item -> then.put(item.get("pk").s(), item.get("n").n()));
        assertThat(then)
                .as("every range as it was then")
                .hasSize(20)
                .allSatisfy((k, n) -> assertThat(n).isEqualTo("1"));
        Map<String, String> now = new java.util.TreeMap<>();
        client(2)
                .scanPaginator(r -> r.tableName("recoveredNow").consistentRead(true))
                .items()
                .forEach(item -> now.put(item.get("pk").s(), item.get("n").n()));
        assertThat(now).hasSize(40).allSatisfy((k, n) -> assertThat(n).isEqualTo("2"));
        var described =
                client(0).describeTable(r -> r.tableName("recoveredNow")).table();
        assertThat(described.itemCount()).as("every group's items").isEqualTo(40);
        // Each key read and written in its range's group, through any node.
        client(1)
                .putItem(r -> r.tableName("recoveredNow")
                        .item(Map.of("pk", AttributeValue.fromS("r3"), "n", AttributeValue.fromN("3"))));
        assertThat(client(2)
                        .getItem(r -> r.tableName("recoveredNow")
                                .key(Map.of("pk", AttributeValue.fromS("r3")))
                                .consistentRead(true))
                        .item()
                        .get("n")
                        .n())
                .isEqualTo("3");
        // Its ranges charge each other, as any cut table's: the second group's own range of it reported to the first.
        String metrics = "/admin/metrics?table=recoveredNow";
        double before = chargedFromElsewhere(askGroupOfAnyNode(groups.get(0), metrics));
        // A leader's first look at a range counts from there (ClusterMember.reportConsumption), and on a busy machine
        // that look at a table restored a moment ago was seen to come 20 s late, after the writes: written again every
        // two seconds, for a minute at most, until the other range's are charged.
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        for (int round = 0;
                chargedFromElsewhere(askGroupOfAnyNode(groups.get(0), metrics)) - before < 5
                        && System.nanoTime() < until;
                round++) {
            for (int i = 0; i < 40; i++) {
                int k = i;
                String n = Integer.toString(4 + round);
                client(i % 3)
                        .putItem(r -> r.tableName("recoveredNow")
                                .item(Map.of("pk", AttributeValue.fromS("c" + k), "n", AttributeValue.fromN(n))));
            }
            Thread.sleep(2_000);
        }
        assertThat(chargedFromElsewhere(askGroupOfAnyNode(groups.get(0), metrics)) - before)
                .as("charged from the other range")
                .isGreaterThanOrEqualTo(5);
        HttpResponse<String> restoredMove = split(2, "{\"table\": \"recoveredNow\", \"split\": 1}");
        assertThat(restoredMove.statusCode()).as(restoredMove.body()).isEqualTo(409);
        assertThat(restoredMove.body()).contains("was restored into the Raft groups");
        client(0).deleteTable(r -> r.tableName("recoveredThen"));
        assertThat(client(2).listTables().tableNames()).doesNotContain("recoveredThen");
        assertThat(client(1)
                        .scan(r -> r.tableName("recovered").consistentRead(true))
                        .count())
                .as("the source as it was")
                .isEqualTo(40);

        client(2)
                .updateContinuousBackups(r -> r.tableName("recovered")
                        .pointInTimeRecoverySpecification(p -> p.pointInTimeRecoveryEnabled(false)));
        for (String group : groups) {
            assertThat(askGroupApi(group, "DescribeContinuousBackups", "{\"TableName\":\"recovered\"}")
                            .path("ContinuousBackupsDescription")
                            .path("PointInTimeRecoveryDescription")
                            .path("PointInTimeRecoveryStatus")
                            .asText())
                    .as("in group " + group)
                    .isEqualTo("DISABLED");
        }
    }

    /**
     * Creates table {@code name} (a string partition key {@code pk}, 100 RCU, 1,500 WCU) through node 0, cut in its
     * ranges' groups: their ids, as node 0's view of the cluster names them.
     */
    @SuppressWarnings("unchecked")
    private List<String> createCut(String name) throws Exception {
        client(0)
                .createTable(r -> r.tableName(name)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        List<String> groups = new ArrayList<>();
        for (String list : List.of("groups", "elsewhere")) {
            for (JsonNode g : clusterView().get(list)) {
                if (g.path("table").asText().equals(name)) {
                    groups.add(g.get("group").asText());
                }
            }
        }
        return groups;
    }

    /** DynamoDB's {@code operation} with {@code body} asked of group {@code group}'s leader ({@link #toGroup}). */
    private JsonNode askGroupApi(String group, String operation, String body) throws Exception {
        return askGroupApi(group, operation, body, status -> status == 200);
    }

    /** As {@link #askGroupApi}, until a node answers a status {@code answered} takes (a refusal, say). */
    private JsonNode askGroupApi(String group, String operation, String body, java.util.function.IntPredicate answered)
            throws Exception {
        // Unsigned (the cluster's nodes are open here), in the account the SDK's clients reach.
        String date = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(java.time.ZoneOffset.UTC)
                .format(java.time.Instant.now());
        return JSON.readTree(toGroup(
                        group,
                        node -> HttpRequest.newBuilder(URI.create(node + "/"))
                                .header("x-amz-target", "DynamoDB_20120810." + operation)
                                .header("x-amz-date", date)
                                .header(
                                        "authorization",
                                        "AWS4-HMAC-SHA256 Credential=x/" + date.substring(0, 8)
                                                + "/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date,"
                                                + " Signature=0")
                                .header("content-type", "application/x-amz-json-1.0")
                                .POST(HttpRequest.BodyPublishers.ofString(body)),
                        answered)
                .body());
    }

    /** How many groups of table {@code table} node 0 knows, on it or elsewhere. */
    private int groupsOf(String table) {
        try {
            JsonNode v = JSON.readTree(nodes[0].status());
            int n = 0;
            for (String list : List.of("groups", "elsewhere")) {
                for (JsonNode g : v.path(list)) {
                    n += g.path("table").asText().equals(table) ? 1 : 0;
                }
            }
            return n;
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The node that leads the table's first range (its own group, which names no {@code range}), by its place. */
    private int leaderOfTheFirstRange() throws Exception {
        for (JsonNode g : JSON.readTree(nodes[0].status()).get("groups")) {
            if (g.path("table").asText().equals("moved") && !g.has("range")) {
                return Integer.parseInt(g.get("leader").asText().substring(1));
            }
        }
        throw new AssertionError("no group of the table's first range on n0");
    }

    /**
     * A partition key {@code <prefix>0}, {@code <prefix>1}, ... (below {@code below}) in the upper half of the first
     * range ({@code moved}), or in the second range.
     */
    private static String keyWhoseHash(boolean moved, String prefix, int below) {
        io.partita.storage.table.HashRange upper = new io.partita.storage.table.HashRange(1L << 62, Long.MAX_VALUE);
        for (int i = 0; i < below; i++) {
            long hash = io.partita.storage.key.ItemKeyEncoder.partitionHash(
                    new io.partita.protocol.model.AttributeValue.S(prefix + i));
            if (upper.holds(hash) == moved && (moved || Long.compareUnsigned(hash, Long.MIN_VALUE) >= 0)) {
                return prefix + i;
            }
        }
        throw new AssertionError("no key " + prefix + "<i> below " + below);
    }

    /**
     * A table deleted while a move of its range is stopped after the copy: the move, let go on, ends without its new
     * group (409, given up), every group of the table closes, and the name made again is a new, empty table.
     */
    @SuppressWarnings("unchecked")
    private void aTableDeletedDuringAMoveEndsIt() throws Exception {
        client(0)
                .createTable(r -> r.tableName("gone")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        for (int i = 0; i < 40; i++) {
            int k = i;
            client(i % 3).putItem(r -> r.tableName("gone").item(Map.of("pk", AttributeValue.fromS("g" + k))));
        }
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        RangeMove.afterStep = step -> {
            if (step.equals("copied")) {
                stopped.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("its node closed");
                }
            }
        };
        try {
            var moved = HTTP.sendAsync(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + members.get(0).apiPort() + "/cluster/ranges"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"table\": \"gone\", \"split\": 0}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(stopped.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            client(1).deleteTable(r -> r.tableName("gone"));
            ClusterStrictIT.await(
                    "the table gone from the list",
                    () -> !client(2).listTables().tableNames().contains("gone"));
            go.countDown();
            HttpResponse<String> done = moved.get(3, java.util.concurrent.TimeUnit.MINUTES);
            assertThat(done.statusCode()).as(done.body()).isEqualTo(409);
            assertThat(done.body()).contains("given up");
        } finally {
            go.countDown();
            RangeMove.afterStep = step -> {};
        }
        // Every group of the table closes, the one the move made too (its table deleted by the move's end).
        ClusterStrictIT.await("the table's groups closed", () -> groupsOf("gone") == 0);
        client(2)
                .createTable(r -> r.tableName("gone")
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                        .provisionedThroughput(p -> p.readCapacityUnits(100L).writeCapacityUnits(1_500L)));
        assertThat(client(0).scan(r -> r.tableName("gone")).count()).isZero();
    }
}
