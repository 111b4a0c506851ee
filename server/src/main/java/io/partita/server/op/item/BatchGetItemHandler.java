package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.BatchGetItemInput;
import io.partita.protocol.message.BatchGetItemOutput;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.KeysAndAttributes;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * BatchGetItem: up to 100 keys over several tables. Every request is checked before any item is read; a response
 * that would pass 16 MB stops there and returns the remaining keys as {@code UnprocessedKeys}.
 */
public final class BatchGetItemHandler implements OperationHandler<BatchGetItemInput, BatchGetItemOutput> {
    static final int MAX_KEYS = 100;
    static final long MAX_RESPONSE_BYTES = 16L * 1024 * 1024;

    private final StorageEngine storage;
    private final ItemExpressions expressions;

    public BatchGetItemHandler(StorageEngine storage, ItemExpressions expressions) {
        this.storage = storage;
        this.expressions = expressions;
    }

    @Override
    public Class<BatchGetItemInput> inputType() {
        return BatchGetItemInput.class;
    }

    /** One table's share of the batch, checked and ready to read. */
    private record TableRead(
            String requestName, Table table, KeysAndAttributes request, List<PrimaryKey> keys, List<Path> projection) {}

    @Override
    public BatchGetItemOutput handle(RequestContext context, BatchGetItemInput in) {
        checkShape(in);
        List<TableRead> reads = new ArrayList<>();
        for (Map.Entry<String, KeysAndAttributes> e : in.requestItems().entrySet()) {
            reads.add(prepare(context, e.getKey(), e.getValue()));
        }
        for (TableRead read : reads) {
            for (PrimaryKey key : read.keys()) {
                io.partita.storage.table.HashRange.require(
                        read.table().metadata(), ItemKeyEncoder.partitionHash(key.partition()));
            }
        }
        if (reads.stream().anyMatch(r -> Boolean.TRUE.equals(r.request().consistentRead()))) {
            storage.awaitConsistentRead();
        }
        Map<String, List<Map<String, AttributeValue>>> responses = new LinkedHashMap<>();
        Map<String, KeysAndAttributes> unprocessed = new LinkedHashMap<>();
        List<ConsumedCapacity> consumed = new ArrayList<>();
        long responseBytes = 0;
        int admitted = 0;
        Throttle firstThrottle = null;
        for (TableRead read : reads) {
            List<Map<String, AttributeValue>> found = new ArrayList<>();
            responses.put(read.requestName(), found);
            boolean consistent = Boolean.TRUE.equals(read.request().consistentRead());
            List<Integer> left = new ArrayList<>();
            double units = 0;
            for (int i = 0; i < read.keys().size(); i++) {
                if (responseBytes >= MAX_RESPONSE_BYTES) {
                    left.add(i);
                    continue;
                }
                PrimaryKey key = read.keys().get(i);
                ItemKeyEncoder.EncodedKey encoded =
                        ItemKeyEncoder.encode(read.table().metadata().keySchema(), key);
                // A throttled key is returned in UnprocessedKeys rather than failing the batch (BatchGetItem).
                Throttle throttle =
                        CapacityGate.tryAdmit(read.table(), encoded.hash(), CapacityKind.READ, key.partition());
                if (throttle != null) {
                    firstThrottle = firstThrottle == null ? throttle : firstThrottle;
                    left.add(i);
                    continue;
                }
                admitted++;
                Map<String, AttributeValue> item = storage.get(read.table(), encoded);
                try {
                    // Again once read, as GetItem checks: a range move may have taken the key elsewhere meanwhile.
                    storage.requireServedAfterRead(read.table(), encoded.hash());
                } catch (io.partita.protocol.error.ApiException moved) {
                    left.add(i); // not charged: sent again, it goes to the key's group
                    continue;
                }
                long size = item == null ? 0 : ItemSize.of(item);
                double itemUnits = CapacityUnits.read(size, consistent);
                units += itemUnits;
                CapacityGate.charge(read.table(), CapacityKind.READ, itemUnits, encoded.hash(), key.partition());
                if (item != null) {
                    responseBytes += size;
                    found.add(read.projection() == null ? item : ProjectionApplier.project(item, read.projection()));
                }
            }
            if (!left.isEmpty()) {
                unprocessed.put(read.requestName(), remaining(read, left));
            }
            ConsumedCapacity cc = CapacityGate.consumed(
                    in.returnConsumedCapacity(), read.table().metadata().name(), units);
            if (cc != null) {
                consumed.add(cc);
            }
        }
        if (admitted == 0 && firstThrottle != null) {
            // "If none of the items can be processed due to insufficient provisioned throughput on all of the
            // tables in the request, then BatchGetItem returns a ProvisionedThroughputExceededException."
            throw firstThrottle.toException(
                    TableNames.arn(context, reads.get(0).table().metadata().name()));
        }
        return new BatchGetItemOutput(responses, unprocessed, in.returnConsumedCapacity() == null ? null : consumed);
    }

