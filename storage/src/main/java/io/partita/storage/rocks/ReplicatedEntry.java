package io.partita.storage.rocks;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One entry of a replicated store's log: a committed batch (RocksDB's own serialization of a {@code WriteBatch}), or
 * a column family created or dropped. A batch names column families by RocksDB's numeric ids, which agree on every
 * replica because every replica creates its families in the log's order from the same start (and a snapshot copies
 * them).
 */
public record ReplicatedEntry(Kind kind, byte[] payload) {
    public enum Kind {
        BATCH,
        CREATE_FAMILY,
        DROP_FAMILY,
        /**
         * A batch that changes the table catalog (a table's metadata or partition map): applied as any batch, and
         * proposed alone, never joined with others. A follower's reader opens again on the new catalog when it
         * applies one ({@link RocksStore#catalogChanges}).
         */
        CATALOG,
        /**
         * A compare-and-set of one key of the {@code meta} family ({@link #recordIf}): decided as each replica applies
         * it, from the state the log's order gives it, so any member may propose one and every replica decides alike.
         */
        RECORD_IF
    }

    /**
     * A compare-and-set of {@code key} in the {@code meta} family: applied, it sets the key to {@code value} (deletes
     * it for null) when its value is {@code expected} then (absent for null), and changes nothing otherwise. Made the
     * same twice (a retried proposal), the second finds the value set and changes nothing.
     */
    public static byte[] recordIf(byte[] key, byte[] expected, byte[] value) {
        ByteBuffer out = ByteBuffer.allocate(1 + 12 + key.length + length(expected) + length(value));
        out.put((byte) Kind.RECORD_IF.ordinal()).putInt(key.length).put(key);
        putOptional(out, expected);
        putOptional(out, value);
        return out.array();
    }

    private static int length(byte[] optional) {
        return optional == null ? 0 : optional.length;
    }

    private static void putOptional(ByteBuffer out, byte[] optional) {
        out.putInt(optional == null ? -1 : optional.length);
        if (optional != null) {
            out.put(optional);
        }
    }

    /** A {@link Kind#RECORD_IF} entry's parts: its key, the value it expects and the value it sets (null: none). */
    public record RecordIf(byte[] key, byte[] expected, byte[] value) {}

    /** This {@link Kind#RECORD_IF} entry's parts. */
    public RecordIf recordIfParts() {
        if (kind != Kind.RECORD_IF) {
            throw new IllegalStateException("not a compare-and-set entry");
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        byte[] key = new byte[in.getInt()];
        in.get(key);
        return new RecordIf(key, optional(in), optional(in));
    }

    private static byte[] optional(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return null;
        }
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }

    public static byte[] batch(byte[] batch) {
        return encode(Kind.BATCH, batch);
    }

    /**
     * A batch that changes nothing: RocksDB's serialization of an empty {@code WriteBatch} (its header alone, sequence
     * and count zero). Committed, it proves that its leader still led when a majority took it: a cluster's read
     * barrier.
     */
    public static byte[] emptyBatch() {
        return encode(Kind.BATCH, new byte[BATCH_HEADER]);
    }

    /** Whether this is a batch of no change ({@link #emptyBatch}, or any batch of none): applying it writes nothing. */
    public boolean changesNothing() {
        return kind == Kind.BATCH
                && payload.length == BATCH_HEADER
                && ByteBuffer.wrap(payload, 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() == 0;
    }

    /** A batch of the table catalog's ({@link Kind#CATALOG}). */
    public static byte[] catalogBatch(byte[] batch) {
        return encode(Kind.CATALOG, batch);
    }

    public static byte[] createFamily(String name) {
        return encode(Kind.CREATE_FAMILY, name.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] dropFamily(String name) {
        return encode(Kind.DROP_FAMILY, name.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code entry} is a batch's (and not a column family's). */
    public static boolean isBatch(byte[] entry) {
        return entry.length > 0 && entry[0] == Kind.BATCH.ordinal();
    }

    /** The header of RocksDB's serialized {@code WriteBatch}: a fixed64 sequence number and a fixed32 count. */
    private static final int BATCH_HEADER = 12;

    /**
     * One batch entry that makes the changes of every batch entry of {@code entries}, in their order, as one atomic
     * batch: the header of RocksDB's serialization ({@code WriteBatchInternal::Append} in RocksDB), with the sum of the
     * counts, then each batch's records. The sequence number is RocksDB's to assign when it writes the batch.
     *
     * @throws IllegalArgumentException when an entry is not a batch
     */
    public static byte[] joinBatches(java.util.List<byte[]> entries) {
        int size = 1 + BATCH_HEADER;
        long count = 0;
        for (byte[] entry : entries) {
            if (entry.length < 1 + BATCH_HEADER || entry[0] != Kind.BATCH.ordinal()) {
                throw new IllegalArgumentException("not a batch entry");
            }
            size += entry.length - 1 - BATCH_HEADER;
            count += Integer.toUnsignedLong(ByteBuffer.wrap(entry, 1 + 8, 4)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .getInt());
        }
        byte[] out = new byte[size];
        out[0] = (byte) Kind.BATCH.ordinal();
        ByteBuffer.wrap(out, 1 + 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) count);
        int at = 1 + BATCH_HEADER;
        for (byte[] entry : entries) {
            int records = entry.length - 1 - BATCH_HEADER;
            System.arraycopy(entry, 1 + BATCH_HEADER, out, at, records);
            at += records;
        }
        return out;
    }

    private static byte[] encode(Kind kind, byte[] payload) {
        byte[] out = new byte[payload.length + 1];
        out[0] = (byte) kind.ordinal();
        System.arraycopy(payload, 0, out, 1, payload.length);
        return out;
    }

    public static ReplicatedEntry decode(byte[] entry) {
        if (entry.length == 0 || entry[0] < 0 || entry[0] >= Kind.values().length) {
            throw new IllegalArgumentException("not a replicated entry");
        }
        return new ReplicatedEntry(Kind.values()[entry[0]], Arrays.copyOfRange(entry, 1, entry.length));
    }

    /**
     * Whether applying this entry changes the tables a reader of the store knows: a catalog batch, or a table's or
     * index's family made or dropped (a backup's family is not the tables').
     */
    public boolean changesCatalog() {
        return switch (kind) {
            case BATCH, RECORD_IF -> false;
            case CATALOG -> true;
            case CREATE_FAMILY, DROP_FAMILY -> !familyName().startsWith(RocksStore.BACKUP_PREFIX);
        };
    }

    public String familyName() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
