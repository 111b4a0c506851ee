package io.partita.storage.feed;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of the feed's two column families. A table's keys share a prefix, so dropping a table is one range
 * deletion per family; a shard's records share a longer one and sort by sequence number.
 *
 * <pre>
 *   changelog   T ‖ shard (4) ‖ sequence (8)   ChangeRecord
 *   feed        'c' ‖ T ‖ consumer name        a consumer's registration (its retention)
 *               'p' ‖ T ‖ shard (4) ‖ name     where the consumer has read the shard to (8)
 *               'f' ‖ T ‖ shard (4)            the shard's trim floor: records up to it are gone (8)
 *
 *   T = length of the table id (1) ‖ table id (UTF-8); numbers big-endian
 * </pre>
 */
final class FeedKeys {
    static final byte CONSUMER = 'c';
    static final byte POSITION = 'p';
    static final byte FLOOR = 'f';

    private FeedKeys() {}

    /** The prefix every changelog key of the table starts with. */
    static byte[] table(String tableId) {
        byte[] id = tableId.getBytes(StandardCharsets.UTF_8);
        if (id.length > 255) {
            throw new IllegalArgumentException("table id too long: " + tableId);
        }
        byte[] out = new byte[1 + id.length];
        out[0] = (byte) id.length;
        System.arraycopy(id, 0, out, 1, id.length);
        return out;
    }

    /** The prefix of a shard's records. */
    static byte[] shard(String tableId, int shard) {
        byte[] t = table(tableId);
        return ByteBuffer.allocate(t.length + 4).put(t).putInt(shard).array();
    }

    static byte[] record(byte[] shardPrefix, long sequence) {
        return ByteBuffer.allocate(shardPrefix.length + 8)
                .put(shardPrefix)
                .putLong(sequence)
                .array();
    }

    /** The sequence number at the end of a record key. */
    static long sequenceOf(byte[] recordKey) {
        return ByteBuffer.wrap(recordKey, recordKey.length - 8, 8).getLong();
    }

    /** The table id at the start of a changelog key. */
    static String tableIdOf(byte[] changelogKey) {
        int n = changelogKey[0] & 0xFF;
        return new String(changelogKey, 1, n, StandardCharsets.UTF_8);
    }

    /** The prefix of a kind of feed key ({@link #CONSUMER}, {@link #POSITION}, {@link #FLOOR}) of one table. */
    static byte[] meta(byte kind, String tableId) {
        byte[] t = table(tableId);
        byte[] out = new byte[1 + t.length];
        out[0] = kind;
        System.arraycopy(t, 0, out, 1, t.length);
        return out;
    }

    static byte[] consumer(String tableId, String name) {
        return concat(meta(CONSUMER, tableId), name.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] position(String tableId, int shard, String name) {
        byte[] m = meta(POSITION, tableId);
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(m.length + 4 + n.length)
                .put(m)
                .putInt(shard)
                .put(n)
                .array();
    }

    /** The prefix of every consumer's position in one shard. */
    static byte[] positions(String tableId, int shard) {
        byte[] m = meta(POSITION, tableId);
        return ByteBuffer.allocate(m.length + 4).put(m).putInt(shard).array();
    }

    static byte[] floor(String tableId, int shard) {
        byte[] m = meta(FLOOR, tableId);
        return ByteBuffer.allocate(m.length + 4).put(m).putInt(shard).array();
    }

    /** The suffix of a key after {@code prefix}, as a string. */
    static String suffix(byte[] key, int prefixLength) {
        return new String(key, prefixLength, key.length - prefixLength, StandardCharsets.UTF_8);
    }

    /** The shard number in a position key after its table prefix of {@code prefixLength} bytes. */
    static int shardOf(byte[] positionKey, int prefixLength) {
        return ByteBuffer.wrap(positionKey, prefixLength, 4).getInt();
    }

    /** The first key after every key that starts with {@code prefix}, or null if there is none. */
    static byte[] after(byte[] prefix) {
        byte[] out = Arrays.copyOf(prefix, prefix.length);
        for (int i = out.length - 1; i >= 0; i--) {
            if (out[i] != (byte) 0xFF) {
                out[i]++;
                return Arrays.copyOf(out, i + 1);
            }
        }
        return null;
    }

    static byte[] longValue(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static long longOf(byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
