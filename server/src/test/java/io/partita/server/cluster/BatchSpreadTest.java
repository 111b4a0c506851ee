package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class BatchSpreadTest {
    /** Tables a and c in group 1, b in group 2. */
    private static final Map<String, Integer> GROUPS = Map.of("a", 1, "b", 2, "c", 1);

    private static byte[] bytes(String json) {
        return json.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode json(byte[] body) throws Exception {
        return DynamoJson.mapper().readTree(body);
    }

    private static String key(int id) {
        return "{'Keys':[{'id':{'S':'" + id + "'}}]}";
    }

    /** Tables a and c (group 1) first, then b (group 2). */
    private static final byte[] GET = bytes("{'RequestItems':{'a':" + key(1) + ",'c':" + key(3) + ",'b':" + key(2)
            + "},'ReturnConsumedCapacity':'TOTAL'}");

    @Test
    void eachGroupGetsItsTablesInTheRequestsOrderAndTheRequestsOtherFields() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.GET, GET, GROUPS::get);
        assertThat(shares).extracting(BatchSpread.Share::group).containsExactly(1, 2);
        assertThat(shares.get(0).tables()).containsExactly("a", "c");
        assertThat(shares.get(1).tables()).containsExactly("b");
        JsonNode first = json(shares.get(0).body());
        assertThat(first.get("RequestItems").properties())
                .extracting(Map.Entry::getKey)
                .containsExactly("a", "c");
        assertThat(first.get("ReturnConsumedCapacity").asText()).isEqualTo("TOTAL");
        assertThat(json(shares.get(1).body()).get("RequestItems").get("b")).isEqualTo(json(bytes(key(2))));
        // Groups in turn make a share per run, so that the first share refused holds the first table refused.
        byte[] turns = bytes("{'RequestItems':{'a':" + key(1) + ",'b':" + key(2) + ",'c':" + key(3) + "}}");
        assertThat(BatchSpread.split(BatchSpread.GET, turns, GROUPS::get))
                .extracting(BatchSpread.Share::tables)
                .containsExactly(List.of("a"), List.of("b"), List.of("c"));
    }

    @Test
    void theWholeRequestIsCheckedBeforeItIsSplit() {
        // 60 keys in each of two tables: each share is within 100, the whole is not.
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            keys.append(i == 0 ? "" : ",").append("{'id':{'S':'").append(i).append("'}}");
        }
        byte[] tooMany = bytes("{'RequestItems':{'a':{'Keys':[" + keys + "]},'b':{'Keys':[" + keys + "]}}}");
        assertThatThrownBy(() -> BatchSpread.split(BatchSpread.GET, tooMany, GROUPS::get))
                .isInstanceOf(ApiException.class)
                .hasMessage("Too many items requested for the BatchGetItem call");
        StringBuilder puts = new StringBuilder();
        for (int i = 0; i < 13; i++) {
            puts.append(i == 0 ? "" : ",")
                    .append("{'PutRequest':{'Item':{'id':{'S':'")
                    .append(i)
                    .append("'}}}}");
        }
        byte[] writes = bytes("{'RequestItems':{'a':[" + puts + "],'b':[" + puts + "]}}");
        assertThatThrownBy(() -> BatchSpread.split(BatchSpread.WRITE, writes, GROUPS::get))
                .isInstanceOf(ApiException.class)
                .hasMessage("Too many items requested for the BatchWriteItem call");
        assertThatThrownBy(() -> BatchSpread.split(BatchSpread.WRITE, bytes("{'RequestItems':"), GROUPS::get))
                .isInstanceOf(ApiException.class);
    }

    /** Table t cut by ranges: an id below "5" in group 10, any other in group 11; an entry without one in 10. */
    private static Integer rangeOf(JsonNode keyOrItem) {
        JsonNode id = keyOrItem == null ? null : keyOrItem.path("id").get("S");
        return id == null || id.asText().compareTo("5") < 0 ? 10 : 11;
    }

    private static List<BatchSpread.Share<Integer>> splitCut(String operation, byte[] body) {
        return BatchSpread.split(
                operation,
                body,
                t -> t.equals("t") ? 10 : GROUPS.get(t),
                t -> t.equals("t") ? BatchSpreadTest::rangeOf : null);
    }

    @Test
    void aTableCutByRangesGoesToEachKeysGroupWithItsOtherMembers() throws Exception {
        byte[] get = bytes("{'RequestItems':{'a':" + key(1) + ",'t':{'Keys':[{'id':{'S':'7'}},{'id':{'S':'1'}},"
                + "{'id':{'S':'8'}}],'ProjectionExpression':'id','ConsistentRead':true},'b':" + key(2) + "}}");
        List<BatchSpread.Share<Integer>> shares = splitCut(BatchSpread.GET, get);
        // In the order of each group's first key; t's parts each a share of their own.
        assertThat(shares).extracting(BatchSpread.Share::group).containsExactly(1, 11, 10, 2);
        assertThat(shares)
                .extracting(BatchSpread.Share::tables)
                .containsExactly(List.of("a"), List.of("t"), List.of("t"), List.of("b"));
        JsonNode high = json(shares.get(1).body()).get("RequestItems").get("t");
        assertThat(high.get("Keys"))
                .extracting(k -> k.get("id").get("S").asText())
                .containsExactly("7", "8");
        assertThat(high.get("ProjectionExpression").asText()).isEqualTo("id");
        assertThat(high.get("ConsistentRead").asBoolean()).isTrue();
        JsonNode low = json(shares.get(2).body()).get("RequestItems").get("t");
        assertThat(low.get("Keys"))
                .extracting(k -> k.get("id").get("S").asText())
                .containsExactly("1");
        // A write by each put's Item and each delete's Key; a request naming neither goes to the first range.
        byte[] write = bytes("{'RequestItems':{'t':[{'PutRequest':{'Item':{'id':{'S':'9'},'v':{'N':'1'}}}},"
                + "{'DeleteRequest':{'Key':{'id':{'S':'2'}}}},{'DeleteRequest':{'Key':{'id':{'S':'6'}}}},"
                + "{'PutRequest':{}}]}}");
        shares = splitCut(BatchSpread.WRITE, write);
        assertThat(shares).extracting(BatchSpread.Share::group).containsExactly(11, 10);
        assertThat(json(shares.get(0).body()).get("RequestItems").get("t")).hasSize(2);
        assertThat(json(shares.get(1).body())
                        .get("RequestItems")
                        .get("t")
                        .get(1)
                        .has("PutRequest"))
                .isTrue();
        // The whole is checked before it is cut: 26 writes over two ranges are refused as one request.
        StringBuilder puts = new StringBuilder();
        for (int i = 0; i < 26; i++) {
            puts.append(i == 0 ? "" : ",").append("{'PutRequest':{'Item':{'id':{'S':'" + i % 10 + "'}}}}");
        }
        assertThatThrownBy(() -> splitCut(BatchSpread.WRITE, bytes("{'RequestItems':{'t':[" + puts + "]}}")))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void aCutTablesAnswersFromSeveralGroupsAreJoinedIntoOne() throws Exception {
        byte[] get = bytes("{'RequestItems':{'t':{'Keys':[{'id':{'S':'7'}},{'id':{'S':'1'}},{'id':{'S':'3'}}],"
                + "'ProjectionExpression':'id'}},'ReturnConsumedCapacity':'INDEXES'}");
        List<BatchSpread.Share<Integer>> shares = splitCut(BatchSpread.GET, get);
        ClusterRouter.Reply merged = merge(
                BatchSpread.GET,
                shares,
                ok("{'Responses':{'t':[{'id':{'S':'7'}}]},'UnprocessedKeys':{},'ConsumedCapacity':[{'TableName':'t',"
                        + "'CapacityUnits':0.5,'Table':{'CapacityUnits':0.5}}]}"),
                ok("{'Responses':{'t':[{'id':{'S':'1'}}]},'UnprocessedKeys':{'t':{'Keys':[{'id':{'S':'3'}}],"
                        + "'ProjectionExpression':'id'}},'ConsumedCapacity':[{'TableName':'t','CapacityUnits':1.0,"
                        + "'Table':{'CapacityUnits':1.0}}]}"));
        JsonNode out = json(merged.body());
        assertThat(out.get("Responses").get("t"))
                .extracting(i -> i.get("id").get("S").asText())
                .containsExactly("7", "1");
        assertThat(out.get("UnprocessedKeys").get("t").get("Keys")).hasSize(1);
        assertThat(out.get("UnprocessedKeys")
                        .get("t")
                        .get("ProjectionExpression")
                        .asText())
                .isEqualTo("id");
        // One entry for the table, its units added, as DynamoDB answers a batch.
        assertThat(out.get("ConsumedCapacity")).hasSize(1);
        assertThat(out.get("ConsumedCapacity").get(0).get("CapacityUnits").asDouble())
                .isEqualTo(1.5);
        assertThat(out.get("ConsumedCapacity")
                        .get(0)
                        .get("Table")
                        .get("CapacityUnits")
                        .asDouble())
                .isEqualTo(1.5);
        // A range's share throttled, the other done: its keys join those the other left.
        merged = merge(
                BatchSpread.GET,
                shares,
                error(400, "ProvisionedThroughputExceededException"),
                ok("{'Responses':{'t':[{'id':{'S':'1'}}]},'UnprocessedKeys':{'t':{'Keys':[{'id':{'S':'3'}}],"
                        + "'ProjectionExpression':'id'}}}"));
        out = json(merged.body());
        assertThat(out.get("UnprocessedKeys").get("t").get("Keys"))
                .extracting(k -> k.get("id").get("S").asText())
                .containsExactlyInAnyOrder("7", "3");
        assertThat(out.get("UnprocessedKeys")
                        .get("t")
                        .get("ProjectionExpression")
                        .asText())
                .isEqualTo("id");
        // Both ranges' keys left (an AttributesToGet list is the table's, not joined).
        byte[] listed = bytes("{'RequestItems':{'t':{'Keys':[{'id':{'S':'7'}},{'id':{'S':'1'}}],"
                + "'AttributesToGet':['id','v']}}}");
        List<BatchSpread.Share<Integer>> both = splitCut(BatchSpread.GET, listed);
        merged = merge(
                BatchSpread.GET,
                both,
                error(503, "ServiceUnavailableException"),
                ok("{'Responses':{},'UnprocessedKeys':{'t':{'Keys':[{'id':{'S':'1'}}],"
                        + "'AttributesToGet':['id','v']}}}"));
        out = json(merged.body()).get("UnprocessedKeys").get("t");
        assertThat(out.get("Keys")).hasSize(2);
        assertThat(out.get("AttributesToGet")).hasSize(2);
        // A write's unprocessed requests of one table from two groups are one list.
        byte[] write = bytes("{'RequestItems':{'t':[{'PutRequest':{'Item':{'id':{'S':'9'}}}},"
                + "{'PutRequest':{'Item':{'id':{'S':'2'}}}}]}}");
        List<BatchSpread.Share<Integer>> writes = splitCut(BatchSpread.WRITE, write);
        merged = merge(
                BatchSpread.WRITE,
                writes,
                ok("{'UnprocessedItems':{'t':[{'PutRequest':{'Item':{'id':{'S':'9'}}}}]}}"),
                error(503, "ServiceUnavailableException"));
        assertThat(json(merged.body()).get("UnprocessedItems").get("t")).hasSize(2);
    }

    private static ClusterRouter.Reply ok(String json) {
        return new ClusterRouter.Reply(200, bytes(json));
    }

    /** {@code shares}' answers merged, within DynamoDB's 16 MB. */
    private static ClusterRouter.Reply merge(
            String operation, List<BatchSpread.Share<Integer>> shares, ClusterRouter.Reply... replies) {
        return BatchSpread.merge(operation, shares, List.of(replies), BatchSpread.MAX_ANSWER_BYTES);
    }

    private static ClusterRouter.Reply error(int status, String type) {
        return new ClusterRouter.Reply(
                status, bytes("{'__type':'com.amazonaws.dynamodb.v20120810#" + type + "','message':'m'}"));
    }

    @Test
    void answersMergeAndAShareNotDoneIsUnprocessedWhole() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.GET, GET, GROUPS::get);
        ClusterRouter.Reply merged = merge(
                BatchSpread.GET,
                shares,
                ok("{'Responses':{'a':[{'id':{'S':'1'}}],'c':[]},'UnprocessedKeys':{},"
                        + "'ConsumedCapacity':[{'TableName':'a','CapacityUnits':0.5}]}"),
                error(400, "ProvisionedThroughputExceededException"));
        assertThat(merged.status()).isEqualTo(200);
        JsonNode out = json(merged.body());
        assertThat(out.get("Responses").get("a")).hasSize(1);
        assertThat(out.get("Responses").has("c")).isTrue();
        assertThat(out.get("UnprocessedKeys").get("b")).isEqualTo(json(bytes(key(2))));
        assertThat(out.get("ConsumedCapacity")).hasSize(1);
        // Every share throttled: the batch is, as a single node's.
        merged = merge(
                BatchSpread.GET,
                shares,
                error(400, "ProvisionedThroughputExceededException"),
                error(400, "ProvisionedThroughputExceededException"));
        assertThat(merged.status()).isEqualTo(400);
        assertThat(new String(merged.body(), StandardCharsets.UTF_8)).contains("ProvisionedThroughputExceeded");
        // A read's refusal is the batch's, whatever the other shares did.
        merged = merge(
                BatchSpread.GET,
                shares,
                ok("{'Responses':{},'UnprocessedKeys':{}}"),
                error(400, "ResourceNotFoundException"));
        assertThat(new String(merged.body(), StandardCharsets.UTF_8)).contains("ResourceNotFoundException");
        // Nothing done, one answer lost and one share unreachable: the outcome is unknown.
        merged = merge(
                BatchSpread.GET, shares, error(503, "ServiceUnavailableException"), error(500, "InternalServerError"));
        assertThat(merged.status()).isEqualTo(500);
    }

    @Test
    void aMergedReadStopsShortOfItsLimitAndLeavesTheRestUnprocessed() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.GET, GET, GROUPS::get);
        ClusterRouter.Reply first = ok("{'Responses':{'a':[{'id':{'S':'1'}}],'c':[]},'UnprocessedKeys':{}}");
        ClusterRouter.Reply second = ok("{'Responses':{'b':[{'id':{'S':'2'}}]},'UnprocessedKeys':{}}");
        ClusterRouter.Reply merged =
                BatchSpread.merge(BatchSpread.GET, shares, List.of(first, second), first.body().length + 10);
        JsonNode out = json(merged.body());
        assertThat(out.get("Responses").has("b")).isFalse();
        assertThat(out.get("UnprocessedKeys").get("b")).isEqualTo(json(bytes(key(2))));
    }

    private static final byte[] WRITE = bytes("{'RequestItems':{'a':[{'PutRequest':{'Item':{'id':{'S':'1'}}}}],"
            + "'b':[{'DeleteRequest':{'Key':{'id':{'S':'2'}}}}]},'ReturnItemCollectionMetrics':'SIZE'}");

    /** {@code shares} of a BatchWriteItem run, each share sent noted in {@code sent} ("group target"), answered so. */
    private static ClusterRouter.Reply writeRecording(
            List<BatchSpread.Share<Integer>> shares, List<String> sent, BatchSpread.Sender<Integer> answer)
            throws Exception {
        return BatchSpread.run(
                        BatchSpread.WRITE,
                        shares,
                        (share, target) -> {
                            sent.add(share.group() + " " + target);
                            return answer.send(share, target);
                        },
                        Runnable::run)
                .get();
    }

    @Test
    void aWriteIsCheckedByEveryGroupBeforeAnyWrites() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.WRITE, WRITE, GROUPS::get);
        List<String> sent = new CopyOnWriteArrayList<>();
        // Group 2 refuses its share: nothing is written anywhere, and its refusal is the answer.
        ClusterRouter.Reply reply = writeRecording(
                shares,
                sent,
                (share, target) -> CompletableFuture.completedFuture(
                        share.group() == 2 ? error(400, "ValidationException") : ok("{'UnprocessedItems':{}}")));
        assertThat(reply.status()).isEqualTo(400);
        assertThat(sent).containsExactlyInAnyOrder("1 Partita.CheckBatchWriteItem", "2 Partita.CheckBatchWriteItem");
        // A check that cannot be made: a 503, nothing written.
        sent.clear();
        reply = writeRecording(
                shares,
                sent,
                (share, target) -> share.group() == 2
                        ? CompletableFuture.failedFuture(new IllegalStateException("closing"))
                        : CompletableFuture.completedFuture(ok("{'UnprocessedItems':{}}")));
        assertThat(reply.status()).isEqualTo(503);
        assertThat(sent).noneMatch(s -> s.endsWith("DynamoDB_20120810.BatchWriteItem"));
        // Both pass: both write; a share whose answer is lost is returned to be sent again.
        sent.clear();
        reply = writeRecording(
                shares,
                sent,
                (share, target) -> CompletableFuture.completedFuture(
                        target.equals(BatchSpread.CHECK) || share.group() == 1
                                ? ok("{'UnprocessedItems':{},'ItemCollectionMetrics':{'a':[]},'ConsumedCapacity':[]}")
                                : error(500, "InternalServerError")));
        assertThat(reply.status()).isEqualTo(200);
        List<String> writes = new ArrayList<>(sent.subList(2, 4));
        assertThat(writes)
                .containsExactlyInAnyOrder("1 DynamoDB_20120810.BatchWriteItem", "2 DynamoDB_20120810.BatchWriteItem");
        JsonNode out = json(reply.body());
        assertThat(out.get("UnprocessedItems").get("b").get(0).has("DeleteRequest"))
                .isTrue();
        assertThat(out.get("UnprocessedItems").has("a")).isFalse();
        assertThat(out.get("ItemCollectionMetrics").has("a")).isTrue();
        // A share refused after its check passed (its table deleted meanwhile) while another wrote: returned to be
        // sent again, not the batch's error (part of it was written); refused alone, it is the batch's error.
        ClusterRouter.Reply merged = merge(
                BatchSpread.WRITE, shares, ok("{'UnprocessedItems':{}}"), error(400, "ResourceNotFoundException"));
        assertThat(merged.status()).isEqualTo(200);
        assertThat(json(merged.body()).get("UnprocessedItems").has("b")).isTrue();
        merged = merge(
                BatchSpread.WRITE,
                shares,
                error(503, "ServiceUnavailableException"),
                error(400, "ResourceNotFoundException"));
        assertThat(new String(merged.body(), StandardCharsets.UTF_8)).contains("ResourceNotFoundException");
    }

    /**
     * A batch of one share (a cut table's keys all in one range) is sent to its group at once, with no check round:
     * the group checks it whole before it writes any of it, and its refusal is the batch's.
     */
    @Test
    void aBatchOfOneShareIsWrittenWithoutACheckRound() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.WRITE, WRITE, table -> 1);
        assertThat(shares).hasSize(1);
        List<String> sent = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply reply = writeRecording(
                shares, sent, (share, target) -> CompletableFuture.completedFuture(ok("{'UnprocessedItems':{}}")));
        assertThat(reply.status()).isEqualTo(200);
        assertThat(sent).containsExactly("1 DynamoDB_20120810.BatchWriteItem");
        sent.clear();
        reply = writeRecording(
                shares, sent, (share, target) -> CompletableFuture.completedFuture(error(400, "ValidationException")));
        assertThat(reply.status()).isEqualTo(400);
        assertThat(new String(reply.body(), StandardCharsets.UTF_8)).contains("ValidationException");
        assertThat(sent).containsExactly("1 DynamoDB_20120810.BatchWriteItem");
    }

    @Test
    void aDefiniteAnswerComesBeforeAnUnsureOne() throws Exception {
        List<BatchSpread.Share<Integer>> shares = BatchSpread.split(BatchSpread.WRITE, WRITE, GROUPS::get);
        // A check that did not answer, then a refusal: the refusal (nothing is written either way).
        ClusterRouter.Reply reply = BatchSpread.run(
                        BatchSpread.WRITE,
                        shares,
                        (share, target) -> CompletableFuture.completedFuture(
                                share.group() == 1
                                        ? error(503, "ServiceUnavailableException")
                                        : error(400, "ValidationException")),
                        Runnable::run)
                .get();
        assertThat(reply.status()).isEqualTo(400);
        // No write share done, one refused and one whose answer was lost: the batch may have been written in part, so
        // it is not refused: a 500, whose outcome is unknown.
        ClusterRouter.Reply merged = merge(
                BatchSpread.WRITE, shares, error(400, "ResourceNotFoundException"), error(500, "InternalServerError"));
        assertThat(merged.status()).isEqualTo(500);
        // A share that could not be sent at all (the sender throws): a 503, nothing written.
        reply = BatchSpread.run(
                        BatchSpread.WRITE,
                        shares,
                        (share, target) -> {
                            throw new java.util.concurrent.RejectedExecutionException("closing");
                        },
                        Runnable::run)
                .get();
        assertThat(reply.status()).isEqualTo(503);
    }
}
