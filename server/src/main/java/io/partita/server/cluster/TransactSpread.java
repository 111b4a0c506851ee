package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.ExecuteTransactionInput;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.server.http.ErrorBody;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.partiql.ExecuteTransactionHandler;
import io.partita.server.op.txn.TransactGetItemsHandler;
import io.partita.server.op.txn.TransactionRequests;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.write.Transactions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A TransactGetItems over tables in several Raft groups ({@code --cluster-table-groups}, docs/CLUSTER.md), read at one
 * moment, as DynamoDB reads one over tables on different partitions.
 *
 * <p>The node the client sent it to checks the request as a whole first ({@link #split}), then sends each group's
 * Gets, with an id of the read, to its leader ({@code Partita.HoldTransactGetItems}), which starts to watch them (a
 * commit of one breaks the hold) and then reads them as a TransactGetItems. Once every group has read, each releases
 * its hold ({@code Partita.ReleaseTransactGetItems}) and says whether it held: if every hold did, no item changed
 * between its group's read and the moment the last group had read, so every item read is the item at that moment, and
 * the read is one moment's. A broken hold (a write) cancels the read with {@code TransactionConflict}, as DynamoDB
 * cancels a TransactGetItems that meets a write; a hold not known to have held (a new leader, which may have taken
 * writes the hold never saw) makes it a 503. A read changes nothing: a group that does not answer makes it a 503 too,
 * which the SDKs send again.
 */
final class TransactSpread {
    /** A group's part of a TransactGetItems, read and held. */
    static final String HOLD = OperationRegistry.PARTITA_PREFIX + "HoldTransactGetItems";
    /** A group's hold ended: {@code Held} says whether it held. */
    static final String RELEASE = OperationRegistry.PARTITA_PREFIX + "ReleaseTransactGetItems";
    /** A group's part of an ExecuteTransaction of SELECTs, read and held. */
    static final String HOLD_STATEMENTS = OperationRegistry.PARTITA_PREFIX + "HoldExecuteTransaction";
    /** The same hold's end, sent by the statements' tables to their group. */
    static final String RELEASE_STATEMENTS = OperationRegistry.PARTITA_PREFIX + "ReleaseExecuteTransaction";

    private static final ObjectMapper JSON = DynamoJson.mapper();
    private static final String CANCELLED = "TransactionCanceledException";

    private TransactSpread() {}

    /** What a read over several groups is: a TransactGetItems, or an ExecuteTransaction (of SELECTs). */
    enum Kind {
        GETS("TransactGetItems", "TransactItems", HOLD, RELEASE),
        STATEMENTS("ExecuteTransaction", "TransactStatements", HOLD_STATEMENTS, RELEASE_STATEMENTS);

        final String target;
        /** The request's list of what it reads. */
        final String field;

        final String hold;
        final String release;

        Kind(String operation, String field, String hold, String release) {
            this.target = OperationRegistry.DYNAMODB_PREFIX + operation;
            this.field = field;
            this.hold = hold;
            this.release = release;
        }

        /** The kind of read {@code target} is, or null for an operation this class does not run. */
        static Kind of(String target) {
            for (Kind k : values()) {
                if (k.target.equals(target)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** Whether {@code target} runs over several groups when its tables are: TransactGetItems, ExecuteTransaction. */
    static boolean runs(String target) {
        return Kind.of(target) != null;
    }

    /**
     * A group's part of the read: the positions of its Gets (or statements) in the request and their tables, and the
     * body that asks for them alone, as read {@code Hold}'s (also the release's body: it reaches the same group by the
     * same tables).
     */
    record Share<G>(Kind kind, G group, int[] positions, String[] tables, byte[] body) {}

    /** Sends {@code body} to {@code group} as {@code target}; its future never fails (a 503 or 500 instead). */
    @FunctionalInterface
    interface Sender<G> {
        CompletableFuture<ClusterRouter.Reply> send(G group, String target, byte[] body);
    }

    /**
     * The shares of the read {@code body} of {@code kind}, one per group ({@code groupOf} each table), in the order of
     * each group's first Get, every one carrying {@code hold}; the request checked as a whole first, as a single node
     * checks it before it looks at any table. An ExecuteTransaction's shares carry each statement's place in the
     * request ({@code Positions}), which its errors name.
     *
     * @return the shares; null for an ExecuteTransaction of writes, which is not run over several groups
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    static <G> List<Share<G>> split(
            Kind kind, byte[] body, Function<String, G> groupOf, ItemExpressions expressions, String hold) {
        return split(kind, body, groupOf, table -> null, expressions, hold);
    }

    /**
     * The shares as {@link #split(Kind, byte[], Function, ItemExpressions, String)} cuts them, a Get of a table that
     * {@code cut} gives a function for (a table whose partitions are groups of their own) in the group that function
     * gives its {@code Key} (a statement: the statement, with its {@code Parameters}), its range's.
     */
    static <G> List<Share<G>> split(
            Kind kind,
            byte[] body,
            Function<String, G> groupOf,
            Function<String, Function<JsonNode, G>> cut,
            ItemExpressions expressions,
            String hold) {
        if (kind == Kind.GETS) {
            TransactGetItemsHandler.checkShape(DynamoJson.decode(body, TransactGetItemsInput.class), expressions);
        } else {
            var parsed = ExecuteTransactionHandler.check(DynamoJson.decode(body, ExecuteTransactionInput.class));
            if (!(parsed.get(0) instanceof io.partita.protocol.partiql.Partiql.Select)) {
                return null;
            }
        }
        ObjectNode root = BatchSpread.root(body);
        JsonNode items = root.get(kind.field);
        BatchSpread.Grouped<G> grouped = BatchSpread.group(
                items,
                item -> kind == Kind.GETS
                        ? item.get("Get").get("TableName").asText()
                        : TableRoute.statementTable(item.path("Statement").asText()),
                groupOf,
                cut,
                item -> kind == Kind.GETS ? item.path("Get").get("Key") : item); // a statement: parsed by cut's
        List<Share<G>> shares = new ArrayList<>(grouped.places().size());
        for (Map.Entry<G, int[]> e : grouped.places().entrySet()) {
            int[] at = e.getValue();
            ObjectNode share = BatchSpread.sharing(root, kind.field, BatchSpread.Grouped.part(items, at))
                    .put("Hold", hold);
            if (kind == Kind.STATEMENTS) {
                ArrayNode places = share.putArray("Positions");
                Arrays.stream(at).forEach(places::add);
            }
            shares.add(new Share<>(kind, e.getKey(), at, grouped.tablesAt(at), BatchSpread.bytes(share)));
        }
        return shares;
    }

    /**
     * Runs the read's {@code shares} through {@code sender} and answers it: every group reads and holds, then every
     * group releases. The replies are read on {@code work}, never where they arrive (the router's event loops).
     */
    static <G> CompletableFuture<ClusterRouter.Reply> run(List<Share<G>> shares, Sender<G> sender, Executor work) {
        int n = shares.stream().mapToInt(s -> s.positions().length).sum();
        return all(shares, sender, true)
                .thenComposeAsync(
                        held -> {
                            if (held.stream().anyMatch(r -> r.status() != 200)) {
                                // Holds of the groups that read end now; any left (a reply lost) expire on their
                                // leader.
                                List<Share<G>> read = new ArrayList<>();
                                for (int i = 0; i < shares.size(); i++) {
                                    if (held.get(i).status() == 200) {
                                        read.add(shares.get(i));
                                    }
                                }
                                all(read, sender, false);
                                return CompletableFuture.completedFuture(refusal(shares, held, n));
                            }
                            return all(shares, sender, false)
                                    .thenApplyAsync(released -> answer(shares, held, released, n), work);
                        },
                        work);
    }

    /** Sends every share as its hold ({@code hold}) or its release. */
    private static <G> CompletableFuture<List<ClusterRouter.Reply>> all(
            List<Share<G>> shares, Sender<G> sender, boolean hold) {
        return BatchSpread.sendAll(
                shares,
                share -> sender.send(share.group(), hold ? share.kind().hold : share.kind().release, share.body()),
                "a part of the read");
    }

    /**
     * The answer when not every group read, as a single node would answer, which checks in stages: every Get's table
     * and key (a refusal of the request, the first; a key of the wrong shape cancels with {@code ValidationError}),
     * then that no two Gets read one item, then conflicts and throttles (a cancellation), then the 4 MB. The lowest
     * stage any group answered is the read's: a refusal the first in the order of the groups' first Gets (a single node
     * answers the first Get's; which Get a group refused for is not known here), cancellations merged, each group's
     * reasons in its Gets' places, a conflict the first Get's alone. With none of those, a 503.
     */
    static <G> ClusterRouter.Reply refusal(List<Share<G>> shares, List<ClusterRouter.Reply> held, int n) {
        int[] stage = stages(held, shares.stream().map(Share::positions).toList(), TransactSpread::stage);
        int lowest = Arrays.stream(stage).min().orElse(Integer.MAX_VALUE);
        if (lowest == Integer.MAX_VALUE) {
            return BatchSpread.unavailable("a Raft group of the read's tables did not answer; send it again");
        }
        if (lowest != KEYS_CANCELLED && lowest != CONFLICTS_CANCELLED) {
            return firstRefusal(held, shares.stream().map(Share::positions).toList(), stage, lowest);
        }
        Transactions.Reason[] reasons = new Transactions.Reason[n];
        Arrays.fill(reasons, Transactions.Reason.OK);
        int conflict = Integer.MAX_VALUE;
        for (int i = 0; i < shares.size(); i++) {
            if (stage[i] != lowest) {
                continue;
            }
            JsonNode given = BatchSpread.object(held.get(i).body()).get("CancellationReasons");
            int[] at = shares.get(i).positions();
            for (int j = 0; j < at.length; j++) {
                JsonNode reason = given.get(j);
                JsonNode message = reason.get("Message");
                reasons[at[j]] = new Transactions.Reason(
                        reason.path("Code").asText(Transactions.NONE), message == null ? null : message.asText(), null);
                if (reasons[at[j]].code().equals(Transactions.TRANSACTION_CONFLICT)) {
                    conflict = Math.min(conflict, at[j]);
                }
            }
        }
        if (conflict != Integer.MAX_VALUE) {
            // A single node cancels on the first Get it finds held, before it asks for any capacity: that one alone.
            Arrays.fill(reasons, Transactions.Reason.OK);
            reasons[conflict] =
                    new Transactions.Reason(Transactions.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE, null);
        }
        return reply(TransactionRequests.cancelled(Arrays.asList(reasons)));
    }

    /**
     * The stage ({@code stageOf} its error and its part's size) of each group's refusal among {@code replies}; a 200
     * or a 5xx has none ({@link Integer#MAX_VALUE}). {@code positions}: each part's places in the request.
     */
    static int[] stages(
            List<ClusterRouter.Reply> replies,
            List<int[]> positions,
            java.util.function.ToIntBiFunction<ObjectNode, Integer> stageOf) {
        int[] stage = new int[replies.size()];
        for (int i = 0; i < replies.size(); i++) {
            ClusterRouter.Reply r = replies.get(i);
            stage[i] = r.status() == 200 || r.status() >= 500
                    ? Integer.MAX_VALUE
                    : stageOf.applyAsInt(BatchSpread.object(r.body()), positions.get(i).length);
        }
        return stage;
    }

    /**
     * Of the refusals at stage {@code lowest}, the first in the request's order, as a single node answers the first
     * it meets: a statement's error names its place; else a group's first action's place counts.
     */
    static ClusterRouter.Reply firstRefusal(
            List<ClusterRouter.Reply> replies, List<int[]> positions, int[] stage, int lowest) {
        int first = -1;
        int firstAt = Integer.MAX_VALUE;
        for (int i = 0; i < replies.size(); i++) {
            if (stage[i] == lowest) {
                int at = placeNamed(replies.get(i), positions.get(i));
                if (at < firstAt) {
                    first = i;
                    firstAt = at;
                }
            }
        }
        return replies.get(first);
    }

    private static final java.util.regex.Pattern STATEMENT_NAMED =
            java.util.regex.Pattern.compile("Validation failed in TransactStatements\\[(\\d+)]");

    /**
     * The place in the request of the action a part's refusal is for: the statement it names ({@code Validation
     * failed in TransactStatements[i]}), the action a write transaction's part marks ({@link
     * io.partita.server.op.txn.TransactWriteItemsHandler.Prepare#REFUSED_AT}), else the part's first.
     */
    private static int placeNamed(ClusterRouter.Reply refused, int[] positions) {
        ObjectNode error = BatchSpread.object(refused.body());
        int marked = error == null
                ? -1
                : error.path(io.partita.server.op.txn.TransactWriteItemsHandler.Prepare.REFUSED_AT)
                        .asInt(-1);
        if (marked >= 0 && marked < positions.length) {
            return positions[marked];
        }
        int or = positions[0];
        java.util.regex.Matcher m = STATEMENT_NAMED.matcher(
                error == null ? "" : error.path("message").asText(""));
        return m.find() ? Integer.parseInt(m.group(1)) : or;
    }

    /** A refusal of a Get's table or key, the read's as it is. */
    private static final int REFUSED = 1;
    /** A cancellation for keys of the wrong shape. */
    private static final int KEYS_CANCELLED = 2;
    /** Two Gets of one item. */
    private static final int REPEATED = 3;
    /** A cancellation for a conflict or a throttle. */
    private static final int CONFLICTS_CANCELLED = 4;
    /** More than 4 MB. */
    private static final int TOO_LARGE = 5;

    /** The stage of a group's refusal {@code error} of its {@code gets} Gets ({@link #refusal}). */
    private static int stage(ObjectNode error, int gets) {
        if (CANCELLED.equals(BatchSpread.typeOf(error))) {
            JsonNode reasons = error.get("CancellationReasons");
            if (reasons == null || !reasons.isArray() || reasons.size() != gets) {
                return REFUSED; // not a share's cancellation: not reached
            }
            for (JsonNode r : reasons) {
                if (Transactions.VALIDATION_ERROR.equals(r.path("Code").asText())) {
                    return KEYS_CANCELLED;
                }
            }
            return CONFLICTS_CANCELLED;
        }
        return refusedStage(error, REPEATED, TOO_LARGE, REFUSED);
    }

    /**
     * The stage of a refusal that is not a cancellation, by its message: {@code repeated} for two actions on one item,
     * {@code tooLarge} for more than 4 MB, else {@code refused} (a table's, an item's, the request's).
     */
    static int refusedStage(ObjectNode error, int repeated, int tooLarge, int refused) {
        String message = error == null ? "" : error.path("message").asText("");
        if (message.startsWith("Transaction request cannot include multiple operations on one item")) {
            return repeated;
        }
        if (message.startsWith("Transaction payload size cannot exceed 4MB")) {
            return tooLarge;
        }
        return refused;
    }

    /**
     * The read's answer once every group read ({@code held}) and released ({@code released}): the Gets' items in the
     * request's order, each table's units in the order the Gets first name them; a cancellation with {@code
     * TransactionConflict} when a group's hold broke (an item written meanwhile); a 503 when a release was not
     * answered or its hold is not known to have held (another leader), as the read cannot be known to be one moment's.
     */
    static <G> ClusterRouter.Reply answer(
            List<Share<G>> shares, List<ClusterRouter.Reply> held, List<ClusterRouter.Reply> released, int n) {
        boolean unknown = false;
        for (int i = 0; i < shares.size(); i++) {
            ClusterRouter.Reply r = released.get(i);
            ObjectNode body = r.status() == 200 ? BatchSpread.object(r.body()) : null;
            String outcome = body == null ? "" : body.path("Held").asText("");
            if (outcome.equals(Transactions.HoldOutcome.BROKEN.name())) {
                Transactions.Reason[] reasons = new Transactions.Reason[n];
                Arrays.fill(reasons, Transactions.Reason.OK);
                reasons[shares.get(i).positions()[0]] =
                        new Transactions.Reason(Transactions.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE, null);
                return reply(TransactionRequests.cancelled(Arrays.asList(reasons)));
            }
            unknown |= !outcome.equals(Transactions.HoldOutcome.INTACT.name());
        }
        if (unknown) {
            return BatchSpread.unavailable(
                    "a Raft group of the read's tables could not confirm its read; send it again");
        }
        JsonNode[] responses = new JsonNode[n];
        Map<String, JsonNode> units = new java.util.HashMap<>();
        long bytes = 0;
        for (int i = 0; i < shares.size(); i++) {
            ObjectNode read = BatchSpread.object(held.get(i).body());
            JsonNode found = read == null ? null : read.get("Responses");
            int[] at = shares.get(i).positions();
            if (found == null || !found.isArray() || found.size() != at.length) {
                return BatchSpread.unavailable("a Raft group answered the read unreadably; send it again");
            }
            for (int j = 0; j < at.length; j++) {
                responses[at[j]] = found.get(j);
            }
            bytes += read.path("ItemBytes").asLong();
            if (read.get("ConsumedCapacity") instanceof ArrayNode consumed) {
                TransactWriteSpread.addUnits(units, consumed);
            }
        }
        try {
            TransactionRequests.checkPayload(bytes);
        } catch (ApiException tooLarge) {
            return reply(tooLarge);
        }
        ObjectNode out = JSON.createObjectNode();
        if (!units.isEmpty()) {
            String[] tableAt = new String[n];
            for (Share<G> s : shares) {
                for (int j = 0; j < s.positions().length; j++) {
                    String t = s.tables()[j];
                    tableAt[s.positions()[j]] = t.startsWith("arn:") ? TableRoute.tableOfArn(t) : t;
                }
            }
            ArrayNode consumed = out.putArray("ConsumedCapacity");
            for (String t : new java.util.LinkedHashSet<>(Arrays.asList(tableAt))) {
                if (units.containsKey(t)) {
                    consumed.add(units.get(t)); // each table once, in the order the Gets first name it
                }
            }
        }
        out.set("Responses", JSON.createArrayNode().addAll(Arrays.asList(responses)));
        return new ClusterRouter.Reply(200, BatchSpread.bytes(out));
    }

    private static ClusterRouter.Reply reply(ApiException e) {
        return new ClusterRouter.Reply(e.code().httpStatus(), ErrorBody.of(e));
    }
}
