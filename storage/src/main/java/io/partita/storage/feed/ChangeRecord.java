package io.partita.storage.feed;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.key.ByteSink;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * One committed change of one item, as the change feed keeps it.
 *
 * <pre>
 *   value   version (1) ‖ cause (1) ‖ commit time, epoch ms (8, big-endian)
 *           ‖ old size ‖ new size            (varints: DynamoDB item sizes in bytes)
 *           ‖ key length ‖ item key          (ItemKeyEncoder form)
 *           ‖ old length ‖ old image         (ItemCodec form; length 0: no item before)
 *           ‖ new length ‖ new image         (length 0: the change deleted the item)
 * </pre>
 *
 * @param shard the partition whose sequence numbered it
 * @param sequence its number in that partition's sequence
 * @param key the item's encoded key
 * @param oldStored the item before the change in its stored form, or null if it did not exist
 * @param newStored the item after the change, or null if the change deleted it
 */
public record ChangeRecord(
        String shard,
        long sequence,
        ChangeCause cause,
        long timeMillis,
        byte[] key,
        byte[] oldStored,
        byte[] newStored,
        long oldSize,
        long newSize) {
    private static final int VERSION = 1;

    /** What the change did, in DynamoDB Streams' words. */
    public enum Kind {
        INSERT,
        MODIFY,
        REMOVE
    }

    public Kind kind() {
        return oldStored == null ? Kind.INSERT : newStored == null ? Kind.REMOVE : Kind.MODIFY;
    }

    /** The item before the change, or null. */
    public Map<String, AttributeValue> oldImage() {
        return oldStored == null ? null : ItemCodec.decode(oldStored);
    }

    /** The item after the change, or null. */
    public Map<String, AttributeValue> newImage() {
        return newStored == null ? null : ItemCodec.decode(newStored);
    }

    /** Writes the stored value of a record into {@code out}; {@code newStored} may be null. */
    static ByteSink encode(
            ByteSink out,
            ChangeCause cause,
            long timeMillis,
            byte[] key,
            byte[] oldStored,
            ByteSink newStored,
            long oldSize,
            long newSize) {
        out.put(VERSION).put(cause.code()).putLong(timeMillis);
        out.putVarint(Math.toIntExact(oldSize)).putVarint(Math.toIntExact(newSize));
        out.putVarint(key.length).put(key);
        if (oldStored == null) {
            out.putVarint(0);
        } else {
            out.putVarint(oldStored.length).put(oldStored);
        }
        if (newStored == null) {
            out.putVarint(0);
        } else {
            out.putVarint(newStored.size()).put(newStored);
        }
        return out;
    }

    /** The commit time of a stored record, read without decoding the rest. */
    static long timeOf(byte[] value) {
        return ByteBuffer.wrap(value, 2, 8).getLong();
    }

    static ChangeRecord decode(String shard, long sequence, byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            throw new IllegalStateException("unknown change record version " + version);
        }
        ChangeCause cause = ChangeCause.of(in.get() & 0xFF);
        long time = in.getLong();
        long oldSize = varint(in);
        long newSize = varint(in);
        byte[] key = bytes(in, varint(in));
        int oldLength = varint(in);
        byte[] old = oldLength == 0 ? null : bytes(in, oldLength);
        int newLength = varint(in);
        byte[] next = newLength == 0 ? null : bytes(in, newLength);
        return new ChangeRecord(shard, sequence, cause, time, key, old, next, oldSize, newSize);
    }

    private static int varint(ByteBuffer in) {
        int result = 0;
        for (int shift = 0; ; shift += 7) {
            int b = in.get() & 0xFF;
            result |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
    }

    private static byte[] bytes(ByteBuffer in, int n) {
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    @Override
    public String toString() {
        return "ChangeRecord[" + shard + "#" + sequence + " " + kind() + " " + cause + "]";
    }
}
