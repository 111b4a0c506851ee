package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class StatementSpreadTest {
    /** Tables a and c in group 1, b in group 2; a statement naming no table goes to group 0. */
    private static final Map<String, Integer> GROUPS = Map.of("a", 1, "b", 2, "c", 1);

    private static Integer groupOf(String table) {
        return table == null ? 0 : GROUPS.getOrDefault(table, 0);
    }

    private static byte[] bytes(String json) {
        return json.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode json(byte[] body) throws Exception {
        return DynamoJson.mapper().readTree(body);
    }

    private static String select(String table, int id) {
        return "{'Statement':'SELECT * FROM \\\"" + table + "\\\" WHERE id = ?','Parameters':[{'S':'" + id + "'}]}";
    }

    /** Reads of a, b, c, b. */
    private static final byte[] BATCH = bytes("{'Statements':[" + select("a", 1) + "," + select("b", 2) + ","
            + select("c", 3) + "," + select("b", 4) + "],'ReturnConsumedCapacity':'TOTAL'}");

    private static ClusterRouter.Reply ok(String json) {
        return new ClusterRouter.Reply(200, bytes(json));
    }

    @Test
    void eachGroupRunsItsStatementsWithTheRequestsOtherFields() throws Exception {
        List<StatementSpread.Share<Integer>> shares = StatementSpread.split(BATCH, StatementSpreadTest::groupOf);
        assertThat(shares).extracting(StatementSpread.Share::group).containsExactly(1, 2);
        assertThat(shares.get(0).positions()).containsExactly(0, 2);
        assertThat(shares.get(1).positions()).containsExactly(1, 3);
        JsonNode second = json(shares.get(1).body());
        assertThat(second.get("Statements")).hasSize(2);
        assertThat(second.get("Statements").get(1)).isEqualTo(json(bytes(select("b", 4))));
        assertThat(second.get("ReturnConsumedCapacity").asText()).isEqualTo("TOTAL");
        // A statement whose parse fails is answered here, its error as a single node gives it; the others go on.
        byte[] bad = bytes("{'Statements':[" + select("a", 1) + ",{'Statement':'SELEC nonsense'}]}");
        List<StatementSpread.Share<Integer>> withBad = StatementSpread.split(bad, StatementSpreadTest::groupOf);
        assertThat(withBad).extracting(StatementSpread.Share::group).containsExactly(1, null);
        JsonNode answered = json(StatementSpread.run(
                                withBad,
                                (group, body) ->
                                        CompletableFuture.completedFuture(ok("{'Responses':[{'TableName':'a'}]}")),
                                Runnable::run)
                        .join()
                        .body())
                .get("Responses");
        assertThat(answered.get(0).get("TableName").asText()).isEqualTo("a");
        assertThat(answered.get(1).get("Error").get("Code").asText()).isEqualTo("ValidationError");
    }

    @Test
    void theWholeBatchIsCheckedBeforeItIsSplit() {
        byte[] mixed = bytes("{'Statements':[" + select("a", 1)
                + ",{'Statement':'DELETE FROM \\\"b\\\" WHERE id = ?','Parameters':[{'S':'2'}]}]}");
        assertThatThrownBy(() -> StatementSpread.split(mixed, StatementSpreadTest::groupOf))
                .isInstanceOf(ApiException.class)
                .hasMessage("Read and write requests together in the same batch is not supported.");
        StringBuilder many = new StringBuilder("{'Statements':[");
        for (int i = 0; i < 26; i++) {
            many.append(i == 0 ? "" : ",").append(select(i % 2 == 0 ? "a" : "b", i));
        }
        byte[] tooMany = bytes(many.append("]}").toString());
        assertThatThrownBy(() -> StatementSpread.split(tooMany, StatementSpreadTest::groupOf))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("Member must have length less than or equal to 25");
    }

    private static ClusterRouter.Reply run(Map<Integer, ClusterRouter.Reply> replies) {
        return StatementSpread.run(
                        StatementSpread.split(BATCH, StatementSpreadTest::groupOf),
                        (group, body) -> CompletableFuture.completedFuture(replies.get(group)),
                        Runnable::run)
                .join();
    }

    @Test
    void theResponsesGoBackInTheStatementsOrderWithEachTablesUnitsSummed() throws Exception {
        ClusterRouter.Reply reply = run(Map.of(
                1,
                ok("{'Responses':[{'TableName':'a','Item':{'id':{'S':'1'}}},{'TableName':'c'}],"
                        + "'ConsumedCapacity':[{'TableName':'a','CapacityUnits':0.5},{'TableName':'c',"
                        + "'CapacityUnits':0.5}]}"),
                2,
                ok("{'Responses':[{'TableName':'b'},{'Error':{'Code':'ValidationError','Message':'x'}}],"
                        + "'ConsumedCapacity':[{'TableName':'b','CapacityUnits':0.5}]}")));
        assertThat(reply.status()).isEqualTo(200);
        JsonNode out = json(reply.body());
        assertThat(out.get("Responses"))
                .extracting(r -> r.has("Error") ? "error" : r.get("TableName").asText())
                .containsExactly("a", "b", "c", "error");
        assertThat(out.get("ConsumedCapacity"))
                .extracting(c -> c.get("TableName").asText() + " "
                        + c.get("CapacityUnits").asDouble())
                .containsExactly("a 0.5", "b 0.5", "c 0.5"); // as a single node: by each table's first statement
    }

    @Test
    void aGroupThatDidNotRunItsStatementsFailsThemAndNoGroupFailsTheBatch() throws Exception {
        ClusterRouter.Reply oneDown = run(Map.of(
                1, ok("{'Responses':[{'TableName':'a'},{'TableName':'c'}]}"), 2, BatchSpread.unavailable("no leader")));
        assertThat(oneDown.status()).isEqualTo(200);
        JsonNode out = json(oneDown.body());
        assertThat(out.get("Responses").get(1).get("Error").get("Code").asText())
                .isEqualTo("InternalServerError");
        assertThat(out.get("Responses").get(3).get("Error").get("Code").asText())
                .isEqualTo("InternalServerError");
        assertThat(out.has("ConsumedCapacity")).isFalse();

        ClusterRouter.Reply notFound = new ClusterRouter.Reply(
                400,
                bytes("{'__type':'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',"
                        + "'message':'Requested resource not found'}"));
        JsonNode refusedOne =
                json(run(Map.of(1, ok("{'Responses':[{'TableName':'a'},{'TableName':'c'}]}"), 2, notFound))
                        .body());
        assertThat(refusedOne.get("Responses").get(3).get("Error").get("Code").asText())
                .isEqualTo("ResourceNotFound");

        // A refusal spelt "Message" (an AccessDeniedException, say) keeps its words.
        ClusterRouter.Reply denied = new ClusterRouter.Reply(
                400, bytes("{'__type':'com.amazon.coral.service#AccessDeniedException','Message':'not yours'}"));
        JsonNode deniedOne = json(run(Map.of(1, ok("{'Responses':[{'TableName':'a'},{'TableName':'c'}]}"), 2, denied))
                .body());
        assertThat(deniedOne.get("Responses").get(1).get("Error").get("Message").asText())
                .isEqualTo("not yours");
        assertThat(deniedOne.get("Responses").get(1).get("Error").get("Code").asText())
                .isEqualTo("AccessDenied");
        // A 200 this node cannot read: its statements' outcome is unknown.
        JsonNode unreadable =
                json(run(Map.of(1, ok("{'Responses':[{'TableName':'a'},{'TableName':'c'}]}"), 2, ok("[]")))
                        .body());
        assertThat(unreadable.get("Responses").get(3).get("Error").get("Code").asText())
                .isEqualTo("InternalServerError");

        ClusterRouter.Reply lost = new ClusterRouter.Reply(500, bytes("{}"));
        assertThat(run(Map.of(1, BatchSpread.unavailable("no leader"), 2, lost)))
                .isSameAs(lost);
        assertThat(run(Map.of(1, BatchSpread.unavailable("no leader"), 2, notFound)))
                .isSameAs(notFound);
        assertThat(run(Map.of(1, BatchSpread.unavailable("a"), 2, BatchSpread.unavailable("b")))
                        .status())
                .isEqualTo(503);
    }
}
