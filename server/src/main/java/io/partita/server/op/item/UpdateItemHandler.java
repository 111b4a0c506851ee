package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.UpdateApplier;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.expr.legacy.LegacyUpdates;
import io.partita.protocol.message.UpdateItemInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.op.CapacityGate;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.Written;
import java.util.List;
import java.util.Map;

/**
 * UpdateItem: applies an update expression (or legacy AttributeUpdates) under an optional condition, creating the
 * item when it is absent, atomically with respect to every other write to the item.
 */
public final class UpdateItemHandler implements OperationHandler<UpdateItemInput, WriteItemOutput> {
    private static final UpdateExpression NOTHING = new UpdateExpression(List.of(), List.of(), List.of(), List.of());
    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public UpdateItemHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<UpdateItemInput> inputType() {
        return UpdateItemInput.class;
    }

    /** Bounded: one item written. */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public WriteItemOutput handle(RequestContext context, UpdateItemInput in) {
        ItemRequests.constrainWrite(
                in.tableName(),
                "key",
                in.key(),
                in.returnValues(),
                in.returnConsumedCapacity(),
                in.returnItemCollectionMetrics(),
                in.returnValuesOnConditionCheckFailure(),
                in.conditionalOperator());
        ItemExpressions.noMixing(
                new Object[] {
                    "AttributeUpdates", in.attributeUpdates(),
                    "Expected", in.expected(),
                    "ConditionalOperator", in.conditionalOperator()
                },
                new Object[] {"UpdateExpression", in.updateExpression(), "ConditionExpression", in.conditionExpression()
                });
        ItemExpressions.placeholdersNeedExpressions(
                in.updateExpression() != null || in.conditionExpression() != null,
                in.expressionAttributeNames(),
                in.expressionAttributeValues());
        ExpressionResolver resolver =
                new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
        UpdateExpression update = in.updateExpression() != null
                ? resolver.resolve(expressions.cache().update(in.updateExpression()))
                : in.attributeUpdates() != null ? LegacyUpdates.attributeUpdates(in.attributeUpdates()) : NOTHING;
        Condition condition =
                expressions.writeCondition(resolver, in.conditionExpression(), in.expected(), in.conditionalOperator());
        resolver.checkAllUsed();

        Table table = ItemRequests.table(context, storage, in.tableName());
        KeySchema schema = table.metadata().keySchema();
        PrimaryKey key = schema.keyOf(in.key());
        List<Path> targets = update.targets();
        for (Path target : targets) {
            for (KeySchema.KeyAttribute k : schema.attributes()) {
                if (target.head().name().equals(k.name())) {
                    throw ApiException.invalidParameter(
                            "Cannot update attribute " + k.name() + ". This attribute is part of the key");
                }
            }
        }
        Map<String, AttributeValue> keyItem = schema.keyMap(key);
        Written written = ItemRequests.write(
                context,
                storage,
                table,
                key,
                0,
                old -> ItemExpressions.checked(condition, old, in.returnValuesOnConditionCheckFailure(), () -> {
                    if (old == null
                            && !update.isEmpty()
                            && update.set().isEmpty()
                            && update.add().isEmpty()) {
                        // Only removals, from an item that is not there: nothing is created, and a nested path
                        // is not an error (ScyllaDB's alternator tests against DynamoDB). An update with no action
                        // at all does create the item, key only (dynalite's tests against DynamoDB).
                        return new WriteDecision.Keep();
                    }
                    Map<String, AttributeValue> next = in.attributeUpdates() != null
                            ? UpdateApplier.apply(
                                    update, old != null ? old : keyItem, "Type mismatch for attribute to update")
                            : UpdateApplier.apply(update, old != null ? old : keyItem);
                    if (ItemSize.of(next) > ItemSize.MAX_ITEM_BYTES) {
                        throw ApiException.validation("Item size to update has exceeded the maximum allowed size");
                    }
                    return new WriteDecision.Put(next);
                }));
        return new WriteItemOutput(
                returned(in.returnValues(), written.outcome(), targets),
                CapacityGate.consumed(
                        in.returnConsumedCapacity(), table.metadata().name(), written),
                ItemRequests.collectionMetrics(in.returnItemCollectionMetrics(), table, key, written));
    }

    private static Map<String, AttributeValue> returned(String mode, WriteOutcome outcome, List<Path> targets) {
        if (mode == null) {
            return null;
        }
        Map<String, AttributeValue> result = switch (mode) {
            case "ALL_OLD" -> outcome.oldItem();
            case "ALL_NEW" -> outcome.newItem();
            case "UPDATED_OLD" ->
                outcome.oldItem() == null ? null : ProjectionApplier.project(outcome.oldItem(), targets);
            case "UPDATED_NEW" -> ProjectionApplier.project(outcome.newItem(), targets);
            default -> null;
        };
        return result == null || result.isEmpty() ? null : result;
    }
}
