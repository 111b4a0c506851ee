package io.partita.storage.write;

import io.partita.protocol.error.ApiException;
import io.partita.storage.StorageException;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The parts of write transactions over several Raft groups ({@code --cluster-table-groups}) that this group takes
 * part in: a two-phase commit whose participants are the groups, each through its own log, and whose decision is kept
 * by the first group's ({@code decides}).
 *
 * <pre>
 *   prepare   planned as a transaction is (conflicts, capacity, conditions, sizes) under the items' locks; when every
 *             action may go ahead, a record of the part (its items and the caller's body) is committed instead of
 *             its writes, and its items stay claimed, as a transaction in progress claims them, until it ends
 *   commit    planned again under the locks (claimed meanwhile, the items are as they were) and written in one
 *             batch with the record's deletion and, in the deciding group, the decision COMMITTED
 *   abort     the record deleted and the items released; in the deciding group, the decision ABORTED
 * </pre>
 *
 * The deciding group decides once: a commit finds no decision and its own record, or answers the decision there is;
 * an abort (the coordinator's, or a resolver's for a part whose coordinator is gone) records ABORTED unless COMMITTED
 * is there; a prepare finds no decision. Each runs under the transaction's lock, after every commit of unknown
 * outcome before it has settled ({@link ItemWrites#settle}), so that it sees every decision this leader proposed. A
 * new leader reads the records and claims their items before it serves ({@link #claimRecorded}). A decision is kept
 * for {@link #DECISION_MILLIS}; a part asked about later than that is taken as aborted. A decision COMMITTED is also
 * kept as untold with the groups that took part ({@link ActionsOf#participants}): a deciding group that is to close
 * first tells them ({@link #untold}, {@link #told}), so that no part waits on a group that is gone.
 */
public final class PreparedTransactions {
    /** What the deciding group decided. */
    public enum Decision {
        COMMITTED,
        ABORTED
    }

    /** A prepared part: the transaction's id, and the body its caller gave it. */
    public record Part(String id, byte[] body) {}

    /**
     * How a commit ended: {@code decision}, and what it wrote here ({@code result} null when this group wrote
     * nothing: its part was not prepared here, or was finished before).
     */
    public record Finished(Decision decision, Transactions.WriteResult result) {}

    /** How long the deciding group keeps a decision: one day. */
    public static final long DECISION_MILLIS = 86_400_000L;

    private static final byte[] PREPARED = "partita/transaction/prepared/".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DECIDED = "partita/transaction/decided/".getBytes(StandardCharsets.UTF_8);
    /** Each decision again, by when it was made ({@link #byTime}): what {@link #forgetDecisions} reads. */
    private static final byte[] DECIDED_AT = "partita/transaction/decided-at/".getBytes(StandardCharsets.UTF_8);
    /** The decisions COMMITTED whose groups have not been told yet ({@link #untold}), with those groups. */
    private static final byte[] UNTOLD = "partita/transaction/untold/".getBytes(StandardCharsets.UTF_8);

    private final Transactions transactions;
    private final ItemWrites writes;
    private final TransactionHolds holds;
    private final RocksStore store;
    private final TableCatalog catalog;
    private final ColumnFamilyHandle family;
    /** The claims of the parts prepared here, by id, with their caller's body. */
    private final ConcurrentHashMap<String, Claim> claimed = new ConcurrentHashMap<>();

    private record Claim(TransactionHolds.Item[] items, byte[] body) {}

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PreparedTransactions.class);

    private final ReentrantLock[] locks = new ReentrantLock[64];

    PreparedTransactions(
            Transactions transactions,
            ItemWrites writes,
            TransactionHolds holds,
            RocksStore store,
            TableCatalog catalog) {
        this.transactions = transactions;
        this.writes = writes;
        this.holds = holds;
        this.store = store;
        this.catalog = catalog;
        this.family = store.family(new String(org.rocksdb.RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8));
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /**
     * Prepares this group's part {@code actions} of transaction {@code id} (see the class comment), recording {@code
     * body} with it. A cancellation answers its reasons, as {@link Transactions#write} does; a prepared part answers
     * a result with neither. In the deciding group a transaction decided already (aborted by a resolver before its
     * prepare came) is cancelled with {@code TransactionConflict} on its first action. A record whose commit's outcome
     * is not known keeps its items claimed until the part is aborted (its coordinator, told of no prepare, aborts it;
     * else the resolver finds it among {@link #prepared}).
     *
     * @throws ApiException a {@code ValidationException} when {@code id} is prepared here already
     */
    public Transactions.WriteResult prepare(
            String id, boolean decides, byte[] body, List<Transactions.WriteAction> actions) {
        return prepare(id, decides, body, actions, null);
    }

    /**
     * Prepares as {@link #prepare(String, boolean, byte[], List)} does, with {@code onClaimed} run once the part's
     * items are claimed, before it is planned: what it throws ends the prepare there (nothing recorded, nothing held),
     * and is thrown. (A deciding group looks there for the transaction's token, which a commit of the same items that
     * released them has written.)
     */
    public Transactions.WriteResult prepare(
            String id, boolean decides, byte[] body, List<Transactions.WriteAction> actions, Runnable onClaimed) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            Decision known = settledDecision(id, decides);
            if (claimed.containsKey(id) || store.get(family, key(PREPARED, id)) != null) {
                throw ApiException.validation("Transaction " + id + " is prepared already");
            }
            if (known != null) {
                return new Transactions.WriteResult(null, Transactions.conflictOn(actions.size(), 0));
            }
            byte[] record = encode(actions, body);
            return transactions.write(
                    actions,
                    items -> {
                        claimed.put(id, new Claim(items, body));
                        try {
                            write(batch -> put(batch, key(PREPARED, id), record));
                        } catch (RuntimeException e) {
                            if (!mayHaveBeenWritten(e)) {
                                release(id); // nothing recorded: nothing to hold
                            }
                            throw e;
                        }
                    },
                    onClaimed);
        } finally {
            lock.unlock();
        }
    }

    /** The actions of a part, read again from its record at its commit ({@link #commit}). */
    @FunctionalInterface
    public interface ActionsOf {
        /**
         * The actions of the part recorded with {@code body}, whose tables were these ({@code tableIds}: each table's
         * id by name, as it was at the prepare: a table made again since under the name has another id and none of
         * the part's items).
         */
        List<Transactions.WriteAction> read(byte[] body, Map<String, String> tableIds);

        /**
         * The groups that take part in the transaction, as the deciding part's {@code body} names them, kept with a
         * decision COMMITTED (none by default).
         */
        default List<String> participants(byte[] body) {
            return List.of();
        }

        /**
         * The part's {@code ClientRequestToken} record, made as its commit's batch is built from the {@code actions}
         * {@link #read} gave, committed with its writes (in the deciding group, with the decision COMMITTED; {@link
         * TransactionTokens}); null for none (the default).
         */
        default TransactionTokens.Recorder token(byte[] body, List<Transactions.WriteAction> actions) {
            return null;
        }
    }

    /** A decision COMMITTED not told yet: the transaction's id, and the groups that took part in it. */
    public record Untold(String id, List<String> participants) {}

    /**
     * Commits this group's part of transaction {@code id}, its actions read again from the part's record ({@code
     * actionsOf}, under the transaction's lock). The deciding group answers the decision there is when there is one
     * (and writes nothing), and decides ABORTED for a part it has no record of; another group answers COMMITTED, with
     * nothing written, for a part it has no record of (finished before). Either way a part no longer recorded holds
     * nothing after.
     */
    public Finished commit(String id, boolean decides, long nowMillis, ActionsOf actionsOf) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            Decision known = settledDecision(id, decides);
            byte[] record = store.get(family, key(PREPARED, id));
            if (known != null) {
                end(id, record, known);
                return new Finished(known, null);
            }
            if (record == null) {
                release(id);
                if (!decides) {
                    // Ended before, here (its coordinator or a resolver committed it: the deciding group decided so):
                    // said by a leader the others have not replaced, which has every write they acknowledged.
                    writes.confirmUnwritten();
                    return new Finished(Decision.COMMITTED, null);
                }
                write(batch -> decide(batch, id, Decision.ABORTED, nowMillis));
                return new Finished(Decision.ABORTED, null);
            }
            Recorded recorded = decode(record);
            List<Transactions.WriteAction> actions = actionsOf.read(recorded.body(), recorded.tableIds());
            Claim claim = claimed.get(id);
            if (claim == null) {
                // Recorded by a commit of unknown outcome applied since, or claimed by no leader yet: claimed now.
                TransactionHolds.Item[] items = Transactions.items(actions);
                if (holds.claim(items) >= 0) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "another transaction holds an item of transaction " + id + "; it is committed later");
                }
                claimed.put(id, new Claim(items, recorded.body()));
            }
            Transactions.WriteResult written = transactions.commitPrepared(
                    actions,
                    batch -> {
                        delete(batch, key(PREPARED, id));
                        if (decides) {
                            decide(batch, id, Decision.COMMITTED, nowMillis);
                            untell(batch, id, actionsOf.participants(recorded.body()));
                        }
                    },
                    actionsOf.token(recorded.body(), actions),
                    () -> release(id));
            release(id);
            return new Finished(Decision.COMMITTED, written);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Aborts this group's part of transaction {@code id}: its record deleted and its items released. The deciding
     * group first answers the decision there is, if any (a transaction decided COMMITTED is not aborted), else
     * records ABORTED. Asked by the coordinator once another group cancelled, and by the resolver of a part whose
     * coordinator did not finish it: the deciding group's answer then says how the other groups end theirs.
     */
    public Decision abort(String id, boolean decides, long nowMillis) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            Decision known = settledDecision(id, decides);
            byte[] record = store.get(family, key(PREPARED, id));
            if (known != null) {
                end(id, record, known);
                return known;
            }
            if (record != null || decides) {
                write(batch -> {
                    delete(batch, key(PREPARED, id));
                    if (decides) {
                        decide(batch, id, Decision.ABORTED, nowMillis);
                    }
                });
            }
            release(id);
            return Decision.ABORTED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A decided part's end where it was decided already: a record left beside ABORTED (a prepare whose commit was
     * not known to fail) is deleted, and the part holds nothing.
     */
    private void end(String id, byte[] record, Decision known) {
        if (record != null && known == Decision.ABORTED) {
            write(batch -> delete(batch, key(PREPARED, id)));
        }
        release(id);
    }

    /**
     * The parts recorded here, by id, and those whose record's commit is not known (claimed, not recorded): those a
     * coordinator has not finished yet (or is finishing).
     */
    public List<Part> prepared() {
        List<Part> parts = new ArrayList<>();
        java.util.Set<String> recorded = new java.util.HashSet<>();
        store.range(family, PREPARED, after(PREPARED), true, (k, v) -> {
            String id = idOf(k, PREPARED);
            recorded.add(id);
            try {
                parts.add(new Part(id, decode(v).body()));
            } catch (StorageException unreadable) {
                log.error("prepared transaction {} is unreadable; it is not resolved", id, unreadable);
            }
            return true;
        });
        claimed.forEach((id, claim) -> {
            if (!recorded.contains(id)) {
                parts.add(new Part(id, claim.body()));
            }
        });
        return parts;
    }

    /**
     * Deletes the decisions kept past {@link #DECISION_MILLIS} at {@code nowMillis}, oldest first, at most 1,000 at a
     * time (they are read in the order they were made, from their index by time); returns how many.
     */
    public int forgetDecisions(long nowMillis) {
        List<byte[]> old = new ArrayList<>();
        byte[] through = byTime(Math.max(0, nowMillis - DECISION_MILLIS), "");
        store.range(family, DECIDED_AT, through, true, (k, v) -> {
            old.add(k);
            return old.size() < 1_000;
        });
        if (!old.isEmpty()) {
            write(batch -> {
                for (byte[] k : old) {
                    delete(batch, k);
                    String id = new String(
                            k, DECIDED_AT.length + 17, k.length - DECIDED_AT.length - 17, StandardCharsets.UTF_8);
                    delete(batch, key(DECIDED, id));
                    delete(batch, key(UNTOLD, id));
                }
            });
        }
        return old.size();
    }

    /**
     * Up to {@code max} of the decisions COMMITTED here whose groups have not been told yet, in the order of their ids:
     * what a deciding group that is to close tells first ({@link #told}).
     */
    public List<Untold> untold(int max) {
        List<Untold> out = new ArrayList<>();
        store.range(family, UNTOLD, after(UNTOLD), true, (k, v) -> {
            String joined = new String(v, StandardCharsets.UTF_8);
            out.add(new Untold(idOf(k, UNTOLD), joined.isEmpty() ? List.of() : List.of(joined.split("\n"))));
            return out.size() < max;
        });
        return out;
    }

    /** Notes that the groups of decision {@code id} have been told it (the decision itself is kept). */
    public void told(String id) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            if (store.get(family, key(UNTOLD, id)) != null) {
                write(batch -> delete(batch, key(UNTOLD, id)));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Claims the items of every part recorded here, as a leader that starts to serve must before any write: the
     * items of a prepared part stay as they are until it ends, whichever leader ends it. A part whose table is gone
     * claims its other items.
     */
    public void claimRecorded() {
        store.range(family, PREPARED, after(PREPARED), true, (k, v) -> {
            String id = idOf(k, PREPARED);
            Recorded recorded;
            try {
                recorded = decode(v);
            } catch (StorageException unreadable) {
                log.error("prepared transaction {} is unreadable; its items are not held", id, unreadable);
                return true;
            }
            List<TransactionHolds.Item> items = new ArrayList<>();
            for (RecordedItem item : recorded.items()) {
                Table t = catalog.find(item.table());
                if (t != null && t.metadata().id().equals(item.tableId())) {
                    items.add(new TransactionHolds.Item(t.cacheId(), item.key()));
                }
            }
            TransactionHolds.Item[] claim = items.toArray(TransactionHolds.Item[]::new);
            if (holds.claim(claim) >= 0) {
                // Not reached: a prepare claims its items before it records them, and a record whose commit failed
                // keeps them claimed until it is aborted. Served anyway; the part's resolver ends it.
                log.error("prepared transaction {} shares an item with another; its items are not held", id);
                return true;
            }
            claimed.put(id, new Claim(claim, recorded.body()));
            return true;
        });
    }

    private void release(String id) {
        Claim claim = claimed.remove(id);
        if (claim != null) {
            holds.release(claim.items());
        }
    }

    /** Whether a failed write may still be applied (its outcome unknown): only a refusal before the log is not. */
    private static boolean mayHaveBeenWritten(RuntimeException e) {
        if (e instanceof io.partita.storage.StorageUnavailableException u) {
            return u.mayHaveBeenWritten();
        }
        return !(e instanceof io.partita.storage.WouldBlock);
    }

    private void settle() {
        if (writes.unsettled()) {
            writes.settle();
        }
    }

    /**
     * Once every commit of unknown outcome before it has settled: the decision the deciding group ({@code decides})
     * has for {@code id}, else null.
     */
    private Decision settledDecision(String id, boolean decides) {
        settle();
        return decides ? decided(id) : null;
    }

    private Decision decided(String id) {
        byte[] v = store.get(family, key(DECIDED, id));
        return v == null ? null : Decision.values()[v[0]];
    }

    private ReentrantLock lockOf(String id) {
        return locks[Math.floorMod(id.hashCode(), locks.length)];
    }

    /** A part's record: its items (table name, table id, encoded key), then its caller's body. */
    private static byte[] encode(List<Transactions.WriteAction> actions, byte[] body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64 * actions.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(actions.size());
            for (Transactions.WriteAction a : actions) {
                out.writeUTF(a.table().metadata().name());
                out.writeUTF(a.table().metadata().id());
                byte[] key = io.partita.storage.key.ItemKeyEncoder.encode(
                                a.table().metadata().keySchema(), a.key())
                        .bytes();
                out.writeInt(key.length);
                out.write(key);
            }
            out.writeInt(body.length);
            out.write(body);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // in memory: not reached
        }
        return bytes.toByteArray();
    }

    /** An item of a part's record. */
    private record RecordedItem(String table, String tableId, byte[] key) {}

    /** A part's record, read. */
    private record Recorded(List<RecordedItem> items, byte[] body) {
        /** Each table's id, by name. */
        Map<String, String> tableIds() {
            Map<String, String> ids = new java.util.HashMap<>();
            items.forEach(i -> ids.put(i.table(), i.tableId()));
            return ids;
        }
    }

    private static Recorded decode(byte[] record) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(record))) {
            int n = in.readInt();
            List<RecordedItem> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String table = in.readUTF();
                String tableId = in.readUTF();
                byte[] key = new byte[in.readInt()];
                in.readFully(key);
                items.add(new RecordedItem(table, tableId, key));
            }
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            return new Recorded(items, body);
        } catch (IOException | RuntimeException e) {
            throw new StorageException("unreadable prepared transaction", e);
        }
    }

    /** Records decision {@code d} on {@code id}, made at {@code nowMillis}, and its entry in the index by time. */
    private void decide(WriteBatch batch, String id, Decision d, long nowMillis) {
        put(batch, key(DECIDED, id), new byte[] {(byte) d.ordinal()});
        put(batch, byTime(nowMillis, id), new byte[0]);
    }

    /**
     * Notes decision {@code id} as not told to {@code participants} yet (none named: nothing to tell). Its value: the
     * groups' ids, separated by newlines.
     */
    private void untell(WriteBatch batch, String id, List<String> participants) {
        if (!participants.isEmpty()) {
            put(batch, key(UNTOLD, id), String.join("\n", participants).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The key of {@code id}'s decision in the index by time: the time in 16 hex digits, a slash, the id. */
    private static byte[] byTime(long millis, String id) {
        return key(DECIDED_AT, String.format("%016x/%s", millis, id));
    }

    /**
     * Commits {@code rows} through the write path's commit with no item ({@link ItemWrites#commit(List,
     * java.util.function.Consumer)}): a commit of unknown outcome is counted, and settled before the next decision.
     */
    private void write(java.util.function.Consumer<WriteBatch> rows) {
        writes.commit(List.of(), rows);
    }

    private static byte[] key(byte[] prefix, String id) {
        byte[] i = id.getBytes(StandardCharsets.UTF_8);
        byte[] k = Arrays.copyOf(prefix, prefix.length + i.length);
        System.arraycopy(i, 0, k, prefix.length, i.length);
        return k;
    }

    private static String idOf(byte[] key, byte[] prefix) {
        return new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
    }

    private static byte[] after(byte[] prefix) {
        byte[] end = prefix.clone();
        end[end.length - 1]++;
        return end;
    }

    private void put(WriteBatch batch, byte[] key, byte[] value) {
        try {
            batch.put(family, key, value);
        } catch (RocksDBException e) {
            throw new StorageException("prepared transaction write failed", e);
        }
    }

    private void delete(WriteBatch batch, byte[] key) {
        try {
            batch.delete(family, key);
        } catch (RocksDBException e) {
            throw new StorageException("prepared transaction write failed", e);
        }
    }
}
