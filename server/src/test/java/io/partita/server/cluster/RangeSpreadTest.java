package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.model.AttributeValue;
import io.partita.storage.key.ItemKeyEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class RangeSpreadTest {
    private static final ObjectMapper JSON = DynamoJson.mapper();
    private static final List<UUID> GROUPS =
            List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
    private static final TableRanges RANGES = TableRanges.even("pk", GROUPS);

    /**
     * Four groups holding the items {@code k0} to {@code k<n-1>} of their ranges, each ordered by hash, answering
     * {@link RangeSpread#SCAN_RANGE} as a group's store does: a page stops at its Limit (its last key the
     * LastEvaluatedKey), and one that reaches the end of the group's items names the last item it scanned; and
     * {@link RangeSpread#SELECT_RANGE} likewise, in a SELECT's words (NextToken, and the token after the last item
     * scanned).
     */
    private static final class Groups implements RangeSpread.Sender {
        final Map<UUID, List<String>> items = new java.util.HashMap<>();
        /** The bytes each item read counts against a page's {@code PartitaPageBytes}; 0 for none (the body's size). */
        long itemBytes;
        /** Each SELECT share's group, and whether it was marked a later share of its page. */
        final List<Map.Entry<UUID, Boolean>> laterShares = new CopyOnWriteArrayList<>();

        final List<UUID> asked = new CopyOnWriteArrayList<>();

        Groups(int n, Set<Integer> emptyRanges) {
            GROUPS.forEach(g -> items.put(g, new ArrayList<>()));
            for (int i = 0; i < n; i++) {
                String k = "k" + i;
                int at = RANGES.indexOf(hash(k));
                if (!emptyRanges.contains(at)) {
                    items.get(GROUPS.get(at)).add(k);
                }
            }
            items.values().forEach(l -> l.sort((a, b) -> Long.compareUnsigned(hash(a), hash(b))));
        }

        @Override
        public CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body) {
            asked.add(group);
            boolean statement = target.equals(RangeSpread.SELECT_RANGE);
            assertThat(target).isIn(RangeSpread.SCAN_RANGE, RangeSpread.SELECT_RANGE);
            JsonNode in = tree(body);
            List<String> mine = items.get(group);
            int from = 0;
            if (in.has("ExclusiveStartKey")) {
                assertThat(statement).isFalse();
                from = mine.indexOf(
                                in.get("ExclusiveStartKey").get("pk").get("S").asText())
                        + 1;
            }
            if (in.has("NextToken")) {
                assertThat(statement).isTrue();
                Map<String, AttributeValue> after = io.partita.server.op.partiql.ExecuteStatementHandler.nextTokenKey(
                        in.get("NextToken").asText());
                from = mine.indexOf(((AttributeValue.S) after.get("pk")).value()) + 1;
            }
            long lower = 0;
            long upper = -1;
            if (in.has("TotalSegments")) {
                int s = in.get("Segment").asInt();
                int total = in.get("TotalSegments").asInt();
                lower = RangeSpread.hashBound(s, total);
                upper = s == total - 1 ? -1 : RangeSpread.hashBound(s + 1, total) - 1;
            }
            long limit = in.has("Limit") ? in.get("Limit").asLong() : Long.MAX_VALUE;
            long pageBytes = in.get("PartitaPageBytes").asLong();
            assertThat(pageBytes).as("what is left of 1 MB").isBetween(1L, 1L << 20);
            if (statement) {
                laterShares.add(Map.entry(group, in.path("PartitaLaterShare").asBoolean(false)));
            }
            ObjectNode out = JSON.createObjectNode();
            ArrayNode page = out.putArray("Items");
            String last = null;
            boolean stopped = false;
            for (int i = from; i < mine.size(); i++) {
                long h = hash(mine.get(i));
                if (Long.compareUnsigned(h, lower) < 0 || Long.compareUnsigned(h, upper) > 0) {
                    continue;
                }
                page.addObject().putObject("pk").put("S", mine.get(i));
                last = mine.get(i);
                if (page.size() >= limit || (itemBytes > 0 && page.size() * itemBytes >= pageBytes)) {
                    stopped = i + 1 < mine.size() || page.size() >= limit;
                    break;
                }
            }
            if (itemBytes > 0) {
                out.put("PartitaScannedBytes", page.size() * itemBytes);
            }
            if (statement) {
                out.put("PartitaScannedCount", page.size());
            } else {
                out.put("Count", page.size()).put("ScannedCount", page.size());
            }
            out.putObject("ConsumedCapacity").put("TableName", "t").put("CapacityUnits", 0.5);
            if (last != null) {
                out.putObject(stopped ? "LastEvaluatedKey" : "PartitaLastScannedKey")
                        .putObject("pk")
                        .put("S", last);
                if (statement) {
                    out.put(stopped ? "NextToken" : "PartitaLastScannedToken", token(last));
                }
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, RangeSpread.bytes(out)));
        }
    }

    /** A SELECT's NextToken that goes on after item {@code k}, as a group's store words it. */
    private static String token(String k) {
        String json = "{\"Key\":{\"pk\":{\"S\":\"" + k + "\"}},\"Statement\":\"digest\"}";
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Every page of an ExecuteStatement SELECT of every range, from the first, each item once. */
    private static List<String> selectAll(Groups groups, Integer limit, int[] pages) {
        return selectAll(groups, limit, pages, new ArrayList<>());
    }

    /** {@link #selectAll}, noting each page's number of items in {@code sizes}. */
    private static List<String> selectAll(Groups groups, Integer limit, int[] pages, List<Integer> sizes) {
        List<String> seen = new ArrayList<>();
        ObjectNode r = JSON.createObjectNode().put("Statement", "SELECT * FROM t");
        if (limit != null) {
            r.put("Limit", limit);
        }
        while (true) {
            ClusterRouter.Reply reply =
                    RangeSpread.select(RangeSpread.bytes(r), RANGES, groups).join();
            assertThat(reply.status()).isEqualTo(200);
            JsonNode out = tree(reply.body());
            List<String> fields = new ArrayList<>();
            out.fieldNames().forEachRemaining(fields::add);
            assertThat(fields)
                    .as("ExecuteStatement's fields only")
                    .isSubsetOf("Items", "NextToken", "LastEvaluatedKey", "ConsumedCapacity");
            out.get("Items").forEach(i -> seen.add(i.get("pk").get("S").asText()));
            sizes.add(out.get("Items").size());
            pages[0]++;
            assertThat(out.has("NextToken")).isEqualTo(out.has("LastEvaluatedKey"));
            if (!out.has("NextToken")) {
                return seen;
            }
            assertThat(io.partita.server.op.partiql.ExecuteStatementHandler.nextTokenKey(
                                    out.get("NextToken").asText())
                            .get("pk"))
                    .isEqualTo(new AttributeValue.S(
                            out.get("LastEvaluatedKey").get("pk").get("S").asText()));
            r.put("NextToken", out.get("NextToken").asText());
        }
    }

    private static long hash(String k) {
        return ItemKeyEncoder.partitionHash(new AttributeValue.S(k));
    }

    private static JsonNode tree(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Every page of a Scan of {@code request} (JSON), from the first, each item once. */
    private static List<String> scanAll(Groups groups, String request, int[] pages) {
        List<String> seen = new ArrayList<>();
        ObjectNode r = (ObjectNode) tree(request.getBytes(StandardCharsets.UTF_8));
        while (true) {
            ClusterRouter.Reply reply =
                    RangeSpread.scan(RangeSpread.bytes(r), RANGES, groups).join();
            assertThat(reply.status()).isEqualTo(200);
            JsonNode out = tree(reply.body());
            assertThat(out.has("PartitaLastScannedKey")).isFalse();
            out.get("Items").forEach(i -> seen.add(i.get("pk").get("S").asText()));
            assertThat(out.get("Count").asInt()).isEqualTo(out.get("Items").size());
            pages[0]++;
            if (!out.has("LastEvaluatedKey")) {
                return seen;
            }
            r.set("ExclusiveStartKey", out.get("LastEvaluatedKey"));
        }
    }

    @Test
    void aScanWalksTheGroupsInHashOrderOnePageWhenItFits() {
        Groups groups = new Groups(50, Set.of());
        int[] pages = {0};
        List<String> seen = scanAll(groups, "{\"TableName\":\"t\"}", pages);
        assertThat(pages[0]).isEqualTo(1);
        assertThat(seen).hasSize(50).doesNotHaveDuplicates();
        assertThat(groups.asked).containsExactlyElementsOf(GROUPS);
        List<Long> hashes = seen.stream().map(RangeSpreadTest::hash).toList();
        assertThat(hashes).isSortedAccordingTo(Long::compareUnsigned);
    }

    @Test
    void pagesOfALimitCoverEveryItemOnceAcrossTheGroupsEnds() {
        for (int limit : new int[] {1, 3, 7, 12, 13, 49, 50, 51}) {
            Groups groups = new Groups(50, Set.of());
            int[] pages = {0};
            List<String> seen = scanAll(groups, "{\"TableName\":\"t\",\"Limit\":" + limit + "}", pages);
            assertThat(seen).as("Limit %d", limit).hasSize(50).doesNotHaveDuplicates();
            // A page is full, but where the Limit ends exactly at a group's end: one more, empty, page then.
            assertThat(pages[0]).as("Limit %d", limit).isBetween((50 + limit - 1) / limit, 50 / limit + 4);
        }
    }

    @Test
    void emptyGroupsAreWalkedPast() {
        Groups groups = new Groups(40, Set.of(0, 2));
        int[] pages = {0};
        List<String> seen = scanAll(groups, "{\"TableName\":\"t\",\"Limit\":5}", pages);
        assertThat(seen)
                .hasSize(groups.items.values().stream().mapToInt(List::size).sum());
        assertThat(groups.items.get(GROUPS.get(0))).isEmpty();
    }

    @Test
    void aSelectOfEveryRangeWalksTheGroupsInHashOrderPageByPage() {
        Groups groups = new Groups(50, Set.of());
        int[] pages = {0};
        List<String> seen = selectAll(groups, null, pages);
        assertThat(pages[0]).isEqualTo(1);
        assertThat(seen).hasSize(50).doesNotHaveDuplicates();
        assertThat(groups.asked).containsExactlyElementsOf(GROUPS);
        assertThat(seen.stream().map(RangeSpreadTest::hash).toList()).isSortedAccordingTo(Long::compareUnsigned);
        for (int limit : new int[] {1, 4, 12, 13, 50, 51}) {
            pages[0] = 0;
            Groups some = new Groups(50, Set.of(1, 3));
            List<String> paged = selectAll(some, limit, pages);
            assertThat(paged)
                    .as("Limit %d", limit)
                    .hasSize(some.items.get(GROUPS.get(0)).size()
                            + some.items.get(GROUPS.get(2)).size())
                    .containsExactlyElementsOf(selectAll(new Groups(50, Set.of(1, 3)), null, new int[1]));
            assertThat(pages[0])
                    .as("Limit %d", limit)
                    .isBetween((paged.size() + limit - 1) / limit, paged.size() / limit + 3);
        }
    }

    @Test
    void aSelectsPageReadsAMegabyteOverItsGroupsCountsItsScanOnceAndAddsTheirUnits() {
        Groups groups = new Groups(50, Set.of());
        groups.itemBytes = 100_000;
        int[] pages = {0};
        List<Integer> sizes = new ArrayList<>();
        List<String> seen = selectAll(groups, null, pages, sizes);
        assertThat(seen).hasSize(50).doesNotHaveDuplicates();
        // 11 items of 100 KB to a page at most (the item that passes 1 MB ends it), over the groups' ends.
        assertThat(sizes).allMatch(n -> n <= 11);
        assertThat(pages[0]).isBetween(5, 9);
        // The first share of each page is counted as the statement's scan; the page's later shares are not.
        long firsts = groups.laterShares.stream().filter(e -> !e.getValue()).count();
        assertThat(firsts).isEqualTo(pages[0]);
        ObjectNode r =
                JSON.createObjectNode().put("Statement", "SELECT * FROM t").put("ReturnConsumedCapacity", "TOTAL");
        JsonNode out = tree(RangeSpread.select(RangeSpread.bytes(r), RANGES, new Groups(10, Set.of()))
                .join()
                .body());
        assertThat(out.get("ConsumedCapacity").get("CapacityUnits").asDouble()).isEqualTo(2.0);
    }

    /**
     * Groups answering a SELECT of {@code n} partition key values ({@code v0} ...), each with {@code perValue} items
     * ({@code sk} 0 ...), as a group's store answers {@link RangeSpread#SELECT_RANGE}: the first share of a page with
     * the values' hashes; a value's share (its {@code PartitaValue}) with that value's items from the token's key, up to
     * the Limit, and the next value's token when it reads the value to its end.
     */
    private static final class ValueGroups implements RangeSpread.Sender {
        final int n;
        final int perValue;
        /** Whether a Query whose Limit ends at its value's last item names that item, as a Query may. */
        final boolean keyAtLimit;

        final List<String> misrouted = new CopyOnWriteArrayList<>();

        ValueGroups(int n, int perValue, boolean keyAtLimit) {
            this.n = n;
            this.perValue = perValue;
            this.keyAtLimit = keyAtLimit;
        }

        @Override
        public CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body) {
            assertThat(target).isEqualTo(RangeSpread.SELECT_RANGE);
            JsonNode in = tree(body);
            ObjectNode out = JSON.createObjectNode();
            if (!in.has("PartitaValue")) {
                ArrayNode hashes = out.putArray("PartitaValueHashes");
                for (int i = 0; i < n; i++) {
                    hashes.add(hash("v" + i));
                }
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, RangeSpread.bytes(out)));
            }
            assertThat(in.has("PartitaLaterShare")).isFalse();
            int i = in.get("PartitaValue").asInt();
            if (!group.equals(GROUPS.get(RANGES.indexOf(hash("v" + i))))) {
                misrouted.add("v" + i);
            }
            int from = 0;
            if (in.has("NextToken")) {
                JsonNode t = tree(java.util.Base64.getUrlDecoder()
                        .decode(in.get("NextToken").asText()));
                assertThat(t.get("Partition").asInt()).isEqualTo(i);
                from = t.has("Key") ? t.get("Key").get("sk").get("N").asInt() + 1 : 0;
            }
            long limit = in.has("Limit") ? in.get("Limit").asLong() : Long.MAX_VALUE;
            ArrayNode page = out.putArray("Items");
            int sk = from;
            for (; sk < perValue && page.size() < limit; sk++) {
                ObjectNode item = page.addObject();
                item.putObject("pk").put("S", "v" + i);
                item.putObject("sk").put("N", Integer.toString(sk));
            }
            out.put("PartitaScannedCount", page.size()).put("PartitaScannedBytes", page.size() * 10L);
            out.putObject("ConsumedCapacity").put("TableName", "t").put("CapacityUnits", 0.5);
            if (sk < perValue || (keyAtLimit && page.size() > 0 && page.size() == limit)) {
                ObjectNode key = JSON.createObjectNode();
                key.putObject("pk").put("S", "v" + i);
                key.putObject("sk").put("N", Integer.toString(sk - 1));
                out.put("NextToken", valueToken(key, i)).set("LastEvaluatedKey", key);
            } else if (i + 1 < n) {
                out.put("PartitaLastScannedToken", valueToken(null, i + 1));
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, RangeSpread.bytes(out)));
        }
    }

    /** A SELECT's NextToken of several values: value {@code value}, after {@code key} (null: from its start). */
    private static String valueToken(JsonNode key, int value) {
        ObjectNode t = JSON.createObjectNode().put("Statement", "digest").put("Partition", value);
        if (key != null) {
            t.set("Key", key);
        }
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(RangeSpread.bytes(t));
    }

    @Test
    void aSelectOfSeveralValuesReadsEachInItsGroupInTheirOrderTenToAPage() {
        for (Integer limit : new Integer[] {null, 1, 3, 4, 5, 8, 100}) {
            ValueGroups groups = new ValueGroups(23, 4, limit != null && limit % 4 == 0);
            List<String> seen = new ArrayList<>();
            // Partita's own fields a client sends are not the walk's: ignored, as a single node ignores them.
            ObjectNode r = JSON.createObjectNode()
                    .put("Statement", "SELECT * FROM t WHERE pk IN [...]")
                    .put("PartitaValue", 5)
                    .put("PartitaLaterShare", true);
            if (limit != null) {
                r.put("Limit", limit);
            }
            int pages = 0;
            while (true) {
                ClusterRouter.Reply reply =
                        RangeSpread.select(RangeSpread.bytes(r), RANGES, groups).join();
                assertThat(reply.status()).isEqualTo(200);
                JsonNode out = tree(reply.body());
                Set<String> values = new HashSet<>();
                for (JsonNode item : out.get("Items")) {
                    values.add(item.get("pk").get("S").asText());
                    seen.add(item.get("pk").get("S").asText() + "/"
                            + item.get("sk").get("N").asText());
                }
                assertThat(values)
                        .as("Limit %s: ten values to a page at most", limit)
                        .hasSizeLessThanOrEqualTo(10);
                assertThat(out.get("ConsumedCapacity").get("CapacityUnits").asDouble())
                        .isPositive();
                pages++;
                if (!out.has("NextToken")) {
                    break;
                }
                r.put("NextToken", out.get("NextToken").asText());
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                for (int sk = 0; sk < 4; sk++) {
                    expected.add("v" + i + "/" + sk);
                }
            }
            assertThat(seen).as("Limit %s", limit).containsExactlyElementsOf(expected);
            assertThat(groups.misrouted).as("Limit %s", limit).isEmpty();
            assertThat(pages)
                    .as("Limit %s", limit)
                    .isGreaterThanOrEqualTo(limit == null ? 3 : Math.max(3, (92 + limit - 1) / limit));
        }
    }

    @Test
    void aSelectsNextTokenStartsAtItsKeysGroup() {
        Groups groups = new Groups(50, Set.of());
        String third = groups.items.get(GROUPS.get(2)).get(0);
        ObjectNode r =
                JSON.createObjectNode().put("Statement", "SELECT * FROM t").put("NextToken", token(third));
        JsonNode out = tree(
                RangeSpread.select(RangeSpread.bytes(r), RANGES, groups).join().body());
        assertThat(groups.asked).containsExactly(GROUPS.get(2), GROUPS.get(3));
        int rest = groups.items.get(GROUPS.get(2)).size()
                - 1
                + groups.items.get(GROUPS.get(3)).size();
        assertThat(out.get("Items")).hasSize(rest);
        // A token that is none: the first group is asked, and answers its error.
        groups.asked.clear();
        byte[] refusal = "{\"__type\":\"x#ValidationException\",\"message\":\"Invalid NextToken\"}"
                .getBytes(StandardCharsets.UTF_8);
        ClusterRouter.Reply reply = RangeSpread.select(
                        RangeSpread.bytes(r.put("NextToken", "not a token")), RANGES, (g, t, b) -> {
                            groups.asked.add(g);
                            return CompletableFuture.completedFuture(new ClusterRouter.Reply(400, refusal));
                        })
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(groups.asked).containsExactly(GROUPS.get(0));
    }

    @Test
    void aSegmentWalksOnlyTheGroupsItMeets() {
        Groups groups = new Groups(60, Set.of());
        Set<String> all = new HashSet<>();
        for (int s = 0; s < 3; s++) {
            groups.asked.clear();
            int[] pages = {0};
            List<String> seen =
                    scanAll(groups, "{\"TableName\":\"t\",\"Segment\":" + s + ",\"TotalSegments\":3}", pages);
            for (String k : seen) {
                assertThat(all.add(k)).as(k + " in one segment only").isTrue();
            }
            // A third of the hash space meets two of the four ranges.
            assertThat(new HashSet<>(groups.asked)).hasSize(2);
        }
        assertThat(all).hasSize(60);
    }

    @Test
    void theUnitsOfEveryGroupReadAreAdded() {
        Groups groups = new Groups(10, Set.of());
        JsonNode out = tree(RangeSpread.scan(
                        "{\"TableName\":\"t\",\"ReturnConsumedCapacity\":\"TOTAL\"}".getBytes(StandardCharsets.UTF_8),
                        RANGES,
                        groups)
                .join()
                .body());
        assertThat(out.get("ConsumedCapacity").get("CapacityUnits").asDouble()).isEqualTo(2.0);
        assertThat(out.get("ConsumedCapacity").get("TableName").asText()).isEqualTo("t");
    }

    /**
     * A page's units are counted as a single node counts them: all that its groups read, rounded up to 4 KB once, not
     * each group's rounded up and added (groups that do not say what they read, as above, are added).
     */
    @Test
    void aPagesUnitsAreWhatItsGroupsReadRoundedUpOnce() {
        Groups groups = new Groups(10, Set.of());
        groups.itemBytes = 1000;
        for (boolean consistent : new boolean[] {false, true}) {
            String request =
                    "{\"TableName\":\"t\",\"ReturnConsumedCapacity\":\"TOTAL\",\"ConsistentRead\":" + consistent + "}";
            JsonNode out = tree(RangeSpread.scan(request.getBytes(StandardCharsets.UTF_8), RANGES, groups)
                    .join()
                    .body());
            // 10,000 bytes over four groups: three 4 KB blocks (each group's 0.5 added would be 2.0).
            assertThat(out.get("ConsumedCapacity").get("CapacityUnits").asDouble())
                    .isEqualTo(consistent ? 3.0 : 1.5);
            ObjectNode select = JSON.createObjectNode()
                    .put("Statement", "SELECT * FROM t")
                    .put("ReturnConsumedCapacity", "TOTAL")
                    .put("ConsistentRead", consistent);
            out = tree(RangeSpread.select(RangeSpread.bytes(select), RANGES, groups)
                    .join()
                    .body());
            assertThat(out.get("ConsumedCapacity").get("CapacityUnits").asDouble())
                    .isEqualTo(consistent ? 3.0 : 1.5);
        }
        // Every number of the page's units scaled alike: the total, the table's (none, for an index read), an index's.
        ObjectNode summed = (ObjectNode) tree(("{\"TableName\":\"t\",\"CapacityUnits\":2.0,\"Table\":"
                        + "{\"CapacityUnits\":0.0},\"LocalSecondaryIndexes\":{\"i\":{\"CapacityUnits\":2.0}}}")
                .getBytes(StandardCharsets.UTF_8));
        JsonNode once = RangeSpread.roundedOnce(summed, 1.5);
        assertThat(once.get("CapacityUnits").asDouble()).isEqualTo(1.5);
        assertThat(once.get("Table").get("CapacityUnits").asDouble()).isZero();
        assertThat(once.get("LocalSecondaryIndexes")
                        .get("i")
                        .get("CapacityUnits")
                        .asDouble())
                .isEqualTo(1.5);
        assertThat(once.get("TableName").asText()).isEqualTo("t");
        assertThat(summed.get("CapacityUnits").asDouble()).as("left as it was").isEqualTo(2.0);
        // Exactly: seven groups' 35 units are 29 once, where 35 * (29 / 35) is 29.000000000000004.
        ObjectNode seven = JSON.createObjectNode().put("CapacityUnits", 35.0);
        seven.putObject("Table").put("CapacityUnits", 35.0);
        assertThat(RangeSpread.roundedOnce(seven, 29.0).get("CapacityUnits").asDouble())
                .isEqualTo(29.0);
        assertThat(RangeSpread.roundedOnce(seven, 29.0)
                        .get("Table")
                        .get("CapacityUnits")
                        .asDouble())
                .isEqualTo(29.0);
    }

    @Test
    void aGroupsRefusalIsTheScans() {
        byte[] refusal = "{\"__type\":\"x#ValidationException\",\"message\":\"no\"}".getBytes(StandardCharsets.UTF_8);
        ClusterRouter.Reply reply = RangeSpread.scan(
                        "{\"TableName\":\"t\"}".getBytes(StandardCharsets.UTF_8),
                        RANGES,
                        (g, t, b) -> CompletableFuture.completedFuture(new ClusterRouter.Reply(400, refusal)))
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body()).isEqualTo(refusal);
    }

    @Test
    void describeSumsTheGroupsItemsAndWaitsForEveryGroupsTable() {
        ClusterRouter.Reply merged = RangeSpread.describeMerge(
                List.of(describe("ACTIVE", 10, 100), describe("CREATING", 5, 50), describe("ACTIVE", 1, 7)));
        JsonNode t = tree(merged.body()).get("Table");
        assertThat(t.get("ItemCount").asLong()).isEqualTo(16);
        assertThat(t.get("TableSizeBytes").asLong()).isEqualTo(157);
        assertThat(t.get("TableStatus").asText()).isEqualTo("CREATING");
        assertThat(t.get("LocalSecondaryIndexes").get(0).get("ItemCount").asLong())
                .isEqualTo(16);
        ClusterRouter.Reply missing = new ClusterRouter.Reply(
                400, "{\"__type\":\"x#ResourceNotFoundException\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(RangeSpread.describeMerge(List.of(missing, describe("ACTIVE", 1, 1))))
                .isSameAs(missing);
        // A group that lacks the table (a CreateTable that did not reach it yet): not ACTIVE. One that does not
        // answer: its items are not known, a 503.
        JsonNode lacking = tree(RangeSpread.describeMerge(List.of(describe("ACTIVE", 1, 1), missing))
                        .body())
                .get("Table");
        assertThat(lacking.get("TableStatus").asText()).isEqualTo("CREATING");
        ClusterRouter.Reply silent = new ClusterRouter.Reply(503, new byte[0]);
        assertThat(RangeSpread.describeMerge(List.of(describe("ACTIVE", 1, 1), silent)))
                .isSameAs(silent);
    }

    @Test
    void continuousBackupsAreTheWindowEveryGroupCanRestore() {
        JsonNode merged = tree(RangeSpread.continuousBackupsMerge(List.of(
                                pitr("ENABLED", 1_000.5, 2_000.25),
                                pitr("ENABLED", 1_200.125, 1_900.5),
                                pitr("ENABLED", 900, 2_100)))
                        .body())
                .path("ContinuousBackupsDescription");
        JsonNode p = merged.path("PointInTimeRecoveryDescription");
        assertThat(p.get("PointInTimeRecoveryStatus").asText()).isEqualTo("ENABLED");
        assertThat(p.get("EarliestRestorableDateTime").asDouble()).isEqualTo(1_200.125);
        assertThat(p.get("LatestRestorableDateTime").asDouble()).isEqualTo(1_900.5);
        assertThat(p.get("RecoveryPeriodInDays").asInt()).isEqualTo(35);
        assertThat(merged.get("ContinuousBackupsStatus").asText()).isEqualTo("ENABLED");
        // A group where it is off (an UpdateContinuousBackups that did not reach it yet): that group's answer.
        ClusterRouter.Reply off = pitr("DISABLED", 0, 0);
        assertThat(RangeSpread.continuousBackupsMerge(List.of(pitr("ENABLED", 1, 2), off)))
                .isSameAs(off);
        // A refusal (the first group's first) or a group that does not answer is the answer.
        ClusterRouter.Reply missing = new ClusterRouter.Reply(
                400, "{\"__type\":\"x#TableNotFoundException\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(RangeSpread.continuousBackupsMerge(List.of(missing, pitr("ENABLED", 1, 2))))
                .isSameAs(missing);
        assertThat(RangeSpread.continuousBackupsMerge(List.of(pitr("ENABLED", 1, 2), missing)))
                .isSameAs(missing);
        ClusterRouter.Reply silent = new ClusterRouter.Reply(503, new byte[0]);
        assertThat(RangeSpread.continuousBackupsMerge(List.of(pitr("DISABLED", 0, 0), silent)))
                .isSameAs(silent);
    }

    private static ClusterRouter.Reply pitr(String status, double earliest, double latest) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode d = root.putObject("ContinuousBackupsDescription").put("ContinuousBackupsStatus", status);
        ObjectNode p = d.putObject("PointInTimeRecoveryDescription").put("PointInTimeRecoveryStatus", status);
        if (status.equals("ENABLED")) {
            p.put("RecoveryPeriodInDays", 35)
                    .put("EarliestRestorableDateTime", earliest)
                    .put("LatestRestorableDateTime", latest);
        }
        return new ClusterRouter.Reply(200, RangeSpread.bytes(root));
    }

    @Test
    void describeSumsEachGlobalIndexsRowsAndShowsItsSlowestGroup() {
        ClusterRouter.Reply merged = RangeSpread.describeMerge(List.of(
                withGlobal(describe("ACTIVE", 10, 100), "ACTIVE", false, 4),
                withGlobal(describe("ACTIVE", 5, 50), "CREATING", true, 2),
                describe("ACTIVE", 1, 7)));
        JsonNode g =
                tree(merged.body()).get("Table").get("GlobalSecondaryIndexes").get(0);
        assertThat(g.get("ItemCount").asLong()).isEqualTo(6);
        assertThat(g.get("IndexSizeBytes").asLong()).isEqualTo(60);
        assertThat(g.get("IndexStatus").asText())
                .as("one group still backfills")
                .isEqualTo("CREATING");
        assertThat(g.get("Backfilling").asBoolean()).isTrue();
        JsonNode lacking = tree(RangeSpread.describeMerge(List.of(
                                withGlobal(describe("ACTIVE", 1, 1), "ACTIVE", false, 1), describe("ACTIVE", 1, 1)))
                        .body())
                .get("Table")
                .get("GlobalSecondaryIndexes")
                .get(0);
        assertThat(lacking.get("IndexStatus").asText())
                .as("a group the index has not reached yet")
                .isEqualTo("CREATING");
        JsonNode gone = tree(RangeSpread.describeMerge(List.of(
                                describe("ACTIVE", 1, 1),
                                withGlobal(describe("ACTIVE", 1, 1), "DELETING", false, 3),
                                withGlobal(describe("ACTIVE", 1, 1), "DELETING", false, 2)))
                        .body())
                .get("Table")
                .get("GlobalSecondaryIndexes");
        assertThat(gone)
                .as("deleted in the first group, still deleting in the others")
                .hasSize(1);
        assertThat(gone.get(0).get("IndexStatus").asText()).isEqualTo("DELETING");
        assertThat(gone.get(0).get("ItemCount").asLong()).isEqualTo(5);
    }

    @Test
    void aGlobalIndexMadeOrDeletedAlreadyInAnotherGroupCountsAsDone() {
        String create = "{\"TableName\":\"t\",\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"g\"}}]}";
        String delete = "{\"TableName\":\"t\",\"GlobalSecondaryIndexUpdates\":[{\"Delete\":{\"IndexName\":\"g\"}}]}";
        String exists = "{\"__type\":\"x#ValidationException\","
                + "\"message\":\"Attempting to create an index which already exists\"}";
        String absent = "{\"__type\":\"x#ResourceNotFoundException\","
                + "\"message\":\"Requested resource not found: Index g for table t\"}";
        String other = "{\"__type\":\"x#LimitExceededException\",\"message\":\"Subscriber limit exceeded\"}";
        // With another change besides, which the refusing group has not made: its refusal is the answer.
        String createAndMore =
                create.replace("{\"TableName\":\"t\",", "{\"TableName\":\"t\",\"BillingMode\":\"PAY_PER_REQUEST\",");
        for (String[] c : new String[][] {
            {create, exists, "200"},
            {delete, absent, "200"},
            {create, other, "400"},
            {delete, exists, "400"},
            {createAndMore, exists, "400"}
        }) {
            RangeSpread.Sender sender = (group, target, body) -> CompletableFuture.completedFuture(
                    GROUPS.indexOf(group) == 2
                            ? new ClusterRouter.Reply(400, c[1].getBytes(StandardCharsets.UTF_8))
                            : new ClusterRouter.Reply(200, "{}".getBytes(StandardCharsets.UTF_8)));
            ClusterRouter.Reply reply = RangeSpread.everyGroup(
                            "UpdateTable", "T", c[0].getBytes(StandardCharsets.UTF_8), GROUPS, sender)
                    .join();
            assertThat(reply.status()).as(c[0] + " / " + c[1]).isEqualTo(Integer.parseInt(c[2]));
        }
        // The first group's own refusal is the answer, whatever it says.
        RangeSpread.Sender firstRefuses = (group, target, body) -> CompletableFuture.completedFuture(
                GROUPS.indexOf(group) == 0
                        ? new ClusterRouter.Reply(400, exists.getBytes(StandardCharsets.UTF_8))
                        : new ClusterRouter.Reply(200, "{}".getBytes(StandardCharsets.UTF_8)));
        assertThat(RangeSpread.everyGroup(
                                "UpdateTable", "T", create.getBytes(StandardCharsets.UTF_8), GROUPS, firstRefuses)
                        .join()
                        .status())
                .isEqualTo(400);
    }

    /** {@code reply} with global index {@code g} of {@code status} holding {@code rows} rows of 10 bytes. */
    private static ClusterRouter.Reply withGlobal(
            ClusterRouter.Reply reply, String status, boolean backfilling, long rows) {
        ObjectNode root = (ObjectNode) tree(reply.body());
        ((ObjectNode) root.get("Table"))
                .putArray("GlobalSecondaryIndexes")
                .addObject()
                .put("IndexName", "g")
                .put("IndexStatus", status)
                .put("Backfilling", backfilling)
                .put("ItemCount", rows)
                .put("IndexSizeBytes", rows * 10);
        return new ClusterRouter.Reply(200, RangeSpread.bytes(root));
    }

    @Test
    void aTableMadeAgainWhereItLacksIsTheFirstGroupsAsItDescribesIt() {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode t = root.putObject("Table").put("TableName", "hot").put("TableStatus", "ACTIVE");
        t.putArray("KeySchema").addObject().put("AttributeName", "pk").put("KeyType", "HASH");
        t.putArray("AttributeDefinitions")
                .addObject()
                .put("AttributeName", "pk")
                .put("AttributeType", "S");
        t.putObject("ProvisionedThroughput")
                .put("ReadCapacityUnits", 10)
                .put("WriteCapacityUnits", 3000)
                .put("NumberOfDecreasesToday", 0);
        t.putObject("WarmThroughput").put("ReadUnitsPerSecond", 12000).put("Status", "ACTIVE");
        ObjectNode lsi = t.putArray("LocalSecondaryIndexes")
                .addObject()
                .put("IndexName", "l")
                .put("ItemCount", 3);
        lsi.putArray("KeySchema").addObject().put("AttributeName", "pk").put("KeyType", "HASH");
        lsi.putObject("Projection").put("ProjectionType", "KEYS_ONLY");
        t.put("DeletionProtectionEnabled", true);
        ArrayNode globals = t.putArray("GlobalSecondaryIndexes");
        // The deleting index's key attribute is not defined anew: CreateTable refuses a definition no key uses.
        ((ArrayNode) t.get("AttributeDefinitions"))
                .addObject()
                .put("AttributeName", "gone")
                .put("AttributeType", "S");
        for (String status : List.of("ACTIVE", "DELETING")) {
            ObjectNode gsi = globals.addObject()
                    .put("IndexName", status.toLowerCase(java.util.Locale.ROOT))
                    .put("IndexStatus", status)
                    .put("ItemCount", 5);
            gsi.putArray("KeySchema")
                    .addObject()
                    .put("AttributeName", status.equals("ACTIVE") ? "pk" : "gone")
                    .put("KeyType", "HASH");
            gsi.putObject("Projection").put("ProjectionType", "ALL");
            gsi.putObject("ProvisionedThroughput")
                    .put("ReadCapacityUnits", 7)
                    .put("WriteCapacityUnits", 8)
                    .put("NumberOfDecreasesToday", 0);
        }
        JsonNode create = tree(RangeSpread.createOf(RangeSpread.bytes(root)));
        assertThat(create.get("GlobalSecondaryIndexes"))
                .as("the index being deleted is not made")
                .hasSize(1);
        assertThat(create.get("AttributeDefinitions").toString()).doesNotContain("gone");
        assertThat(create.get("GlobalSecondaryIndexes").get(0).toString())
                .isEqualTo("{\"IndexName\":\"active\",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
                        + "\"Projection\":{\"ProjectionType\":\"ALL\"},"
                        + "\"ProvisionedThroughput\":{\"ReadCapacityUnits\":7,\"WriteCapacityUnits\":8}}");
        assertThat(create.get("TableName").asText()).isEqualTo("hot");
        assertThat(create.get("BillingMode").asText()).isEqualTo("PROVISIONED");
        assertThat(create.get("ProvisionedThroughput").toString())
                .isEqualTo("{\"ReadCapacityUnits\":10,\"WriteCapacityUnits\":3000}");
        assertThat(create.get("WarmThroughput").toString()).isEqualTo("{\"ReadUnitsPerSecond\":12000}");
        assertThat(create.get("LocalSecondaryIndexes").get(0).has("ItemCount")).isFalse();
        assertThat(create.get("DeletionProtectionEnabled").asBoolean()).isTrue();
        // Decoded as the server decodes a CreateTable.
        var in = DynamoJson.decode(RangeSpread.bytes(create), io.partita.protocol.message.CreateTableInput.class);
        assertThat(in.localSecondaryIndexes()).hasSize(1);
        assertThat(in.globalSecondaryIndexes()).hasSize(1);
        assertThat(RangeSpread.createOf("{}".getBytes(StandardCharsets.UTF_8))).isNull();

        // Refused by the first group as made already: the others that lack it get the first group's definition.
        List<String> asked = new CopyOnWriteArrayList<>();
        List<byte[]> bodies = new CopyOnWriteArrayList<>();
        RangeSpread.Sender sender = (group, target, body) -> {
            asked.add(GROUPS.indexOf(group) + ":" + target);
            bodies.add(body);
            if (target.endsWith("DescribeTable")) {
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, RangeSpread.bytes(root)));
            }
            int status = GROUPS.indexOf(group) == 0 || GROUPS.indexOf(group) == 2 ? 400 : 200;
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(
                    status, "{\"__type\":\"x#ResourceInUseException\"}".getBytes(StandardCharsets.UTF_8)));
        };
        byte[] other = "{\"TableName\":\"hot\",\"KeySchema\":[]}".getBytes(StandardCharsets.UTF_8);
        ClusterRouter.Reply reply = RangeSpread.everyGroup("CreateTable", "C", other, GROUPS, sender)
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(asked.subList(0, 2))
                .containsExactly(
                        "0:C", "0:" + io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "DescribeTable");
        assertThat(asked).hasSize(5);
        for (int i = 2; i < 5; i++) {
            assertThat(tree(bodies.get(i)).get("ProvisionedThroughput"))
                    .as("the first group's table")
                    .isNotNull();
        }
    }

    private static ClusterRouter.Reply describe(String status, long items, long bytes) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode t = root.putObject("Table")
                .put("TableName", "t")
                .put("TableStatus", status)
                .put("ItemCount", items)
                .put("TableSizeBytes", bytes);
        t.putArray("LocalSecondaryIndexes")
                .addObject()
                .put("IndexName", "l")
                .put("ItemCount", items)
                .put("IndexSizeBytes", bytes);
        return new ClusterRouter.Reply(200, RangeSpread.bytes(root));
    }

    /** A sender that answers each group as {@code answers} says, in turn, recording what it was asked. */
    private static RangeSpread.Sender answering(List<String> asked, Map<UUID, List<Integer>> answers) {
        return (group, target, body) -> {
            asked.add(GROUPS.indexOf(group) + ":" + target);
            List<Integer> left = answers.get(group);
            int status = left.size() > 1 ? left.remove(0) : left.get(0);
            String type = status == 409 ? "ResourceInUseException" : status == 404 ? "ResourceNotFoundException" : "X";
            byte[] out = ("{\"__type\":\"x#" + type + "\",\"g\":" + GROUPS.indexOf(group) + "}")
                    .getBytes(StandardCharsets.UTF_8);
            return CompletableFuture.completedFuture(
                    new ClusterRouter.Reply(status == 404 || status == 409 ? 400 : status, out));
        };
    }

    private static Map<UUID, List<Integer>> statuses(Integer... each) {
        Map<UUID, List<Integer>> out = new java.util.HashMap<>();
        for (int i = 0; i < GROUPS.size(); i++) {
            out.put(GROUPS.get(i), new ArrayList<>(List.of(each[i])));
        }
        return out;
    }

    @Test
    void aCreateTableIsMadeInTheFirstGroupFirstThenWhereItLacks() {
        List<String> asked = new CopyOnWriteArrayList<>();
        Map<UUID, List<Integer>> answers = statuses(200, 200, 409, 200);
        answers.get(GROUPS.get(1)).add(0, 503); // no leader yet, once: asked again
        ClusterRouter.Reply reply = RangeSpread.everyGroup(
                        "CreateTable", "T", new byte[0], GROUPS, answering(asked, answers))
                .join();
        assertThat(reply.status()).isEqualTo(200);
        assertThat(tree(reply.body()).get("g").asInt())
                .as("the first group's answer")
                .isZero();
        assertThat(asked.get(0)).isEqualTo("0:T");
        assertThat(asked).hasSize(5).filteredOn(a -> a.equals("1:T")).hasSize(2);
        // Refused by the first group: made nowhere else.
        asked.clear();
        reply = RangeSpread.everyGroup(
                        "CreateTable", "T", new byte[0], GROUPS, answering(asked, statuses(400, 200, 200, 200)))
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(asked).containsExactly("0:T");
    }

    @Test
    void aDeleteTableDeletesTheOtherGroupsFirst() {
        List<String> asked = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply reply = RangeSpread.everyGroup(
                        "DeleteTable", "T", new byte[0], GROUPS, answering(asked, statuses(200, 404, 200, 200)))
                .join();
        assertThat(reply.status()).isEqualTo(200);
        assertThat(asked).hasSize(4).last().isEqualTo("0:T");
        // A refusal elsewhere (deletion protection, say) is the answer; the first group keeps its table.
        asked.clear();
        reply = RangeSpread.everyGroup(
                        "DeleteTable", "T", new byte[0], GROUPS, answering(asked, statuses(200, 200, 400, 200)))
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(asked).doesNotContain("0:T");
    }

    @Test
    void aChangeOfEveryGroupAnswersTheFirstGroupsAnswerOrAnotherGroupsRefusal() {
        List<String> asked = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply reply = RangeSpread.everyGroup(
                        "UpdateTimeToLive", "T", new byte[0], GROUPS, answering(asked, statuses(200, 200, 200, 200)))
                .join();
        assertThat(tree(reply.body()).get("g").asInt()).isZero();
        assertThat(asked).hasSize(4);
        reply = RangeSpread.everyGroup(
                        "UpdateTimeToLive", "T", new byte[0], GROUPS, answering(asked, statuses(200, 200, 500, 200)))
                .join();
        assertThat(reply.status()).isEqualTo(500);
    }

    /**
     * A stream enabled on a table cut by ranges is one stream over its groups: the first group labels it, and every
     * other group's is given that label, whatever label the client's request named.
     */
    @Test
    void aStreamIsEnabledInTheFirstGroupFirstAndLabelledAlikeInTheOthers() {
        Map<UUID, List<String>> bodies = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> order = new CopyOnWriteArrayList<>();
        RangeSpread.Sender sender = (group, target, body) -> {
            String text = new String(body, StandardCharsets.UTF_8);
            order.add(GROUPS.indexOf(group) + ":" + target);
            bodies.computeIfAbsent(group, g -> new CopyOnWriteArrayList<>()).add(text);
            String label = GROUPS.indexOf(group) == 0
                    ? "2026-12-07T10:00:00.000"
                    : tree(body)
                            .path("StreamSpecification")
                            .path("PartitaStreamLabel")
                            .asText("none");
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(
                    200,
                    ("{\"TableDescription\":{\"LatestStreamLabel\":\"" + label + "\"}}")
                            .getBytes(StandardCharsets.UTF_8)));
        };
        String update = "{\"TableName\":\"t\",\"StreamSpecification\":{\"StreamEnabled\":true,"
                + "\"StreamViewType\":\"KEYS_ONLY\",\"PartitaStreamLabel\":\"1999-01-01T00:00:00.000\"}}";
        for (String operation : List.of("UpdateTable", "CreateTable")) {
            bodies.clear();
            order.clear();
            ClusterRouter.Reply reply = RangeSpread.everyGroup(
                            operation, operation, update.getBytes(StandardCharsets.UTF_8), GROUPS, sender)
                    .join();
            assertThat(reply.status()).isEqualTo(200);
            assertThat(order).as(operation).hasSize(4).first().isEqualTo("0:" + operation);
            assertThat(tree(bodies.get(GROUPS.get(0)).get(0).getBytes(StandardCharsets.UTF_8))
                            .path("StreamSpecification")
                            .has("PartitaStreamLabel"))
                    .as("the client's label is not the first group's")
                    .isFalse();
            for (UUID g : GROUPS.subList(1, 4)) {
                assertThat(tree(bodies.get(g).get(0).getBytes(StandardCharsets.UTF_8))
                                .path("StreamSpecification")
                                .path("PartitaStreamLabel")
                                .asText())
                        .as(operation)
                        .isEqualTo("2026-12-07T10:00:00.000");
            }
        }
        // A stream disabled, or any other change, goes to every group as it is.
        assertThat(RangeSpread.enablesStream(
                        "{\"StreamSpecification\":{\"StreamEnabled\":false}}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
        byte[] other = "{\"TableName\":\"t\",\"BillingMode\":\"PAY_PER_REQUEST\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(RangeSpread.labelled(other, tree("{\"LatestStreamLabel\":\"x\"}".getBytes(StandardCharsets.UTF_8))))
                .isSameAs(other);
    }

    /**
     * Sent again after a group did not answer, an UpdateTable that enabled the first group's stream is refused there as
     * DynamoDB refuses a stream enabled twice, and made, with the first group's label, where it lacks.
     */
    @Test
    void aStreamEnabledAgainIsMadeWhereItLacks() {
        List<String> asked = new CopyOnWriteArrayList<>();
        List<String> given = new CopyOnWriteArrayList<>();
        String[] described = {"{\"StreamEnabled\":true,\"StreamViewType\":\"NEW_IMAGE\"}"};
        RangeSpread.Sender sender = (group, target, body) -> {
            int at = GROUPS.indexOf(group);
            asked.add(at + ":" + target);
            if (target.endsWith("DescribeTable")) {
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(
                        200,
                        ("{\"Table\":{\"LatestStreamLabel\":\"2026-12-07T10:00:00.000\",\"StreamSpecification\":"
                                        + described[0] + "}}")
                                .getBytes(StandardCharsets.UTF_8)));
            }
            if (at != 0) {
                given.add(tree(body).path("StreamSpecification").toString());
            }
            boolean has = at == 0
                    || at == 2
                    || !tree(body)
                            .path("StreamSpecification")
                            .path("PartitaStreamLabel")
                            .asText("")
                            .equals("2026-12-07T10:00:00.000");
            String answer = has
                    ? "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ValidationException\",\"message\":"
                            + "\"Table already has an enabled stream: TableName: t\"}"
                    : "{\"TableDescription\":{}}";
            return CompletableFuture.completedFuture(
                    new ClusterRouter.Reply(has ? 400 : 200, answer.getBytes(StandardCharsets.UTF_8)));
        };
        byte[] update = ("{\"TableName\":\"t\",\"StreamSpecification\":{\"StreamEnabled\":true,"
                        + "\"StreamViewType\":\"KEYS_ONLY\"}}")
                .getBytes(StandardCharsets.UTF_8);
        ClusterRouter.Reply reply = RangeSpread.everyGroup("UpdateTable", "U", update, GROUPS, sender)
                .join();
        assertThat(reply.status()).as("the first group's refusal").isEqualTo(400);
        assertThat(asked).containsExactlyInAnyOrder("0:U", "0:DynamoDB_20120810.DescribeTable", "1:U", "2:U", "3:U");
        // The first group's stream, its view type and label, not the view type this request asked for.
        assertThat(given)
                .hasSize(3)
                .allSatisfy(spec -> assertThat(spec)
                        .isEqualTo("{\"StreamEnabled\":true,\"StreamViewType\":\"NEW_IMAGE\","
                                + "\"PartitaStreamLabel\":\"2026-12-07T10:00:00.000\"}"));
        // Its stream disabled meanwhile: made nowhere.
        asked.clear();
        described[0] = "{\"StreamEnabled\":false}";
        reply = RangeSpread.everyGroup("UpdateTable", "U", update, GROUPS, sender)
                .join();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(asked).containsExactly("0:U", "0:DynamoDB_20120810.DescribeTable");
    }
}
