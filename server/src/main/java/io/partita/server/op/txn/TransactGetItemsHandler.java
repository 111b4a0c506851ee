package io.partita.server.op.txn;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.protocol.message.TransactGetItemsOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.Transactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * TransactGetItems: up to 100 items of several tables read at one moment, none of them half way through a write
 * transaction (which cancels the read with {@code TransactionConflict}), at two read units per 4 KB each.
 */
public final class TransactGetItemsHandler implements OperationHandler<TransactGetItemsInput, TransactGetItemsOutput> {
    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public TransactGetItemsHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<TransactGetItemsInput> inputType() {
        return TransactGetItemsInput.class;
    }

    @Override
    public TransactGetItemsOutput handle(RequestContext context, TransactGetItemsInput in) {
        return read(context, in, null).out();
    }

    /** What a read answers, and the size of the items it read before their projections (the 4 MB limit's). */
    private record Read(TransactGetItemsOutput out, long itemBytes) {}

    /**
     * Checks the request as a whole, as it is checked before any table is looked at: its members, and each Get's
     * projection. A cluster that runs one TransactGetItems over several Raft groups checks it so before any group
     * reads; returns each Get's projection (null for none).
     *
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    public static List<List<Path>> checkShape(TransactGetItemsInput in, ItemExpressions expressions) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("transactItems", in.transactItems())
                .size("transactItems", in.transactItems(), 1, TransactionRequests.MAX_ITEMS);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        List<TransactGetItemsInput.TransactGetItem> items = in.transactItems();
        if (items != null && items.size() <= TransactionRequests.MAX_ITEMS) {
            for (int i = 0; i < items.size(); i++) {
                String path = "transactItems." + (i + 1) + ".member";
                var item = items.get(i);
                c.notNull(path, item);
                if (item == null) {
                    continue;
                }
                c.notNull(path + ".get", item.get());
                if (item.get() != null) {
                    TransactionRequests.tableName(c, path + ".get", item.get().tableName());
                    c.notNull(path + ".get.key", item.get().key());
                }
            }
        }
        c.check();
        List<List<Path>> projections = new ArrayList<>(items.size());
        for (var item : items) {
            TransactGetItemsInput.Get g = item.get();
            ItemExpressions.placeholdersNeedExpressions(
                    g.projectionExpression() != null, g.expressionAttributeNames(), null);
            List<Path> projection = null;
            if (g.projectionExpression() != null) {
                ExpressionResolver resolver = new ExpressionResolver(g.expressionAttributeNames(), null);
                projection = expressions.projection(resolver, g.projectionExpression());
                resolver.checkAllUsed();
            }
            projections.add(projection);
        }
        return projections;
    }

    /** Reads as {@link #handle} does; with a {@code hold}, holds the items as that read's ({@link Held}). */
    private Read read(RequestContext context, TransactGetItemsInput in, String hold) {
        List<List<Path>> projections = checkShape(in, expressions);
        List<TransactGetItemsInput.TransactGetItem> items = in.transactItems();
        List<Transactions.ReadAction> reads = new ArrayList<>(items.size());
        List<Transactions.Reason> early = new ArrayList<>(items.size());
        boolean refused = false;
        for (var item : items) {
            Table table = ItemRequests.table(context, storage, item.get().tableName());
            try {
                PrimaryKey key = table.metadata().keySchema().keyOf(item.get().key());
                reads.add(new Transactions.ReadAction(table, key));
                early.add(Transactions.Reason.OK);
            } catch (ApiException e) {
                if (TransactionRequests.requestError(e)) {
                    throw e;
                }
                // A key of the wrong shape cancels the read rather than refusing the request (DynamoDB answers an
                // empty Key so).
                reads.add(null);
                early.add(TransactionRequests.validationError(e));
                refused = true;
            }
        }
        if (refused) {
            throw TransactionRequests.cancelled(early);
        }
        TransactionRequests.checkDistinct(reads.stream()
                .map(r -> new TransactionRequests.ItemId(r.table(), r.key()))
                .toList());
        // A transaction's reads are strongly consistent.
        long term = storage.awaitConsistentRead();
        Transactions transactions = storage.writes().transactions();
        Transactions.ReadResult result =
                hold == null ? transactions.read(reads) : transactions.holdRead(hold, term, reads);
        if (!result.read()) {
            throw TransactionRequests.cancelled(result.reasons());
        }
        try {
            return answer(in, projections, reads, result);
        } catch (RuntimeException | Error e) {
            if (hold != null) {
                transactions.dropHold(hold); // refused after all (its items too large): nobody releases it
            }
            throw e;
        }
    }

