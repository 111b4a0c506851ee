package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.item.ItemExpressions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TransactSpreadTest {
    /** Tables a and c in group 1, b in group 2. */
    private static final Map<String, Integer> GROUPS = Map.of("a", 1, "b", 2, "c", 1);

    private static final ItemExpressions EXPRESSIONS = new ItemExpressions(new ExpressionCache(10));

    private static byte[] bytes(String json) {
        return json.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode json(byte[] body) throws Exception {
        return DynamoJson.mapper().readTree(body);
    }

    private static String get(String table, int id) {
        return "{'Get':{'TableName':'" + table + "','Key':{'id':{'S':'" + id + "'}}}}";
    }

    /** Gets of a, b, c, b: group 1 reads the first and third, group 2 the second and fourth. */
    private static final byte[] READ = bytes("{'TransactItems':[" + get("a", 1) + "," + get("b", 2) + "," + get("c", 3)
            + "," + get("b", 4) + "],'ReturnConsumedCapacity':'TOTAL'}");

    private static ClusterRouter.Reply ok(String json) {
        return new ClusterRouter.Reply(200, bytes(json));
    }

    private static String item(int id) {
        return "{'Item':{'id':{'S':'" + id + "'}}}";
    }

    @Test
    void eachGroupReadsItsGetsWithTheHoldAndTheRequestsOtherFields() throws Exception {
        List<TransactSpread.Share<Integer>> shares =
                TransactSpread.split(TransactSpread.Kind.GETS, READ, GROUPS::get, EXPRESSIONS, "h1");
        assertThat(shares).extracting(TransactSpread.Share::group).containsExactly(1, 2);
        assertThat(shares.get(0).positions()).containsExactly(0, 2);
        assertThat(shares.get(1).positions()).containsExactly(1, 3);
        JsonNode first = json(shares.get(0).body());
        assertThat(first.get("TransactItems")).hasSize(2);
        assertThat(first.get("TransactItems").get(1)).isEqualTo(json(bytes(get("c", 3))));
        assertThat(first.get("ReturnConsumedCapacity").asText()).isEqualTo("TOTAL");
        assertThat(first.get("Hold").asText()).isEqualTo("h1");
        // A share reaches its group by its tables, as a TransactGetItems would.
        for (String target : List.of(TransactSpread.HOLD, TransactSpread.RELEASE)) {
            assertThat(TableRoute.of(
                                    target,
                                    new java.io.ByteArrayInputStream(
                                            shares.get(1).body()))
                            .tables())
                    .containsExactly("b");
        }
    }

    /**
     * An ExecuteTransaction of SELECTs goes by each statement's table, its shares naming each statement's place in the
     * request; one of writes over several groups is not split (after the checks of the whole request).
     */
    @Test
    void anExecuteTransactionOfSelectsIsSplitByItsStatementsTables() throws Exception {
        String select = "{'Statement':'SELECT * FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        byte[] read = bytes("{'TransactStatements':[" + select.formatted("b") + "," + select.formatted("a") + ","
                + select.formatted("b") + "]}");
        List<TransactSpread.Share<Integer>> shares =
                TransactSpread.split(TransactSpread.Kind.STATEMENTS, read, GROUPS::get, EXPRESSIONS, "h");
        assertThat(shares).extracting(TransactSpread.Share::group).containsExactly(2, 1);
        JsonNode first = json(shares.get(0).body());
        assertThat(first.get("TransactStatements")).hasSize(2);
        assertThat(first.get("Positions")).extracting(JsonNode::asInt).containsExactly(0, 2);
        assertThat(first.get("Hold").asText()).isEqualTo("h");
        for (String target : List.of(TransactSpread.HOLD_STATEMENTS, TransactSpread.RELEASE_STATEMENTS)) {
            assertThat(TableRoute.of(
                                    target,
                                    new java.io.ByteArrayInputStream(
                                            shares.get(1).body()))
                            .tables())
                    .containsExactly("a");
        }
        List<String> sent = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply answer = TransactSpread.run(
                        shares,
                        (group, target, body) -> {
                            sent.add(target + " " + group);
                            String items = group == 2 ? item(0) + "," + item(2) : item(1);
                            return CompletableFuture.completedFuture(
                                    target.equals(TransactSpread.HOLD_STATEMENTS)
                                            ? ok("{'Responses':[" + items + "],'ItemBytes':0}")
                                            : ok("{'Held':'INTACT'}"));
                        },
                        Runnable::run)
                .join();
        assertThat(json(answer.body()).get("Responses"))
                .containsExactly(json(bytes(item(0))), json(bytes(item(1))), json(bytes(item(2))));
        assertThat(sent)
                .containsExactlyInAnyOrder(
                        TransactSpread.HOLD_STATEMENTS + " 1",
                        TransactSpread.HOLD_STATEMENTS + " 2",
                        TransactSpread.RELEASE_STATEMENTS + " 1",
                        TransactSpread.RELEASE_STATEMENTS + " 2");

        String delete = "{'Statement':'DELETE FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        byte[] writes = bytes("{'TransactStatements':[" + delete.formatted("a") + "," + delete.formatted("b") + "]}");
        assertThat(TransactSpread.split(TransactSpread.Kind.STATEMENTS, writes, GROUPS::get, EXPRESSIONS, "h"))
                .as("writes are not read over several groups")
                .isNull();
        byte[] mixed = bytes("{'TransactStatements':[" + select.formatted("a") + "," + delete.formatted("b") + "]}");
        assertThatThrownBy(() ->
                        TransactSpread.split(TransactSpread.Kind.STATEMENTS, mixed, GROUPS::get, EXPRESSIONS, "h"))
                .isInstanceOf(ApiException.class)
                .hasMessage("ExecuteTransaction API does not support both read and write operations in the same"
                        + " request.");
    }

    @Test
    void theWholeRequestIsCheckedBeforeItIsSplit() {
        StringBuilder many = new StringBuilder("{'TransactItems':[");
        for (int i = 0; i < 101; i++) {
            many.append(i == 0 ? "" : ",").append(get(i % 2 == 0 ? "a" : "b", i));
        }
        byte[] tooMany = bytes(many.append("]}").toString());
        assertThatThrownBy(() -> TransactSpread.split(TransactSpread.Kind.GETS, tooMany, GROUPS::get, EXPRESSIONS, "h"))
                .isInstanceOf(ApiException.class)
                .hasMessageEndingWith("at 'transactItems' failed to satisfy constraint: Member must have length less"
                        + " than or equal to 100");
        byte[] badProjection = bytes("{'TransactItems':[" + get("a", 1)
                + ",{'Get':{'TableName':'b','Key':{'id':{'S':'2'}},'ProjectionExpression':'#x'}}]}");
        assertThatThrownBy(() ->
                        TransactSpread.split(TransactSpread.Kind.GETS, badProjection, GROUPS::get, EXPRESSIONS, "h"))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("#x");
    }

    /** Runs READ against groups answering {@code holds} and {@code releases}; records what each was sent. */
    private static ClusterRouter.Reply run(
            Map<Integer, ClusterRouter.Reply> holds, Map<Integer, ClusterRouter.Reply> releases, List<String> sent) {
        List<TransactSpread.Share<Integer>> shares =
                TransactSpread.split(TransactSpread.Kind.GETS, READ, GROUPS::get, EXPRESSIONS, "h");
        return TransactSpread.run(
                        shares,
                        (group, target, body) -> {
                            sent.add(target.substring(target.indexOf('.') + 1) + " " + group);
                            return CompletableFuture.completedFuture(
                                    (target.equals(TransactSpread.HOLD) ? holds : releases).get(group));
                        },
                        Runnable::run)
                .join();
    }

    @Test
    void anIntactReadAnswersEveryItemInTheRequestsOrderWithEachTablesUnits() throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply reply = run(
                Map.of(
                        1,
                        ok("{'ConsumedCapacity':[{'TableName':'c','CapacityUnits':2.0},{'TableName':'a',"
                                + "'CapacityUnits':2.0}],'Responses':[" + item(1) + ",{}],'ItemBytes':10}"),
                        2,
                        ok("{'ConsumedCapacity':[{'TableName':'b','CapacityUnits':4.0}],'Responses':[" + item(2) + ","
                                + item(4) + "],'ItemBytes':20}")),
                Map.of(1, ok("{'Held':'INTACT'}"), 2, ok("{'Held':'INTACT'}")),
                sent);
        assertThat(reply.status()).isEqualTo(200);
        JsonNode out = json(reply.body());
        assertThat(out.get("Responses"))
                .containsExactly(json(bytes(item(1))), json(bytes(item(2))), json(bytes("{}")), json(bytes(item(4))));
        // Each table once, in the order the Gets first name them: a, b, c.
        assertThat(out.get("ConsumedCapacity"))
                .extracting(c -> c.get("TableName").asText())
                .containsExactly("a", "b", "c");
        assertThat(out.has("ItemBytes")).isFalse();
        assertThat(sent)
                .containsExactlyInAnyOrder(
                        "HoldTransactGetItems 1",
                        "HoldTransactGetItems 2",
                        "ReleaseTransactGetItems 1",
                        "ReleaseTransactGetItems 2");
    }

    @Test
    void aBrokenHoldCancelsTheReadWithAConflictAndAnUnknownOrLostReleaseIsA503() throws Exception {
        Map<Integer, ClusterRouter.Reply> read =
                Map.of(1, ok("{'Responses':[{},{}],'ItemBytes':0}"), 2, ok("{'Responses':[{},{}],'ItemBytes':0}"));
        ClusterRouter.Reply broken = run(
                read, Map.of(1, ok("{'Held':'UNKNOWN'}"), 2, ok("{'Held':'BROKEN'}")), new CopyOnWriteArrayList<>());
        assertThat(broken.status()).isEqualTo(400);
        JsonNode error = json(broken.body());
        assertThat(error.get("__type").asText()).endsWith("#TransactionCanceledException");
        assertThat(error.get("message").asText())
                .isEqualTo("Transaction cancelled, please refer cancellation reasons for specific reasons [None,"
                        + " TransactionConflict, None, None]");
        assertThat(error.get("CancellationReasons").get(1).get("Message").asText())
                .isEqualTo("Transaction is ongoing for the item");

        // Another leader released it, or none: not known to be one moment's read, which the SDKs send again.
        for (ClusterRouter.Reply unsure : List.of(ok("{'Held':'UNKNOWN'}"), BatchSpread.unavailable("no leader"))) {
            ClusterRouter.Reply lost =
                    run(read, Map.of(1, ok("{'Held':'INTACT'}"), 2, unsure), new CopyOnWriteArrayList<>());
            assertThat(lost.status()).isEqualTo(503);
        }
    }

    /** No group releases its hold before every group has read: the moment is after the last read. */
    @Test
    void theGroupsReleaseOnlyOnceEveryGroupHasRead() throws Exception {
        List<TransactSpread.Share<Integer>> shares =
                TransactSpread.split(TransactSpread.Kind.GETS, READ, GROUPS::get, EXPRESSIONS, "h");
        Map<Integer, CompletableFuture<ClusterRouter.Reply>> holds =
                Map.of(1, new CompletableFuture<>(), 2, new CompletableFuture<>());
        List<String> sent = new CopyOnWriteArrayList<>();
        var reply = TransactSpread.run(
                shares,
                (group, target, body) -> {
                    sent.add(target.substring(target.indexOf('.') + 1) + " " + group);
                    return target.equals(TransactSpread.HOLD)
                            ? holds.get(group)
                            : CompletableFuture.completedFuture(ok("{'Held':'INTACT'}"));
                },
                Runnable::run);
        holds.get(2).complete(ok("{'Responses':[" + item(2) + ",{}],'ItemBytes':1}"));
        assertThat(sent).containsExactlyInAnyOrder("HoldTransactGetItems 1", "HoldTransactGetItems 2");
        holds.get(1).complete(ok("{'Responses':[" + item(1) + "," + item(3) + "],'ItemBytes':1}"));
        assertThat(reply.get().status()).isEqualTo(200);
        assertThat(sent).hasSize(4);
    }

    @Test
    void aRefusalIsTheRequestsAndCancellationsMergeInTheGetsPlaces() throws Exception {
        ClusterRouter.Reply notFound = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',"
                        + "'message':'Requested resource not found'}"));
        ClusterRouter.Reply cancelled = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException','Message':'x',"
                        + "'CancellationReasons':[{'Code':'None'},{'Code':'ValidationError','Message':'The provided"
                        + " key element does not match the schema'}]}"));
        ClusterRouter.Reply read = ok("{'Responses':[{},{}],'ItemBytes':0}");
        ClusterRouter.Reply conflict = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException','Message':'x',"
                        + "'CancellationReasons':[{'Code':'TransactionConflict','Message':'Transaction is ongoing for"
                        + " the item'},{'Code':'None'}]}"));
        ClusterRouter.Reply repeated = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException','message':'Transaction"
                        + " request cannot include multiple operations on one item'}"));
        List<String> sent = new CopyOnWriteArrayList<>();
        // A refusal of the request beats a cancellation, and the group that read releases its hold at once.
        assertThat(run(Map.of(1, read, 2, notFound), Map.of(1, ok("{'Held':'INTACT'}")), sent))
                .isSameAs(notFound);
        assertThat(sent).contains("ReleaseTransactGetItems 1").doesNotContain("ReleaseTransactGetItems 2");
        assertThat(run(Map.of(1, cancelled, 2, notFound), Map.of(), sent)).isSameAs(notFound);

        ClusterRouter.Reply merged = run(Map.of(1, cancelled, 2, BatchSpread.unavailable("no leader")), Map.of(), sent);
        assertThat(merged.status()).isEqualTo(400);
        JsonNode error = json(merged.body());
        assertThat(error.get("message").asText())
                .isEqualTo("Transaction cancelled, please refer cancellation reasons for specific reasons [None, None,"
                        + " ValidationError, None]");
        assertThat(error.get("CancellationReasons").get(2).get("Message").asText())
                .isEqualTo("The provided key element does not match the schema");

        // As a single node checks in stages: keys of the wrong shape before two Gets of one item, and those before
        // conflicts, whichever group answered which.
        assertThat(json(run(Map.of(1, conflict, 2, cancelled), Map.of(), sent).body())
                        .get("message")
                        .asText())
                .endsWith("[None, None, None, ValidationError]");
        assertThat(run(Map.of(1, conflict, 2, repeated), Map.of(), sent)).isSameAs(repeated);
        assertThat(json(run(Map.of(1, conflict, 2, read), Map.of(2, ok("{'Held':'INTACT'}")), sent)
                                .body())
                        .get("message")
                        .asText())
                .endsWith("[TransactionConflict, None, None, None]");

        assertThat(run(Map.of(1, read, 2, BatchSpread.unavailable("no leader")), Map.of(1, ok("{}")), sent)
                        .status())
                .isEqualTo(503);
    }

    /** A statement's refusal names its place in the request: the first place named is the read's refusal. */
    @Test
    void theRefusalOfTheFirstStatementNamedIsTheReads() throws Exception {
        String select = "{'Statement':'SELECT * FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        byte[] read = bytes("{'TransactStatements':[" + select.formatted("a") + "," + select.formatted("b") + ","
                + select.formatted("a") + "]}");
        ClusterRouter.Reply second = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException','message':'Validation failed"
                        + " in TransactStatements[1]: no key'}"));
        ClusterRouter.Reply third = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException','message':'Validation failed"
                        + " in TransactStatements[2]: no key'}"));
        ClusterRouter.Reply reply = TransactSpread.run(
                        TransactSpread.split(TransactSpread.Kind.STATEMENTS, read, GROUPS::get, EXPRESSIONS, "h"),
                        (group, target, body) -> CompletableFuture.completedFuture(group == 1 ? third : second),
                        Runnable::run)
                .join();
        assertThat(reply).isSameAs(second); // group 1's first statement comes first, but names the third
    }

    /** A single node cancels on the first Get it finds held, before any throttle: the merge keeps that one alone. */
    @Test
    void aConflictIsTheFirstGetsAloneWhicheverGroupsFoundIt() throws Exception {
        ClusterRouter.Reply conflictFirst = cancellation(
                "{'Code':'TransactionConflict','Message':'Transaction is" + " ongoing for the item'},{'Code':'None'}");
        ClusterRouter.Reply conflictLast = cancellation(
                "{'Code':'None'},{'Code':'TransactionConflict','Message':" + "'Transaction is ongoing for the item'}");
        ClusterRouter.Reply throttled = cancellation("{'Code':'ThrottlingError','Message':'Throughput exceeds the"
                + " current capacity of your table or index.'},{'Code':'None'}");
        List<String> sent = new CopyOnWriteArrayList<>();
        assertThat(message(run(Map.of(1, conflictFirst, 2, conflictLast), Map.of(), sent)))
                .endsWith("[TransactionConflict, None, None, None]");
        assertThat(message(run(Map.of(1, throttled, 2, conflictLast), Map.of(), sent)))
                .endsWith("[None, None, None, TransactionConflict]");
        assertThat(message(run(
                        Map.of(1, throttled, 2, ok("{'Responses':[{},{}],'ItemBytes':0}")),
                        Map.of(2, ok("{'Held':'INTACT'}")),
                        sent)))
                .endsWith("[ThrottlingError, None, None, None]");
    }

    /** A table named by its ARN: its units (named by the table's name) in the place its first Get gives it. */
    @Test
    void unitsOfATableNamedByItsArnComeInItsFirstGetsPlace() throws Exception {
        String arn = "arn:aws:dynamodb:us-east-1:000000000000:table/b";
        byte[] read = bytes(
                "{'TransactItems':[" + get(arn, 1) + "," + get("a", 2) + "],'ReturnConsumedCapacity':" + "'TOTAL'}");
        java.util.function.Function<String, Integer> groupOf =
                t -> GROUPS.get(t.startsWith("arn:") ? TableRoute.tableOfArn(t) : t);
        ClusterRouter.Reply reply = TransactSpread.run(
                        TransactSpread.split(TransactSpread.Kind.GETS, read, groupOf, EXPRESSIONS, "h"),
                        (group, target, body) -> CompletableFuture.completedFuture(
                                target.equals(TransactSpread.RELEASE)
                                        ? ok("{'Held':'INTACT'}")
                                        : ok("{'ConsumedCapacity':[{'TableName':'" + (group == 1 ? "a" : "b")
                                                + "','CapacityUnits':2.0}],'Responses':[{}],'ItemBytes':0}")),
                        Runnable::run)
                .join();
        assertThat(json(reply.body()).get("ConsumedCapacity"))
                .extracting(c -> c.get("TableName").asText())
                .containsExactly("b", "a");
    }

    private static ClusterRouter.Reply cancellation(String reasons) {
        return new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException','message':'x',"
                        + "'CancellationReasons':[" + reasons + "]}"));
    }

    private static String message(ClusterRouter.Reply reply) throws Exception {
        return json(reply.body()).get("message").asText();
    }

    @Test
    void itemsOfMoreThanFourMegabytesOverTheGroupsAreRefused() throws Exception {
        long half = 2L * 1024 * 1024 + 1;
        ClusterRouter.Reply reply = run(
                Map.of(
                        1, ok("{'Responses':[{},{}],'ItemBytes':" + half + "}"),
                        2, ok("{'Responses':[{},{}],'ItemBytes':" + half + "}")),
                Map.of(1, ok("{'Held':'INTACT'}"), 2, ok("{'Held':'INTACT'}")),
                new CopyOnWriteArrayList<>());
        assertThat(reply.status()).isEqualTo(400);
        assertThat(json(reply.body()).get("message").asText()).startsWith("Transaction payload size cannot exceed 4MB");
    }
}
