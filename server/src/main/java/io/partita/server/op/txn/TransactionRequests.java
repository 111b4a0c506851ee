package io.partita.server.op.txn;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.ItemCollectionMetrics;
import io.partita.protocol.message.TransactWriteItemsOutput;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.CapacityGate;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.item.ItemCache;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.Transactions;
import io.partita.storage.write.Written;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The rules and answers TransactWriteItems, TransactGetItems and PartiQL's ExecuteTransaction share. */
public final class TransactionRequests {
    /** Actions in one transaction ("Amazon DynamoDB Transactions: How it works"). */
    public static final int MAX_ITEMS = 100;
    /** "The aggregate size of the items in the transaction cannot exceed 4 MB." */
    public static final long MAX_PAYLOAD_BYTES = 4L * 1024 * 1024;

    private TransactionRequests() {}

    /** An item of a request: its table and key. */
    public record ItemId(Table table, PrimaryKey key) {}

    /** The constraints on an action's {@code TableName}, a name or an ARN, at {@code path}. */
    public static void tableName(ConstraintSet c, String path, String nameOrArn) {
        c.notNull(path + ".tableName", nameOrArn).length(path + ".tableName", nameOrArn, 1, 1024);
    }

    /** No two actions on one item: a ValidationException for the whole request, not a cancellation. */
    public static void checkDistinct(List<ItemId> items) {
        Set<ItemId> seen = new HashSet<>();
        for (ItemId i : items) {
            if (!seen.add(i)) {
                throw ApiException.validation("Transaction request cannot include multiple operations on one item");
            }
        }
    }

    /**
     * The 4 MB limit on the items of a transaction. The wording, repeated, is DynamoDB's as a client library's test
     * replays one of its answers.
     */
    public static void checkPayload(long bytes) {
        if (bytes > MAX_PAYLOAD_BYTES) {
            String one = "Transaction payload size cannot exceed 4MB. Payload Size: ";
            throw ApiException.validation(one + ": " + one + bytes);
        }
    }

    /**
     * Whether a key error found before the transaction runs refuses the whole request (an empty key value, a key
     * too large) rather than cancelling the transaction with a {@code ValidationError} (a key of the wrong type or
     * shape), as DynamoDB tells them apart.
     */
    public static boolean requestError(ApiException e) {
        String m = e.getMessage();
        return e.code() != ErrorCode.VALIDATION
                || m.contains("cannot contain an empty")
                || m.contains("exceeded the maximum size limit")
                || m.contains("exceeded the size limit");
    }

    /**
     * An id of Partita's own operations between a cluster's nodes (a hold's, a prepared transaction's), as the node
     * that sends them makes it: a UUID; {@code member} names it in the refusal.
     */
    static void requireId(String member, String id) {
        if (id == null || id.isEmpty() || id.length() > 64) {
            throw ApiException.validation(member + " must be 1 to 64 characters");
        }
    }

    public static Transactions.Reason validationError(ApiException e) {
        return new Transactions.Reason(Transactions.VALIDATION_ERROR, e.getMessage(), null);
    }

    /**
     * DynamoDB's TransactionCanceledException: its message names every action's code, in order; each reason has a
     * {@code Message} (none for {@code None}) and, for a failed condition that asked for it, the {@code Item}.
     */
    public static ApiException cancelled(List<Transactions.Reason> reasons) {
        List<String> codes = new ArrayList<>(reasons.size());
        List<Map<String, Object>> body = new ArrayList<>(reasons.size());
        for (Transactions.Reason r : reasons) {
            codes.add(r.code());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("Code", r.code());
            if (r.message() != null) {
                m.put("Message", r.message());
            }
            if (r.item() != null) {
                m.put("Item", r.item());
            }
            body.add(m);
        }
        return new ApiException(
                ErrorCode.TRANSACTION_CANCELED,
                "Transaction cancelled, please refer cancellation reasons for specific reasons " + codes,
                Map.of("CancellationReasons", body));
    }

    /** Sums of units per table, in the order tables first appear, with their index parts. */
    static final class Units {
        final Map<String, Double> total = new LinkedHashMap<>();
        final Map<String, Double> table = new HashMap<>();
        final Map<String, Map<String, Double>> locals = new HashMap<>();
        final Map<String, Map<String, Double>> globals = new HashMap<>();

