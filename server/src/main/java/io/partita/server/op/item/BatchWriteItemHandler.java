package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.BatchWriteItemOutput;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.WriteRequest;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.index.IndexEntries;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.Written;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * BatchWriteItem: up to 25 puts and deletes over several tables. The whole batch is validated before anything is
 * written, so bad input changes nothing; each write is then atomic on its own, as in DynamoDB.
 */
public final class BatchWriteItemHandler implements OperationHandler<BatchWriteItemInput, BatchWriteItemOutput> {
    static final int MAX_WRITES = 25;

    private final StorageEngine storage;

    public BatchWriteItemHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<BatchWriteItemInput> inputType() {
        return BatchWriteItemInput.class;
    }

    /** One checked write. */
    private record Write(
            String requestName, WriteRequest request, Table table, PrimaryKey key, Map<String, AttributeValue> item) {}

    @Override
    public BatchWriteItemOutput handle(RequestContext context, BatchWriteItemInput in) {
        List<Write> writes = validate(context, in);
        Map<String, Double> units = new LinkedHashMap<>();
        Map<String, Double> tableUnits = new LinkedHashMap<>();
        Map<String, List<io.partita.protocol.message.ItemCollectionMetrics>> collections = new LinkedHashMap<>();
        Map<String, Map<String, Double>> locals = new HashMap<>();
        Map<String, Map<String, Double>> globals = new HashMap<>();
        Map<String, List<WriteRequest>> unprocessed = new LinkedHashMap<>();
        Throttle firstThrottle = null;
        List<ItemWrite> made = new ArrayList<>(writes.size());
        for (Write w : writes) {
            made.add(ItemWrite.user(
                    w.table(),
                    w.key(),
                    ConditionalWrite.blind(
                            w.item() == null ? new WriteDecision.Delete() : new WriteDecision.Put(w.item())),
                    0));
        }
        // In one commit (ItemWrites.writeAll; a large batch in parts of about 1 MB): a store that cannot take the first
        // (a full disk, a cluster's leader that lost its group) throws with nothing written, and the whole batch
        // answers 503 (or 500), which the SDKs send again; one that cannot take a later part leaves its writes and the
        // rest (null) to be returned in UnprocessedItems, as DynamoDB returns the writes an internal failure stopped.
        Written[] results = storage.writes().writeAll(made);
        for (int at = 0; at < writes.size(); at++) {
            Write w = writes.get(at);
            Written written = results[at];
            if (written == null) {
                // Not made: an item a transaction holds, or a write a later part's failed commit left (or one after
                // it). Returned to retry, as a throttled one is, rather than failing a batch whose other writes have
                // happened.
                unprocessed
                        .computeIfAbsent(w.requestName(), n -> new ArrayList<>())
                        .add(w.request());
                continue;
            }
            // A throttled write is returned in UnprocessedItems rather than failing the batch (BatchWriteItem).
            if (written.throttled()) {
                firstThrottle = firstThrottle == null ? written.throttle() : firstThrottle;
                unprocessed
                        .computeIfAbsent(w.requestName(), n -> new ArrayList<>())
                        .add(w.request());
                continue;
            }
            units.merge(w.table().metadata().name(), written.units(), Double::sum);
            var metrics = ItemRequests.collectionMetrics(in.returnItemCollectionMetrics(), w.table(), w.key(), written);
            if (metrics != null) {
                collections
                        .computeIfAbsent(w.table().metadata().name(), n -> new ArrayList<>())
                        .add(metrics);
            }
            if (written.indexUnits() != null) {
                String name = w.table().metadata().name();
                tableUnits.merge(name, written.indexUnits().table(), Double::sum);
                written.indexUnits()
                        .local()
                        .forEach((k, v) -> locals.computeIfAbsent(name, n -> new TreeMap<>())
                                .merge(k, v, Double::sum));
                written.indexUnits()
                        .global()
                        .forEach((k, v) -> globals.computeIfAbsent(name, n -> new TreeMap<>())
                                .merge(k, v, Double::sum));
            } else {
                tableUnits.merge(w.table().metadata().name(), written.units(), Double::sum);
            }
        }
        if (units.isEmpty() && firstThrottle != null) {
            // "If none of the items can be processed due to insufficient provisioned throughput on all of the
            // tables in the request, then BatchWriteItem returns a ProvisionedThroughputExceededException."
            throw firstThrottle.toException(
                    TableNames.arn(context, writes.get(0).table().metadata().name()));
        }
        List<ConsumedCapacity> consumed = null;
        if (in.returnConsumedCapacity() != null && !in.returnConsumedCapacity().equals("NONE")) {
            consumed = new ArrayList<>();
            for (Map.Entry<String, Double> u : units.entrySet()) {
                consumed.add(CapacityGate.consumed(
                        in.returnConsumedCapacity(),
                        u.getKey(),
                        u.getValue(),
                        tableUnits.get(u.getKey()),
                        locals.get(u.getKey()),
                        globals.get(u.getKey())));
            }
        }
        return new BatchWriteItemOutput(unprocessed, consumed, collections.isEmpty() ? null : collections);
    }

