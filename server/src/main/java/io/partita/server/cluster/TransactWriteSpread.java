package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.ExecuteTransactionInput;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.server.http.ErrorBody;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.partiql.ExecuteTransactionHandler;
import io.partita.server.op.txn.TransactWriteItemsHandler;
import io.partita.server.op.txn.TransactionRequests;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.write.PreparedTransactions;
import io.partita.storage.write.Transactions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A TransactWriteItems over tables in several Raft groups ({@code --cluster-table-groups}, docs/CLUSTER.md): all or
 * nothing, by a two-phase commit whose participants are the groups and whose decision the first action's group keeps
 * ({@link PreparedTransactions}).
 *
 * <pre>
 *   check         the request as a whole, here, as a single node checks it before it looks at any table
 *   prepare       every group's part at once (Partita.PrepareTransactWriteItems): checked, planned, recorded, held
 *   all prepared  the deciding group commits its part and records COMMITTED in the same batch; then the others
 *                 commit theirs (each sent again while its group does not answer, for a while)
 *   one did not   every part that may have been prepared is aborted, the deciding group's with the decision ABORTED;
 *                 the answer is the cancellation a single node would give (the lowest stage of any group's)
 * </pre>
 *
 * A deciding group that does not answer its commit is asked to abort instead, which answers the decision it made
 * (COMMITTED, or ABORTED now): the transaction ends as it says. Parts a coordinator left behind (it died) are ended by
 * their group's leader after their {@code Deadline}: it asks the deciding group the same way (ClusterMember's
 * resolver).
 */
final class TransactWriteSpread {
    static final String TARGET = OperationRegistry.DYNAMODB_PREFIX + "TransactWriteItems";
    static final String PREPARE = OperationRegistry.PARTITA_PREFIX + "PrepareTransactWriteItems";
    static final String COMMIT = OperationRegistry.PARTITA_PREFIX + "CommitTransactWriteItems";
    static final String ABORT = OperationRegistry.PARTITA_PREFIX + "AbortTransactWriteItems";
    /** The operations of a group's part: each body names the part's tables, which bring it to its group. */
    static final Set<String> PARTS = Set.of(PREPARE, COMMIT, ABORT);
    /** An ExecuteTransaction's part's prepare, its statements bringing it to its group (as an ExecuteTransaction). */
    static final String PREPARE_STATEMENTS = OperationRegistry.PARTITA_PREFIX + "PrepareExecuteTransaction";

    /** What a write transaction over several groups is: a TransactWriteItems, or an ExecuteTransaction of writes. */
    enum Kind {
        ACTIONS("TransactWriteItems", "TransactItems", PREPARE),
        STATEMENTS("ExecuteTransaction", "TransactStatements", PREPARE_STATEMENTS);

        final String target;
        /** The request's list of what it does. */
        final String field;
        /** Its parts' prepare. */
        final String prepare;

        Kind(String operation, String field, String prepare) {
            this.target = OperationRegistry.DYNAMODB_PREFIX + operation;
            this.field = field;
            this.prepare = prepare;
        }
    }

    /** How long after its start a coordinator's parts may be ended by their groups without it. */
    static final long DEADLINE_MILLIS = 30_000;

    /** How often, and how far apart, a part's commit is sent again while its group does not answer: about 10 s. */
    private static final int COMMIT_TRIES = 40;

    private static final long COMMIT_PAUSE_MILLIS = 250;

    private static final ObjectMapper JSON = DynamoJson.mapper();

    private TransactWriteSpread() {}

    /**
     * A group's part: the positions of its actions in the request, their tables, the body that prepares them alone,
     * and the body of its commit and its abort ({@code end}: the transaction, and its tables as ConditionChecks, which
     * bring it to the same group).
     */
    record Share<G>(Kind kind, G group, int[] positions, String[] tables, byte[] body, byte[] end) {}

    /** Sends {@code body} to {@code group} as {@code target}; its future never fails (a 503 or 500 instead). */
    @FunctionalInterface
    interface Sender<G> {
        CompletableFuture<ClusterRouter.Reply> send(G group, String target, byte[] body);
    }