    /**
     * Checks the request as a whole, before any table is looked at: the constraints on its shape and the limit of 100
     * keys over all its tables. A cluster that runs a batch over several groups ({@code --cluster-table-groups})
     * checks the whole request so before each group reads its own tables.
     */
    public static void checkShape(BatchGetItemInput in) {
        ConstraintSet c = new ConstraintSet()
                .notNull("requestItems", in.requestItems())
                .size(
                        "requestItems",
                        in.requestItems() == null ? null : in.requestItems().keySet(),
                        1,
                        MAX_KEYS);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        if (in.requestItems() != null) {
            in.requestItems().forEach((name, ka) -> {
                c.notNull("requestItems." + name + ".member.keys", ka.keys())
                        .size("requestItems." + name + ".member.keys", ka.keys(), 1, MAX_KEYS);
                if (ka.keys() != null && ka.keys().size() <= MAX_KEYS) {
                    for (int i = 0; i < ka.keys().size(); i++) {
                        c.notNull(
                                "requestItems." + name + ".member.keys." + (i + 1) + ".member",
                                ka.keys().get(i));
                    }
                }
            });
        }
        c.check();
        int total = in.requestItems().values().stream()
                .mapToInt(ka -> ka.keys().size())
                .sum();
        if (total > MAX_KEYS) {
            throw ApiException.validation("Too many items requested for the BatchGetItem call");
        }
    }

    private TableRead prepare(RequestContext context, String requestName, KeysAndAttributes ka) {
        ItemExpressions.noMixing(
                new Object[] {"AttributesToGet", ka.attributesToGet()},
                new Object[] {"ProjectionExpression", ka.projectionExpression()});
        ItemExpressions.placeholdersNeedExpressions(
                ka.projectionExpression() != null, ka.expressionAttributeNames(), null);
        List<Path> projection = null;
        if (ka.projectionExpression() != null) {
            ExpressionResolver resolver = new ExpressionResolver(ka.expressionAttributeNames(), null);
            projection = expressions.projection(resolver, ka.projectionExpression());
            resolver.checkAllUsed();
        } else if (ka.attributesToGet() != null) {
            projection = ka.attributesToGet().stream().map(Path::of).toList();
        }
        Table table = ItemRequests.table(context, storage, requestName);
        List<PrimaryKey> keys = new ArrayList<>(ka.keys().size());
        Set<PrimaryKey> seen = new HashSet<>();
        for (Map<String, AttributeValue> key : ka.keys()) {
            PrimaryKey k = table.metadata().keySchema().keyOf(key);
            if (!seen.add(k)) {
                throw ApiException.validation("Provided list of item keys contains duplicates");
            }
            keys.add(k);
        }
        return new TableRead(requestName, table, ka, keys, projection);
    }

    private static KeysAndAttributes remaining(TableRead read, List<Integer> indexes) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i : indexes) {
            keys.add(read.table().metadata().keySchema().keyMap(read.keys().get(i)));
        }
        KeysAndAttributes r = read.request();
        return new KeysAndAttributes(
                keys, r.attributesToGet(), r.consistentRead(), r.projectionExpression(), r.expressionAttributeNames());
    }
}
