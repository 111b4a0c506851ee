package io.partita.storage.write;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.expr.Values;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.storage.NonBlockingThread;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.WouldBlock;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.KeyText;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.feed.ChangeCause;
import io.partita.storage.index.IndexEntries;
import io.partita.storage.index.IndexRowWriter;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.index.TableIndexes;
import io.partita.storage.item.ItemCache;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.item.WriteOutcome;
import io.partita.storage.key.ByteSink;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.PartitionHash;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.ttl.TtlEntries;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;

/**
 * The one path every item change takes: PutItem, UpdateItem, DeleteItem, TTL deletions and PartiQL writes one item at
 * a time through {@link #write}, a BatchWriteItem's writes together through {@link #writeAll}, transactions several at
 * a time through {@link Transactions}, which plans each item here ({@link #plan}) and commits them together ({@link
 * #commit}).
 *
 * <pre>
 *   admit on the key's partition ─ refused: Written.throttled, nothing happens
 *   held by a transaction?         a user's write fails with TransactionConflictException
 *   take the item's lock           (an event loop does not wait for it: WouldBlock)
 *   read the current image         if the write looks at it or the table records its changes;
 *                                  else only its size and existence (from the cache when it is there)
 *   ConditionalWrite.apply         reject: unlock, charge, throw the rejection
 *   nothing to change?             deleting an absent item; on a recording table, storing an equal item
 *   contributors fill one batch    item row, statistics, and the change record if the table records
 *   commit                         RocksStore.write: the log, then RocksDB
 *   contributors finish            cache, live counters, partition size, the feed's watermark
 *   unlock, charge                 the larger of the old and new item, at least one unit
 * </pre>
 *
 * Capacity is admitted before the lock and charged after it, in this one place for a single write (a GSI's
 * capacity and index write units included); a transaction admits and charges its items itself, at twice the units.
 * Items must change only through this class: the {@link ItemCache} and the feed would not see a change made to the
 * items column family any other way.
 */