    /**
     * The parts of write transaction {@code body} of {@code kind} and id {@code id}, one per group ({@code groupOf}
     * each table), in the order of each group's first action; the first group's decides. The request is checked as a
     * whole first; its {@code ClientRequestToken} stays here (the caller keeps it). An ExecuteTransaction's parts carry
     * each statement's place in the request ({@code Positions}), which its errors name; each group counts its own
     * statements' size toward the 4 MB and gives it back ({@link #tooLarge} sums them).
     *
     * @return the parts (one when every table is in one group); null for an ExecuteTransaction of SELECTs
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    static <G> List<Share<G>> split(
            Kind kind,
            byte[] body,
            Function<String, G> groupOf,
            ItemExpressions expressions,
            String id,
            long deadline,
            String token,
            byte[] digest) {
        return split(kind, body, groupOf, table -> null, expressions, id, deadline, token, digest);
    }

    /**
     * The parts as {@link #split(Kind, byte[], Function, ItemExpressions, String, long, String, byte[])} cuts them,
     * an action on a table that {@code cut} gives a function for (a table whose partitions are groups of their own)
     * in the group that function gives its {@code Key} (a Put's {@code Item}; a statement: the statement, with its
     * {@code Parameters}), its range's.
     */
    static <G> List<Share<G>> split(
            Kind kind,
            byte[] body,
            Function<String, G> groupOf,
            Function<String, Function<JsonNode, G>> cut,
            ItemExpressions expressions,
            String id,
            long deadline,
            String token,
            byte[] digest) {
        long payload = -1;
        if (kind == Kind.ACTIONS) {
            payload = TransactWriteItemsHandler.checkShape(
                    DynamoJson.decode(body, TransactWriteItemsInput.class), expressions);
        } else if (ExecuteTransactionHandler.check(DynamoJson.decode(body, ExecuteTransactionInput.class))
                        .get(0)
                instanceof io.partita.protocol.partiql.Partiql.Select) {
            return null;
        }
        ObjectNode root = BatchSpread.root(body);
        root.remove("ClientRequestToken");
        JsonNode items = root.get(kind.field);
        BatchSpread.Grouped<G> grouped = BatchSpread.group(
                items,
                item -> kind == Kind.ACTIONS
                        ? actionOf(item).path("TableName").asText()
                        : TableRoute.statementTable(item.path("Statement").asText()),
                groupOf,
                cut,
                item -> {
                    if (kind == Kind.STATEMENTS) {
                        return item; // the statement, with its parameters: parsed by cut's function
                    }
                    return keyOf(item);
                });
        String deciding = grouped.tables()[0];
        String decidingGroup =
                String.valueOf(grouped.places().keySet().iterator().next());
        List<Share<G>> shares = new ArrayList<>(grouped.places().size());
        List<String> participants =
                grouped.places().keySet().stream().map(String::valueOf).toList();
        for (Map.Entry<G, int[]> e : grouped.places().entrySet()) {
            int[] at = e.getValue();
            boolean decides = shares.isEmpty();
            ObjectNode share = BatchSpread.sharing(root, kind.field, BatchSpread.Grouped.part(items, at))
                    .put("Transaction", id)
                    .put("Decides", decides)
                    .put("DecidingTable", deciding)
                    .put("DecidingGroup", decidingGroup)
                    .put("Deadline", deadline);
            // Every group's: the deciding group keeps them with a decision COMMITTED, and tells them before it closes.
            participants.forEach(share.putArray("Participants")::add);
            if (token != null) {
                // Each group keeps the token with its part's commit: the deciding group answers a repeat of it, and
                // any refuses it with other parameters.
                share.put("Token", token)
                        .put("TokenDigest", java.util.Base64.getEncoder().encodeToString(digest));
            }
            if (kind == Kind.ACTIONS) {
                share.put("Payload", payload);
            } else {
                ArrayNode places = share.putArray("Positions");
                Arrays.stream(at).forEach(places::add);
            }
            String[] own = grouped.tablesAt(at);
            shares.add(new Share<>(
                    kind, e.getKey(), at, own, BatchSpread.bytes(share), BatchSpread.bytes(ending(id, decides, own))));
        }
        return shares;
    }

