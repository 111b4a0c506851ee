package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.legacy.LegacyConditions;
import io.partita.protocol.message.LegacyCondition;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.route.RequestContext;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** What Query and Scan share: Select and projection rules, filters, the start key, and capacity. */
final class ReadRequests {
    static final List<String> SELECT =
            List.of("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT");

    private ReadRequests() {}

    /** The declarative checks Query and Scan share. */
    static void constrain(
            ConstraintSet c,
            String select,
            Long limit,
            String conditionalOperator,
            String returnConsumedCapacity,
            List<String> attributesToGet,
            String indexName) {
        c.enumValue("select", select, SELECT)
                .atLeast("limit", limit, 1)
                .enumValue("conditionalOperator", conditionalOperator, List.of("AND", "OR"))
                .enumValue("returnConsumedCapacity", returnConsumedCapacity, List.of("INDEXES", "TOTAL", "NONE"))
                .size("attributesToGet", attributesToGet, 1, Integer.MAX_VALUE)
                .length("indexName", indexName, 3, 255);
    }

    /**
     * Reads one page and answers it, with its throughput: admitted on the partition of {@code hash}, then charged for
     * every item read, before the filter, rounded up once for the page ("Query and Scan: capacity units consumed").
     * {@code Select=COUNT} leaves the items out.
     */
    static ReadPageOutput answer(
            RequestContext context,
            Table table,
            long hash,
            AttributeValue partitionKey,
            Boolean consistentRead,
            String select,
            String returnConsumedCapacity,
            Supplier<PageReader.Page> read) {
        Partition partition = CapacityGate.admit(context, table, hash, CapacityKind.READ, partitionKey);
        PageReader.Page page = read.get();
        double units = CapacityUnits.read(page.bytesRead(), Boolean.TRUE.equals(consistentRead));
        CapacityGate.charge(table, partition, CapacityKind.READ, units, hash, partitionKey);
        return new ReadPageOutput(
                "COUNT".equals(select) ? null : page.items(),
                page.count(),
                page.scanned(),
                page.lastEvaluatedKey(),
                CapacityGate.consumed(returnConsumedCapacity, table.metadata().name(), units));
    }

    /** Select must agree with the projection parameters; indexes (and so ALL_PROJECTED_ATTRIBUTES) come later. */
    static void checkSelect(
            String select, String indexName, String projectionExpression, List<String> attributesToGet) {
        String projectionParameter = projectionExpression != null
                ? "ProjectionExpression"
                : attributesToGet != null ? "AttributesToGet" : null;
        if ("COUNT".equals(select) && projectionParameter != null) {
            throw ApiException.validation(
                    "Cannot specify the " + projectionParameter + " when choosing to get only the Count");
        }
        if ("ALL_ATTRIBUTES".equals(select) && projectionParameter != null) {
            throw ApiException.validation(
                    "Cannot specify the " + projectionParameter + " when choosing to get ALL_ATTRIBUTES");
        }
        if ("ALL_PROJECTED_ATTRIBUTES".equals(select) && indexName == null) {
            throw ApiException.validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
        }
        if ("SPECIFIC_ATTRIBUTES".equals(select) && projectionParameter == null) {
            throw ApiException.validation("SPECIFIC_ATTRIBUTES requires ProjectionExpression or AttributesToGet");
        }
    }

    /** Secondary indexes are not implemented yet, so any IndexName names an index the table does not have. */
    static void refuseIndex(String indexName) {
        if (indexName != null) {
            throw ApiException.validation("The table does not have the specified index: " + indexName);
        }
    }

    static Condition filter(
            ExpressionCache cache,
            ExpressionResolver resolver,
            String filterExpression,
            Map<String, LegacyCondition> legacyFilter,
            String conditionalOperator) {
        if (filterExpression != null) {
            return resolver.resolve(cache.condition(filterExpression, "FilterExpression"), "FilterExpression");
        }
        return LegacyConditions.conditions(legacyFilter, conditionalOperator);
    }

    static List<Path> projection(
            ExpressionCache cache,
            ExpressionResolver resolver,
            String projectionExpression,
            List<String> attributesToGet) {
        if (projectionExpression != null) {
            return resolver.resolveProjection(cache.projection(projectionExpression));
        }
        return attributesToGet == null
                ? null
                : attributesToGet.stream().map(Path::of).toList();
    }

    /** The encoded ExclusiveStartKey, checked against the table's key schema. */
    static byte[] startKey(Table table, Map<String, AttributeValue> exclusiveStartKey) {
        KeySchema schema = table.metadata().keySchema();
        PrimaryKey key;
        try {
            key = schema.keyOf(exclusiveStartKey);
        } catch (ApiException e) {
            throw ApiException.validation("The provided starting key is invalid: " + e.getMessage());
        }
        return KeyRanges.keyOf(schema, key);
    }
}
