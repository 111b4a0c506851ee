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
        storage.awaitConsistentRead();
        Transactions.ReadResult result = storage.writes().transactions().read(reads);
        if (!result.read()) {
            throw TransactionRequests.cancelled(result.reasons());
        }
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
        return new TransactGetItemsOutput(units.consumed(in.returnConsumedCapacity(), true), responses);
    }
}
