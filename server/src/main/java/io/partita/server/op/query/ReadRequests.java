package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.legacy.LegacyConditions;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.LegacyCondition;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.route.RequestContext;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.KeyText;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.TablePartitions;
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
     * Reads one page and answers it, with its throughput: admitted on the partition of {@code hash} of the target (a
     * GSI's own partitions, else the table's), then charged for every item read, before the filter, rounded up once
     * for the page ("Query and Scan: capacity units consumed"). {@code Select=COUNT} leaves the items out.
     */
    static ReadPageOutput answer(
            RequestContext context,
            ReadTarget target,
            long hash,
            AttributeValue partitionKey,
            Boolean consistentRead,
            String select,
            String returnConsumedCapacity,
            Supplier<PageReader.Page> read) {
        TablePartitions partitions = target.partitions();
        Partition partition = partitions.partitionFor(hash);
        Throttle t = partitions.admit(partition, CapacityKind.READ, () -> KeyText.of(partitionKey));
        if (t != null) {
            throw (target.global() ? t.ofIndex(target.index().name()) : t)
                    .toException(io.partita.server.op.TableNames.arn(
                            context, target.table().metadata().name()));
        }
        PageReader.Page page = read.get();
        double units = CapacityUnits.read(page.bytesRead(), Boolean.TRUE.equals(consistentRead));
        partitions.charge(partition, CapacityKind.READ, units, hash, () -> KeyText.of(partitionKey));
        String tableName = target.table().metadata().name();
        ConsumedCapacity consumed = target.index() == null
                ? CapacityGate.consumed(returnConsumedCapacity, tableName, units)
                : CapacityGate.consumed(
                        returnConsumedCapacity,
                        tableName,
                        units,
                        0,
                        target.global() ? null : Map.of(target.index().name(), units),
                        target.global() ? Map.of(target.index().name(), units) : null);
        return new ReadPageOutput(
                "COUNT".equals(select) ? null : page.items(),
                page.count(),
                page.scanned(),
                page.lastEvaluatedKey(),
                consumed,
                page.lastScannedKey(),
                page.scannedBytes(),
                page.entries());
    }

    /**
     * The rules that depend on the index read: no strongly consistent read of a GSI, and {@code ALL_ATTRIBUTES} only
     * from a GSI that projects everything (an LSI fetches what it lacks from the table).
     */
    static void checkTarget(ReadTarget target, Boolean consistentRead, String select) {
        if (!target.global()) {
            return;
        }
        if (Boolean.TRUE.equals(consistentRead)) {
            throw ApiException.validation("Consistent reads are not supported on global secondary indexes");
        }
        if ("ALL_ATTRIBUTES".equals(select) && !target.definition().projectsAll()) {
            throw ApiException.invalidParameter("Select type ALL_ATTRIBUTES is not supported for global secondary"
                    + " index " + target.index().name() + " because its projection type is not ALL");
        }
    }

    /** A filter may not name the key attributes of what it reads. */
    static void checkFilter(ReadTarget target, Condition filter) {
        if (filter == null) {
            return;
        }
        for (Path p : io.partita.protocol.expr.ConditionPaths.of(filter)) {
            for (KeySchema.KeyAttribute k : target.keyAttributes()) {
                if (p.head().name().equals(k.name())) {
                    throw ApiException.validation("Filter Expression can only contain non-primary key attributes:"
                            + " Primary key attribute: " + k.name());
                }
            }
        }
    }

    /** Select must agree with the projection parameters, and ALL_PROJECTED_ATTRIBUTES needs an index. */
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
        if ("ALL_PROJECTED_ATTRIBUTES".equals(select) && projectionParameter != null) {
            throw ApiException.validation(
                    "Cannot specify the " + projectionParameter + " when choosing to get ALL_PROJECTED_ATTRIBUTES");
        }
        if ("ALL_PROJECTED_ATTRIBUTES".equals(select) && indexName == null) {
            throw ApiException.validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
        }
        if ("SPECIFIC_ATTRIBUTES".equals(select) && projectionParameter == null) {
            throw ApiException.validation("SPECIFIC_ATTRIBUTES requires ProjectionExpression or AttributesToGet");
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
}
