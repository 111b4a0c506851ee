package io.partita.storage.write;

import io.partita.storage.StorageException;
import io.partita.storage.rocks.RocksStore;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The {@code ClientRequestToken}s of the write transactions committed here, kept in the store: each token's record is
 * written in the same batch as its transaction's writes ({@link Transactions#writeRecorded}), so that it is
 * there exactly when they are. A repeat that reaches another process than the first request (after a restart, or a
 * cluster's new leader) finds it here and answers as a repeat rather than writing again; a repeat of a request whose
 * commit's outcome was not known learns it here, once settled ({@link #settle}). Records are forgotten once their
 * {@link #WINDOW_MILLIS} has passed ({@link #forget}).
 *
 * <pre>
 *   partita/transaction/token/{scope}/{token}                 completed at, the request's digest, the caller's result
 *   partita/transaction/token-at/{completed at, 16 hex}/{scope}/{token}     empty: the records in order of expiry
 * </pre>
 */
public final class TransactionTokens {
    /**
     * How long a token is kept after its request completed: "A client request token is valid for 10 minutes after the
     * first request that uses it is completed" (Amazon DynamoDB Transactions: How it works, "Idempotency").
     */
    public static final long WINDOW_MILLIS = 10 * 60 * 1000;

    /** At most this many records are deleted in one batch of {@link #forget}. */
    static final int FORGET_BATCH = 1_000;

    private static final byte[] TOKEN = "partita/transaction/token/".getBytes(StandardCharsets.UTF_8);
    private static final byte[] TOKEN_AT = "partita/transaction/token-at/".getBytes(StandardCharsets.UTF_8);
    private static final byte VERSION = 1;

    /**
     * A token's record: the operation it belongs to ({@code scope}, which keeps each operation's tokens apart), the
     * token, its request's digest, when it completed, and what its caller needs to answer a repeat.
     */
    public record Token(String scope, String token, byte[] digest, long completedAt, byte[] result) {}

    /** Makes a transaction's token record as its batch is built, from what the transaction writes. */
    public interface Recorder {
        /** The operation the token belongs to. */
        String scope();

        /** The token. */
        String token();

        /**
         * The record for a transaction whose actions' item collections will have {@code collectionBytes} (-1 for an
         * action with none, or a ConditionCheck), in its actions' order.
         */
        Token record(long[] collectionBytes);
    }

    private final ItemWrites writes;
    private final RocksStore store;
    private final ColumnFamilyHandle family;
    /**
     * Held, by token, around a commit that records a token ({@link #stripe}), and all of them around a batch of {@link
     * #forget}: a record forget read as old cannot be replaced by a new one before forget's batch has committed.
     */
    private final ReentrantLock[] stripes = new ReentrantLock[64];
    /** Where the next {@link #forget} starts: past the keys earlier ones deleted, rather than over their tombstones. */
    private byte[] forgetFrom = TOKEN_AT;

    TransactionTokens(ItemWrites writes, RocksStore store) {
        this.writes = writes;
        this.store = store;
        this.family = store.family(new String(org.rocksdb.RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8));
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /** The lock held around a commit that records {@code token} of {@code scope}. */
    ReentrantLock stripe(String scope, String token) {
        return stripes[(31 * scope.hashCode() + token.hashCode()) & (stripes.length - 1)];
    }

    /** The record of {@code token} in {@code scope}, or null when none is kept (never used, or forgotten). */
    public Token find(String scope, String token) {
        byte[] v = store.get(family, key(scope, token));
        if (v == null) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(v))) {
            if (in.readByte() != VERSION) {
                throw new StorageException("unknown transaction token record");
            }
            long at = in.readLong();
            byte[] digest = new byte[in.readUnsignedShort()];
            in.readFully(digest);
            byte[] result = new byte[in.readInt()];
            in.readFully(result);
            return new Token(scope, token, digest, at, result);
        } catch (IOException e) {
            throw new StorageException("transaction token record unreadable", e);
        }
    }

    /**
     * Returns once every commit of unknown outcome made before has been applied or never will be ({@link
     * ItemWrites#settle}): a {@link #find} then tells whether such a commit wrote its token.
     *
     * @throws io.partita.storage.StorageUnavailableException when that could not be confirmed
     */
    public void settle() {
        writes.settle();
    }

    /**
     * The records of the tokens kept here, as stored: each its scope and token ({@code scope/token}) and its value. A
     * range move copies them to the group that takes its range over ({@link #keep}), so that a repeat of a transaction
     * made before the move, sent there after it, is answered as a repeat.
     */
    public List<byte[][]> records() {
        List<byte[][]> out = new ArrayList<>();
        byte[] end = TOKEN.clone();
        end[end.length - 1]++;
        store.range(family, TOKEN, end, true, (k, v) -> {
            out.add(new byte[][] {Arrays.copyOfRange(k, TOKEN.length, k.length), v});
            return true;
        });
        return out;
    }

    /**
     * Keeps {@code records} (another group's {@link #records}) in one commit through the write path, each with its
     * place in the order of expiry, unless a record of its token is kept here already.
     */
    public void keep(List<byte[][]> records) {
        writes.commit(List.of(), batch -> {
            for (byte[][] r : records) {
                byte[] record = Arrays.copyOf(TOKEN, TOKEN.length + r[0].length);
                System.arraycopy(r[0], 0, record, TOKEN.length, r[0].length);
                long at = completedAt(r[1]);
                if (at < 0 || store.get(family, record) != null) {
                    continue;
                }
                byte[] time = String.format("%016x/", at).getBytes(StandardCharsets.UTF_8);
                byte[] order = new byte[TOKEN_AT.length + time.length + r[0].length];
                System.arraycopy(TOKEN_AT, 0, order, 0, TOKEN_AT.length);
                System.arraycopy(time, 0, order, TOKEN_AT.length, time.length);
                System.arraycopy(r[0], 0, order, TOKEN_AT.length + time.length, r[0].length);
                try {
                    batch.put(family, record, r[1]);
                    batch.put(family, order, new byte[0]);
                } catch (RocksDBException e) {
                    throw new StorageException("transaction token write failed", e);
                }
            }
        });
    }

    /** Adds {@code t}'s rows to {@code batch}: its record, and its place in the order of expiry. */
    void put(WriteBatch batch, Token t) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + t.digest().length + t.result().length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(t.completedAt());
            out.writeShort(t.digest().length);
            out.write(t.digest());
            out.writeInt(t.result().length);
            out.write(t.result());
        } catch (IOException e) {
            throw new IllegalStateException("in memory", e);
        }
        try {
            batch.put(family, key(t.scope(), t.token()), bytes.toByteArray());
            batch.put(family, byTime(t.completedAt(), t.scope(), t.token()), new byte[0]);
        } catch (RocksDBException e) {
            throw new StorageException("transaction token write failed", e);
        }
    }

    /**
     * Deletes the records of the tokens completed {@link #WINDOW_MILLIS} or longer before {@code nowMillis}, oldest
     * first, {@link #FORGET_BATCH} at a time through the write path, until none is left or {@code maxBatches} have
     * been written; returns how many. A token used again since keeps its new record (its time is another). A record's
     * deletion commits as any write does, so in a cluster only its leader forgets (a follower's write is refused).
     */
    public synchronized int forget(long nowMillis, int maxBatches) {
        byte[] through = concat(TOKEN_AT, String.format("%016x/", Math.max(0, nowMillis - WINDOW_MILLIS + 1)));
        int forgotten = 0;
        for (int b = 0; b < maxBatches; b++) {
            List<byte[]> old = new ArrayList<>();
            store.range(family, forgetFrom, through, true, (k, v) -> {
                old.add(k);
                return old.size() < FORGET_BATCH;
            });
            if (old.isEmpty()) {
                // Later records have later times (a leader's clock, which another leader's may lag a little: an engine
                // that opens starts from the first again).
                forgetFrom = through;
                break;
            }
            for (ReentrantLock l : stripes) {
                l.lock();
            }
            try {
                forgetBatch(old);
            } finally {
                for (ReentrantLock l : stripes) {
                    l.unlock();
                }
            }
            forgotten += old.size();
            byte[] last = old.get(old.size() - 1);
            forgetFrom = Arrays.copyOf(last, last.length + 1);
            if (old.size() < FORGET_BATCH) {
                forgetFrom = through;
                break;
            }
        }
        return forgotten;
    }

    /** Deletes {@code old} keys by time, and each one's record unless it has been written again since. */
    private void forgetBatch(List<byte[]> old) {
        List<byte[]> deleted = new ArrayList<>(2 * old.size());
        for (byte[] k : old) {
            deleted.add(k);
            // The scope and token after the time's 16 hex digits and its slash.
            String time = new String(k, TOKEN_AT.length, 16, StandardCharsets.ISO_8859_1);
            byte[] rest = Arrays.copyOfRange(k, TOKEN_AT.length + 17, k.length);
            byte[] record = Arrays.copyOf(TOKEN, TOKEN.length + rest.length);
            System.arraycopy(rest, 0, record, TOKEN.length, rest.length);
            if (completedAt(store.get(family, record)) == Long.parseUnsignedLong(time, 16)) {
                deleted.add(record);
            }
        }
        writes.commit(List.of(), batch -> {
            for (byte[] k : deleted) {
                try {
                    batch.delete(family, k);
                } catch (RocksDBException e) {
                    throw new StorageException("transaction token write failed", e);
                }
            }
        });
    }

    /** When the record {@code v} completed; -1 for none. */
    private static long completedAt(byte[] v) {
        if (v == null || v.length < 9) {
            return -1;
        }
        return java.nio.ByteBuffer.wrap(v, 1, 8).getLong();
    }

    private static byte[] key(String scope, String token) {
        return concat(TOKEN, scope + "/" + token);
    }

    /** A record's key in the order of expiry: the time in 16 hex digits, a slash, the scope, a slash, the token. */
    private static byte[] byTime(long millis, String scope, String token) {
        return concat(TOKEN_AT, String.format("%016x/%s/%s", millis, scope, token));
    }

    private static byte[] concat(byte[] prefix, String rest) {
        byte[] r = rest.getBytes(StandardCharsets.UTF_8);
        byte[] k = Arrays.copyOf(prefix, prefix.length + r.length);
        System.arraycopy(r, 0, k, prefix.length, r.length);
        return k;
    }
}