public final class ItemWrites {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ItemWrites.class);
    /**
     * Each thread's buffer for the stored form of the item it is writing, reused rather than grown from 256 bytes and
     * copied out for every write. It keeps the capacity of the largest item its thread wrote, at most about 400 KB.
     */
    private static final ThreadLocal<ByteSink> ENCODED = ThreadLocal.withInitial(() -> new ByteSink(4096));

    private final RocksStore store;
    private final TableCatalog catalog;
    /** The largest item collection of a table with LSIs (DynamoDB's 10 GB). */
    private final long itemCollectionLimit;

    private final KeyLocks locks;
    private final ItemCache cache;
    /** The parts of a change on a table nobody consumes the changes of. */
    private final BatchContributor[] plain;
    /** The parts of a change on a table whose changes are recorded. */
    private final BatchContributor[] recorded;
    /** The same, for a table with LSIs, whose rows go in the item's batch. */
    private final BatchContributor[] plainLocal;

    private final BatchContributor[] recordedLocal;
    /** An item's entry in the expiry-ordered TTL family, on a table with TTL enabled. */
    private final BatchContributor ttlEntries;
    /** The items transactions in progress hold: a user's write to one of them is a conflict, not a wait. */
    private final TransactionHolds holds = new TransactionHolds();
    /** The items reads over several Raft groups watch: a commit of one breaks their hold. */
    private final ReadHolds readHolds = new ReadHolds(System::nanoTime);

    private final Transactions transactions;
    private final PreparedTransactions prepared;
    private final TransactionTokens tokens;

    public ItemWrites(
            RocksStore store,
            KeyLocks locks,
            ItemCache cache,
            TableCatalog catalog,
            BatchContributor changeRecords,
            BatchContributor ttlEntries,
            long itemCollectionLimit,
            ConflictInjection conflicts) {
        this.ttlEntries = ttlEntries;
        this.catalog = catalog;
        this.itemCollectionLimit = itemCollectionLimit;
        this.store = store;
        this.locks = locks;
        this.cache = cache;
        BatchContributor rows = new ItemRows(cache);
        BatchContributor statistics = new TableStatistics(catalog);
        BatchContributor localIndexes = new LocalIndexRows(new IndexRowWriter(store, catalog), catalog);
        this.plain = new BatchContributor[] {rows, statistics};
        this.recorded = new BatchContributor[] {rows, statistics, changeRecords};
        this.plainLocal = new BatchContributor[] {rows, statistics, localIndexes};
        this.recordedLocal = new BatchContributor[] {rows, statistics, localIndexes, changeRecords};
        this.tokens = new TransactionTokens(this, store);
        this.transactions = new Transactions(this, holds, readHolds, locks, cache, store, conflicts);
        this.prepared = new PreparedTransactions(transactions, this, holds, store, catalog);
    }

    /** The ClientRequestTokens of the write transactions committed here. */
    public TransactionTokens tokens() {
        return tokens;
    }

    /**
     * Whether a write of {@code cause} is refused outside the store's hash range: a user's and a transaction's are; a
     * TTL deletion (of an item a range move left here, to be deleted anyway) and a move's own copy or deletion are not.
     */
    private static boolean fenced(ChangeCause cause) {
        return cause != ChangeCause.TTL && cause != ChangeCause.MOVE;
    }

    /**
     * Whether a transaction under way in this store holds an item of table {@code table} whose partition key hashes
     * into {@code range}: one that claimed its items and has not released them (a part of one over several groups
     * prepared here keeps its claims until it ends, and a new leader claims those recorded before it serves), or a
     * read's hold. A range move waits for none on the items it copies.
     */
    public boolean transactionsUnderWay(Table table, io.partita.storage.table.HashRange range) {
        return holds.holdsAny(table.cacheId(), range::holds) || readHolds.holdsAny(table.cacheId(), range::holds);
    }

    /** The items a range move tracks the changes of ({@link #trackChanges}), or null: one move at a time. */
    private volatile ChangedKeys changed;

    /**
     * Records, from now on, the key of every item of {@code table} whose partition key hashes into {@code range} that a
     * commit changes (up to {@code max} keys): a range move's first copy runs while the writes go on, and copies those
     * items again once it has fenced them. One at a time; {@link #stopTracking} ends it. Returns once every commit of
     * unknown outcome before it has applied or never will.
     */
    public synchronized ChangedKeys trackChanges(Table table, io.partita.storage.table.HashRange range, int max) {
        if (changed != null) {
            throw new IllegalStateException("a move's changes are tracked already");
        }
        ChangedKeys keys = new ChangedKeys(table, range, max);
        changed = keys;
        // A commit of unknown outcome proposed before may still apply, untracked, after the copy read its item: seen
        // applied (or never to be) first, through the log.
        try {
            settle();
        } catch (RuntimeException e) {
            changed = null;
            throw e;
        }
        return keys;
    }

    /** Ends {@code keys}'s tracking, unless another replaced it. */
    public synchronized void stopTracking(ChangedKeys keys) {
        if (changed == keys) {
            changed = null;
        }
    }

    /** The parts of transactions over several Raft groups this group takes part in. */
    public PreparedTransactions prepared() {
        return prepared;
    }

    /** The holds of reads over several Raft groups on this leader ({@link Transactions#holdRead}). */
    ReadHolds readHolds() {
        return readHolds;
    }

    /**
     * Whether a commit of unknown outcome may still be applied, under no lock (its entry proposed, its commit not
     * confirmed in time): an item read from RocksDB meanwhile may change underneath the cache, which must not keep it.
     */
    public boolean unsettled() {
        return readHolds.unsettled();
    }

    /** TransactWriteItems and TransactGetItems, through this write path. */
    public Transactions transactions() {
        return transactions;
    }

    /**
     * Applies one write: see the class comment. A failed condition is charged and then thrown as the write's
     * rejection; a throttled write is returned, not thrown, so that batches can return it unprocessed.
     *
     * @throws WouldBlock on a {@link NonBlockingThread} whose write would wait; nothing has changed
     */
    public Written write(ItemWrite w) {
        Table table = w.table();
        ItemKeyEncoder.EncodedKey encoded =
                ItemKeyEncoder.encode(table.metadata().keySchema(), w.key());
        if (fenced(w.cause())) {
            io.partita.storage.table.HashRange.requireWritable(table.metadata(), encoded.hash());
        }
        TablePartitions partitions = table.partitions();
        Partition partition = partitions.partitionFor(encoded.hash());
        AttributeValue partitionKey = w.key().partition();
        if (w.cause() == ChangeCause.TTL || w.cause() == ChangeCause.RESTORE || w.cause() == ChangeCause.MOVE) {
            // "Deleting items with TTL does not consume write throughput" (Using time to live): neither admitted nor
            // charged, nor is a restore's copy of an item. A rejection is the reaper's own: the item no longer
            // expires when it thought.
            Applied applied = apply(table, encoded, w);
            if (applied.rejection != null) {
                throw applied.rejection;
            }
            return new Written(applied.outcome, 0, null, null, applied.collectionBytes);
        }
        Throttle throttle = partitions.admit(partition, CapacityKind.WRITE, () -> KeyText.of(partitionKey));
        if (throttle != null) {
            return Written.throttled(throttle);
        }
        Throttle behind = admitGlobalIndexes(table);
        if (behind != null) {
            return Written.throttled(behind);
        }
        Applied applied = apply(table, encoded, w);
        ApiException rejection = applied.rejection;
        // A write whose condition fails still consumes write capacity, on the item it found ("Conditional writes").
        double units = rejection != null
                ? CapacityUnits.write(applied.oldSize, w.rejectedNewSize())
                : CapacityUnits.write(applied.outcome.oldBytes(), applied.outcome.newBytes());
        IndexUnits indexUnits = rejection == null ? applied.indexUnits(units) : null;
        // LSIs share the table's capacity; each GSI's applier charges its own.
        double tableCharge = units + (indexUnits == null ? 0 : sum(indexUnits.local()));
        partitions.charge(partition, CapacityKind.WRITE, tableCharge, encoded.hash(), () -> KeyText.of(partitionKey));
        if (rejection != null) {
            throw rejection;
        }
        double total = tableCharge + (indexUnits == null ? 0 : sum(indexUnits.global()));
        return new Written(applied.outcome, total, null, indexUnits, applied.collectionBytes);
    }

    /**
     * Applies a BatchWriteItem's writes ({@code ws}: a user's blind puts and deletes, of distinct items; or a range
     * move's copies or deletions, {@link ItemWrite#move}, or a restore's, {@link ItemWrite#restore}, neither admitted
     * nor charged) together, in one commit (one
     * log append, one Raft entry in a cluster) where one after another each waited for a round trip of its own; in a
     * few when their items hold more than {@link #BATCH_COMMIT_BYTES}. Under the locks of all their stripes (taken in
     * ascending order, as a transaction takes them), each is admitted, planned and charged in the request's order, as
     * {@link #write} would one after another, so a partition that runs out of capacity midway throttles the writes
     * after that point, as it would them. Each write stays atomic on its own, as DynamoDB's are; those of one commit
     * are also atomic together, which no reader can tell from writes made one after another under the same locks.
     *
     * <p>Per write, in order: its {@link Written} (throttled ones included), or null for one to be sent again: an item
     * a transaction holds, or, once part of the batch has committed, a write a later commit failed (whatever its
     * outcome: puts and deletes are idempotent) or a write from one refused while planning on. Before any part has
     * committed, input refused while planning (a table deleted meanwhile, a full item collection) and a failed commit
     * are thrown, as {@link #write} throws them, with nothing written (or, a commit's outcome unknown, its part
     * written). Units charged for writes not made stay charged.
     *
     * @throws WouldBlock on a {@link NonBlockingThread}: it may wait for up to 25 locks; nothing has changed
     */
    public Written[] writeAll(List<ItemWrite> ws) {
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE;
        }
        int n = ws.size();
        ItemKeyEncoder.EncodedKey[] encoded = new ItemKeyEncoder.EncodedKey[n];
        long[] keyHashes = new long[n];
        int[] stripes = new int[n];
        java.util.Set<StoredItem> items = new java.util.HashSet<>(n * 2);
        for (int i = 0; i < n; i++) {
            ItemWrite w = ws.get(i);
            if (w.cause() != ChangeCause.USER && w.cause() != ChangeCause.MOVE && w.cause() != ChangeCause.RESTORE) {
                throw new IllegalArgumentException(
                        "a batch holds a user's writes, a move's or a restore's, not " + w.cause());
            }
            encoded[i] = ItemKeyEncoder.encode(w.table().metadata().keySchema(), w.key());
            if (fenced(w.cause())) {
                io.partita.storage.table.HashRange.requireWritable(w.table().metadata(), encoded[i].hash());
            }
            // Each planned against the items as they were before the batch: two writes of one item would both be.
            if (!items.add(new StoredItem(w.table().cacheId(), java.nio.ByteBuffer.wrap(encoded[i].bytes())))) {
                throw new IllegalArgumentException("a batch writes an item twice");
            }
            keyHashes[i] = PartitionHash.of(encoded[i].bytes());
            stripes[i] = locks.stripeOf(keyHashes[i]);
        }
        stripes = java.util.Arrays.stream(stripes).sorted().distinct().toArray();
        int locked = 0;
        try {
            for (int stripe : stripes) {
                locks.stripe(stripe).lock();
                locked++;
            }
            return writeLocked(ws, encoded, keyHashes);
        } finally {
            for (int j = locked - 1; j >= 0; j--) {
                locks.stripe(stripes[j]).unlock();
            }
        }
    }

    /**
     * The most bytes of items (the new row, the change record's two images, each LSI's row) one commit of a batch
     * carries: a batch of 25 items of 400 KB on a recording table with LSIs holds far more than a Raft entry may
     * (Ratis refuses one over its 4 MB append buffer), so a large batch commits in several, each within the 1 MB a
     * group commit gathers.
     */
    static final long BATCH_COMMIT_BYTES = 1024 * 1024;

    private Written[] writeLocked(List<ItemWrite> ws, ItemKeyEncoder.EncodedKey[] encoded, long[] keyHashes) {
        int n = ws.size();
        Written[] out = new Written[n];
        // The planned changes not yet committed, of the writes from chunkFrom on, and their bytes.
        List<Applied> changes = new ArrayList<>(n);
        int chunkFrom = 0;
        long chunkBytes = 0;
        boolean committedAny = false;
        boolean plannedAny = false;
        // What the batch's earlier writes add to each item collection, for the limit.
        Map<CollectionKey, Long> collections = new HashMap<>();
        for (int i = 0; i < n; i++) {
            ItemWrite w = ws.get(i);
            Table table = w.table();
            byte[] k = encoded[i].bytes();
            TablePartitions partitions = table.partitions();
            Partition partition = partitions.partitionFor(encoded[i].hash());
            AttributeValue partitionKey = w.key().partition();
            // A move's copies and deletions are neither admitted nor charged, nor are a restore's.
            boolean charged = w.cause() != ChangeCause.MOVE && w.cause() != ChangeCause.RESTORE;
            Throttle throttle =
                    charged ? partitions.admit(partition, CapacityKind.WRITE, () -> KeyText.of(partitionKey)) : null;
            if (throttle == null && charged) {
                throttle = admitGlobalIndexes(table);
            }
            if (throttle != null) {
                out[i] = Written.throttled(throttle);
                continue;
            }
            if (heldByTransaction(table, k, w)) {
                continue; // "Transaction conflict handling in DynamoDB": refused, not queued; sent again
            }
            Applied applied;
            try {
                applied = plan(table, encoded[i], k, keyHashes[i], w, new ByteSink(1024), collections);
            } catch (RuntimeException failed) {
                if (committedAny) {
                    // Part of the batch is written: the planned rest commits, and this write and those after it (all
                    // still null) go back to be sent again, where this one meets its refusal on its own.
                    if (!commitLater(changes)) {
                        java.util.Arrays.fill(out, chunkFrom, i, null);
                    }
                    return out;
                }
                throw failed instanceof ApiException refused ? confirmed(refused) : failed;
            }
            plannedAny = true;
            if (applied.rejection != null) {
                // A blind write has no condition to fail.
                throw new IllegalStateException("a batch's write was refused", applied.rejection);
            }
            // The new row, the change record's two images, each LSI's row: bounded by both images for each.
            long bytes = (applied.outcome.oldBytes() + applied.outcome.newBytes())
                    * (2L + table.indexes().locals().size());
            if (applied.change != null && !changes.isEmpty() && chunkBytes + bytes > BATCH_COMMIT_BYTES) {
                if (!committedAny) {
                    commit(changes); // its failure is the batch's: nothing of it is written
                } else if (!commitLater(changes)) {
                    java.util.Arrays.fill(out, chunkFrom, n, null);
                    return out;
                }
                committedAny = true;
                forgetCommitted(collections, changes);
                changes.clear();
                chunkFrom = i;
                chunkBytes = 0;
            }
            if (!charged) {
                out[i] = new Written(applied.outcome, 0, null, null, applied.collectionBytes);
            } else {
                double units = CapacityUnits.write(applied.outcome.oldBytes(), applied.outcome.newBytes());
                IndexUnits indexUnits = applied.indexUnits(units);
                double tableCharge = units + (indexUnits == null ? 0 : sum(indexUnits.local()));
                partitions.charge(
                        partition, CapacityKind.WRITE, tableCharge, encoded[i].hash(), () -> KeyText.of(partitionKey));
                double total = tableCharge + (indexUnits == null ? 0 : sum(indexUnits.global()));
                out[i] = new Written(applied.outcome, total, null, indexUnits, applied.collectionBytes);
            }
            if (applied.change != null) {
                changes.add(applied);
                chunkBytes += bytes;
            }
        }
        if (!changes.isEmpty()) {
            if (!committedAny) {
                commit(changes);
            } else if (!commitLater(changes)) {
                java.util.Arrays.fill(out, chunkFrom, n, null);
            }
        } else if (plannedAny && !committedAny) {
            confirmUnwritten(); // nothing to change (an absent item deleted, an equal one stored): answered as is
        }
        return out;
    }

    /**
     * {@code refused}, a refusal that depends on the item as it is, once this replica is confirmed to lead (so that
     * the state it rests on is current); or the store's refusal when it is not, to be thrown instead.
     */
    private RuntimeException confirmed(ApiException refused) {
        try {
            confirmUnwritten();
        } catch (io.partita.storage.StorageUnavailableException unsure) {
            unsure.addSuppressed(refused);
            return unsure;
        }
        return refused;
    }

    /**
     * Commits a batch's {@code changes} after an earlier part of it has committed; false when that failed, whatever
     * its outcome: their writes go back to be sent again (puts and deletes are idempotent), as DynamoDB returns the
     * writes "an internal processing failure" stopped in UnprocessedItems (API_BatchWriteItem.html).
     */
    private boolean commitLater(List<Applied> changes) {
        if (changes.isEmpty()) {
            return true;
        }
        try {
            commit(changes);
            return true;
        } catch (StorageUnavailableException | StorageException failed) {
            log.warn("a part of a BatchWriteItem did not commit; its writes go back unprocessed", failed);
            return false;
        }
    }

    /**
     * Takes what {@code committed} changes added to their item collections out of {@code pending}: the store's
     * counters hold it now, and a later write of the batch counts both.
     */
    private static void forgetCommitted(Map<CollectionKey, Long> pending, List<Applied> committed) {
        for (Applied a : committed) {
            byte[] prefix = a.change.collection();
            if (prefix != null) {
                pending.merge(
                        new CollectionKey(a.change.table().cacheId(), java.nio.ByteBuffer.wrap(prefix)),
                        -a.change.collectionDelta(),
                        Long::sum);
            }
        }
    }

    /**
     * Null when every GSI of {@code table} (but one being deleted) can take a write, else the first one's throttle,
     * naming it: a GSI in debt throttles its table's writes.
     */
    static Throttle admitGlobalIndexes(Table table) {
        for (LiveIndex g : table.indexes().globals()) {
            Throttle behind = "DELETING".equals(g.definition().status())
                    ? null
                    : g.partitions().admitIndexWrite();
            if (behind != null) {
                return behind.ofIndex(g.name());
            }
        }
        return null;
    }

    static double sum(Map<String, Double> units) {
        double s = 0;
        for (double u : units.values()) {
            s += u;
        }
        return s;
    }

    /**
     * The result of the locked part: an outcome, or a rejection and the size of the item it found; with the units of
     * each index's writes (null when the table has no index).
     */
    record Applied(
            WriteOutcome outcome,
            ApiException rejection,
            long oldSize,
            Map<String, Double> localUnits,
            Map<String, Double> globalUnits,
            long collectionBytes,
            ItemChange change,
            BatchContributor[] parts) {
        Applied(WriteOutcome outcome, ApiException rejection, long oldSize) {
            this(outcome, rejection, oldSize, null, null, -1, null, null);
        }

        Applied(WriteOutcome outcome, long oldSize, ItemChange change, BatchContributor[] parts) {
            this(outcome, null, oldSize, null, null, -1, change, parts);
        }

        IndexUnits indexUnits(double tableUnits) {
            return localUnits == null ? null : new IndexUnits(tableUnits, localUnits, globalUnits);
        }
    }

    private Applied apply(Table table, ItemKeyEncoder.EncodedKey encoded, ItemWrite w) {
        byte[] k = encoded.bytes();
        if (heldByTransaction(table, k, w)) {
            // "Transaction conflict handling in DynamoDB": the write is refused, not queued behind the transaction.
            throw new ApiException(ErrorCode.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE);
        }
        long keyHash = PartitionHash.of(k);
        ReentrantLock lock = locks.lockFor(keyHash);
        if (NonBlockingThread.current()) {
            // Another thread's write (a batch, a transaction) holds the stripe: the event loop hands this one over.
            if (!lock.tryLock()) {
                throw WouldBlock.INSTANCE;
            }
        } else {
            lock.lock();
        }
        try {
            if (heldByTransaction(table, k, w)) {
                // Claimed while this write waited for the lock: a part of a transaction over several Raft groups
                // holds its items, unlocked, from its prepare until its commit (PreparedTransactions).
                throw new ApiException(ErrorCode.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE);
            }
            Applied a;
            try {
                a = plan(table, encoded, k, keyHash, w, ENCODED.get(), null);
            } catch (ApiException refused) {
                // Some refusals depend on the item as it is (an update of a missing number, an item grown past
                // 400 KB, a full item collection): answered from this replica's state, as a failed condition is.
                throw confirmed(refused);
            }
            if (a.change != null) {
                commit(List.of(a));
            } else {
                confirmUnwritten();
            }
            return a;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a transaction holds the item a user's write or the TTL service's deletion would change: the write is
     * refused (the TTL service comes back for the item later). One volatile read when no transaction holds anything.
     */
    private boolean heldByTransaction(Table table, byte[] k, ItemWrite w) {
        return (w.cause() == ChangeCause.USER || w.cause() == ChangeCause.TTL) && holds.held(table.cacheId(), k);
    }

    /**
     * Everything before the commit, under the item's lock: the old image, the decision, the index rows, the
     * collection's size, and the batch's parts ({@link Applied#change} null when there is nothing to commit). Input
     * errors found here (an index key of the wrong type, a full item collection, an update that cannot apply) are
     * thrown before anything is written. The new item is encoded into {@code buffer}, which must stay untouched
     * until the change has committed: a transaction plans each of its items into a buffer of its own.
     */
    Applied plan(
            Table table,
            ItemKeyEncoder.EncodedKey encoded,
            byte[] k,
            long keyHash,
            ItemWrite w,
            ByteSink buffer,
            Map<CollectionKey, Long> pending) {
        if (table.deleted()) {
            // DeleteTable removed it after this write looked it up, and drops its families once no lock is held.
            throw ApiException.resourceNotFound("Requested resource not found");
        }
        if (w.cause() == ChangeCause.USER) {
            // Again under the item's lock: a range move changes the range and then waits for every held lock
            // (TableCatalog#changeRange), so no write that checked it as it was commits after that. (A transaction
            // checks its items under their locks when it starts, Transactions#requireLive; a part prepared before the
            // change commits where it was prepared, and the move waits for it.)
            io.partita.storage.table.HashRange.requireWritable(table.metadata(), encoded.hash());
        } else if (w.cause() == ChangeCause.MOVE) {
            // A move's copy into a range that is no longer receiving (opened since it was sent: a late page of a
            // leader that was replaced) would overwrite what users wrote there since; checked under the lock, as the
            // opening waits for every lock held. So would a page of a copy before the one the range takes now (its
            // leader replaced, still sending the items as they were). A deletion of an item outside the range is the
            // move's own, at home.
            io.partita.storage.table.HashRange r = table.metadata().hashRange();
            if (r != null && r.holds(encoded.hash()) && !r.receiving()) {
                throw ApiException.validation(
                        "Partita: table " + table.metadata().name() + " is "
                                + io.partita.storage.table.HashRange.NOT_RECEIVING + " a moved range");
            }
            if (r != null && w.copier() != null && !r.takesCopy(w.copier())) {
                throw ApiException.validation(
                        "Partita: table " + table.metadata().name() + "'s moved range takes"
                                + " another copy's pages now (" + io.partita.storage.table.HashRange.OTHER_COPY + ")");
            }
        }
        if (readHolds.unsettled()) {
            // A commit of unknown outcome may still apply, under no lock, before this one: a decision on the item as
            // RocksDB has it now could rest on a value it replaces (a condition, an increment, the record's old
            // image). First see it applied or never to be. Two volatile reads otherwise.
            settle();
        }
        boolean recording = table.feed().recording();
        TableIndexes indexes = table.indexes();
        boolean looks = w.write().needsCurrent();
        // An LSI deletes the row of the item's old image in the same batch.
        boolean ttl = TtlEntries.applies(table);
        boolean wantOld = looks || recording || !indexes.locals().isEmpty() || ttl;
        // A cache entry means the item exists, and always knows its size; a blind write needs nothing more.
        ItemCache.Entry cached = cache.get(table.cacheId(), k, keyHash);
        boolean existed;
        long oldSize = 0;
        byte[] oldStored = null;
        Map<String, AttributeValue> old = null;
        if (cached != null) {
            existed = true;
            oldSize = cached.itemSize();
            if (wantOld) {
                oldStored = cached.stored() != null ? cached.stored() : store.get(table.items(), k);
                // A blind write on a recording table needs the bytes for the record; decoded only if compared.
                old = looks ? ItemCodec.decode(oldStored) : null;
            }
        } else {
            byte[] stored = store.get(table.items(), k);
            existed = stored != null;
            if (existed) {
                Map<String, AttributeValue> decoded = ItemCodec.decode(stored);
                oldSize = ItemSize.of(decoded);
                if (wantOld) {
                    oldStored = stored;
                    old = decoded;
                }
            }
        }
        WriteDecision decision = w.write().apply(looks ? old : null);
        if (decision instanceof WriteDecision.Reject reject) {
            return new Applied(null, reject.error(), oldSize);
        }
        if (decision instanceof WriteDecision.Keep) {
            return new Applied(new WriteOutcome(old, old, oldSize, oldSize), null, oldSize);
        }
        Map<String, AttributeValue> next = decision instanceof WriteDecision.Put put ? put.item() : null;
        if (next == null && !existed) {
            return new Applied(new WriteOutcome(null, null, 0, 0), null, 0);
        }
        long newSize = next == null ? 0 : ((WriteDecision.Put) decision).size();
        if (next != null && newSize < 0) {
            newSize = ItemSize.of(next);
        }
        if (next != null && !indexes.isEmpty()) {
            // An index key of the wrong type or an empty one refuses the whole write, before anything is written.
            IndexEntries.check(indexes.definitions(), next);
        }
        WriteOutcome outcome = new WriteOutcome(old, next, oldSize, newSize);
        // "If you perform a PutItem or UpdateItem operation that does not change any data in an item, DynamoDB
        // Streams does not write a stream record for that operation" (Change data capture for DynamoDB Streams): a
        // recording table commits nothing for it. Elsewhere the equal item is stored again, which nobody can tell.
        ByteSink nextBytes = next == null ? null : ItemCodec.encode(next, buffer.clear());
        if (recording && next != null && oldStored != null && unchanged(oldStored, old, nextBytes, next)) {
            return new Applied(outcome, null, oldSize);
        }
        ItemChange change = new ItemChange(
                table,
                k,
                keyHash,
                encoded.hash(),
                w.cause(),
                existed,
                oldStored,
                old,
                oldSize,
                next,
                nextBytes,
                newSize,
                w.key());
        if (indexes.isEmpty()) {
            return new Applied(
                    outcome, oldSize, change, ttl ? parts(recording, false, true) : recording ? recorded : plain);
        }
        Map<String, AttributeValue> oldImage = old != null || oldStored == null ? old : ItemCodec.decode(oldStored);
        Map<String, Double> localUnits = new HashMap<>();
        Map<String, Double> globalUnits = new HashMap<>();
        List<ItemChange.LocalRow> localRows = new ArrayList<>();
        for (LiveIndex i : indexes.all()) {
            IndexRowWriter.RowChange rc = IndexRowWriter.plan(table, i, k, oldImage, next, null);
            if (i.global()) {
                if (rc.units() > 0) {
                    globalUnits.put(i.name(), rc.units());
                }
            } else {
                if (rc.units() > 0) {
                    localUnits.put(i.name(), rc.units());
                }
                if (!rc.isEmpty()) {
                    localRows.add(new ItemChange.LocalRow(i, rc));
                }
            }
        }
        change.localRows(localRows);
        long collection = -1;
        BatchContributor[] parts = ttl ? parts(recording, false, true) : recording ? recorded : plain;
        if (!indexes.locals().isEmpty()) {
            collection = collection(table, w, change, newSize - oldSize, pending);
            parts = ttl ? parts(recording, true, true) : recording ? recordedLocal : plainLocal;
        }
        return new Applied(outcome, null, oldSize, localUnits, globalUnits, collection, change, parts);
    }

    /**
     * The size the item's collection will have, checked against the limit ("Item collection size limit": a table
     * with LSIs keeps each partition key's items and LSI entries within 10 GB; a write that would grow one past it is
     * refused with ItemCollectionSizeLimitExceededException). Writes to other items of the collection hold other
     * locks, so two may pass the check together: DynamoDB's limit is not exact either. Within one transaction,
     * {@code pending} holds what its earlier actions add to each collection, so that together they cannot pass it.
     */
    private long collection(
            Table table, ItemWrite w, ItemChange change, long itemDelta, Map<CollectionKey, Long> pending) {
        byte[] prefix = io.partita.storage.key.KeyRanges.partitionPrefix(w.key().partition());
        long delta = itemDelta;
        for (ItemChange.LocalRow r : change.localRows()) {
            delta += r.change().sizeDelta();
        }
        CollectionKey key =
                pending == null ? null : new CollectionKey(table.cacheId(), java.nio.ByteBuffer.wrap(prefix));
        long current = catalog.collectionSize(table, prefix) + (key == null ? 0 : pending.getOrDefault(key, 0L));
        if (delta > 0 && current + delta > itemCollectionLimit) {
            throw new ApiException(
                    ErrorCode.ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED,
                    "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.");
        }
        change.collection(prefix, delta);
        if (key != null) {
            pending.merge(key, delta, Long::sum);
        }
        return current + delta;
    }

    /** An item of a table: its cache id and the item's stored key. */
    private record StoredItem(long table, java.nio.ByteBuffer key) {}

    /** An item collection of a table: its cache id and the collection's partition prefix. */
    record CollectionKey(long table, java.nio.ByteBuffer prefix) {}

    /** The parts of a change on a table with TTL (rare enough to assemble per write). */
    private BatchContributor[] parts(boolean recording, boolean locals, boolean ttl) {
        List<BatchContributor> p = new ArrayList<>(5);
        p.add(plain[0]);
        p.add(plain[1]);
        if (locals) {
            p.add(plainLocal[2]);
        }
        if (ttl) {
            p.add(ttlEntries);
        }
        if (recording) {
            p.add(recorded[2]);
        }
        return p.toArray(BatchContributor[]::new);
    }

    /**
     * Before answering a write that commits nothing (a failed condition or another refusal that depends on the item, a
     * transaction's ConditionCheck or its cancellation, a delete of no item, an item written again unchanged), under
     * the items' locks: the answer rests on this replica's state alone, as a read's does. In a cluster it must not
     * come from a leader the others have replaced, which may lack writes they acknowledged since: the strongly
     * consistent read's barrier ({@link RocksStore#readBarrier}; a 503 when this node cannot confirm that it leads). A
     * woken leader that others had replaced once answered a refused compare-and-set so (ClusterLinearizabilityIT). On a
     * single node, one volatile read.
     */
    void confirmUnwritten() {
        store.readBarrier();
    }

    /**
     * Returns once an entry of this replica's own, proposed now, has been applied: every commit of unknown outcome
     * before it is then applied or never will be (a leader's entries of one term apply in their order), and a read of
     * an item it changed sees the change ({@link ReadHolds}). On a single node an empty batch, written at once.
     *
     * @throws StorageUnavailableException when the entry was not confirmed; nothing was changed
     */
    void settle() {
        long upTo = readHolds.unknowns();
        try {
            store.write(batch -> {});
        } catch (StorageUnavailableException e) {
            throw new StorageUnavailableException("could not settle a change of unknown outcome", e, false);
        }
        readHolds.settled(upTo);
    }

    /**
     * Commits the planned changes in one batch (one change for a single write, every changed item of a transaction),
     * each built by its parts, and lets every part of every change finish, however the commit ended and whatever
     * another part's {@code finished} threw; the first failure is thrown after all have finished.
     */
    void commit(List<Applied> changes) {
        commit(changes, null);
    }

    /**
     * Commits as {@link #commit(List)} does, with {@code also} adding rows of its own to the same batch (a prepared
     * transaction's record, deleted with its writes; {@link PreparedTransactions}).
     */
    void commit(List<Applied> changes, java.util.function.Consumer<org.rocksdb.WriteBatch> also) {
        long unknownsBefore = readHolds.unknowns();
        if (readHolds.size() > 0) {
            for (Applied a : changes) {
                readHolds.changing(a.change.table().cacheId(), a.change.key());
            }
        }
        boolean[] built = {false};
        CommitOutcome outcome;
        Throwable failure = null;
        try {
            store.write(batch -> {
                for (Applied a : changes) {
                    for (BatchContributor part : a.parts) {
                        try {
                            part.contribute(batch, a.change);
                        } catch (RocksDBException e) {
                            throw new StorageException("write batch failed", e);
                        }
                    }
                }
                if (also != null) {
                    also.accept(batch);
                }
                built[0] = true;
            });
            outcome = CommitOutcome.COMMITTED;
            // Applied here after every entry proposed before it (in cluster mode, store.write returns once this
            // replica has; ReadHolds): the commits of unknown outcome before it are settled.
            if (unknownsBefore != 0) {
                readHolds.settled(unknownsBefore);
            }
        } catch (WouldBlock e) {
            // The log refuses before it appends anything.
            outcome = CommitOutcome.NOT_WRITTEN;
            failure = e;
        } catch (StorageUnavailableException e) {
            // Refused before the log (a full disk): nothing to keep open, unlike a write that may be replayed.
            outcome = built[0] && e.mayHaveBeenWritten() ? CommitOutcome.UNKNOWN : CommitOutcome.NOT_WRITTEN;
            failure = e;
        } catch (RuntimeException | Error e) {
            outcome = built[0] ? CommitOutcome.UNKNOWN : CommitOutcome.NOT_WRITTEN;
            failure = e;
        }
        if (outcome == CommitOutcome.UNKNOWN) {
            readHolds.unknown();
        }
        ChangedKeys tracking = changed;
        if (tracking != null && outcome != CommitOutcome.NOT_WRITTEN) {
            // After the commit: one the tracking did not see committed before it began (ChangedKeys).
            for (Applied a : changes) {
                tracking.offer(a.change);
            }
        }
        for (Applied a : changes) {
            for (BatchContributor part : a.parts) {
                try {
                    part.finished(a.change, outcome);
                } catch (RuntimeException | Error e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
    }

    /**
     * Whether storing {@code next} changes nothing. Equal items encode to the same length (the same parts, perhaps in
     * another order), so a different length settles it without decoding the old item; equal bytes settle it the
     * other way. {@code old} is the decoded old item, or null if it has not been decoded.
     */
    private static boolean unchanged(
            byte[] oldStored, Map<String, AttributeValue> old, ByteSink nextBytes, Map<String, AttributeValue> next) {
        if (oldStored.length != nextBytes.size()) {
            return false;
        }
        return nextBytes.contentEquals(oldStored) || sameItem(old != null ? old : ItemCodec.decode(oldStored), next);
    }

    /** DynamoDB's equality of two items: the same attributes with equal values (sets compared as sets). */
    public static boolean sameItem(Map<String, AttributeValue> a, Map<String, AttributeValue> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, AttributeValue> e : a.entrySet()) {
            if (!Values.equal(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