    /**
     * Adds each table's units of {@code consumed} to {@code units}: a table in several groups (cut by ranges) answers
     * one entry, its groups' units added.
     */
    static void addUnits(Map<String, JsonNode> units, ArrayNode consumed) {
        for (JsonNode c : consumed) {
            units.merge(
                    c.path("TableName").asText(),
                    c,
                    (a, b) -> a instanceof ObjectNode x && b instanceof ObjectNode y ? RangeSpread.add(x, y) : b);
        }
    }

    /**
     * What places a TransactWriteItems member's item in its range, as its group's server reads the member: its Put's
     * {@code Item}, or its other action's {@code Key} (any other member ignored, as the server ignores it); null for
     * a member with no action, which its group refuses.
     */
    static JsonNode keyOf(JsonNode item) {
        for (String member : List.of("ConditionCheck", "Put", "Delete", "Update")) {
            if (item.get(member) instanceof ObjectNode action) {
                return member.equals("Put") ? action.get("Item") : action.get("Key");
            }
        }
        return null;
    }

    /** The one action of a TransactWriteItems member (checked to have one): its Put, Update, Delete or check. */
    private static JsonNode actionOf(JsonNode item) {
        for (String member : List.of("ConditionCheck", "Put", "Delete", "Update")) {
            if (item.get(member) instanceof ObjectNode action) {
                return action;
            }
        }
        return item; // not reached
    }

    /**
     * The body of a part's commit or abort: transaction {@code id}, whether its group decides, and {@code tables} as
     * ConditionChecks, which bring it to their group (what else the part does is in its group's record). A resolver
     * asks the deciding group with one too.
     */
    static ObjectNode ending(String id, boolean decides, String... tables) {
        ObjectNode end = JSON.createObjectNode().put("Transaction", id).put("Decides", decides);
        ArrayNode named = end.putArray("TransactItems");
        for (String t : new LinkedHashSet<>(Arrays.asList(tables))) {
            named.addObject().putObject("ConditionCheck").put("TableName", t);
        }
        return end;
    }

    /**
     * Runs the transaction's {@code shares} of its {@code n} actions through {@code sender} (see the class comment).
     * The replies are read on {@code work}, never where they arrive (the router's event loops).
     */
    static <G> CompletableFuture<ClusterRouter.Reply> run(
            List<Share<G>> shares, int n, Sender<G> sender, Executor work) {
        return all(shares, sender, shares.get(0).kind().prepare)
                .thenComposeAsync(
                        prepared -> {
                            ClusterRouter.Reply tooLarge =
                                    shares.get(0).kind() == Kind.STATEMENTS ? tooLarge(prepared) : null;
                            boolean repeated = repeated(prepared.get(0));
                            if (tooLarge == null
                                    && !repeated
                                    && prepared.stream().allMatch(r -> r.status() == 200)) {
                                return commit(shares, n, sender, work);
                            }
                            // Every part that may be prepared (prepared, or not known: a 5xx) is aborted; the
                            // deciding group's abort also records the decision, which a late prepare there finds. A
                            // repeat's deciding part prepared nothing, and its transaction's decision is kept.
                            List<Share<G>> undo = new ArrayList<>();
                            for (int i = repeated ? 1 : 0; i < shares.size(); i++) {
                                int status = prepared.get(i).status();
                                if (status == 200 || status >= 500) {
                                    undo.add(shares.get(i));
                                }
                            }
                            return all(undo, sender, ABORT)
                                    .thenComposeAsync(
                                            aborted -> {
                                                if (tooLarge != null) {
                                                    return CompletableFuture.completedFuture(tooLarge);
                                                }
                                                if (repeated && !refusedFirst(shares, prepared)) {
                                                    return repeat(shares, prepared.get(0), sender, work);
                                                }
                                                return CompletableFuture.completedFuture(refusal(shares, prepared, n));
                                            },
                                            work);
                        },
                        work);
    }

