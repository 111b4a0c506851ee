package io.partita.storage.write;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.NonBlockingThread;
import io.partita.storage.WouldBlock;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.KeyText;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.feed.ChangeCause;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.ItemCache;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.key.ByteSink;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.PartitionHash;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * TransactWriteItems and TransactGetItems (and PartiQL's ExecuteTransaction), serializable against each other and
 * against single-item writes.
 *
 * <pre>
 *   conflict injected?          cancel: TransactionConflict on the chosen item (tests of retry code)
 *   claim every item            one another transaction holds: cancel, TransactionConflict on it
 *   admit every item            on its partition (and a write on the table's GSIs): refused, cancel with the throttle
 *   lock their stripes          in ascending order: two transactions never wait in a circle
 *   plan every write            through the write path's plan: old image, condition, index rows, collection size
 *   any refusal?                cancel with one reason per item, in order; nothing is written
 *   commit one batch            every changed item, each with its own change record, statistics, LSI rows, TTL entry
 *   release, unlock, charge     two units per unit of each item's write (or read), DynamoDB's transactional
 *                               price; its index writes at the standard one
 * </pre>
 *
 * A single-item write checks the holds before it takes its item's lock ({@link ItemWrites}) and fails with
 * {@code TransactionConflictException} instead of waiting: what DynamoDB's users see and must retry. The whole of a
 * transaction runs on a worker thread, never an event loop: it may wait for up to a hundred locks.
 */
public final class Transactions {
    public static final String NONE = "None";
    public static final String CONDITIONAL_CHECK_FAILED = "ConditionalCheckFailed";
    public static final String TRANSACTION_CONFLICT = "TransactionConflict";
    public static final String ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED = "ItemCollectionSizeLimitExceeded";
    public static final String VALIDATION_ERROR = "ValidationError";
    public static final String PROVISIONED_THROUGHPUT_EXCEEDED = "ProvisionedThroughputExceeded";
    public static final String THROTTLING_ERROR = "ThrottlingError";

    /** The message of a TransactionConflict, in a cancellation and in TransactionConflictException. */
    public static final String CONFLICT_MESSAGE = "Transaction is ongoing for the item";

    /** A transactional request is priced at twice the standard one ("Capacity management for transactions"). */
    private static final double TRANSACTIONAL = 2;

    private final ItemWrites writes;
    private final TransactionHolds holds;
    private final ReadHolds readHolds;
    private final KeyLocks locks;
    private final ItemCache cache;
    private final RocksStore store;
    private final ConflictInjection.Chooser conflicts;

    Transactions(
            ItemWrites writes,
            TransactionHolds holds,
            ReadHolds readHolds,
            KeyLocks locks,
            ItemCache cache,
            RocksStore store,
            ConflictInjection injection) {
        this.writes = writes;
        this.holds = holds;
        this.readHolds = readHolds;
        this.locks = locks;
        this.cache = cache;
        this.store = store;
        this.conflicts = injection.chooser();
    }

    /**
     * One action of a write transaction: a Put, Update or Delete ({@code check} false), or a ConditionCheck, whose
     * write must decide {@code Keep} or {@code Reject}.
     */
    public record WriteAction(Table table, PrimaryKey key, ConditionalWrite write, boolean check) {}

    /** One Get of a read transaction. */
    public record ReadAction(Table table, PrimaryKey key) {}

    /**
     * Why one item of a cancelled transaction could not go ahead: DynamoDB's {@code CancellationReason}. {@code item}
     * is the item a failed condition found, when the request asked for it.
     */
    public record Reason(String code, String message, Map<String, AttributeValue> item) {
        public static final Reason OK = new Reason(NONE, null, null);

        public boolean ok() {
            return code.equals(NONE);
        }
    }

    /**
     * What a write transaction did: {@code reasons} null when it committed, and {@code written} then holds each
     * action's outcome and doubled units in order; else one reason per action and nothing written.
     */
    public record WriteResult(List<Written> written, List<Reason> reasons) {
        public boolean committed() {
            return reasons == null;
        }
    }

    /**
     * What a read transaction found: each item (null if absent) and the doubled units of its read, in order; or,
     * when {@code reasons} is not null, one reason per action.
     */
    public record ReadResult(List<Map<String, AttributeValue>> items, double[] units, List<Reason> reasons) {
        public boolean read() {
            return reasons == null;
        }
    }

    /** One action's item: its key, encoded, and where it lives. */
    private record Target(
            Table table,
            PrimaryKey key,
            ItemKeyEncoder.EncodedKey encoded,
            long keyHash,
            TransactionHolds.Item held,
            Partition partition) {
        static Target of(Table table, PrimaryKey key) {
            ItemKeyEncoder.EncodedKey encoded =
                    ItemKeyEncoder.encode(table.metadata().keySchema(), key);
            byte[] k = encoded.bytes();
            return new Target(
                    table,
                    key,
                    encoded,
                    PartitionHash.of(k),
                    new TransactionHolds.Item(table.cacheId(), k),
                    table.partitions().partitionFor(encoded.hash()));
        }

        /**
         * Refuses an item of a range this store does not serve ({@link io.partita.storage.table.HashRange#require}),
         * or, for a {@code write}, one a range move is copying elsewhere ({@code requireWritable}), when a
         * transaction starts: a prepared part's commit and a claim's release find their items as they were.
         */
        void requireHeld(boolean write) {
            if (write) {
                io.partita.storage.table.HashRange.requireWritable(table.metadata(), encoded.hash());
            } else {
                io.partita.storage.table.HashRange.require(table.metadata(), encoded.hash());
            }
        }
    }

    /**
     * Runs a write transaction: see the class comment. Callers have checked the request (at most 100 actions, no two
     * on one item, every table present): this refuses nothing a request could have been refused for.
     *
     * @throws WouldBlock on a {@link NonBlockingThread}, before anything has happened
     */
    public WriteResult write(List<WriteAction> actions) {
        return write(actions, null, null, null);
    }

    /**
     * Runs a write transaction as {@link #write(List)} does, committing the record {@code token} makes (its {@code
     * ClientRequestToken}'s; {@link TransactionTokens}) in the same batch as its writes. A transaction that writes
     * nothing (cancelled, only checks, or every item written again unchanged) records nothing.
     */
    public WriteResult writeRecorded(List<WriteAction> actions, TransactionTokens.Recorder token) {
        return write(actions, null, token, null);
    }

    /**
     * Where a part of a transaction over several Raft groups that may go ahead is prepared, instead of committed:
     * under the items' locks, with the items claimed (and kept claimed when it returns).
     */
    interface Preparing {
        void prepared(TransactionHolds.Item[] items);
    }

    /**
     * Runs a write transaction, or with {@code preparing} prepares one group's part of one over several: planned as
     * one, and when every action may go ahead, {@code preparing} is called under the locks instead of the commit, and
     * the items stay claimed. A prepared part answers a result with no {@code written} and no {@code reasons}.
     */
    WriteResult write(List<WriteAction> actions, Preparing preparing) {
        return write(actions, preparing, null, null);
    }

    /**
     * As {@link #write(List, Preparing)}, with {@code claimed} run once the items are claimed, before anything is
     * planned: what it throws ends the transaction there (the claims released), and is thrown.
     */
    WriteResult write(List<WriteAction> actions, Preparing preparing, Runnable claimed) {
        return write(actions, preparing, null, claimed);
    }

    private WriteResult write(
            List<WriteAction> actions, Preparing preparing, TransactionTokens.Recorder token, Runnable claimed) {
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE;
        }
        int n = actions.size();
        Target[] targets = new Target[n];
        TransactionHolds.Item[] items = new TransactionHolds.Item[n];
        for (int i = 0; i < n; i++) {
            targets[i] = Target.of(actions.get(i).table(), actions.get(i).key());
            targets[i].requireHeld(true);
            items[i] = targets[i].held();
        }
        int injected = conflicts.conflictOn(n);
        if (injected >= 0) {
            return new WriteResult(null, conflictOn(n, injected));
        }
        int taken = holds.claim(items);
        if (taken >= 0) {
            return new WriteResult(null, conflictOn(n, taken));
        }
        // Whether the claims are still to be released here: a prepared part keeps them, and the claims of a
        // transaction that locked its items are released before the locks (a write waiting for one then finds none).
        boolean release = true;
        try {
            if (claimed != null) {
                claimed.run();
            }
            Reason[] refused = admitWrites(actions, targets);
            if (refused != null) {
                return new WriteResult(null, Arrays.asList(refused));
            }
            ItemWrites.Applied[] planned = new ItemWrites.Applied[n];
            Reason[] reasons = new Reason[n];
            boolean cancelled = false;
            int[] stripes = lock(targets);
            try {
                requireLive(targets, true);
                // What the transaction's earlier actions add to each item collection, for the limit.
                Map<ItemWrites.CollectionKey, Long> collections = new java.util.HashMap<>();
                for (int i = 0; i < n; i++) {
                    reasons[i] = plan(actions.get(i), targets[i], planned, i, collections);
                    cancelled |= !reasons[i].ok();
                }
                List<ItemWrites.Applied> changes = new ArrayList<>(n);
                if (!cancelled) {
                    for (ItemWrites.Applied a : planned) {
                        if (a.change() != null) {
                            changes.add(a);
                        }
                    }
                }
                if (preparing != null && !cancelled) {
                    release = false; // from here the claims are the part's (it releases them should it fail)
                    preparing.prepared(items);
                } else if (!changes.isEmpty() || (token != null && !cancelled && writesAny(actions))) {
                    // A transaction whose writes all leave their items as they were still records its token: a repeat
                    // must not write them again over later changes.
                    commit(changes, planned, token);
                } else {
                    writes.confirmUnwritten(); // a cancellation, or only checks: answered from this replica's state
                }
            } finally {
                if (release) {
                    holds.release(items);
                    release = false;
                }
                unlock(stripes);
            }
            if (preparing != null && !cancelled) {
                return new WriteResult(null, null);
            }
            return cancelled ? cancelled(reasons) : committed(actions, targets, planned);
        } finally {
            if (release) {
                holds.release(items);
            }
        }
    }

    /** Commits {@code changes}, with {@code token}'s record when there is one, under its token's lock. */
    private void commit(
            List<ItemWrites.Applied> changes, ItemWrites.Applied[] planned, TransactionTokens.Recorder token) {
        if (token == null) {
            writes.commit(changes);
            return;
        }
        commit(changes, batch -> writes.tokens().put(batch, token.record(collectionBytes(planned))), token);
    }

    /** Commits {@code changes} with {@code rows}, which record {@code token}, under the token's lock. */
    private void commit(
            List<ItemWrites.Applied> changes,
            java.util.function.Consumer<org.rocksdb.WriteBatch> rows,
            TransactionTokens.Recorder token) {
        java.util.concurrent.locks.ReentrantLock stripe = writes.tokens().stripe(token.scope(), token.token());
        stripe.lock();
        try {
            writes.commit(changes, rows);
        } finally {
            stripe.unlock();
        }
    }

    /** Whether any of {@code actions} is a write rather than a ConditionCheck. */
    private static boolean writesAny(List<WriteAction> actions) {
        for (WriteAction a : actions) {
            if (!a.check()) {
                return true;
            }
        }
        return false;
    }

    /** The size of each planned action's item collection after the transaction, -1 when it has none. */
    private static long[] collectionBytes(ItemWrites.Applied[] planned) {
        long[] bytes = new long[planned.length];
        for (int i = 0; i < planned.length; i++) {
            bytes[i] = planned[i] == null ? -1 : planned[i].collectionBytes();
        }
        return bytes;
    }

    /** The claims of {@code actions}' items, in their order. */
    static TransactionHolds.Item[] items(List<WriteAction> actions) {
        TransactionHolds.Item[] items = new TransactionHolds.Item[actions.size()];
        for (int i = 0; i < items.length; i++) {
            items[i] = Target.of(actions.get(i).table(), actions.get(i).key()).held();
        }
        return items;
    }

    /**
     * Commits a prepared part of a transaction over several groups ({@link PreparedTransactions}): its items, claimed
     * since it was prepared, are as its plan found them then; planned again under their locks and written in one
     * batch with {@code also}'s rows. An action that cannot go ahead after all (its item collection grown past its
     * limit by other items meanwhile) writes nothing and is charged nothing; a table deleted meanwhile has none. Once
     * the batch has committed, {@code committed} runs under the locks (the caller releases the claims there). With
     * {@code token}, its record commits in the same batch (the deciding part's, with the decision).
     */
    WriteResult commitPrepared(
            List<WriteAction> actions,
            java.util.function.Consumer<org.rocksdb.WriteBatch> also,
            TransactionTokens.Recorder token,
            Runnable committed) {
        int n = actions.size();
        Target[] targets = new Target[n];
        for (int i = 0; i < n; i++) {
            targets[i] = Target.of(actions.get(i).table(), actions.get(i).key());
        }
        ItemWrites.Applied[] planned = new ItemWrites.Applied[n];
        int[] stripes = lock(targets);
        try {
            Map<ItemWrites.CollectionKey, Long> collections = new java.util.HashMap<>();
            List<ItemWrites.Applied> changes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                if (targets[i].table().deleted()) {
                    continue;
                }
                Reason r;
                try {
                    r = plan(actions.get(i), targets[i], planned, i, collections);
                } catch (ApiException e) {
                    r = new Reason(VALIDATION_ERROR, e.getMessage(), null);
                }
                if (!r.ok()) {
                    planned[i] = null;
                    org.slf4j.LoggerFactory.getLogger(Transactions.class)
                            .warn("a prepared transaction's action could not go ahead at its commit: {}", r);
                } else if (planned[i].change() != null) {
                    changes.add(planned[i]);
                }
            }
            if (token == null) {
                writes.commit(changes, also);
            } else {
                commit(
                        changes,
                        batch -> {
                            also.accept(batch);
                            writes.tokens().put(batch, token.record(collectionBytes(planned)));
                        },
                        token);
            }
            committed.run(); // the claims go before the locks: a write that waited for one then finds none
        } finally {
            unlock(stripes);
        }
        return committed(actions, targets, planned);
    }

    /** A cancellation: {@code TransactionConflict} on action {@code on}, and no reason on the others. */
    public static List<Reason> conflictOn(int n, int on) {
        Reason[] reasons = new Reason[n];
        Arrays.fill(reasons, Reason.OK);
        reasons[on] = new Reason(TRANSACTION_CONFLICT, CONFLICT_MESSAGE, null);
        return Arrays.asList(reasons);
    }

    /** Null when every action may go ahead, else each action's reason (the refused ones' throttles). */
    private static Reason[] admitWrites(List<WriteAction> actions, Target[] targets) {
        Reason[] reasons = null;
        for (int i = 0; i < actions.size(); i++) {
            Target t = targets[i];
            TablePartitions partitions = t.table().partitions();
            AttributeValue pk = t.key().partition();
            // A ConditionCheck writes nothing, but DynamoDB charges it as a write of its item, two write units per
            // KB like the other actions (measured by public conformance suites; "Capacity management for
            // transactions" only says that every item is read or written twice).
            Throttle throttle = partitions.admit(t.partition(), CapacityKind.WRITE, () -> KeyText.of(pk));
            if (throttle == null && !actions.get(i).check()) {
                throttle = ItemWrites.admitGlobalIndexes(t.table());
            }
            if (throttle != null) {
                if (reasons == null) {
                    reasons = new Reason[actions.size()];
                    Arrays.fill(reasons, Reason.OK);
                }
                reasons[i] = throttled(throttle);
            }
        }
        return reasons;
    }

    /** The reason of a throttled item, in the words of TransactionCanceledException's reference. */
    private static Reason throttled(Throttle t) {
        if (t.index() == null) {
            ApiException e = t.toException("");
            return new Reason(t.onDemand() ? THROTTLING_ERROR : PROVISIONED_THROUGHPUT_EXCEEDED, e.getMessage(), null);
        }
        if (t.onDemand()) {
            return new Reason(
                    THROTTLING_ERROR,
                    "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is"
                            + " automatically scaling your index so please try again shortly.",
                    null);
        }
        return new Reason(
                PROVISIONED_THROUGHPUT_EXCEEDED,
                "The level of configured provisioned throughput for one or more global secondary indexes of the table"
                        + " was exceeded. Consider increasing your provisioning level for the under-provisioned global"
                        + " secondary indexes with the UpdateTable API.",
                null);
    }

    /** Plans one action under the held locks; its reason (OK when it may commit). */
    private Reason plan(
            WriteAction a,
            Target t,
            ItemWrites.Applied[] planned,
            int i,
            Map<ItemWrites.CollectionKey, Long> collections) {
        ItemWrite w = new ItemWrite(a.table(), a.key(), a.write(), 0, ChangeCause.TRANSACTION);
        ItemWrites.Applied applied;
        try {
            applied = writes.plan(
                    a.table(), t.encoded(), t.encoded().bytes(), t.keyHash(), w, new ByteSink(1024), collections);
        } catch (ApiException e) {
            if (e.code() == ErrorCode.RESOURCE_NOT_FOUND) {
                // A table deleted while the transaction waited for its locks: the whole request fails, unwritten.
                throw e;
            }
            if (e.code() == ErrorCode.ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED) {
                return new Reason(ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED, "Collection size exceeded.", null);
            }
            return new Reason(VALIDATION_ERROR, e.getMessage(), null);
        }
        planned[i] = applied;
        ApiException rejection = applied.rejection();
        if (rejection == null) {
            return Reason.OK;
        }
        @SuppressWarnings("unchecked")
        Map<String, AttributeValue> item =
                (Map<String, AttributeValue>) rejection.extraFields().get("Item");
        return new Reason(CONDITIONAL_CHECK_FAILED, rejection.getMessage(), item);
    }

    /** A cancelled transaction answers no ConsumedCapacity, and Partita charges it nothing. */
    private static WriteResult cancelled(Reason[] reasons) {
        return new WriteResult(null, Arrays.asList(reasons));
    }

    private static WriteResult committed(List<WriteAction> actions, Target[] targets, ItemWrites.Applied[] planned) {
        List<Written> written = new ArrayList<>(actions.size());
        for (int i = 0; i < actions.size(); i++) {
            ItemWrites.Applied a = planned[i];
            Target t = targets[i];
            if (a == null) {
                written.add(new Written(null, 0, null, null, -1)); // a prepared action that could not go ahead
                continue;
            }
            if (actions.get(i).check()) {
                double units = TRANSACTIONAL * CapacityUnits.write(a.oldSize(), a.oldSize());
                charge(t, CapacityKind.WRITE, units);
                written.add(new Written(a.outcome(), units, null, null, -1));
                continue;
            }
            double units = TRANSACTIONAL
                    * CapacityUnits.write(a.outcome().oldBytes(), a.outcome().newBytes());
            // Only the table's own units are doubled: an index's writes are standard ones (as public measurements of
            // DynamoDB's ConsumedCapacity show), written with the item's batch (LSIs) or after it (GSIs).
            IndexUnits indexUnits =
                    a.localUnits() == null ? null : new IndexUnits(units, a.localUnits(), a.globalUnits());
            double tableCharge = units + (indexUnits == null ? 0 : ItemWrites.sum(indexUnits.local()));
            charge(t, CapacityKind.WRITE, tableCharge);
            double total = tableCharge + (indexUnits == null ? 0 : ItemWrites.sum(indexUnits.global()));
            written.add(new Written(a.outcome(), total, null, indexUnits, a.collectionBytes()));
        }
        return new WriteResult(written, null);
    }

    private static void charge(Target t, CapacityKind kind, double units) {
        AttributeValue pk = t.key().partition();
        t.table().partitions().charge(t.partition(), kind, units, t.encoded().hash(), () -> KeyText.of(pk));
    }

    /**
     * Reads every item at one moment: under the locks of all their stripes, which every committing write holds, so
     * that no transaction is seen half done. An item that a write transaction holds cancels the read with
     * {@code TransactionConflict}, as DynamoDB cancels a TransactGetItems that meets an ongoing write.
     *
     * @throws WouldBlock on a {@link NonBlockingThread}, before anything has happened
     */
    public ReadResult read(List<ReadAction> actions) {
        return read(actions, null, 0);
    }

    /**
     * Reads as {@link #read} does, one group's part of a TransactGetItems over several Raft groups, and holds the items
     * as read {@code hold}'s until {@link #release}: a commit of one of them meanwhile breaks the hold ({@link
     * ReadHolds}). {@code term} is the term this leader confirmed it leads in before the read. A read that does not
     * go ahead (cancelled, refused) holds nothing.
     *
     * @throws WouldBlock on a {@link NonBlockingThread}, before anything has happened
     */
    public ReadResult holdRead(String hold, long term, List<ReadAction> actions) {
        return read(actions, hold, term);
    }

    /** What a released hold ({@link #release}) says of its read. */
    public enum HoldOutcome {
        /** No item changed since the read, and this leader made the hold: the read was one moment's here. */
        INTACT,
        /** An item changed since the read, or a table of the read was deleted. */
        BROKEN,
        /**
         * Not known: released in another term than its read (another leader may have taken writes), a commit of
         * unknown outcome meanwhile, a hold expired, or made by no read here.
         */
        UNKNOWN
    }

    /** Ends read {@code hold}'s hold ({@link #holdRead}), by the leader of {@code term}, just confirmed. */
    public HoldOutcome release(String hold, long term) {
        return readHolds.release(hold, term);
    }

    /** Drops read {@code hold}'s hold, if any: the read was refused after all (its items too large, say). */
    public void dropHold(String hold) {
        readHolds.drop(hold);
    }

    private ReadResult read(List<ReadAction> actions, String hold, long term) {
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE;
        }
        int n = actions.size();
        Target[] targets = new Target[n];
        for (int i = 0; i < n; i++) {
            targets[i] = Target.of(actions.get(i).table(), actions.get(i).key());
            targets[i].requireHeld(false);
        }
        int injected = conflicts.conflictOn(n);
        if (injected >= 0) {
            return new ReadResult(null, null, conflictOn(n, injected));
        }
        for (int i = 0; i < n; i++) {
            // Checked before the locks, as a single-item write checks: a held item answers at once. A transaction
            // that claims an item after this waits for the read's locks, or the read for its commit.
            if (holds.held(targets[i].table().cacheId(), targets[i].encoded().bytes())) {
                return new ReadResult(null, null, conflictOn(n, i));
            }
        }
        Reason[] refused = null;
        for (int i = 0; i < n; i++) {
            Target t = targets[i];
            AttributeValue pk = t.key().partition();
            Throttle throttle = t.table().partitions().admit(t.partition(), CapacityKind.READ, () -> KeyText.of(pk));
            if (throttle != null) {
                if (refused == null) {
                    refused = new Reason[n];
                    Arrays.fill(refused, Reason.OK);
                }
                refused[i] = throttled(throttle);
            }
        }
        if (refused != null) {
            return new ReadResult(null, null, Arrays.asList(refused));
        }
        List<Map<String, AttributeValue>> items = new ArrayList<>(n);
        long[] sizes = new long[n];
        if (hold != null) {
            if (readHolds.unsettled()) {
                writes.settle(); // a commit of unknown outcome may still apply, under no lock: first see it applied
            }
            // Before the locks: a commit that takes one after the read finds the hold.
            List<TransactionHolds.Item> held = new ArrayList<>(n);
            List<Table> tables = new ArrayList<>(n);
            for (Target t : targets) {
                held.add(t.held());
                tables.add(t.table());
            }
            readHolds.hold(hold, term, held, tables);
        }
        boolean done = false;
        int[] stripes = null;
        try {
            stripes = lock(targets);
            requireLive(targets, false);
            for (int i = 0; i < n; i++) {
                Target t = targets[i];
                byte[] stored = storedItem(t);
                Map<String, AttributeValue> item = stored == null ? null : ItemCodec.decode(stored);
                items.add(item);
                sizes[i] = item == null ? 0 : ItemSize.of(item);
            }
            done = true;
        } finally {
            if (stripes != null) {
                unlock(stripes);
            }
            if (hold != null && !done) {
                readHolds.drop(hold);
            }
        }
        double[] units = new double[n];
        for (int i = 0; i < n; i++) {
            units[i] = TRANSACTIONAL * CapacityUnits.read(sizes[i], true);
            charge(targets[i], CapacityKind.READ, units[i]);
        }
        return new ReadResult(items, units, null);
    }

    /**
     * Every table of the transaction is still there, and every item in the store's hash range (and, for a {@code
     * write}, none a range move copies), checked under the locks: DeleteTable marks a table deleted, and a range move
     * changes the range, and each then waits for every held lock.
     */
    private static void requireLive(Target[] targets, boolean write) {
        for (Target t : targets) {
            if (t.table().deleted()) {
                throw ApiException.resourceNotFound("Requested resource not found");
            }
        }
        for (Target t : targets) {
            t.requireHeld(write);
        }
    }

    /** The item's stored bytes, read under its stripe: the cache is current there. */
    private byte[] storedItem(Target t) {
        byte[] k = t.encoded().bytes();
        ItemCache.Entry e = cache.get(t.table().cacheId(), k, t.keyHash());
        if (e != null && e.stored() != null) {
            return e.stored();
        }
        return store.get(t.table().items(), k);
    }

    /** Takes the stripes of every target in ascending order; returns them for {@link #unlock}. */
    private int[] lock(Target[] targets) {
        int[] stripes = new int[targets.length];
        for (int i = 0; i < targets.length; i++) {
            stripes[i] = locks.stripeOf(targets[i].keyHash());
        }
        stripes = Arrays.stream(stripes).sorted().distinct().toArray();
        int locked = 0;
        try {
            for (int s : stripes) {
                locks.stripe(s).lock();
                locked++;
            }
        } catch (RuntimeException | Error e) {
            for (int j = locked - 1; j >= 0; j--) {
                locks.stripe(stripes[j]).unlock();
            }
            throw e;
        }
        return stripes;
    }

    private void unlock(int[] stripes) {
        for (int j = stripes.length - 1; j >= 0; j--) {
            ReentrantLock l = locks.stripe(stripes[j]);
            l.unlock();
        }
    }
}
