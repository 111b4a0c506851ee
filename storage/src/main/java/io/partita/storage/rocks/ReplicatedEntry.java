package io.partita.storage.rocks;

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
        DROP_FAMILY
    }

    public static byte[] batch(byte[] batch) {
        return encode(Kind.BATCH, batch);
    }

    public static byte[] createFamily(String name) {
        return encode(Kind.CREATE_FAMILY, name.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] dropFamily(String name) {
        return encode(Kind.DROP_FAMILY, name.getBytes(StandardCharsets.UTF_8));
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

    public String familyName() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