    private static Read answer(
            TransactGetItemsInput in,
            List<List<Path>> projections,
            List<Transactions.ReadAction> reads,
            Transactions.ReadResult result) {
        long total = 0;
        List<TransactGetItemsOutput.ItemResponse> responses = new ArrayList<>(reads.size());
        TransactionRequests.Units units = new TransactionRequests.Units();
        for (int i = 0; i < reads.size(); i++) {
            Map<String, AttributeValue> found = result.items().get(i);
            units.add(reads.get(i).table().metadata().name(), result.units()[i]);
            if (found != null) {
                total += ItemSize.of(found);
                List<Path> projection = projections.get(i);
                found = projection == null ? found : ProjectionApplier.project(found, projection);
            }
            responses.add(new TransactGetItemsOutput.ItemResponse(found));
        }
        // "The aggregate size of the items in the transaction exceeded 4 MB": the whole request is refused. No
        // answer of DynamoDB's with this message has been published; the write side's wording is used.
        TransactionRequests.checkPayload(total);
        return new Read(
                new TransactGetItemsOutput(units.consumed(in.returnConsumedCapacity(), true), responses), total);
    }

    private static void requireHold(String hold) {
        TransactionRequests.requireId("Hold", hold);
    }

    /**
     * Partita's own {@code Partita.HoldTransactGetItems}: one Raft group's part of a TransactGetItems over several
     * ({@code --cluster-table-groups}, docs/CLUSTER.md), read as {@link #handle} reads it, its items held as read
     * {@code Hold}'s from just before the read until {@link Release} ({@link Transactions#holdRead}). It answers the
     * read, and the size of its items before their projections, which the 4 MB limit counts over the whole request.
     */
    public static final class Held implements OperationHandler<Held.Input, Held.Output> {
        /** TransactGetItems' members and the hold's id. */
        public record Input(
                String hold,
                List<TransactGetItemsInput.TransactGetItem> transactItems,
                String returnConsumedCapacity) {}

        public record Output(
                List<io.partita.protocol.message.ConsumedCapacity> consumedCapacity,
                List<TransactGetItemsOutput.ItemResponse> responses,
                long itemBytes) {}

        private final TransactGetItemsHandler read;

        public Held(StorageEngine storage, ItemExpressions expressions) {
            this.read = new TransactGetItemsHandler(storage, expressions);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            return hold(context.as(OperationRegistry.DYNAMODB_PREFIX + "TransactGetItems"), in);
        }

        /** Reads and holds as {@link #handle} does, its messages naming {@code context}'s operation. */
        public Output hold(RequestContext context, Input in) {
            requireHold(in.hold());
            Read r = read.read(
                    context, new TransactGetItemsInput(in.transactItems(), in.returnConsumedCapacity()), in.hold());
            return new Output(r.out().consumedCapacity(), r.out().responses(), r.itemBytes());
        }
    }

    /**
     * Partita's own {@code Partita.ReleaseTransactGetItems}: ends the hold of a {@link Held} read ({@link
     * Transactions#release}), on the leader that made it, after its barrier. {@code Held} says whether none of the
     * read's items changed meanwhile ({@code INTACT}: only then is the whole read one moment's), one did ({@code
     * BROKEN}), or that is not known ({@code UNKNOWN}: another leader, say).
     */
    public static final class Release implements OperationHandler<Release.Input, Release.Output> {
        /** The hold's id; its request carries the read's other members too, by which it reaches the read's group. */
        public record Input(String hold) {}

        /** {@code INTACT}, {@code BROKEN} or {@code UNKNOWN}: a {@link Transactions.HoldOutcome}. */
        public record Output(String held) {}

        private final StorageEngine storage;

        public Release(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            requireHold(in.hold());
            long term = storage.awaitConsistentRead();
            return new Output(
                    storage.writes().transactions().release(in.hold(), term).name());
        }
    }
}
