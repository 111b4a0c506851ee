package io.partita.server.op.txn;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.UpdateApplier;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.protocol.message.TransactWriteItemsInput.TransactWriteItem;
import io.partita.protocol.message.TransactWriteItemsOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexEntries;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.PreparedTransactions;
import io.partita.storage.write.TransactionTokens;
import io.partita.storage.write.Transactions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * TransactWriteItems: up to 100 Puts, Updates, Deletes and ConditionChecks over several tables, all or nothing,
 * through the storage's {@link Transactions}. The request is checked in DynamoDB's order before anything runs:
 * members, expressions, tables, the one-action-per-item rule, the 4 MB total; errors that depend on an item's key
 * types become the transaction's cancellation reasons, as DynamoDB reports them.
 */
public final class TransactWriteItemsHandler
        implements OperationHandler<TransactWriteItemsInput, TransactWriteItemsOutput> {
    private final StorageEngine storage;
    private final ItemExpressions expressions;
    private final Clock clock;
    /** The operation whose tokens these are, in the store ({@link TransactionTokens}). */
    private final String scope;

    /** Whether the tokens are kept in the store too (a handler with a storage and a clock). */
    private final boolean durable;

    private final IdempotencyTokens<Committed> tokens;

    /**
     * What a repeat of a committed request needs: its items, to be read again (each by its table's name and id, so
     * that a table made again under the name is not taken for it), the first answer's metrics, and for a part of a
     * transaction over several groups that transaction's id. Kept with its token in the store, as JSON.
     */
    public record Committed(
            List<Item> items,
            Map<String, List<io.partita.protocol.message.ItemCollectionMetrics>> itemCollectionMetrics,
            String transaction) {
        /** What a transaction in one group commits; {@code transaction} names a part's over several. */
        public Committed(
                List<Item> items,
                Map<String, List<io.partita.protocol.message.ItemCollectionMetrics>> itemCollectionMetrics) {
            this(items, itemCollectionMetrics, null);
        }

        /** An item the request wrote or checked. */
        public record Item(String table, String tableId, AttributeValue partition, AttributeValue sort) {}

        static Committed decode(byte[] json) {
            return io.partita.protocol.json.DynamoJson.decode(json, Committed.class);
        }

        byte[] encode() {
            return io.partita.protocol.json.DynamoJson.encode(this);
        }
    }

    /** The handler of TransactWriteItems, its tokens kept in the store under its name. */
    public TransactWriteItemsHandler(StorageEngine storage, ItemExpressions expressions, Clock clock) {
        this(storage, expressions, clock, "TransactWriteItems");
    }

    /**
     * A handler whose tokens are kept in the store under {@code scope} (an operation's name: ExecuteTransaction keeps
     * its own), and in memory alone without a storage or a clock.
     */
    public TransactWriteItemsHandler(StorageEngine storage, ItemExpressions expressions, Clock clock, String scope) {
        this.storage = storage;
        this.expressions = expressions;
        this.clock = clock;
        this.scope = scope;
        this.durable = storage != null && clock != null;
        this.tokens = !durable
                ? new IdempotencyTokens<>(clock)
                : new IdempotencyTokens<>(clock, new IdempotencyTokens.Durable<>() {
                    @Override
                    public IdempotencyTokens.Stored<Committed> find(String token) {
                        TransactionTokens.Token t = storage.writes().tokens().find(scope, token);
                        return t == null
                                ? null
                                : new IdempotencyTokens.Stored<>(
                                        t.digest(), t.completedAt(), Committed.decode(t.result()));
                    }

                    @Override
                    public void settle() {
                        storage.writes().tokens().settle();
                    }
                });
    }

    @Override
    public Class<TransactWriteItemsInput> inputType() {
        return TransactWriteItemsInput.class;
    }

    @Override
    public TransactWriteItemsOutput handle(RequestContext context, TransactWriteItemsInput in) {
        List<Planned> planned = check(context, in, -1);
        String token = in.clientRequestToken();
        byte[] digest = null;
        IdempotencyTokens.Run<Committed> run = null;
        if (token != null) {
            digest = IdempotencyTokens.digest(in.idempotentParameters());
            run = tokens.begin(token, digest);
            if (run.repeated() != null) {
                return TransactionRequests.repeat(storage, run.repeated(), in.returnConsumedCapacity());
            }
        }
        TransactWriteItemsOutput out;
        Committed[] committed = new Committed[1];
        try {
            out = run(in, planned, token == null || !durable ? null : record(in, planned, token, digest, committed));
        } catch (ApiException | io.partita.storage.WouldBlock e) {
            // Refused or cancelled, or to run again off the event loop: nothing was written, so the token is free.
            if (run != null) {
                tokens.abandon(run);
            }
            throw e;
        } catch (RuntimeException | Error e) {
            if (run != null) {
                if (e instanceof io.partita.storage.StorageUnavailableException u && !u.mayHaveBeenWritten()) {
                    // Known not written (a cancellation a cluster's leader could not confirm, a write taken back
                    // before it was proposed): free as after a refusal.
                    tokens.abandon(run);
                } else {
                    // A storage failure that may have committed: the token stays in progress, and a repeat settles it
                    // (its record is in the store exactly when the transaction committed).
                    tokens.unknown(run);
                }
            }
            throw e;
        }
        if (run != null) {
            tokens.complete(
                    run,
                    committed[0] != null ? committed[0] : new Committed(items(planned), out.itemCollectionMetrics()));
        }
        return out;
    }

    /**
     * The token record of a transaction: made as its batch is built, from its item collections' sizes; {@code
     * committed} gets what it records.
     */
    private TransactionTokens.Recorder record(
            TransactWriteItemsInput in, List<Planned> planned, String token, byte[] digest, Committed[] committed) {
        return new TransactionTokens.Recorder() {
            @Override
            public String scope() {
                return scope;
            }

            @Override
            public String token() {
                return token;
            }

            @Override
            public TransactionTokens.Token record(long[] collectionBytes) {
                List<Transactions.WriteAction> actions = new ArrayList<>(planned.size());
                for (Planned p : planned) {
                    actions.add(new Transactions.WriteAction(p.table(), p.key(), null, p.check()));
                }
                committed[0] = new Committed(
                        items(planned),
                        TransactionRequests.collectionMetrics(
                                in.returnItemCollectionMetrics(), actions, i -> collectionBytes[i]));
                return new TransactionTokens.Token(scope, token, digest, clock.millis(), committed[0].encode());
            }
        };
    }

    private static List<Committed.Item> items(List<Planned> planned) {
        List<Committed.Item> items = new ArrayList<>(planned.size());
        for (Planned p : planned) {
            items.add(new Committed.Item(
                    p.table().metadata().name(),
                    p.table().metadata().id(),
                    p.key().partition(),
                    p.key().sort()));
        }
        return items;
    }

    /**
     * Checks the request as a whole, as it is checked before any table is looked at: its members, each action's one
     * member, its expressions. A cluster that runs one TransactWriteItems over several Raft groups checks it so
     * before any group prepares its part.
     *
     * @return the size the 4 MB limit counts: each Put's item, each other action's key
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    public static long checkShape(TransactWriteItemsInput in, ItemExpressions expressions) {
        long total = 0;
        for (Action a : new TransactWriteItemsHandler(null, expressions, null).parsed(in)) {
            total += ItemSize.of(a.keyOrItem());
        }
        return total;
    }

    /** The request's members, each action's one member, and its expressions, checked and parsed in that order. */
    private List<Action> parsed(TransactWriteItemsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.length("clientRequestToken", in.clientRequestToken(), 1, 36);
        c.notNull("transactItems", in.transactItems())
                .size("transactItems", in.transactItems(), 1, TransactionRequests.MAX_ITEMS);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        c.enumValue(
                "returnItemCollectionMetrics",
                in.returnItemCollectionMetrics(),
                ItemRequests.RETURN_ITEM_COLLECTION_METRICS);
        List<TransactWriteItem> items = in.transactItems();
        if (items != null && items.size() <= TransactionRequests.MAX_ITEMS) {
            for (int i = 0; i < items.size(); i++) {
                constrain(c, "transactItems." + (i + 1) + ".member", items.get(i));
            }
        }
        c.check();
        for (TransactWriteItem item : items) {
            int actions = count(item.conditionCheck(), item.put(), item.delete(), item.update());
            if (actions == 0) {
                throw ApiException.validation(
                        "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request");
            }
            if (actions > 1) {
                throw ApiException.validation("TransactItems can only contain one of Check, Put, Update or Delete");
            }
        }
        List<Action> parsed = new ArrayList<>(items.size());
        for (TransactWriteItem item : items) {
            parsed.add(parse(item));
        }
        return parsed;
    }

    /**
     * Every check of the request, in DynamoDB's order: its shape, its tables and keys, one action per item, the 4 MB
     * ({@code payload}: the whole request's size when this is one group's part of it, else -1).
     */
    private List<Planned> check(RequestContext context, TransactWriteItemsInput in, long payload) {
        return check(context, in, payload, new int[1]);
    }

    /** As {@link #check(RequestContext, TransactWriteItemsInput, long)}; {@code at[0]}: the action last checked. */
    private List<Planned> check(RequestContext context, TransactWriteItemsInput in, long payload, int[] at) {
        List<Action> parsed = parsed(in);
        List<Planned> planned = new ArrayList<>(parsed.size());
        for (int i = 0; i < parsed.size(); i++) {
            at[0] = i;
            Action a = parsed.get(i);
            planned.add(plan(a, ItemRequests.table(context, storage, a.tableName())));
        }
        at[0] = -1;
        TransactionRequests.checkDistinct(planned.stream()
                .filter(p -> p.key() != null)
                .map(p -> new TransactionRequests.ItemId(p.table(), p.key()))
                .toList());
        long total = 0;
        for (Planned p : planned) {
            total += p.size();
        }
        TransactionRequests.checkPayload(payload >= 0 ? payload : total);
        return planned;
    }

    private TransactWriteItemsOutput run(
            TransactWriteItemsInput in, List<Planned> planned, TransactionTokens.Recorder token) {
        List<Transactions.WriteAction> actions = actions(planned);
        Transactions.WriteResult result = storage.writes().transactions().writeRecorded(actions, token);
        if (!result.committed()) {
            throw TransactionRequests.cancelled(result.reasons());
        }
        return TransactionRequests.written(
                in.returnConsumedCapacity(), in.returnItemCollectionMetrics(), actions, result.written());
    }

    /** The actions to run; a key of the wrong shape cancels the transaction before anything runs. */
    private static List<Transactions.WriteAction> actions(List<Planned> planned) {
        List<Transactions.Reason> early = new ArrayList<>(planned.size());
        boolean refused = false;
        for (Planned p : planned) {
            early.add(p.refusal() == null ? Transactions.Reason.OK : p.refusal());
            refused |= p.refusal() != null;
        }
        if (refused) {
            throw TransactionRequests.cancelled(early);
        }
        return planned.stream()
                .map(p -> new Transactions.WriteAction(p.table(), p.key(), p.write(), p.check()))
                .toList();
    }

    private static void requireTransaction(String id) {
        TransactionRequests.requireId("Transaction", id);
    }

    /**
     * Partita's own {@code Partita.PrepareTransactWriteItems}: one Raft group's part of a TransactWriteItems over
     * several ({@code --cluster-table-groups}, docs/CLUSTER.md), checked as {@link #handle} checks a request (the 4 MB
     * over the whole request's {@code Payload}) and prepared ({@link PreparedTransactions#prepare}): a cancellation
     * as TransactWriteItems answers one; else its record, with this body, committed in the group, and its items held
     * until {@link Commit} or {@link Abort}. {@code Decides}: this group keeps the decision; {@code DecidingTable}
     * names a table of the group that does, {@code DecidingGroup} that group's id, and {@code Deadline} (epoch
     * milliseconds) when the part may be resolved without its coordinator: all for the resolver of a part left
     * behind. {@code Participants} names every group's id, which the deciding group keeps with a decision COMMITTED
     * (and tells them before it closes). Each part carries the request's {@code ClientRequestToken} ({@code Token},
     * and its request's digest, {@code TokenDigest}, in base64), recorded with the part and committed with it: a
     * token this group keeps with other parameters is refused ({@code IdempotentParameterMismatchException}), and one
     * the deciding group keeps with these answers its part as a repeat ({@code Repeated}, with the units of reading
     * its items again).
     */
    public static final class Prepare implements OperationHandler<Prepare.Input, Prepare.Output> {
        public record Input(
                String transaction,
                Boolean decides,
                String decidingTable,
                String decidingGroup,
                List<String> participants,
                Long deadline,
                Long payload,
                List<TransactWriteItem> transactItems,
                String returnConsumedCapacity,
                String returnItemCollectionMetrics,
                String region,
                String token,
                String tokenDigest,
                String tokenScope) {
            TransactWriteItemsInput request() {
                return new TransactWriteItemsInput(
                        transactItems, returnConsumedCapacity, returnItemCollectionMetrics, null);
            }
        }

        /**
         * Prepared, or {@code Repeated} (its token kept here: nothing prepared, the units and metrics a repeat answers,
         * and the first run's {@code Transaction}); {@code PartPayload}: the part's own size toward the 4 MB, which
         * the coordinator sums.
         */
        public record Output(
                Boolean prepared,
                Long partPayload,
                Boolean repeated,
                List<io.partita.protocol.message.ConsumedCapacity> consumedCapacity,
                Map<String, List<io.partita.protocol.message.ItemCollectionMetrics>> itemCollectionMetrics,
                String transaction) {}

        /**
         * A member of a part's cancellation that says it came before anything ran (keys of the wrong shape): the
         * coordinator ranks it as a single node would. Only the coordinator sees it.
         */
        public static final String EARLY = "CancelledBeforeRunning";

        /**
         * A member of a part's refusal of one of its actions (its table, its item): the action's place in the part,
         * by which the coordinator answers the refusal of the request's first action refused. Only it sees it.
         */
        public static final String REFUSED_AT = "RefusedAction";

        /**
         * A member of a part's answer (prepared or cancelled) that gives the part's own size toward the 4 MB: the
         * coordinator of an ExecuteTransaction, whose size only its groups know, sums them. Only it sees it.
         */
        public static final String PART_PAYLOAD = "PartPayload";

        private final TransactWriteItemsHandler writes;

        public Prepare(StorageEngine storage, ItemExpressions expressions) {
            this.writes = new TransactWriteItemsHandler(storage, expressions, null);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            return prepare(context.as(OperationRegistry.DYNAMODB_PREFIX + "TransactWriteItems"), in);
        }

        /**
         * Prepares as {@link #handle} does, its messages naming {@code as}'s operation. Without a {@code Payload} the 4
         * MB counts this part alone (an ExecuteTransaction's: its size is known only once its group has read its
         * statements).
         */
        public Output prepare(RequestContext as, Input in) {
            requireTransaction(in.transaction());
            if (in.deadline() == null || (in.payload() != null && in.payload() < 0)) {
                throw ApiException.validation("Deadline is required, and Payload is not negative");
            }
            int[] at = new int[1];
            List<Planned> planned;
            try {
                planned = writes.check(as, in.request(), in.payload() == null ? -1 : in.payload(), at);
            } catch (ApiException refused) {
                if (at[0] < 0) {
                    throw refused;
                }
                Map<String, Object> marked = new java.util.LinkedHashMap<>(refused.extraFields());
                marked.put(REFUSED_AT, at[0]);
                throw new ApiException(refused.code(), refused.getMessage(), marked);
            }
            long size = 0;
            for (Planned p : planned) {
                size += p.size();
            }
            boolean decides = Boolean.TRUE.equals(in.decides());
            byte[] digest = in.token() == null ? null : digestOf(in);
            Runnable claimed = null;
            if (in.token() != null) {
                // After the request's checks and before it runs, as a single node looks at a token. A group that
                // does not decide goes on with a repeat: the deciding group answers it, and this part is aborted.
                try {
                    checkToken(as, in, digest, decides);
                } catch (Kept kept) {
                    return repeat(kept.committed, size, in);
                }
                if (decides) {
                    // Again once its items are claimed: a commit of the same items by the first run, which released
                    // them, wrote the token in its batch.
                    claimed = () -> checkToken(as, in, digest, true);
                }
            }
            List<Transactions.WriteAction> actions;
            try {
                actions = actions(planned);
            } catch (ApiException cancelled) {
                Map<String, Object> marked = new java.util.LinkedHashMap<>(cancelled.extraFields());
                marked.put(EARLY, true);
                marked.put(PART_PAYLOAD, size);
                throw new ApiException(cancelled.code(), cancelled.getMessage(), marked);
            }
            Input recorded = new Input(
                    in.transaction(),
                    decides,
                    in.decidingTable(),
                    in.decidingGroup(),
                    in.participants(),
                    in.deadline(),
                    in.payload(),
                    in.transactItems(),
                    in.returnConsumedCapacity(),
                    in.returnItemCollectionMetrics(),
                    as.region(),
                    in.token(),
                    in.token() != null ? in.tokenDigest() : null,
                    in.token() != null ? as.operation() : null);
            Transactions.WriteResult result;
            try {
                result = writes.storage
                        .writes()
                        .prepared()
                        .prepare(
                                in.transaction(),
                                decides,
                                io.partita.protocol.json.DynamoJson.encode(recorded),
                                actions,
                                claimed);
            } catch (Kept kept) {
                return repeat(kept.committed, size, in);
            }
            if (result.reasons() != null) {
                if (decides && in.token() != null && conflicted(result.reasons()) && running(as, in)) {
                    // As a single node answers a repeat while the first still runs: its items are held by it here.
                    throw IdempotencyTokens.inProgress();
                }
                ApiException cancelled = TransactionRequests.cancelled(result.reasons());
                Map<String, Object> marked = new java.util.LinkedHashMap<>(cancelled.extraFields());
                marked.put(PART_PAYLOAD, size);
                throw new ApiException(cancelled.code(), cancelled.getMessage(), marked);
            }
            return new Output(true, size, null, null, null, null);
        }

        private static boolean conflicted(List<Transactions.Reason> reasons) {
            return reasons.stream().anyMatch(r -> Transactions.TRANSACTION_CONFLICT.equals(r.code()));
        }

        /** Whether a part prepared here carries {@code in}'s token and digest: the first run, not yet ended. */
        private boolean running(RequestContext as, Input in) {
            for (PreparedTransactions.Part p :
                    writes.storage.writes().prepared().prepared()) {
                Input other = io.partita.protocol.json.DynamoJson.decode(p.body(), Input.class);
                if (in.token().equals(other.token())
                        && as.operation().equals(other.tokenScope())
                        && java.util.Objects.equals(in.tokenDigest(), other.tokenDigest())) {
                    return true;
                }
            }
            return false;
        }

        /** A token kept here with the request's digest, found by the deciding group: the first run's commit. */
        private static final class Kept extends RuntimeException {
            private static final long serialVersionUID = 1L;

            final transient Committed committed;

            Kept(Committed committed) {
                super(null, null, false, false);
                this.committed = committed;
            }
        }

        /**
         * Refuses a token this group keeps (within its window) with another digest; throws {@link Kept} for one the
         * deciding group keeps with this one.
         */
        private void checkToken(RequestContext as, Input in, byte[] digest, boolean decides) {
            TransactionTokens.Token kept = writes.storage.writes().tokens().find(as.operation(), in.token());
            if (kept == null || as.clock().millis() - kept.completedAt() >= IdempotencyTokens.WINDOW_MILLIS) {
                return;
            }
            if (!java.util.Arrays.equals(kept.digest(), digest)) {
                throw IdempotencyTokens.mismatch();
            }
            if (decides) {
                throw new Kept(Committed.decode(kept.result()));
            }
        }

        /**
         * The deciding part's answer to a repeat: nothing prepared; the units of reading its items again, and the
         * first run's transaction, whose other parts the coordinator commits before it answers.
         */
        private Output repeat(Committed first, long size, Input in) {
            TransactWriteItemsOutput again =
                    TransactionRequests.repeat(writes.storage, first, in.returnConsumedCapacity());
            return new Output(
                    false, size, true, again.consumedCapacity(), again.itemCollectionMetrics(), first.transaction());
        }

        /** The digest a part's token was sent with ({@code TokenDigest}). */
        private static byte[] digestOf(Input in) {
            if (in.tokenDigest() == null) {
                throw ApiException.validation("TokenDigest is required with Token");
            }
            try {
                return java.util.Base64.getDecoder().decode(in.tokenDigest());
            } catch (IllegalArgumentException e) {
                throw ApiException.validation("TokenDigest is not base64");
            }
        }
    }

    /**
     * Partita's own {@code Partita.CommitTransactWriteItems}: commits this group's prepared part of {@code
     * Transaction} ({@link PreparedTransactions#commit}), its actions read again from the part's record, not from
     * this request (whose actions only bring it to the group). {@code Decision} says how the transaction ended; its
     * units and item collections are this group's share of TransactWriteItems' answer.
     */
    public static final class Commit implements OperationHandler<Commit.Input, Commit.Output> {
        public record Input(String transaction, Boolean decides) {}

        public record Output(
                String decision,
                List<io.partita.protocol.message.ConsumedCapacity> consumedCapacity,
                Map<String, List<io.partita.protocol.message.ItemCollectionMetrics>> itemCollectionMetrics) {}

        private final TransactWriteItemsHandler writes;

        public Commit(StorageEngine storage, ItemExpressions expressions, Clock clock) {
            this.writes = new TransactWriteItemsHandler(storage, expressions, clock);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            requireTransaction(in.transaction());
            boolean decides = Boolean.TRUE.equals(in.decides());
            PreparedTransactions prepared = writes.storage.writes().prepared();
            RequestContext as = context.as(OperationRegistry.DYNAMODB_PREFIX + "TransactWriteItems");
            Prepare.Input[] part = new Prepare.Input[1];
            List<Transactions.WriteAction> actions = new ArrayList<>();
            var ended = prepared.commit(
                    in.transaction(), decides, context.clock().millis(), new PreparedTransactions.ActionsOf() {
                        @Override
                        public TransactionTokens.Recorder token(byte[] body, List<Transactions.WriteAction> read) {
                            Prepare.Input recorded = part[0];
                            if (recorded == null || recorded.token() == null || recorded.tokenScope() == null) {
                                return null;
                            }
                            byte[] digest = Prepare.digestOf(recorded);
                            return new TransactionTokens.Recorder() {
                                @Override
                                public String scope() {
                                    return recorded.tokenScope();
                                }

                                @Override
                                public String token() {
                                    return recorded.token();
                                }

                                @Override
                                public TransactionTokens.Token record(long[] collectionBytes) {
                                    List<Committed.Item> items = new ArrayList<>(read.size());
                                    for (Transactions.WriteAction a : read) {
                                        items.add(new Committed.Item(
                                                a.table().metadata().name(),
                                                a.table().metadata().id(),
                                                a.key().partition(),
                                                a.key().sort()));
                                    }
                                    Committed committed = new Committed(
                                            items,
                                            TransactionRequests.collectionMetrics(
                                                    recorded.returnItemCollectionMetrics(),
                                                    read,
                                                    i -> collectionBytes[i]),
                                            in.transaction());
                                    return new TransactionTokens.Token(
                                            recorded.tokenScope(),
                                            recorded.token(),
                                            digest,
                                            context.clock().millis(),
                                            committed.encode());
                                }
                            };
                        }

                        @Override
                        public List<String> participants(byte[] body) {
                            List<String> named = io.partita.protocol.json.DynamoJson.decode(body, Prepare.Input.class)
                                    .participants();
                            return named == null ? List.of() : named;
                        }

                        @Override
                        public List<Transactions.WriteAction> read(byte[] body, Map<String, String> tableIds) {
                            part[0] = io.partita.protocol.json.DynamoJson.decode(body, Prepare.Input.class);
                            for (Action a : writes.parsed(part[0].request())) {
                                Table table = writes.storage.tables().find(TableNames.resolve(as, a.tableName()));
                                if (table == null
                                        || !table.metadata()
                                                .id()
                                                .equals(tableIds.get(
                                                        table.metadata().name()))) {
                                    continue; // deleted since (or made again): none of its items to write
                                }
                                try {
                                    actions.add(actions(List.of(plan(a, table))).get(0));
                                } catch (ApiException changed) {
                                    // Its table changed since the prepare (a GSI its item does not fit): the commit
                                    // writes the rest, as one whose plan fails at the commit does.
                                    org.slf4j.LoggerFactory.getLogger(TransactWriteItemsHandler.class)
                                            .warn(
                                                    "transaction {}: an action no longer checks at its commit: {}",
                                                    in.transaction(),
                                                    changed.getMessage());
                                }
                            }
                            return actions;
                        }
                    });
            if (ended.result() == null) {
                return new Output(ended.decision().name(), null, null);
            }
            TransactWriteItemsOutput out = TransactionRequests.written(
                    part[0].returnConsumedCapacity(),
                    part[0].returnItemCollectionMetrics(),
                    actions,
                    ended.result().written());
            return new Output(ended.decision().name(), out.consumedCapacity(), out.itemCollectionMetrics());
        }
    }

    /**
     * Partita's own {@code Partita.AbortTransactWriteItems}: aborts this group's part of {@code Transaction}, if any
     * ({@link PreparedTransactions#abort}). With {@code Decides}, the group that keeps the decision answers the one
     * there is ({@code COMMITTED}: nothing aborted) or records ABORTED: how a resolver learns how a part left behind
     * ends.
     */
    public static final class Abort implements OperationHandler<Abort.Input, Abort.Output> {
        public record Input(String transaction, Boolean decides) {}

        public record Output(String decision) {}

        private final StorageEngine storage;

        public Abort(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            requireTransaction(in.transaction());
            return new Output(storage.writes()
                    .prepared()
                    .abort(
                            in.transaction(),
                            Boolean.TRUE.equals(in.decides()),
                            context.clock().millis())
                    .name());
        }
    }

    private static int count(Object... actions) {
        int n = 0;
        for (Object a : actions) {
            n += a == null ? 0 : 1;
        }
        return n;
    }

    /** The member constraints of one action, checked with the request's others before anything else. */
    private static void constrain(ConstraintSet c, String path, TransactWriteItem item) {
        if (item == null) {
            c.notNull(path, null);
            return;
        }
        if (item.conditionCheck() != null) {
            var a = item.conditionCheck();
            String p = path + ".conditionCheck";
            TransactionRequests.tableName(c, p, a.tableName());
            c.notNull(p + ".key", a.key());
            c.notNull(p + ".conditionExpression", a.conditionExpression());
            onFailure(c, p, a.returnValuesOnConditionCheckFailure());
        }
        if (item.delete() != null) {
            var a = item.delete();
            String p = path + ".delete";
            TransactionRequests.tableName(c, p, a.tableName());
            c.notNull(p + ".key", a.key());
            onFailure(c, p, a.returnValuesOnConditionCheckFailure());
        }
        if (item.put() != null) {
            var a = item.put();
            String p = path + ".put";
            TransactionRequests.tableName(c, p, a.tableName());
            c.notNull(p + ".item", a.item());
            onFailure(c, p, a.returnValuesOnConditionCheckFailure());
        }
        if (item.update() != null) {
            var a = item.update();
            String p = path + ".update";
            TransactionRequests.tableName(c, p, a.tableName());
            c.notNull(p + ".key", a.key());
            c.notNull(p + ".updateExpression", a.updateExpression());
            onFailure(c, p, a.returnValuesOnConditionCheckFailure());
        }
    }

    private static void onFailure(ConstraintSet c, String path, String value) {
        c.enumValue(
                path + ".returnValuesOnConditionCheckFailure",
                value,
                ItemRequests.RETURN_VALUES_ON_CONDITION_CHECK_FAILURE);
    }

    private enum Kind {
        PUT,
        UPDATE,
        DELETE,
        CHECK
    }

    /** One action with its expressions parsed and resolved: what can be checked without its table. */
    private record Action(
            Kind kind,
            String tableName,
            Map<String, AttributeValue> keyOrItem,
            Condition condition,
            UpdateExpression update,
            String onFailure) {}

    private Action parse(TransactWriteItem item) {
        if (item.update() != null) {
            var a = item.update();
            UpdateExpression[] update = new UpdateExpression[1];
            Condition condition = condition(
                    a.conditionExpression(),
                    a.expressionAttributeNames(),
                    a.expressionAttributeValues(),
                    resolver -> update[0] = resolver.resolve(expressions.cache().update(a.updateExpression())));
            return new Action(
                    Kind.UPDATE, a.tableName(), a.key(), condition, update[0], a.returnValuesOnConditionCheckFailure());
        }
        // The other three have the same members, with an item instead of a key for a Put.
        var put = item.put();
        var delete = item.delete();
        var check = item.conditionCheck();
        Kind kind = put != null ? Kind.PUT : delete != null ? Kind.DELETE : Kind.CHECK;
        String table = put != null ? put.tableName() : delete != null ? delete.tableName() : check.tableName();
        Map<String, AttributeValue> keyOrItem = put != null ? put.item() : delete != null ? delete.key() : check.key();
        String expression = put != null
                ? put.conditionExpression()
                : delete != null ? delete.conditionExpression() : check.conditionExpression();
        Map<String, String> names = put != null
                ? put.expressionAttributeNames()
                : delete != null ? delete.expressionAttributeNames() : check.expressionAttributeNames();
        Map<String, AttributeValue> values = put != null
                ? put.expressionAttributeValues()
                : delete != null ? delete.expressionAttributeValues() : check.expressionAttributeValues();
        String onFailure = put != null
                ? put.returnValuesOnConditionCheckFailure()
                : delete != null
                        ? delete.returnValuesOnConditionCheckFailure()
                        : check.returnValuesOnConditionCheckFailure();
        return new Action(kind, table, keyOrItem, condition(expression, names, values, null), null, onFailure);
    }

    /**
     * The resolved condition (null if none) of an action whose names and values are {@code names} and {@code
     * values}; {@code alsoResolve} resolves the action's update expression with the same resolver, before the check
     * that every name and value was used.
     */
    private Condition condition(
            String conditionExpression,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            java.util.function.Consumer<ExpressionResolver> alsoResolve) {
        ItemExpressions.placeholdersNeedExpressions(conditionExpression != null || alsoResolve != null, names, values);
        ExpressionResolver resolver = new ExpressionResolver(names, values);
        if (alsoResolve != null) {
            alsoResolve.accept(resolver);
        }
        Condition condition = expressions.writeCondition(resolver, conditionExpression, null, null);
        resolver.checkAllUsed();
        return condition;
    }

    /**
     * An action against its table: its key and write, its size toward the 4 MB, or the cancellation reason a key of
     * the wrong shape gives (DynamoDB cancels the transaction for it rather than refusing the request).
     */
    record Planned(
            Table table,
            PrimaryKey key,
            ConditionalWrite write,
            boolean check,
            long size,
            Transactions.Reason refusal) {}

    private static Planned plan(Action a, Table table) {
        KeySchema schema = table.metadata().keySchema();
        PrimaryKey key;
        try {
            key = a.kind() == Kind.PUT ? schema.keyOfItem(a.keyOrItem()) : schema.keyOf(a.keyOrItem());
        } catch (ApiException e) {
            if (TransactionRequests.requestError(e)) {
                throw e;
            }
            return new Planned(table, null, null, false, 0, TransactionRequests.validationError(e));
        }
        Condition condition = a.condition();
        String onFailure = a.onFailure();
        if (a.kind() == Kind.PUT) {
            Map<String, AttributeValue> item = a.keyOrItem();
            ItemRequests.checkAttributeNames(item);
            long size = ItemSize.of(item);
            if (size > ItemSize.MAX_ITEM_BYTES) {
                throw ApiException.validation("Item size has exceeded the maximum allowed size");
            }
            IndexEntries.check(table.indexes().definitions(), item);
            return new Planned(
                    table,
                    key,
                    old -> ItemExpressions.checked(condition, old, onFailure, () -> new WriteDecision.Put(item, size)),
                    false,
                    size,
                    null);
        }
        long keySize = ItemSize.of(schema.keyMap(key));
        if (a.kind() == Kind.DELETE) {
            return new Planned(
                    table,
                    key,
                    old -> ItemExpressions.checked(condition, old, onFailure, WriteDecision.Delete::new),
                    false,
                    keySize,
                    null);
        }
        if (a.kind() == Kind.CHECK) {
            return new Planned(
                    table,
                    key,
                    old -> ItemExpressions.checked(condition, old, onFailure, WriteDecision.Keep::new),
                    true,
                    keySize,
                    null);
        }
        UpdateExpression update = a.update();
        for (Path target : update.targets()) {
            for (KeySchema.KeyAttribute k : schema.attributes()) {
                if (target.head().name().equals(k.name())) {
                    throw ApiException.invalidParameter(
                            "Cannot update attribute " + k.name() + ". This attribute is part of the key");
                }
            }
        }
        Map<String, AttributeValue> keyItem = schema.keyMap(key);
        return new Planned(
                table,
                key,
                old -> ItemExpressions.checked(condition, old, onFailure, () -> {
                    Map<String, AttributeValue> next = UpdateApplier.apply(update, old != null ? old : keyItem);
                    if (ItemSize.of(next) > ItemSize.MAX_ITEM_BYTES) {
                        throw ApiException.validation("Item size to update has exceeded the maximum allowed size");
                    }
                    return new WriteDecision.Put(next);
                }),
                false,
                keySize,
                null);
    }
}
