package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.model.AttributeValue;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.KeyRanges;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class TableRangesTest {
    private static final List<UUID> FOUR =
            List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
    private static final ExpressionCache CACHE = new ExpressionCache(8);

    @Test
    void rangesCutTheHashSpaceEvenlyInUnsignedOrder() {
        TableRanges r = TableRanges.even("pk", FOUR);
        assertThat(r.starts()).containsExactly(0L, 1L << 62, Long.MIN_VALUE, 3L << 62);
        assertThat(r.indexOf(0)).isZero();
        assertThat(r.indexOf((1L << 62) - 1)).isZero();
        assertThat(r.indexOf(1L << 62)).isEqualTo(1);
        assertThat(r.indexOf(Long.MAX_VALUE)).isEqualTo(1);
        assertThat(r.indexOf(Long.MIN_VALUE)).isEqualTo(2);
        assertThat(r.indexOf(-1L)).isEqualTo(3);
        assertThat(r.groupOf(-1L)).isEqualTo(FOUR.get(3));
    }

    @Test
    void aTableRecordKeepsItsRanges() {
        TableRanges r = TableRanges.even("id", FOUR.subList(0, 3));
        var record =
                io.partita.protocol.json.DynamoJson.mapper().createObjectNode().put("group", "x");
        assertThat(TableRanges.of(record)).isNull();
        record.put("key", "id");
        record.set("ranges", r.toJson());
        TableRanges back = TableRanges.of(record);
        assertThat(back.live()).isTrue();
        assertThat(TableRanges.of(record.put("live", false)).live()).isFalse();
        assertThat(back.key()).isEqualTo("id");
        assertThat(back.starts()).containsExactly(r.starts());
        assertThat(back.groups()).isEqualTo(r.groups());
    }

    /**
     * The ranges each group's store records as its own (its CreateTable's) cut the hash space between them: a hash is
     * held by exactly one group's, the one a router sends it to.
     */
    @Property(tries = 300)
    void eachHashIsHeldByTheRangeOfTheGroupItIsRoutedTo(
            @ForAll @IntRange(min = 1, max = 8) int groups, @ForAll long hash) {
        List<UUID> ids =
                java.util.stream.Stream.generate(UUID::randomUUID).limit(groups).toList();
        TableRanges r = TableRanges.even("pk", ids);
        List<UUID> holding =
                ids.stream().filter(id -> r.rangeOf(id).holds(hash)).toList();
        assertThat(holding).containsExactly(r.groupOf(hash));
        assertThat(r.rangeOf(ids.get(0)).first()).isZero();
        assertThat(r.rangeOf(ids.get(groups - 1)).last()).isEqualTo(-1L);
        // Each boundary: a range's first hash is its own, the one before it the range before's.
        for (int i = 1; i < groups; i++) {
            long first = r.starts()[i];
            assertThat(r.rangeOf(ids.get(i)).first()).isEqualTo(first);
            assertThat(r.rangeOf(ids.get(i)).holds(first)).isTrue();
            assertThat(r.rangeOf(ids.get(i - 1)).holds(first - 1)).isTrue();
            assertThat(r.rangeOf(ids.get(i)).holds(first - 1)).isFalse();
        }
    }

    /**
     * A move of range {@code i}'s upper half to a new group, over ranges already split by moves: before it switches,
     * every hash goes where it went (the new group's range, for its CreateTable, the moved hashes); once it has, the
     * moved hashes go to the new group, every other where it went, and each hash is held by exactly one group's range.
     * The record keeps the move across a write and a read.
     */
    @Property(tries = 300)
    void aMovedRangesHashesGoToTheNewGroupAndNoOtherChanges(
            @ForAll @IntRange(min = 1, max = 8) int groups,
            @ForAll @IntRange(min = 0, max = 3) int earlierMoves,
            @ForAll @IntRange(min = 0, max = 63) int at,
            @ForAll long hash)
            throws Exception {
        TableRanges r = TableRanges.even(
                "pk",
                java.util.stream.Stream.generate(UUID::randomUUID).limit(groups).toList());
        for (int m = 0; m <= earlierMoves; m++) {
            int i = at % r.groups().size();
            UUID source = r.groups().get(i);
            long from = r.splitPoint(i);
            assertThat(r.rangeOf(source).holds(from)).isTrue();
            assertThat(from).isNotEqualTo(r.rangeOf(source).first());
            UUID moved = UUID.randomUUID();
            TableRanges moving = new TableRanges(
                    r.key(), r.starts(), r.groups(), true, new TableRanges.Moving(from, moved, source, false));
            var record = io.partita.protocol.json.DynamoJson.mapper()
                    .createObjectNode()
                    .put("group", r.groups().get(0).toString())
                    .put("key", "pk");
            TableRanges read =
                    TableRanges.of(io.partita.protocol.json.DynamoJson.mapper().readTree(moving.into(record)));
            assertThat(read.moving()).isEqualTo(moving.moving());
            assertThat(read.groupOf(hash)).as("before the switch").isEqualTo(r.groupOf(hash));
            assertThat(read.has(moved)).isTrue();
            assertThat(read.rangeOf(moved))
                    .as("receiving until the move's copy is over")
                    .isEqualTo(new io.partita.storage.table.HashRange(
                            from, r.rangeOf(source).last(), null, true));
            TableRanges after = read.switched();
            assertThat(after.moving().switched()).isTrue();
            boolean inMoved = read.rangeOf(moved).holds(hash);
            assertThat(after.groupOf(hash)).isEqualTo(inMoved ? moved : r.groupOf(hash));
            assertThat(after.groups().stream().filter(g -> after.rangeOf(g).holds(hash)))
                    .containsExactly(after.groupOf(hash));
            assertThat(after.rangeOf(source).last()).isEqualTo(from - 1);
            r = after.withoutMove();
        }
        assertThat(r.groups()).hasSize(groups + earlierMoves + 1);
    }

    /** A parallel scan's segment starts where a single node's Scan starts it. */
    @Property(tries = 200)
    void segmentsStartWhereTheStoreCutsThem(
            @ForAll @IntRange(min = 1, max = 1_000_000) int total, @ForAll @IntRange(min = 0) int seed) {
        int segment = seed % total;
        byte[] lower = KeyRanges.segment(segment, total).lower();
        long expected = lower == null ? 0 : ByteBuffer.wrap(lower).getLong();
        assertThat(RangeSpread.hashBound(segment, total)).isEqualTo(expected);
    }

    @Test
    void anItemsRequestNamesItsPartitionKey() {
        AttributeValue k = new AttributeValue.S("user#7");
        assertThat(key("GetItem", "{\"TableName\":\"t\",\"Key\":{\"sk\":{\"N\":\"1\"},\"pk\":{\"S\":\"user#7\"}}}"))
                .isEqualTo(k);
        assertThat(key("PutItem", "{\"Item\":{\"pk\":{\"S\":\"user#7\"},\"v\":{\"L\":[{\"S\":\"x\"}]}}}"))
                .isEqualTo(k);
        assertThat(key("UpdateItem", "{\"Key\":{\"pk\":{\"S\":\"other\"}},\"Key\":{\"pk\":{\"S\":\"user#7\"}}}"))
                .as("a field given twice: the last")
                .isEqualTo(k);
        assertThat(key(
                        "Query",
                        "{\"KeyConditionExpression\":\"#k = :v AND sk > :s\",\"ExpressionAttributeNames\":"
                                + "{\"#k\":\"pk\"},\"ExpressionAttributeValues\":"
                                + "{\":v\":{\"S\":\"user#7\"},\":s\":{\"N\":\"1\"}}}"))
                .isEqualTo(k);
        assertThat(key(
                        "Query",
                        "{\"KeyConditions\":{\"pk\":{\"ComparisonOperator\":\"EQ\",\"AttributeValueList\":"
                                + "[{\"S\":\"user#7\"}]}}}"))
                .isEqualTo(k);
        // None, or not as it should be: the table's first group answers the request, and its error.
        assertThat(key("GetItem", "{\"Key\":{\"sk\":{\"N\":\"1\"}}}")).isNull();
        assertThat(key("GetItem", "not json")).isNull();
        assertThat(key(
                        "Query",
                        "{\"KeyConditionExpression\":\"pk < :v\",\"ExpressionAttributeValues\":"
                                + "{\":v\":{\"S\":\"a\"}}}"))
                .isNull();
        assertThat(key("Query", "{\"KeyConditionExpression\":\"pk = :missing\"}"))
                .isNull();
        assertThat(key("Scan", "{\"ExclusiveStartKey\":{\"pk\":{\"S\":\"user#7\"}}}"))
                .isNull();
        assertThat(TableRanges.startKey(bytes("{\"ExclusiveStartKey\":{\"pk\":{\"S\":\"user#7\"}}}"), "pk"))
                .isEqualTo(k);
    }

    /**
     * A key given twice is the last, as the server's own decoding takes it; given again after every other field, the
     * server refuses the request, so it writes nothing in the group the router chose.
     */
    @Test
    void theServerTakesTheLastOfAKeyGivenTwiceAsTheRouterDoes() {
        String twice = "{\"TableName\":\"t\",\"Key\":{\"pk\":{\"S\":\"first\"}},\"ConsistentRead\":true,"
                + "\"Key\":{\"pk\":{\"S\":\"last\"}}}";
        var in = io.partita.protocol.json.DynamoJson.decode(
                bytes(twice), io.partita.protocol.message.GetItemInput.class);
        assertThat(in.key().get("pk")).isEqualTo(key("GetItem", twice)).isEqualTo(new AttributeValue.S("last"));
        String afterAll = "{\"TableName\":\"t\",\"Key\":{\"pk\":{\"S\":\"first\"}},\"AttributesToGet\":[\"a\"],"
                + "\"ConsistentRead\":true,\"ReturnConsumedCapacity\":\"NONE\",\"ProjectionExpression\":\"a\","
                + "\"ExpressionAttributeNames\":{\"#a\":\"a\"},\"Key\":{\"pk\":{\"S\":\"last\"}}}";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.partita.protocol.json.DynamoJson.decode(
                        bytes(afterAll), io.partita.protocol.message.GetItemInput.class))
                .isInstanceOf(io.partita.protocol.error.ApiException.class);
    }

    @Test
    void aStatementNamesThePartitionKeyItBindsByEquality() throws Exception {
        AttributeValue k = new AttributeValue.S("user#7");
        assertThat(statementKey("{\"Statement\":\"INSERT INTO t VALUE {'pk': 'user#7', 'v': 1}\"}"))
                .isEqualTo(k);
        assertThat(statementKey("{\"Statement\":\"UPDATE t SET v = 2 WHERE sk = 1 AND pk = 'user#7'\"}"))
                .isEqualTo(k);
        assertThat(statementKey("{\"Statement\":\"DELETE FROM t WHERE 'user#7' = pk AND sk = 1\"}"))
                .as("the value first")
                .isEqualTo(k);
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM t WHERE pk = ? AND sk > ?\","
                        + "\"Parameters\":[{\"S\":\"user#7\"},{\"N\":\"1\"}]}"))
                .as("a parameter")
                .isEqualTo(k);
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM \\\"t\\\".\\\"byV\\\" WHERE pk = 'user#7'\"}"))
                .as("a local index")
                .isEqualTo(k);
        // None, or several: a SELECT of several partitions, or one whose write names no item.
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM t\"}")).isNull();
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM t WHERE pk IN ['a', 'b']\"}"))
                .isNull();
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM t WHERE pk = 'a' OR pk = 'b'\"}"))
                .isNull();
        assertThat(statementKey("{\"Statement\":\"SELECT * FROM t WHERE pk > 'a'\"}"))
                .isNull();
        assertThat(statementKey("{\"Statement\":\"UPDATE t SET v = 2 WHERE sk = 1\"}"))
                .isNull();
        assertThat(TableRanges.statement(json("{\"Statement\":\"SELEC * FROM t\"}")))
                .isNull();
        assertThat(TableRanges.statement(json("{\"Statement\":\"SELECT * FROM t WHERE pk = ?\"}")))
                .as("a parameter missing")
                .isNull();
        // A batch's or a transaction's statement goes to its key's group (one past the first range here), or the first
        // when it names none, or binds it to a value of no key's type.
        TableRanges r = TableRanges.even("pk", FOUR);
        String far = java.util.stream.IntStream.range(0, 100)
                .mapToObj(i -> "user#" + i)
                .filter(pk -> !r.groupOf(new AttributeValue.S(pk)).equals(FOUR.get(0)))
                .findFirst()
                .orElseThrow();
        assertThat(r.groupOfStatement(json("{\"Statement\":\"DELETE FROM t WHERE pk = '" + far + "' AND sk = 1\"}")))
                .isEqualTo(r.groupOf(new AttributeValue.S(far)))
                .isNotEqualTo(FOUR.get(0));
        assertThat(r.groupOfStatement(json("{\"Statement\":\"DELETE FROM t WHERE sk = 1\"}")))
                .isEqualTo(FOUR.get(0));
        assertThat(r.groupOfStatement(json("{\"Statement\":\"DELETE FROM t WHERE pk = true AND sk = 1\"}")))
                .isEqualTo(FOUR.get(0));
        assertThat(r.groupOf(statementKey("{\"Statement\":\"SELECT * FROM t WHERE pk = ?\","
                        + "\"Parameters\":[{\"L\":[{\"S\":\"a\"}]}]}")))
                .isEqualTo(FOUR.get(0));
        // Binding none, a SELECT reads every range; with ORDER BY, or an EXISTS, a single node refuses it.
        assertThat(TableRanges.statement(json("{\"Statement\":\"SELECT * FROM t WHERE v = 1\"}"))
                        .scans())
                .isTrue();
        assertThat(TableRanges.statement(json("{\"Statement\":\"SELECT * FROM t WHERE v = 1 ORDER BY sk\"}"))
                        .scans())
                .isFalse();
        assertThat(TableRanges.statement(json("{\"Statement\":\"EXISTS(SELECT * FROM t WHERE v = 1)\"}"))
                        .scans())
                .isFalse();
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String text) throws Exception {
        return io.partita.protocol.json.DynamoJson.mapper().readTree(text);
    }

    private static AttributeValue statementKey(String entry) throws Exception {
        TableRanges.Statement s = TableRanges.statement(json(entry));
        assertThat(s).as(entry).isNotNull();
        return TableRanges.statementKey(s.parsed(), "pk");
    }

    /** A number routes as the store hashes it: by its value, whatever its spelling. */
    @Test
    void aNumberKeyRoutesByItsValue() {
        TableRanges r = TableRanges.even("pk", FOUR);
        AttributeValue a = key("GetItem", "{\"Key\":{\"pk\":{\"N\":\"10\"}}}");
        AttributeValue b = key("GetItem", "{\"Key\":{\"pk\":{\"N\":\"1.0E1\"}}}");
        assertThat(ItemKeyEncoder.partitionHash(a)).isEqualTo(ItemKeyEncoder.partitionHash(b));
        assertThat(r.groupOf(a)).isEqualTo(r.groupOf(b));
    }

    private static AttributeValue key(String operation, String json) {
        return TableRanges.partitionKey(operation, bytes(json), "pk", CACHE);
    }

    /**
     * A group serves a share of a request over a cut table only when every key in it is in its range: what the node
     * that cut the request put in each share (batches, transactions, PartiQL), the group finds there, and no other,
     * from the members its server reads for the share's operation (members it ignores, and a {@code PutRequest} of
     * null, name keys of other ranges here).
     */
    @Property(tries = 60)
    void eachShareOfACutRequestHoldsTheKeysOfItsOwnGroupAlone(
            @ForAll @net.jqwik.api.constraints.Size(min = 1, max = 25) @net.jqwik.api.constraints.UniqueElements
                    List<
                                    @net.jqwik.api.constraints.AlphaChars
                                    @net.jqwik.api.constraints.StringLength(min = 1, max = 6) String>
                            keys)
            throws Exception {
        TableRanges r = TableRanges.even("pk", FOUR);
        java.util.function.Function<String, UUID> groupOf = t -> UUID.randomUUID(); // a table not cut: none here
        java.util.function.Function<String, java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, UUID>>
                byKey = t -> r::groupOfEntry;
        java.util.function.Function<String, java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, UUID>>
                byStatement = t -> r::groupOfStatement;
        var expressions = new io.partita.server.op.item.ItemExpressions(CACHE);
        java.util.Set<UUID> all = new java.util.HashSet<>();
        keys.forEach(k -> all.add(r.groupOf(new AttributeValue.S(k))));
        // Members the servers ignore, naming keys of every range (0 to 99 spread over the four).
        String stray = "\"Item\":{\"pk\":{\"S\":\"stray%d\"}}";
        List<String> writes = new java.util.ArrayList<>();
        List<String> gets = new java.util.ArrayList<>();
        List<String> actions = new java.util.ArrayList<>();
        List<String> selects = new java.util.ArrayList<>();
        List<String> inserts = new java.util.ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String key = "{\"pk\":{\"S\":\"" + keys.get(i) + "\"}}";
            String odd = stray.formatted(i);
            writes.add(
                    switch (i % 3) {
                        case 0 -> "{\"PutRequest\":{\"Item\":" + key + "}}";
                        case 1 -> "{\"DeleteRequest\":{\"Key\":" + key + "}}";
                        default -> "{\"PutRequest\":null,\"DeleteRequest\":{\"Key\":" + key + "," + odd + "}}";
                    });
            gets.add(key);
            actions.add(
                    switch (i % 4) {
                        case 0 -> "{\"Put\":{\"TableName\":\"t\",\"Item\":" + key + "}}";
                        case 1 -> "{\"Delete\":{\"TableName\":\"t\",\"Key\":" + key + "," + odd + "}}";
                        case 2 ->
                            "{\"Update\":{\"TableName\":\"t\",\"Key\":" + key + "," + odd
                                    + ",\"UpdateExpression\":\"SET v = :v\",\"ExpressionAttributeValues\":"
                                    + "{\":v\":{\"N\":\"1\"}}}}";
                        default ->
                            "{\"ConditionCheck\":{\"TableName\":\"t\",\"Key\":" + key + "," + odd
                                    + ",\"ConditionExpression\":\"attribute_exists(pk)\"}}";
                    });
            String parameter = ",\"Parameters\":[{\"S\":\"" + keys.get(i) + "\"}]}";
            selects.add("{\"Statement\":\"SELECT * FROM t WHERE pk = ?\"" + parameter);
            inserts.add("{\"Statement\":\"INSERT INTO t VALUE {'pk': ?}\"" + parameter);
        }
        List<String> strays = java.util.stream.IntStream.range(0, 8)
                .mapToObj(i -> "{\"Statement\":\"SELECT * FROM t WHERE pk = 'stray" + i + "'\"}")
                .toList();
        // A request's other operations' members, which its server ignores, copied into every share.
        String others = ",\"Statements\":[" + String.join(",", strays) + "],\"TransactStatements\":["
                + String.join(",", strays) + "],\"RequestItems\":{\"t\":[{\"PutRequest\":{"
                + stray.formatted(1) + "}}]},\"TransactItems\":[{\"Get\":{\"TableName\":\"t\","
                + stray.formatted(2).replace("Item", "Key") + "}}]";
        String batchWrite = "DynamoDB_20120810.BatchWriteItem";
        String batchGet = "DynamoDB_20120810.BatchGetItem";
        String transactGet = "DynamoDB_20120810.TransactGetItems";
        String transactWrite = "DynamoDB_20120810.TransactWriteItems";
        String batchStatements = "DynamoDB_20120810.BatchExecuteStatement";
        String transactStatements = "DynamoDB_20120810.ExecuteTransaction";
        Map<String, byte[]> bodies = new java.util.LinkedHashMap<>();
        bodies.put(batchWrite, bytes("{\"RequestItems\":{\"t\":[" + String.join(",", writes) + "]}}"));
        bodies.put(batchGet, bytes("{\"RequestItems\":{\"t\":{\"Keys\":[" + String.join(",", gets) + "]}}}"));
        bodies.put(
                transactGet,
                bytes("{\"TransactItems\":["
                        + String.join(
                                ",",
                                gets.stream()
                                        .map(k -> "{\"Get\":{\"TableName\":\"t\",\"Key\":" + k + ","
                                                + stray.formatted(3) + "}}")
                                        .toList())
                        + "]" + others.replace(",\"TransactItems\"", ",\"Unused\"") + "}"));
        bodies.put(
                transactWrite,
                bytes("{\"TransactItems\":[" + String.join(",", actions) + "]"
                        + others.replace(",\"TransactItems\"", ",\"Unused\"") + "}"));
        bodies.put(batchStatements, bytes("{\"Statements\":[" + String.join(",", selects) + "]}"));
        bodies.put(transactStatements, bytes("{\"TransactStatements\":[" + String.join(",", selects) + "]}"));
        byte[] transactInserts = bytes("{\"TransactStatements\":[" + String.join(",", inserts) + "]}");

        // Each share, by the target it is sent as.
        List<Map.Entry<String, Map<UUID, byte[]>>> cuts = new java.util.ArrayList<>();
        for (String operation : List.of(batchWrite, batchGet)) {
            Map<UUID, byte[]> shares = new java.util.LinkedHashMap<>();
            String name = operation.substring(operation.indexOf('.') + 1);
            for (var s : BatchSpread.split(name, bodies.get(operation), groupOf, byKey)) {
                shares.put(s.group(), s.body());
            }
            cuts.add(Map.entry(operation, shares));
            if (operation.equals(batchWrite)) {
                cuts.add(Map.entry(BatchSpread.CHECK, shares));
            }
        }
        Map<UUID, byte[]> shares = new java.util.LinkedHashMap<>();
        for (var s : TransactSpread.split(
                TransactSpread.Kind.GETS, bodies.get(transactGet), groupOf, byKey, expressions, "h")) {
            shares.put(s.group(), s.body());
        }
        cuts.add(Map.entry(TransactSpread.HOLD, shares));
        shares = new java.util.LinkedHashMap<>();
        for (var s : TransactSpread.split(
                TransactSpread.Kind.STATEMENTS,
                bodies.get(transactStatements),
                groupOf,
                byStatement,
                expressions,
                "h")) {
            shares.put(s.group(), s.body());
        }
        cuts.add(Map.entry(TransactSpread.HOLD_STATEMENTS, shares));
        for (var kind : List.of(TransactWriteSpread.Kind.ACTIONS, TransactWriteSpread.Kind.STATEMENTS)) {
            shares = new java.util.LinkedHashMap<>();
            boolean actionsKind = kind == TransactWriteSpread.Kind.ACTIONS;
            for (var s : TransactWriteSpread.split(
                    kind,
                    actionsKind ? bodies.get(transactWrite) : transactInserts,
                    groupOf,
                    actionsKind ? byKey : byStatement,
                    expressions,
                    "tx",
                    1,
                    null,
                    null)) {
                shares.put(s.group(), s.body());
            }
            cuts.add(Map.entry(
                    actionsKind ? TransactWriteSpread.PREPARE : TransactWriteSpread.PREPARE_STATEMENTS, shares));
        }
        shares = new java.util.LinkedHashMap<>();
        for (var s : StatementSpread.split(bodies.get(batchStatements), groupOf, byStatement)) {
            shares.put(s.group(), s.body());
        }
        cuts.add(Map.entry(batchStatements, shares));

        var json = io.partita.protocol.json.DynamoJson.mapper();
        for (var whole : bodies.entrySet()) {
            assertThat(r.groupsOfShare(whole.getKey(), json.readTree(whole.getValue())))
                    .as(whole.getKey())
                    .isEqualTo(all);
        }
        assertThat(cuts).hasSize(8);
        for (var cut : cuts) {
            assertThat(cut.getValue().keySet()).as(cut.getKey()).isEqualTo(all);
            for (var share : cut.getValue().entrySet()) {
                assertThat(r.groupsOfShare(cut.getKey(), json.readTree(share.getValue())))
                        .as(cut.getKey() + " " + new String(share.getValue(), StandardCharsets.UTF_8))
                        .containsExactly(share.getKey());
            }
        }
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
