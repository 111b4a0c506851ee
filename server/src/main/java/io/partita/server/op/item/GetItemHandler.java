package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.GetItemInput;
import io.partita.protocol.message.GetItemOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.item.ItemCache;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.StoredItem;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Map;

/**
 * GetItem, with {@code ProjectionExpression} (document paths) or legacy {@code AttributesToGet}. Reads are
 * always current in Partita, so {@code ConsistentRead} only changes the capacity charged.
 */
public final class GetItemHandler implements OperationHandler<GetItemInput, GetItemOutput> {
    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public GetItemHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<GetItemInput> inputType() {
        return GetItemInput.class;
    }

    /** Bounded: one item read. */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public GetItemOutput handle(RequestContext context, GetItemInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.notNull("key", in.key());
        c.size("attributesToGet", in.attributesToGet(), 1, Integer.MAX_VALUE);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        c.check();
        if (in.attributesToGet() != null && in.projectionExpression() != null) {
            throw ApiException.validation("Can not use both expression and non-expression parameters in the same"
                    + " request: Non-expression parameters: {AttributesToGet} Expression parameters:"
                    + " {ProjectionExpression}");
        }
        ItemExpressions.placeholdersNeedExpressions(
                in.projectionExpression() != null, in.expressionAttributeNames(), null);
        List<Path> projection = null;
        if (in.projectionExpression() != null) {
            ExpressionResolver resolver = new ExpressionResolver(in.expressionAttributeNames(), null);
            projection = expressions.projection(resolver, in.projectionExpression());
            resolver.checkAllUsed();
        } else if (in.attributesToGet() != null) {
            projection = in.attributesToGet().stream().map(Path::of).toList();
        }
        Table table = ItemRequests.table(context, storage, in.tableName());
        PrimaryKey key = table.metadata().keySchema().keyOf(in.key());
        ItemKeyEncoder.EncodedKey encoded =
                ItemKeyEncoder.encode(table.metadata().keySchema(), key);
        io.partita.storage.table.HashRange.require(table.metadata(), encoded.hash());
        Partition partition = CapacityGate.admit(context, table, encoded.hash(), CapacityKind.READ, key.partition());
        boolean consistent = Boolean.TRUE.equals(in.consistentRead());
        if (consistent) {
            storage.awaitConsistentRead();
        }
        ItemCache.Entry stored = storage.getStored(table, encoded);
        // Checked again once read: a range move may have narrowed the range meanwhile, and then switched the key to
        // another group, which may have taken a newer write of it since (docs/CLUSTER.md, "Moving a range").
        storage.requireServedAfterRead(table, encoded.hash());
        // The size comes with the stored item (the cache keeps it): no walk over the item to charge it.
        double units = CapacityUnits.read(stored == null ? 0 : stored.itemSize(), consistent);
        CapacityGate.charge(table, partition, CapacityKind.READ, units, encoded.hash(), key.partition());
        Map<String, AttributeValue> item = null;
        if (stored != null) {
            // Without a projection the stored bytes go straight to the response's JSON, never decoded.
            item = projection == null
                    ? new StoredItem(stored.stored())
                    : ProjectionApplier.project(ItemCodec.decode(stored.stored()), projection);
        }
        return new GetItemOutput(
                item,
                CapacityGate.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), units));
    }
}
