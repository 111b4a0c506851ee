package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.BatchExecuteStatementInput;
import io.partita.server.op.partiql.BatchExecuteStatementHandler;
import io.partita.server.route.OperationRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A BatchExecuteStatement over tables in several Raft groups ({@code --cluster-table-groups}, docs/CLUSTER.md), run
 * as one batch, as DynamoDB runs one over tables on different partitions: each statement on its own, its outcome in
 * its own response ("A HTTP 200 response does not mean that all statements in the BatchExecuteStatement succeeded").
 *
 * <p>The node the client sent it to checks the batch as a whole first ({@link #split}: its members, and that its
 * statements are all reads or all writes), then sends each group's statements to its leader as a BatchExecuteStatement
 * of their own, in parallel, and puts the responses back in the statements' order ({@link #merge}). A group that did
 * not run its statements (no leader, an answer lost) gives each of them {@code InternalServerError}, which the caller
 * may send again, as a single node answers a statement it could not run; the batch fails whole only when no group
 * answered, with the error a single node would give.
 */
final class StatementSpread {
    static final String BATCH = "BatchExecuteStatement";

    private static final ObjectMapper JSON = DynamoJson.mapper();

    private StatementSpread() {}

    /** Whether {@code target} runs over several groups when its tables are in several: BatchExecuteStatement. */
    static boolean runs(String target) {
        return (OperationRegistry.DYNAMODB_PREFIX + BATCH).equals(target);
    }

    /**
     * A group's statements: their positions in the batch, and the body that runs them alone; or, with {@code
     * answered} (and no group), the statements that failed their parse here, answered with their errors.
     */
    record Share<G>(G group, int[] positions, byte[] body, ArrayNode answered) {}

    /** Sends {@code body} to {@code group} as a BatchExecuteStatement; its future never fails (a 503 or 500). */
    @FunctionalInterface
    interface Sender<G> {
        CompletableFuture<ClusterRouter.Reply> send(G group, byte[] body);
    }

    /**
     * The shares of the batch {@code body}, one per group ({@code groupOf} each statement's table), in the order of
     * each group's first statement, and one of the statements whose parse failed, answered here with their errors as
     * a single node answers them; the batch checked as a whole first, as a single node checks it before it runs a
     * statement.
     *
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    static <G> List<Share<G>> split(byte[] body, Function<String, G> groupOf) {
        return split(body, groupOf, table -> null);
    }

    /**
     * The shares as {@link #split(byte[], Function)} cuts them, a statement on a table that {@code cut} gives a
     * function for (a table whose partitions are groups of their own) in the group that function gives the statement
     * (its {@code Statement} and {@code Parameters}): its partition key's range's.
     */
    static <G> List<Share<G>> split(
            byte[] body, Function<String, G> groupOf, Function<String, Function<JsonNode, G>> cut) {
        List<Object> parsed =
                BatchExecuteStatementHandler.check(DynamoJson.decode(body, BatchExecuteStatementInput.class));
        ObjectNode root = BatchSpread.root(body);
        JsonNode statements = root.get("Statements");
        Map<G, List<Integer>> positions = new LinkedHashMap<>();
        List<Integer> failed = new ArrayList<>();
        ArrayNode answered = JSON.createArrayNode();
        for (int i = 0; i < statements.size(); i++) {
            if (parsed.get(i) instanceof ApiException e) {
                failed.add(i);
                answered.add(JSON.valueToTree(
                        new io.partita.protocol.message.BatchExecuteStatementOutput.BatchStatementResponse(
                                BatchExecuteStatementHandler.error(e), null, null)));
                continue;
            }
            String table = TableRoute.statementTable(
                    statements.get(i).path("Statement").asText());
            if (table != null && table.startsWith("arn:")) {
                table = TableRoute.tableOfArn(table);
            }
            Function<JsonNode, G> byKey = table == null ? null : cut.apply(table);
            G group = byKey == null ? groupOf.apply(table) : byKey.apply(statements.get(i));
            positions.computeIfAbsent(group, g -> new ArrayList<>()).add(i);
        }
        List<Share<G>> shares = new ArrayList<>(positions.size());
        for (Map.Entry<G, List<Integer>> e : positions.entrySet()) {
            ArrayNode part = JSON.createArrayNode();
            for (int i : e.getValue()) {
                part.add(statements.get(i));
            }
            shares.add(new Share<>(
                    e.getKey(),
                    e.getValue().stream().mapToInt(Integer::intValue).toArray(),
                    BatchSpread.bytes(BatchSpread.sharing(root, "Statements", part)),
                    null));
        }
        if (!failed.isEmpty()) {
            shares.add(new Share<>(
                    null, failed.stream().mapToInt(Integer::intValue).toArray(), null, answered));
        }
        return shares;
    }

    /**
     * Runs the batch's {@code shares} through {@code sender}, all at once, and answers it ({@link #merge}); the
     * replies are read on {@code work}, never where they arrive (the router's event loops).
     */
    static <G> CompletableFuture<ClusterRouter.Reply> run(List<Share<G>> shares, Sender<G> sender, Executor work) {
        return BatchSpread.sendAll(
                        shares,
                        share -> {
                            if (share.answered() == null) {
                                return sender.send(share.group(), share.body());
                            }
                            ObjectNode local = JSON.createObjectNode(); // answered here: its parse failed
                            local.set("Responses", share.answered());
                            return CompletableFuture.completedFuture(
                                    new ClusterRouter.Reply(200, BatchSpread.bytes(local)));
                        },
                        "a part of the batch")
                .thenApplyAsync(replies -> merge(shares, replies), work);
    }

    /**
     * The batch's answer from its shares' {@code replies} (in the order of {@code shares}): each statement's response
     * in its place, each table's units summed (one {@code ConsumedCapacity} per table, in the order its statements
     * first answer); a group that did not run its statements gives each of them an error ({@code InternalServerError}
     * for a 5xx, else its error's code). With no group answered, the batch's answer is a group's error: an outcome
     * unknown (500) first, which a write may have been written in, then a refusal, then a 503.
     */
    static <G> ClusterRouter.Reply merge(List<Share<G>> shares, List<ClusterRouter.Reply> replies) {
        int n = shares.stream().mapToInt(s -> s.positions().length).sum();
        JsonNode[] responses = new JsonNode[n];
        Map<String, Double> units = new LinkedHashMap<>();
        boolean consumed = false;
        ClusterRouter.Reply lost = null;
        ClusterRouter.Reply refused = null;
        ClusterRouter.Reply unavailable = null;
        int done = 0;
        for (int i = 0; i < shares.size(); i++) {
            int[] at = shares.get(i).positions();
            ClusterRouter.Reply reply = replies.get(i);
            ObjectNode answer = reply.status() == 200 ? BatchSpread.object(reply.body()) : null;
            JsonNode found = answer == null ? null : answer.get("Responses");
            if (found == null || !found.isArray() || found.size() != at.length) {
                if (reply.status() == 500 || reply.status() == 200) {
                    lost = lost == null ? reply : lost;
                } else if (reply.status() >= 500) {
                    unavailable = unavailable == null ? reply : unavailable;
                } else {
                    refused = refused == null ? reply : refused;
                }
                ObjectNode error = JSON.createObjectNode();
                if (reply.status() >= 500 || reply.status() == 200) {
                    error.put("Code", "InternalServerError").put("Message", "Internal server error");
                } else {
                    ObjectNode body = BatchSpread.object(reply.body());
                    error.put("Code", code(BatchSpread.typeOf(body)));
                    // Most errors spell it "message"; a few "Message" (ErrorBody).
                    error.put(
                            "Message",
                            body == null
                                    ? ""
                                    : body.path("message")
                                            .asText(body.path("Message").asText("")));
                }
                for (int p : at) {
                    responses[p] = JSON.createObjectNode().set("Error", error);
                }
                continue;
            }
            done++;
            for (int j = 0; j < at.length; j++) {
                responses[at[j]] = found.get(j);
            }
            if (answer.get("ConsumedCapacity") instanceof ArrayNode tables) {
                consumed = true;
                for (JsonNode t : tables) {
                    units.merge(
                            t.path("TableName").asText(),
                            t.path("CapacityUnits").asDouble(),
                            Double::sum);
                }
            }
        }
        if (done == 0) {
            return lost != null
                    ? (lost.status() == 500 ? lost : BatchSpread.internal())
                    : refused != null ? refused : unavailable;
        }
        ObjectNode out = JSON.createObjectNode();
        out.set("Responses", JSON.createArrayNode().addAll(java.util.Arrays.asList(responses)));
        if (consumed) {
            // In the order a single node gives them: of each table's first statement that answered.
            java.util.Set<String> order = new java.util.LinkedHashSet<>();
            for (JsonNode r : responses) {
                if (!r.has("Error") && r.hasNonNull("TableName")) {
                    order.add(r.get("TableName").asText());
                }
            }
            order.addAll(units.keySet());
            ArrayNode tables = out.putArray("ConsumedCapacity");
            for (String table : order) {
                if (units.containsKey(table)) {
                    tables.addObject().put("TableName", table).put("CapacityUnits", units.get(table));
                }
            }
        }
        return new ClusterRouter.Reply(200, BatchSpread.bytes(out));
    }

    /** A statement's {@code BatchStatementError} code for a group's whole error of {@code type}. */
    private static String code(String type) {
        return switch (type) {
            case "ResourceNotFoundException" -> "ResourceNotFound";
            case "ProvisionedThroughputExceededException" -> "ProvisionedThroughputExceeded";
            case "ThrottlingException" -> "ThrottlingError";
            case "RequestLimitExceeded" -> "RequestLimitExceeded";
            case "TransactionConflictException" -> "TransactionConflict";
            case "AccessDeniedException" -> "AccessDenied";
            default -> "ValidationError";
        };
    }
}