    /**
     * An ExecuteTransaction's refusal for more than 4 MB over all its parts, whose sizes only their groups know (each
     * gives its own, {@code PartPayload}, prepared or cancelled): a single node checks the 4 MB before it runs
     * anything, so this outranks every cancellation. Null when the parts' sizes sum to 4 MB or less, or one did not
     * give its size (refused before it knew it: that refusal comes first, as on a single node; or not answered).
     */
    private static ClusterRouter.Reply tooLarge(List<ClusterRouter.Reply> prepared) {
        long total = 0;
        for (ClusterRouter.Reply r : prepared) {
            ObjectNode body = BatchSpread.object(r.body());
            JsonNode size = body == null ? null : body.get(TransactWriteItemsHandler.Prepare.PART_PAYLOAD);
            if (size == null || !size.canConvertToLong()) {
                return null;
            }
            total += size.asLong();
        }
        try {
            TransactionRequests.checkPayload(total);
            return null;
        } catch (ApiException e) {
            return reply(e);
        }
    }

    /**
     * The answer to a repeat of a transaction that committed ({@code deciding}: its deciding group's answer, which
     * names the first run): the first run's other parts are committed (sent again while not answered; a part ended
     * before answers as committed), so that the repeat answers only once every group has written its part, with the
     * units of reading the deciding group's items again. A part that does not answer makes it a 500, as a first run's
     * would.
     */
    private static <G> CompletableFuture<ClusterRouter.Reply> repeat(
            List<Share<G>> shares, ClusterRouter.Reply deciding, Sender<G> sender, Executor work) {
        String first = BatchSpread.object(deciding.body()).path("Transaction").asText("");
        if (first.isEmpty()) {
            return CompletableFuture.completedFuture(answer(shares, List.of(deciding)));
        }
        List<CompletableFuture<ClusterRouter.Reply>> sent = new ArrayList<>();
        for (Share<G> s : shares.subList(1, shares.size())) {
            Share<G> firstRun = new Share<>(
                    s.kind(),
                    s.group(),
                    s.positions(),
                    s.tables(),
                    null,
                    BatchSpread.bytes(ending(first, false, s.tables())));
            sent.add(commitUntilAnswered(firstRun, sender, work, COMMIT_TRIES));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .thenApplyAsync(
                        done -> sent.stream().allMatch(f -> decisionOf(f.join()) != null)
                                ? answer(shares, List.of(deciding))
                                : PART_LATE,
                        work);
    }

    /** Whether a deciding part's answer is {@code Repeated}: a transaction with its token committed before. */
    private static boolean repeated(ClusterRouter.Reply r) {
        ObjectNode body = r.status() == 200 ? BatchSpread.object(r.body()) : null;
        return body != null && body.path("Repeated").asBoolean(false);
    }

    /**
     * Whether a part refused the request in a way a single node finds before it looks at the token (a table, an item,
     * one action per item, the 4 MB): that refusal is the answer rather than the repeat's.
     */
    private static <G> boolean refusedFirst(List<Share<G>> shares, List<ClusterRouter.Reply> prepared) {
        int[] stage = TransactSpread.stages(
                prepared, shares.stream().map(Share::positions).toList(), TransactWriteSpread::stage);
        return Arrays.stream(stage).min().orElse(Integer.MAX_VALUE) < TOKEN;
    }

    private static <G> CompletableFuture<List<ClusterRouter.Reply>> all(
            List<Share<G>> shares, Sender<G> sender, String target) {
        return BatchSpread.sendAll(
                shares,
                share -> sender.send(share.group(), target, target.equals(ABORT) ? share.end() : share.body()),
                "a part of the transaction");
    }

    /** Every part prepared: the deciding group's commit, then the others'. */
    private static <G> CompletableFuture<ClusterRouter.Reply> commit(
            List<Share<G>> shares, int n, Sender<G> sender, Executor work) {
        Share<G> deciding = shares.get(0);
        return sender.send(deciding.group(), COMMIT, deciding.end())
                .thenComposeAsync(
                        committed -> {
                            String decision = decisionOf(committed);
                            if (decision != null) {
                                return decided(shares, n, sender, work, decision, committed);
                            }
                            // Not known whether it committed: asked to abort, it answers the decision it made.
                            return asked(
                                    deciding, sender, work, known -> decided(shares, n, sender, work, known, null));
                        },
                        work);
    }

    /**
     * Asks the deciding group to abort, which answers the decision it made (ABORTED now, if it had made none), and goes
     * on with {@code then} of that decision; a 500 when it does not answer one.
     */
    private static <G> CompletableFuture<ClusterRouter.Reply> asked(
            Share<G> deciding,
            Sender<G> sender,
            Executor work,
            Function<String, CompletableFuture<ClusterRouter.Reply>> then) {
        return sender.send(deciding.group(), ABORT, deciding.end())
                .thenComposeAsync(
                        aborted -> {
                            String known = decisionOf(aborted);
                            return known == null ? CompletableFuture.completedFuture(unknown()) : then.apply(known);
                        },
                        work);
    }

    /**
     * Settles, for a repeat with its {@code ClientRequestToken}, a transaction of {@code shares} whose run answered a
     * 500 (its deciding group's commit not answered, or a part's commit late): the deciding group, asked to abort,
     * answers the decision it made (ABORTED now, if it had made none). COMMITTED: every other part is committed (sent
     * again while not answered), and the answer is the transaction's, without the deciding group's units (its commit's
     * answer was lost). ABORTED: every other part is aborted, and the answer is null: nothing was written anywhere, and
     * the repeat runs anew. A 500 again when the decision is not known, or a part did not answer its abort (it stays
     * held until its group's resolver aborts it).
     */
    static <G> CompletableFuture<ClusterRouter.Reply> settle(
            List<Share<G>> shares, int n, Sender<G> sender, Executor work) {
        return asked(shares.get(0), sender, work, known -> {
            if (known.equals(PreparedTransactions.Decision.COMMITTED.name())) {
                return decided(shares, n, sender, work, known, null);
            }
            return all(shares.subList(1, shares.size()), sender, ABORT)
                    .thenApply(ends -> ends.stream().allMatch(r -> decisionOf(r) != null) ? null : unknown());
        });
    }

    /** The deciding group decided {@code decision}; {@code first} its commit's answer, if it committed there. */
    private static <G> CompletableFuture<ClusterRouter.Reply> decided(
            List<Share<G>> shares, int n, Sender<G> sender, Executor work, String decision, ClusterRouter.Reply first) {
        List<Share<G>> others = shares.subList(1, shares.size());
        if (!decision.equals(PreparedTransactions.Decision.COMMITTED.name())) {
            // Aborted there first (a resolver took the coordinator for gone): nothing was written anywhere.
            return all(others, sender, ABORT)
                    .thenApply(aborted -> reply(TransactionRequests.cancelled(Transactions.conflictOn(n, 0))));
        }
        List<CompletableFuture<ClusterRouter.Reply>> sent = new ArrayList<>();
        for (Share<G> s : others) {
            sent.add(commitUntilAnswered(s, sender, work, COMMIT_TRIES));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .thenApplyAsync(
                        done -> {
                            List<ClusterRouter.Reply> replies = new ArrayList<>();
                            replies.add(first);
                            for (CompletableFuture<ClusterRouter.Reply> f : sent) {
                                ClusterRouter.Reply r = f.join();
                                if (decisionOf(r) == null) {
                                    // Committed, and this group's part will be written by its leader's resolver: the
                                    // client cannot be told it is done (a read there may not see it yet).
                                    return PART_LATE;
                                }
                                replies.add(r);
                            }
                            return answer(shares, replies);
                        },
                        work);
    }

    private static <G> CompletableFuture<ClusterRouter.Reply> commitUntilAnswered(
            Share<G> share, Sender<G> sender, Executor work, int tries) {
        return sender.send(share.group(), COMMIT, share.end()).thenComposeAsync(r -> {
            if (decisionOf(r) != null || tries <= 1) {
                return CompletableFuture.completedFuture(r);
            }
            return CompletableFuture.supplyAsync(
                            () -> null,
                            CompletableFuture.delayedExecutor(COMMIT_PAUSE_MILLIS, TimeUnit.MILLISECONDS, work))
                    .thenCompose(x -> commitUntilAnswered(share, sender, work, tries - 1));
        });
    }

    /** The decision a commit's or an abort's answer gives, or null for none (not answered). */
    private static String decisionOf(ClusterRouter.Reply r) {
        if (r == null || r.status() != 200) {
            return null;
        }
        ObjectNode body = BatchSpread.object(r.body());
        String d = body == null ? "" : body.path("Decision").asText("");
        return d.isEmpty() ? null : d;
    }

    private static final ClusterRouter.Reply PART_LATE = new ClusterRouter.Reply(
            500,
            ErrorBody.of(new ApiException(
                    ErrorCode.INTERNAL_SERVER_ERROR,
                    "The transaction committed, and a Raft group of its tables has not written its part yet; it"
                            + " will")));

    private static ClusterRouter.Reply unknown() {
        return new ClusterRouter.Reply(
                500,
                ErrorBody.of(new ApiException(
                        ErrorCode.INTERNAL_SERVER_ERROR,
                        "The Raft group that decides the transaction did not answer; it commits or aborts it later")));
    }

    /**
     * The answer of a committed transaction: each table's units in the order the actions first name it, and every
     * group's item collections. {@code replies} in the shares' order; the deciding group's null when it answered only
     * an abort (its units not known).
     */
    static <G> ClusterRouter.Reply answer(List<Share<G>> shares, List<ClusterRouter.Reply> replies) {
        Map<String, JsonNode> units = new LinkedHashMap<>();
        Map<String, JsonNode> collections = new LinkedHashMap<>();
        for (ClusterRouter.Reply r : replies) {
            ObjectNode out = r == null ? null : BatchSpread.object(r.body());
            if (out == null) {
                continue;
            }
            if (out.get("ConsumedCapacity") instanceof ArrayNode consumed) {
                addUnits(units, consumed);
            }
            if (out.get("ItemCollectionMetrics") instanceof ObjectNode metrics) {
                // A table cut by ranges has item collections in several groups: one list.
                metrics.properties()
                        .forEach(e -> collections.merge(
                                e.getKey(),
                                e.getValue(),
                                (a, b) -> a.isArray() && b.isArray()
                                        ? ((ArrayNode) a.deepCopy()).addAll((ArrayNode) b)
                                        : b));
            }
        }
        List<String> order = new ArrayList<>(new LinkedHashSet<>(tablesInOrder(shares)));
        ObjectNode out = JSON.createObjectNode();
        if (shares.get(0).kind() == Kind.STATEMENTS) {
            out.putArray("Responses"); // as a single node answers an ExecuteTransaction of writes
        }
        if (!units.isEmpty()) {
            ArrayNode consumed = out.putArray("ConsumedCapacity");
            for (String t : order) {
                if (units.containsKey(t)) {
                    consumed.add(units.get(t));
                }
            }
        }
        if (!collections.isEmpty()) {
            ObjectNode metrics = out.putObject("ItemCollectionMetrics");
            for (String t : order) {
                if (collections.containsKey(t)) {
                    metrics.set(t, collections.get(t));
                }
            }
        }
        return new ClusterRouter.Reply(200, BatchSpread.bytes(out));
    }

    /** The tables of the request's actions, in the request's order. */
    private static <G> List<String> tablesInOrder(List<Share<G>> shares) {
        int n = shares.stream().mapToInt(s -> s.positions().length).sum();
        String[] at = new String[n];
        for (Share<G> s : shares) {
            for (int j = 0; j < s.positions().length; j++) {
                at[s.positions()[j]] = s.tables()[j];
            }
        }
        return Arrays.asList(at);
    }

    /** A refusal of the request, a table's or a key's, the transaction's as it is. */
    private static final int REFUSED = 1;
    /** Two actions on one item. */
    private static final int REPEATED = 2;
    /** More than 4 MB. */
    private static final int TOO_LARGE = 3;
    /** The token used before with other parameters, or by a run not ended yet (a group's refusal). */
    private static final int TOKEN = 4;
    /** A cancellation for keys of the wrong shape, before anything ran (after the checks above, on a single node). */
    private static final int KEYS_CANCELLED = 5;
    /** A cancellation for a conflict: another transaction holds an item. */
    private static final int CONFLICT = 6;
    /** A cancellation for throttled items. */
    private static final int THROTTLED = 7;
    /** A cancellation for failed conditions and writes that cannot apply. */
    private static final int PLANNED = 8;

    /**
     * The answer when not every group prepared, as a single node would answer, which checks in stages: every action's
     * table and item, one action per item, the 4 MB (refusals), keys of the wrong shape, then conflicts, then
     * capacity, then each item's condition and write (cancellations). The lowest stage any group answered is the
     * transaction's: a refusal the one of the request's first action refused, cancellations of that stage merged in
     * the actions' places (a conflict the first one's alone). With none of those (a group did
     * not answer), a 503: nothing was written.
     */
    static <G> ClusterRouter.Reply refusal(List<Share<G>> shares, List<ClusterRouter.Reply> prepared, int n) {
        List<int[]> positions = shares.stream().map(Share::positions).toList();
        int[] stage = TransactSpread.stages(prepared, positions, TransactWriteSpread::stage);
        int lowest = Arrays.stream(stage).min().orElse(Integer.MAX_VALUE);
        if (lowest == Integer.MAX_VALUE) {
            return BatchSpread.unavailable("a Raft group of the transaction's tables did not answer; send it again");
        }
        if (lowest == REFUSED || lowest == REPEATED || lowest == TOO_LARGE || lowest == TOKEN) {
            ClusterRouter.Reply first = TransactSpread.firstRefusal(prepared, positions, stage, lowest);
            ObjectNode error = BatchSpread.object(first.body());
            if (error == null || error.remove(TransactWriteItemsHandler.Prepare.REFUSED_AT) == null) {
                return first;
            }
            return new ClusterRouter.Reply(first.status(), BatchSpread.bytes(error)); // the mark is for here alone
        }
        ArrayNode reasons = JSON.createArrayNode();
        for (int j = 0; j < n; j++) {
            reasons.addObject().put("Code", Transactions.NONE);
        }
        int conflict = Integer.MAX_VALUE;
        for (int i = 0; i < shares.size(); i++) {
            if (stage[i] != lowest) {
                continue;
            }
            JsonNode given = BatchSpread.object(prepared.get(i).body()).get("CancellationReasons");
            int[] at = shares.get(i).positions();
            for (int j = 0; j < at.length; j++) {
                reasons.set(at[j], given.get(j));
                if (Transactions.TRANSACTION_CONFLICT.equals(
                        given.get(j).path("Code").asText())) {
                    conflict = Math.min(conflict, at[j]);
                }
            }
        }
        if (conflict != Integer.MAX_VALUE) {
            return reply(TransactionRequests.cancelled(Transactions.conflictOn(n, conflict)));
        }
        List<String> codes = new ArrayList<>(n);
        reasons.forEach(r -> codes.add(r.path("Code").asText()));
        // The reasons as each group gave them (a failed condition's Item among them), in the words of cancelled().
        return reply(new ApiException(
                ErrorCode.TRANSACTION_CANCELED,
                "Transaction cancelled, please refer cancellation reasons for specific reasons " + codes,
                Map.of("CancellationReasons", JSON.convertValue(reasons, List.class))));
    }

    private static final String CANCELLED = "TransactionCanceledException";

    /** The stage of a group's refusal {@code error} of its {@code actions} actions ({@link #refusal}). */
    private static int stage(ObjectNode error, int actions) {
        if (CANCELLED.equals(BatchSpread.typeOf(error))) {
            JsonNode reasons = error.get("CancellationReasons");
            if (reasons == null || !reasons.isArray() || reasons.size() != actions) {
                return REFUSED; // not a part's cancellation: not reached
            }
            if (error.path(TransactWriteItemsHandler.Prepare.EARLY).asBoolean()) {
                return KEYS_CANCELLED;
            }
            int stage = PLANNED;
            for (JsonNode r : reasons) {
                String code = r.path("Code").asText();
                if (code.equals(Transactions.TRANSACTION_CONFLICT)) {
                    return CONFLICT;
                }
                if (code.equals(Transactions.THROTTLING_ERROR)
                        || code.equals(Transactions.PROVISIONED_THROUGHPUT_EXCEEDED)) {
                    stage = THROTTLED;
                }
            }
            return stage;
        }
        String type = BatchSpread.typeOf(error);
        if ("IdempotentParameterMismatchException".equals(type) || "TransactionInProgressException".equals(type)) {
            return TOKEN;
        }
        return TransactSpread.refusedStage(error, REPEATED, TOO_LARGE, REFUSED);
    }

    private static ClusterRouter.Reply reply(ApiException e) {
        return new ClusterRouter.Reply(e.code().httpStatus(), ErrorBody.of(e));
    }
}
