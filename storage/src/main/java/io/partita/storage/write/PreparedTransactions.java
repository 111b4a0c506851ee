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
 * for {@link #DECISION_MILLIS}; a part asked about later than that is taken as aborted.
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

    private final Transactions transactions;
    private final ItemWrites writes;
    private final TransactionHolds holds;
    private final RocksStore store;
    private final TableCatalog catalog;
    private final ColumnFamilyHandle family;
    /** The claims of the parts prepared here, by id. */
    private final ConcurrentHashMap<String, TransactionHolds.Item[]> claimed = new ConcurrentHashMap<>();

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
     * prepare came) is cancelled with {@code TransactionConflict} on its first action.
     *
     * @throws ApiException a {@code ValidationException} when {@code id} is prepared here already
     */
    public Transactions.WriteResult prepare(
            String id, boolean decides, byte[] body, List<Transactions.WriteAction> actions) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            settle();
            if (claimed.containsKey(id) || store.get(family, key(PREPARED, id)) != null) {
                throw ApiException.validation("Transaction " + id + " is prepared already");
            }
            if (decides && store.get(family, key(DECIDED, id)) != null) {
                return new Transactions.WriteResult(null, Transactions.conflictOn(actions.size(), 0));
            }
            byte[] record = encode(actions, body);
            return transactions.write(actions, items -> {
                store.write(batch -> put(batch, key(PREPARED, id), record));
                claimed.put(id, items);
            });
        } finally {
            lock.unlock();
        }
    }

    /**
     * Commits this group's part of transaction {@code id}, whose {@code actions} its caller read again from the
     * part's body. The deciding group answers the decision there is when there is one (and writes nothing), and
     * decides ABORTED for a part it has no record of; another group answers COMMITTED, with nothing written, for a
     * part it has no record of (finished before).
     */
    public Finished commit(String id, boolean decides, long nowMillis, List<Transactions.WriteAction> actions) {
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            Decision known = settledDecision(id, decides);
            if (known != null) {
                return new Finished(known, null);
            }
            if (store.get(family, key(PREPARED, id)) == null) {
                if (!decides) {
                    return new Finished(Decision.COMMITTED, null);
                }
                store.write(batch -> put(batch, key(DECIDED, id), decision(Decision.ABORTED, nowMillis)));
                return new Finished(Decision.ABORTED, null);
            }
            TransactionHolds.Item[] items = claimed.get(id);
            if (items == null) {
                // Recorded by a commit of unknown outcome applied since, or claimed by no leader yet: claimed now.
                items = Transactions.items(actions);
                if (holds.claim(items) >= 0) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "another transaction holds an item of transaction " + id + "; it is committed later");
                }
                claimed.put(id, items);
            }
            Transactions.WriteResult written = transactions.commitPrepared(actions, batch -> {
                delete(batch, key(PREPARED, id));
                if (decides) {
                    put(batch, key(DECIDED, id), decision(Decision.COMMITTED, nowMillis));
                }
            });
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
            if (known != null) {
                return known;
            }
            store.write(batch -> {
                delete(batch, key(PREPARED, id));
                if (decides) {
                    put(batch, key(DECIDED, id), decision(Decision.ABORTED, nowMillis));
                }
            });
            release(id);
            return Decision.ABORTED;
        } finally {
            lock.unlock();
        }
    }

    /** The parts recorded here, by id: those a coordinator has not finished yet (or is finishing). */
    public List<Part> prepared() {
        List<Part> parts = new ArrayList<>();
        store.range(family, PREPARED, after(PREPARED), true, (k, v) -> {
            parts.add(new Part(idOf(k, PREPARED), bodyOf(v)));
            return true;
        });
        return parts;
    }

    /** The body part {@code id} was prepared with, or null when it is not prepared here. */
    public byte[] body(String id) {
        byte[] v = store.get(family, key(PREPARED, id));
        return v == null ? null : bodyOf(v);
    }

    /** Deletes the decisions kept past {@link #DECISION_MILLIS} at {@code nowMillis}; returns how many. */
    public int forgetDecisions(long nowMillis) {
        List<byte[]> old = new ArrayList<>();
        store.range(family, DECIDED, after(DECIDED), true, (k, v) -> {
            if (nowMillis - decidedAt(v) > DECISION_MILLIS) {
                old.add(k);
            }
            return true;
        });
        if (!old.isEmpty()) {
            store.write(batch -> {
                for (byte[] k : old) {
                    delete(batch, k);
                }
            });
        }
        return old.size();
    }

    /**
     * Claims the items of every part recorded here, as a leader that starts to serve must before any write: the
     * items of a prepared part stay as they are until it ends, whichever leader ends it. A part whose table is gone
     * claims its other items.
     */
    public void claimRecorded() {
        store.range(family, PREPARED, after(PREPARED), true, (k, v) -> {
            List<TransactionHolds.Item> items = new ArrayList<>();
            try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(v))) {
                int n = in.readInt();
                for (int i = 0; i < n; i++) {
                    String table = in.readUTF();
                    byte[] key = new byte[in.readInt()];
                    in.readFully(key);
                    Table t = catalog.find(table);
                    if (t != null) {
                        items.add(new TransactionHolds.Item(t.cacheId(), key));
                    }
                }
            } catch (IOException e) {
                throw new StorageException("unreadable prepared transaction " + idOf(k, PREPARED), e);
            }
            TransactionHolds.Item[] claim = items.toArray(TransactionHolds.Item[]::new);
            if (holds.claim(claim) >= 0) {
                throw new IllegalStateException("two prepared transactions hold one item: " + idOf(k, PREPARED));
            }
            claimed.put(idOf(k, PREPARED), claim);
            return true;
        });
    }

    private void release(String id) {
        TransactionHolds.Item[] items = claimed.remove(id);
        if (items != null) {
            holds.release(items);
        }
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

    /** A part's record: its items (table name, encoded key), then its caller's body. */
    private static byte[] encode(List<Transactions.WriteAction> actions, byte[] body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64 * actions.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(actions.size());
            for (Transactions.WriteAction a : actions) {
                out.writeUTF(a.table().metadata().name());
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

    private static byte[] bodyOf(byte[] record) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(record))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                in.readUTF();
                in.skipNBytes(in.readInt());
            }
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            return body;
        } catch (IOException e) {
            throw new StorageException("unreadable prepared transaction", e);
        }
    }

    private static byte[] decision(Decision d, long nowMillis) {
        return java.nio.ByteBuffer.allocate(9)
                .put((byte) d.ordinal())
                .putLong(nowMillis)
                .array();
    }

    private static long decidedAt(byte[] v) {
        return java.nio.ByteBuffer.wrap(v, 1, 8).getLong();
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
