package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.item.ItemExpressions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class TransactWriteSpreadTest {
    /** Tables a and c in group 1, b in group 2. */
    private static final Map<String, Integer> GROUPS = Map.of("a", 1, "b", 2, "c", 1);

    private static final ItemExpressions EXPRESSIONS = new ItemExpressions(new ExpressionCache(10));

    private static byte[] bytes(String json) {
        return json.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode json(byte[] body) throws Exception {
        return DynamoJson.mapper().readTree(body);
    }

    private static String put(String table, int id) {
        return "{'Put':{'TableName':'" + table + "','Item':{'id':{'S':'" + id + "'}}}}";
    }

    /** Puts to b, a, c, b: group 2 (deciding: the first action's) has the first and fourth, group 1 the others. */
    private static final byte[] WRITE = bytes("{'TransactItems':[" + put("b", 1) + "," + put("a", 2) + "," + put("c", 3)
            + "," + put("b", 4) + "],'ReturnConsumedCapacity':'TOTAL','ClientRequestToken':'tok'}");

    private static List<TransactWriteSpread.Share<Integer>> split() {
        return TransactWriteSpread.split(
                TransactWriteSpread.Kind.ACTIONS, WRITE, GROUPS::get, EXPRESSIONS, "tx1", 1234, null, null);
    }

    private static ClusterRouter.Reply reply(int status, String json) {
        return new ClusterRouter.Reply(status, bytes(json));
    }

    private static ClusterRouter.Reply cancelled(String... codes) {
        StringBuilder b = new StringBuilder("{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',"
                + "'message':'Transaction cancelled','CancellationReasons':[");
        for (int i = 0; i < codes.length; i++) {
            b.append(i == 0 ? "" : ",").append("{'Code':'").append(codes[i]).append("'}");
        }
        return reply(400, b.append("]}").toString());
    }

    private static final ClusterRouter.Reply UNAVAILABLE =
            reply(503, "{'__type':'com.amazon.coral.availability#ServiceUnavailableException','message':'x'}");

    @Test
    void eachGroupGetsItsActionsTheTransactionAndWhoDecidesButNotTheToken() throws Exception {
        var shares = split();
        assertThat(shares).extracting(TransactWriteSpread.Share::group).containsExactly(2, 1);
        assertThat(shares.get(0).positions()).containsExactly(0, 3);
        assertThat(shares.get(1).positions()).containsExactly(1, 2);
        JsonNode deciding = json(shares.get(0).body());
        JsonNode other = json(shares.get(1).body());
        assertThat(deciding.get("TransactItems")).hasSize(2);
        assertThat(other.get("TransactItems").get(1)).isEqualTo(json(bytes(put("c", 3))));
        assertThat(deciding.get("Decides").asBoolean()).isTrue();
        assertThat(other.get("Decides").asBoolean()).isFalse();
        for (JsonNode share : List.of(deciding, other)) {
            assertThat(share.get("Transaction").asText()).isEqualTo("tx1");
            assertThat(share.get("DecidingTable").asText()).isEqualTo("b");
            assertThat(share.get("DecidingGroup").asText()).isEqualTo("2");
            assertThat(share.get("Participants"))
                    .extracting(JsonNode::asText)
                    .as("every group, the deciding one first")
                    .containsExactly("2", "1");
            assertThat(share.get("Deadline").asLong()).isEqualTo(1234);
            assertThat(share.get("Payload").asLong()).isEqualTo(4 * 3); // four items of one attribute "id" of 1 byte
            assertThat(share.get("ReturnConsumedCapacity").asText()).isEqualTo("TOTAL");
            assertThat(share.has("ClientRequestToken")).isFalse();
        }
        // A part reaches its group by its tables: its prepare by its actions, its commit and abort by their tables.
        assertThat(TableRoute.of(
                                TransactWriteSpread.PREPARE,
                                new java.io.ByteArrayInputStream(shares.get(1).body()))
                        .tables())
                .containsExactly("a", "c");
        for (String target : List.of(TransactWriteSpread.COMMIT, TransactWriteSpread.ABORT)) {
            assertThat(TableRoute.of(
                                    target,
                                    new java.io.ByteArrayInputStream(
                                            shares.get(1).end()))
                            .tables())
                    .containsExactly("a", "c");
        }
        JsonNode end = json(shares.get(0).end());
        assertThat(end.get("Transaction").asText()).isEqualTo("tx1");
        assertThat(end.get("Decides").asBoolean()).isTrue();
        // One group: one part, which the caller sends as the client sent it.
        assertThat(TransactWriteSpread.split(
                        TransactWriteSpread.Kind.ACTIONS,
                        bytes("{'TransactItems':[" + put("a", 1) + "," + put("c", 2) + "]}"),
                        GROUPS::get,
                        EXPRESSIONS,
                        "tx2",
                        0,
                        null,
                        null))
                .hasSize(1);
    }

    /**
     * An ExecuteTransaction of writes goes by each statement's table, each part naming its statements' places; one of
     * SELECTs is not a write transaction.
     */
    @Test
    void anExecuteTransactionOfWritesIsSplitByItsStatementsTables() throws Exception {
        String delete = "{'Statement':'DELETE FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        byte[] writes = bytes("{'TransactStatements':[" + delete.formatted("a") + "," + delete.formatted("b") + ","
                + delete.formatted("c") + "],'ClientRequestToken':'tok'}");
        var shares = TransactWriteSpread.split(
                TransactWriteSpread.Kind.STATEMENTS, writes, GROUPS::get, EXPRESSIONS, "tx3", 99, null, null);
        assertThat(shares).extracting(TransactWriteSpread.Share::group).containsExactly(1, 2);
        JsonNode first = json(shares.get(0).body());
        assertThat(first.get("Positions")).extracting(JsonNode::asInt).containsExactly(0, 2);
        assertThat(first.get("TransactStatements")).hasSize(2);
        assertThat(first.has("ClientRequestToken")).isFalse();
        assertThat(TableRoute.of(
                                TransactWriteSpread.PREPARE_STATEMENTS,
                                new java.io.ByteArrayInputStream(shares.get(1).body()))
                        .tables())
                .containsExactly("b");
        String select = "{'Statement':'SELECT * FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        assertThat(TransactWriteSpread.split(
                        TransactWriteSpread.Kind.STATEMENTS,
                        bytes("{'TransactStatements':[" + select.formatted("a") + "," + select.formatted("b") + "]}"),
                        GROUPS::get,
                        EXPRESSIONS,
                        "tx4",
                        0,
                        null,
                        null))
                .isNull();
        // Its answer has the empty Responses a single node gives.
        Groups groups =
                new Groups(what -> what.startsWith("Prepare") ? PREPARED : reply(200, "{'Decision':'COMMITTED'}"));
        ClusterRouter.Reply r =
                TransactWriteSpread.run(shares, 3, groups, Runnable::run).join();
        assertThat(r.status()).isEqualTo(200);
        assertThat(json(r.body()).get("Responses")).isEmpty();
        assertThat(groups.sent).containsExactly("Prepare1", "Prepare2", "Commit1", "Commit2");
    }

    /**
     * A repeat of a transaction whose outcome was not known settles it as the deciding group says: committed, the
     * other parts are committed and it answers as done; aborted, they are aborted and it runs anew (null); not known,
     * a 500 again.
     */
    @Test
    void aRepeatSettlesATransactionOfUnknownOutcomeAsTheDecidingGroupSays() throws Exception {
        var shares = split();
        Groups committed = new Groups(what -> what.equals("Abort2")
                ? reply(200, "{'Decision':'COMMITTED'}")
                : reply(200, "{'Decision':'COMMITTED','ConsumedCapacity':[{'TableName':'a','CapacityUnits':4.0}]}"));
        ClusterRouter.Reply done =
                TransactWriteSpread.settle(shares, 4, committed, Runnable::run).join();
        assertThat(done.status()).isEqualTo(200);
        assertThat(committed.sent).containsExactly("Abort2", "Commit1");
        Groups aborted = new Groups(what -> reply(200, "{'Decision':'ABORTED'}"));
        assertThat(TransactWriteSpread.settle(shares, 4, aborted, Runnable::run).join())
                .isNull();
        assertThat(aborted.sent).containsExactly("Abort2", "Abort1");
        Groups partLost = new Groups(what -> what.equals("Abort2")
                ? reply(200, "{'Decision':'ABORTED'}")
                : reply(503, "{'__type':'x#ServiceUnavailable'}"));
        assertThat(TransactWriteSpread.settle(shares, 4, partLost, Runnable::run)
                        .join()
                        .status())
                .as("a part that did not answer its abort: not settled yet")
                .isEqualTo(500);
        Groups silent = new Groups(what -> reply(503, "{'__type':'x#ServiceUnavailable'}"));
        assertThat(TransactWriteSpread.settle(shares, 4, silent, Runnable::run)
                        .join()
                        .status())
                .isEqualTo(500);
        assertThat(silent.sent).containsExactly("Abort2");
    }

    /**
     * An ExecuteTransaction's 4 MB counts every group's statements: each part gives its own size, prepared or
     * cancelled, and more than 4 MB in all refuses the transaction (its prepared parts aborted) before any
     * cancellation, as a single node checks it first.
     */
    @Test
    void anExecuteTransactionOverFourMegabytesInAllIsRefusedThoughEachPartIsSmaller() throws Exception {
        String delete = "{'Statement':'DELETE FROM \\\"%s\\\" WHERE id = ?','Parameters':[{'S':'1'}]}";
        var shares = TransactWriteSpread.split(
                TransactWriteSpread.Kind.STATEMENTS,
                bytes("{'TransactStatements':[" + delete.formatted("a") + "," + delete.formatted("b") + "]}"),
                GROUPS::get,
                EXPRESSIONS,
                "tx5",
                99,
                null,
                null);
        String cancelled = "{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',"
                + "'message':'Transaction cancelled','CancellationReasons':[{'Code':'ConditionalCheckFailed'}],"
                + "'PartPayload':3000000}";
        Groups groups = new Groups(what -> switch (what) {
            case "Prepare1" -> reply(200, "{'Prepared':true,'PartPayload':3000000}");
            case "Prepare2" -> reply(400, cancelled);
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        ClusterRouter.Reply r =
                TransactWriteSpread.run(shares, 2, groups, Runnable::run).join();
        assertThat(r.status()).isEqualTo(400);
        assertThat(json(r.body()).get("message").asText())
                .startsWith("Transaction payload size cannot exceed 4MB")
                .endsWith("6000000");
        assertThat(groups.sent).containsExactly("Prepare1", "Prepare2", "Abort1");
        // 4 MB or less in all: the parts' own answers stand.
        Groups small = new Groups(what -> what.startsWith("Prepare")
                ? reply(200, "{'Prepared':true,'PartPayload':1000}")
                : reply(200, "{'Decision':'COMMITTED'}"));
        assertThat(TransactWriteSpread.run(shares, 2, small, Runnable::run)
                        .join()
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aRequestBadAsAWholeIsRefusedBeforeAnyGroupIsAsked() {
        assertThatThrownBy(() -> TransactWriteSpread.split(
                        TransactWriteSpread.Kind.ACTIONS,
                        bytes("{'TransactItems':[{'Put':{'TableName':'a','Item':{'id':{'S':'1'}}},"
                                + "'Delete':{'TableName':'b','Key':{'id':{'S':'1'}}}}," + put("b", 2) + "]}"),
                        GROUPS::get,
                        EXPRESSIONS,
                        "tx",
                        0,
                        null,
                        null))
                .isInstanceOf(ApiException.class)
                .hasMessage("TransactItems can only contain one of Check, Put, Update or Delete");
        assertThatThrownBy(() -> TransactWriteSpread.split(
                        TransactWriteSpread.Kind.ACTIONS,
                        bytes("{'TransactItems':[{'Update':{'TableName':'a','Key':{'id':{'S':'1'}},"
                                + "'UpdateExpression':'SET #x = :v'}}," + put("b", 2) + "]}"),
                        GROUPS::get,
                        EXPRESSIONS,
                        "tx",
                        0,
                        null,
                        null))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("attribute name: #x");
    }

    /** A sender that answers each (group, operation) from {@code answers}, and records what it was sent. */
    private static final class Groups implements TransactWriteSpread.Sender<Integer> {
        final List<String> sent = new CopyOnWriteArrayList<>();
        /** The transaction each request named, in the order sent. */
        final List<String> transactions = new CopyOnWriteArrayList<>();

        final Function<String, ClusterRouter.Reply> answers;

        Groups(Function<String, ClusterRouter.Reply> answers) {
            this.answers = answers;
        }

        @Override
        public CompletableFuture<ClusterRouter.Reply> send(Integer group, String target, byte[] body) {
            String what = target.substring(target.indexOf('.') + 1)
                            .replace("TransactWriteItems", "")
                            .replace("ExecuteTransaction", "")
                    + group;
            sent.add(what);
            try {
                transactions.add(json(body).path("Transaction").asText());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return CompletableFuture.completedFuture(answers.apply(what));
        }
    }

    private static ClusterRouter.Reply run(Groups groups) {
        return TransactWriteSpread.run(split(), 4, groups, Runnable::run).join();
    }

    private static final ClusterRouter.Reply PREPARED = reply(200, "{'Prepared':true}");

    @Test
    void everyGroupGetsTheTokenAndTheRequestsDigest() throws Exception {
        byte[] digest = {1, 2, 3};
        var shares = TransactWriteSpread.split(
                TransactWriteSpread.Kind.ACTIONS, WRITE, GROUPS::get, EXPRESSIONS, "tx1", 1234, "tok", digest);
        for (var share : shares) {
            JsonNode body = json(share.body());
            assertThat(body.get("Token").asText()).isEqualTo("tok");
            assertThat(body.get("TokenDigest").asText()).isEqualTo("AQID");
            assertThat(body.has("ClientRequestToken")).isFalse();
        }
    }

    /**
     * A repeat whose token the deciding group keeps (a transaction it decided COMMITTED): the other parts, prepared
     * anew, are aborted, the first run's other parts are committed (if they were not yet), and the answer is the
     * repeat's; unless a part refused the request before the token counts.
     */
    @Test
    void aRepeatTheDecidingGroupKnowsAbortsTheOtherPartsAndAnswersAsARepeat() throws Exception {
        ClusterRouter.Reply repeated = reply(
                200,
                "{'Prepared':false,'PartPayload':6,'Repeated':true,'Transaction':'first',"
                        + "'ConsumedCapacity':[{'TableName':'b','CapacityUnits':2.0}]}");
        Groups groups = new Groups(what -> switch (what) {
            case "Prepare2" -> repeated;
            case "Prepare1" -> PREPARED;
            case "Abort1" -> reply(200, "{'Decision':'ABORTED'}");
            case "Commit1" -> reply(200, "{'Decision':'COMMITTED'}");
            default -> throw new AssertionError(what);
        });
        ClusterRouter.Reply r = run(groups);
        assertThat(r.status()).isEqualTo(200);
        assertThat(groups.sent).containsExactlyInAnyOrder("Prepare1", "Prepare2", "Abort1", "Commit1");
        assertThat(groups.transactions.get(groups.sent.indexOf("Abort1"))).isEqualTo("tx1");
        assertThat(groups.transactions.get(groups.sent.indexOf("Commit1"))).isEqualTo("first");
        JsonNode out = json(r.body());
        assertThat(out.get("ConsumedCapacity"))
                .extracting(c -> c.get("TableName").asText())
                .containsExactly("b");
        assertThat(out.has("Repeated")).isFalse();

        ClusterRouter.Reply missing = reply(
                400,
                "{'__type':'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',"
                        + "'message':'Requested resource not found'}");
        Groups refused = new Groups(what -> switch (what) {
            case "Prepare2" -> reply(200, "{'Prepared':false,'Repeated':true}");
            case "Prepare1" -> missing;
            default -> throw new AssertionError(what);
        });
        assertThat(run(refused).status()).isEqualTo(400);
        assertThat(refused.sent).containsExactlyInAnyOrder("Prepare1", "Prepare2");

        // The token with other parameters: the deciding group's refusal, before any cancellation elsewhere.
        ClusterRouter.Reply mismatch = reply(
                400,
                "{'__type':'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException','message':'m'}");
        Groups other = new Groups(what -> switch (what) {
            case "Prepare2" -> mismatch;
            case "Prepare1" -> cancelled("None", "ConditionalCheckFailed");
            default -> throw new AssertionError(what);
        });
        assertThat(json(run(other).body()).get("__type").asText()).endsWith("IdempotentParameterMismatchException");

        // The first run still holding its part in the deciding group: in progress, as a single node answers.
        Groups running = new Groups(what -> switch (what) {
            case "Prepare2" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#TransactionInProgressException','message':'p'}");
            case "Prepare1" -> cancelled("TransactionConflict", "None");
            default -> throw new AssertionError(what);
        });
        assertThat(json(run(running).body()).get("__type").asText()).endsWith("TransactionInProgressException");
    }

    @Test
    void everyGroupPreparedThenTheDecidingOneCommitsFirstAndTheUnitsFollowTheActionsOrder() throws Exception {
        Groups groups = new Groups(what -> switch (what) {
            case "Prepare1", "Prepare2" -> PREPARED;
            case "Commit2" ->
                reply(200, "{'Decision':'COMMITTED','ConsumedCapacity':[{'TableName':'b','CapacityUnits':4.0}]}");
            case "Commit1" ->
                reply(
                        200,
                        "{'Decision':'COMMITTED','ConsumedCapacity':[{'TableName':'a','CapacityUnits':2.0},"
                                + "{'TableName':'c','CapacityUnits':2.0}]}");
            default -> throw new AssertionError(what);
        });
        ClusterRouter.Reply r = run(groups);
        assertThat(r.status()).isEqualTo(200);
        assertThat(groups.sent.subList(2, 4)).containsExactly("Commit2", "Commit1");
        assertThat(json(r.body()).get("ConsumedCapacity"))
                .extracting(c -> c.get("TableName").asText())
                .containsExactly("b", "a", "c");
    }

    /** A deciding group that does not answer its commit is asked to abort, and answers the decision it made. */
    @Test
    void aCommitNotAnsweredIsAskedAgainAsAnAbortWhichSaysHowItEnded() throws Exception {
        List<String> decided = new ArrayList<>(List.of("COMMITTED", "ABORTED"));
        for (String decision : decided) {
            Groups groups = new Groups(what -> switch (what) {
                case "Prepare1", "Prepare2" -> PREPARED;
                case "Commit2" -> UNAVAILABLE;
                case "Abort2" -> reply(200, "{'Decision':'" + decision + "'}");
                case "Commit1" -> reply(200, "{'Decision':'COMMITTED'}");
                case "Abort1" -> reply(200, "{'Decision':'ABORTED'}");
                default -> throw new AssertionError(what);
            });
            ClusterRouter.Reply r = run(groups);
            if (decision.equals("COMMITTED")) {
                assertThat(r.status()).isEqualTo(200);
                assertThat(groups.sent).endsWith("Commit2", "Abort2", "Commit1");
            } else {
                assertThat(r.status()).isEqualTo(400);
                assertThat(json(r.body())
                                .get("CancellationReasons")
                                .get(0)
                                .get("Code")
                                .asText())
                        .isEqualTo("TransactionConflict");
                assertThat(groups.sent).endsWith("Commit2", "Abort2", "Abort1");
            }
        }
        // Neither answered: the outcome is not known here (a 500, which the SDKs send again).
        Groups silent = new Groups(what -> what.startsWith("Prepare") ? PREPARED : UNAVAILABLE);
        assertThat(run(silent).status()).isEqualTo(500);
        assertThat(silent.sent).doesNotContain("Commit1");
    }

    @Test
    void aCancelledPartAbortsThePartsThatMayBePreparedAndMergesTheReasonsAsOneNodeWould() throws Exception {
        // A failed condition in group 1 (action 2), the deciding group prepared: its part is aborted, with the
        // decision; the reasons are in the actions' places, the Item kept.
        Groups groups = new Groups(what -> switch (what) {
            case "Prepare2" -> PREPARED;
            case "Prepare1" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException','message':'x',"
                                + "'CancellationReasons':[{'Code':'None'},{'Code':'ConditionalCheckFailed',"
                                + "'Message':'The conditional request failed','Item':{'id':{'S':'3'}}}]}");
            case "Abort2" -> reply(200, "{'Decision':'ABORTED'}");
            default -> throw new AssertionError(what);
        });
        ClusterRouter.Reply r = run(groups);
        assertThat(groups.sent).containsExactlyInAnyOrder("Prepare1", "Prepare2", "Abort2");
        JsonNode error = json(r.body());
        assertThat(error.get("message").asText())
                .isEqualTo("Transaction cancelled, please refer cancellation reasons for specific reasons"
                        + " [None, None, ConditionalCheckFailed, None]");
        assertThat(error.get("CancellationReasons")
                        .get(2)
                        .get("Item")
                        .get("id")
                        .get("S")
                        .asText())
                .isEqualTo("3");

        // A conflict in one group outranks the other's failed condition, and is the first conflicting action's
        // alone; a group that did not answer is aborted too (it may have prepared).
        Groups conflict = new Groups(what -> switch (what) {
            case "Prepare2" -> cancelled("ConditionalCheckFailed", "None");
            case "Prepare1" -> cancelled("None", "TransactionConflict");
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        JsonNode c = json(run(conflict).body());
        assertThat(c.get("CancellationReasons"))
                .extracting(x -> x.get("Code").asText())
                .containsExactly("None", "None", "TransactionConflict", "None");
        assertThat(conflict.sent).containsExactlyInAnyOrder("Prepare1", "Prepare2");

        Groups lost = new Groups(what -> switch (what) {
            case "Prepare2" -> UNAVAILABLE;
            case "Prepare1" -> PREPARED;
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        assertThat(run(lost).status()).isEqualTo(503);
        assertThat(lost.sent).containsExactlyInAnyOrder("Prepare1", "Prepare2", "Abort1", "Abort2");

        // A refusal (a missing table) outranks any cancellation: the first group's in the actions' order.
        Groups missing = new Groups(what -> switch (what) {
            case "Prepare2" -> cancelled("ConditionalCheckFailed", "None");
            case "Prepare1" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',"
                                + "'message':'Requested resource not found'}");
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        assertThat(json(run(missing).body()).get("message").asText()).isEqualTo("Requested resource not found");

        // Of two refusals, the one of the request's first action refused: group 2 refuses its second action (the
        // request's fourth), group 1 its second (the third).
        Groups both = new Groups(what -> switch (what) {
            case "Prepare2" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException','message':'fourth',"
                                + "'RefusedAction':1}");
            case "Prepare1" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException','message':'third',"
                                + "'RefusedAction':1}");
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        assertThat(json(run(both).body()).get("message").asText()).isEqualTo("third");

        // Two actions on one item outrank a key of the wrong shape, which a single node finds after that check.
        Groups repeated = new Groups(what -> switch (what) {
            case "Prepare2" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#TransactionCanceledException','message':'x',"
                                + "'CancelledBeforeRunning':true,'CancellationReasons':[{'Code':'ValidationError',"
                                + "'Message':'The provided key element does not match the schema'},{'Code':'None'}]}");
            case "Prepare1" ->
                reply(
                        400,
                        "{'__type':'com.amazonaws.dynamodb.v20120810#ValidationException',"
                                + "'message':'Transaction request cannot include multiple operations on one item'}");
            default -> reply(200, "{'Decision':'ABORTED'}");
        });
        assertThat(json(run(repeated).body()).get("message").asText())
                .startsWith("Transaction request cannot include multiple operations on one item");
    }
}