    /**
     * Checks the request as a whole, before any table is looked at: the constraints on its shape and the limit of 25
     * writes over all its tables. A cluster that runs a batch over several groups ({@code --cluster-table-groups})
     * checks the whole request so, then each group its own tables ({@link Check}).
     */
    public static void checkShape(BatchWriteItemInput in) {
        ConstraintSet c = new ConstraintSet()
                .notNull("requestItems", in.requestItems())
                .size(
                        "requestItems",
                        in.requestItems() == null ? null : in.requestItems().keySet(),
                        1,
                        MAX_WRITES);
        ItemRequests.constrainCommon(c, in.returnConsumedCapacity());
        c.enumValue(
                "returnItemCollectionMetrics",
                in.returnItemCollectionMetrics(),
                ItemRequests.RETURN_ITEM_COLLECTION_METRICS);
        if (in.requestItems() != null) {
            in.requestItems().forEach((name, writes) -> {
                c.notNull("requestItems." + name + ".member", writes)
                        .size("requestItems." + name + ".member", writes, 1, MAX_WRITES);
                if (writes != null && writes.size() <= MAX_WRITES) {
                    for (int i = 0; i < writes.size(); i++) {
                        c.notNull("requestItems." + name + ".member." + (i + 1) + ".member", writes.get(i));
                    }
                }
            });
        }
        c.check();
        int total = in.requestItems().values().stream().mapToInt(List::size).sum();
        if (total > MAX_WRITES) {
            throw ApiException.validation("Too many items requested for the BatchWriteItem call");
        }
    }

    /** The whole batch checked, as writes ready to be made: bad input throws before anything is written. */
    private List<Write> validate(RequestContext context, BatchWriteItemInput in) {
        checkShape(in);
        int total = in.requestItems().values().stream().mapToInt(List::size).sum();
        List<Write> writes = new ArrayList<>(total);
        // Over the whole request: a table may be named twice, by its name and by its ARN.
        Set<List<Object>> seen = new HashSet<>();
        for (Map.Entry<String, List<WriteRequest>> e : in.requestItems().entrySet()) {
            Table table = ItemRequests.table(context, storage, e.getKey());
            for (WriteRequest w : e.getValue()) {
                Write write = check(e.getKey(), table, w);
                if (!seen.add(List.of(table.cacheId(), write.key()))) {
                    throw ApiException.validation("Provided list of item keys contains duplicates");
                }
                writes.add(write);
            }
        }
        return writes;
    }

    private static Write check(String requestName, Table table, WriteRequest w) {
        if ((w.putRequest() == null) == (w.deleteRequest() == null)) {
            throw ApiException.validation("A write request must contain exactly one of PutRequest or DeleteRequest");
        }
        if (w.putRequest() != null) {
            Map<String, AttributeValue> item = w.putRequest().item();
            if (item == null) {
                throw ApiException.validation(
                        "1 validation error detected: Value null at"
                                + " 'requestItems.member.putRequest.item' failed to satisfy constraint: Member must not be null");
            }
            // BatchWriteItem words a missing or mistyped key like GetItem does, not like PutItem.
            for (var k : table.metadata().keySchema().attributes()) {
                AttributeValue v = item.get(k.name());
                if (v == null || !k.type().matches(v)) {
                    throw ApiException.validation("The provided key element does not match the schema");
                }
            }
            PrimaryKey key = table.metadata().keySchema().keyOfItem(item);
            ItemRequests.checkAttributeNames(item);
            if (ItemSize.of(item) > ItemSize.MAX_ITEM_BYTES) {
                throw ApiException.validation("Item size has exceeded the maximum allowed size");
            }
            // An item with a bad index key refuses the whole batch, before any of it is written.
            IndexEntries.check(table.indexes().definitions(), item);
            return new Write(requestName, w, table, key, item);
        }
        Map<String, AttributeValue> key = w.deleteRequest().key();
        if (key == null) {
            throw ApiException.validation("1 validation error detected: Value null at"
                    + " 'requestItems.member.deleteRequest.key' failed to satisfy constraint: Member must not be null");
        }
        return new Write(requestName, w, table, table.metadata().keySchema().keyOf(key), null);
    }

    /**
     * Partita's own {@code Partita.CheckBatchWriteItem}: a BatchWriteItem checked as {@link #handle} checks it, and
     * not written. A cluster that runs one batch over several groups ({@code --cluster-table-groups},
     * docs/CLUSTER.md) has every group check its share before any group writes, so that bad input in one table
     * changes nothing in another. It answers an empty {@code UnprocessedItems}.
     */
    public static final class Check implements OperationHandler<BatchWriteItemInput, BatchWriteItemOutput> {
        private final BatchWriteItemHandler batch;

        public Check(StorageEngine storage) {
            this.batch = new BatchWriteItemHandler(storage);
        }

        @Override
        public Class<BatchWriteItemInput> inputType() {
            return BatchWriteItemInput.class;
        }

        @Override
        public BatchWriteItemOutput handle(RequestContext context, BatchWriteItemInput in) {
            batch.validate(context.as(OperationRegistry.DYNAMODB_PREFIX + "BatchWriteItem"), in);
            return new BatchWriteItemOutput(Map.of(), null, null);
        }
    }
}