        void add(String name, Written w) {
            total.merge(name, w.units(), Double::sum);
            if (w.indexUnits() == null) {
                table.merge(name, w.units(), Double::sum);
                return;
            }
            table.merge(name, w.indexUnits().table(), Double::sum);
            w.indexUnits()
                    .local()
                    .forEach((k, v) ->
                            locals.computeIfAbsent(name, n -> new TreeMap<>()).merge(k, v, Double::sum));
            w.indexUnits()
                    .global()
                    .forEach((k, v) ->
                            globals.computeIfAbsent(name, n -> new TreeMap<>()).merge(k, v, Double::sum));
        }

        void add(String name, double units) {
            total.merge(name, units, Double::sum);
            table.merge(name, units, Double::sum);
        }

        /** One {@code ConsumedCapacity} per table, split into read or write units as transactions answer. */
        List<ConsumedCapacity> consumed(String mode, boolean read) {
            if (mode == null || mode.equals("NONE")) {
                return null;
            }
            List<ConsumedCapacity> out = new ArrayList<>(total.size());
            total.forEach((name, units) -> out.add(
                    CapacityGate.consumed(mode, name, units, table.get(name), locals.get(name), globals.get(name))
                            .split(read)));
            return out;
        }
    }

    /** The answer of a committed write transaction. */
    public static TransactWriteItemsOutput written(
            String consumedMode, String metricsMode, List<Transactions.WriteAction> actions, List<Written> written) {
        Units units = new Units();
        for (int i = 0; i < actions.size(); i++) {
            units.add(actions.get(i).table().metadata().name(), written.get(i));
        }
        return new TransactWriteItemsOutput(
                units.consumed(consumedMode, false),
                collectionMetrics(metricsMode, actions, i -> written.get(i).collectionBytes()));
    }

    /**
     * A transaction's {@code ItemCollectionMetrics} by table ({@code metricsMode} SIZE), from the size of each
     * action's item collection after it ({@code collectionBytes}, -1 for none); null when there are none.
     */
    static Map<String, List<ItemCollectionMetrics>> collectionMetrics(
            String metricsMode,
            List<Transactions.WriteAction> actions,
            java.util.function.IntToLongFunction collectionBytes) {
        if (!"SIZE".equals(metricsMode)) {
            return null;
        }
        Map<String, List<ItemCollectionMetrics>> collections = new LinkedHashMap<>();
        for (int i = 0; i < actions.size(); i++) {
            Transactions.WriteAction a = actions.get(i);
            long bytes = collectionBytes.applyAsLong(i);
            if (bytes >= 0 && !a.check()) {
                collections
                        .computeIfAbsent(a.table().metadata().name(), n -> new ArrayList<>())
                        .add(ItemCollectionMetrics.of(
                                a.table().metadata().keySchema().partitionKey().name(),
                                a.key().partition(),
                                bytes));
            }
        }
        return collections.isEmpty() ? null : collections;
    }

    /**
     * The answer to a repeat of a committed request: nothing is written again; "subsequent TransactWriteItems calls
     * with the same client token return the number of read capacity units consumed in reading the item" — a
     * transactional read of each item as it is now, charged, in the repeat's own ReturnConsumedCapacity. It always
     * succeeds: it is neither admitted nor checked for conflicts, since a repeat that failed could make its client
     * apply the transaction again under another token.
     */
    static TransactWriteItemsOutput repeat(
            StorageEngine storage, TransactWriteItemsHandler.Committed first, String consumedMode) {
        Units units = new Units();
        for (TransactWriteItemsHandler.Committed.Item item : first.items()) {
            // The table by its name and id: one deleted since, or made again under its name, has no item of the first.
            Table table = storage.tables().find(item.table());
            if (table != null && !table.deleted() && table.metadata().id().equals(item.tableId())) {
                PrimaryKey key = new PrimaryKey(item.partition(), item.sort());
                ItemKeyEncoder.EncodedKey encoded =
                        ItemKeyEncoder.encode(table.metadata().keySchema(), key);
                ItemCache.Entry stored = storage.getStored(table, encoded);
                long size = stored == null ? 0 : stored.itemSize();
                double read = 2 * CapacityUnits.read(size, true);
                CapacityGate.charge(table, CapacityKind.READ, read, encoded.hash(), key.partition());
                units.add(item.table(), read);
            } else {
                units.add(item.table(), 2 * CapacityUnits.read(0, true));
            }
        }
        return new TransactWriteItemsOutput(units.consumed(consumedMode, true), first.itemCollectionMetrics());
    }
}
