package io.partita.storage.feed;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.key.ByteSink;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;

/**
 * One committed change of one item, as the change feed keeps it: a view of the stored value, parsed only as far as
 * its reader asks (a consumer that needs the keys only never copies the images out).
 *
 * <pre>
 *   value   version (1) ‖ cause (1) ‖ commit time, epoch ms (8, big-endian)
 *           ‖ old size ‖ new size            (varints: DynamoDB item sizes in bytes)
 *           ‖ key length ‖ item key          (ItemKeyEncoder form)
 *           ‖ old length ‖ old image         (ItemCodec form; length 0: no item before)
 *           ‖ new length ‖ new image         (length 0: the change deleted the item)
 * </pre>
 */
public final class ChangeRecord {
    private static final int VERSION = 1;

    private final String shard;
    private final long sequence;
    private final byte[] value;
    // Where the parts are in value, found on first use. keyAt is written last and read first: 0 until then.
    private volatile int keyAt;
    private int keyLength;
    private int oldAt;
    private int oldLength;
    private int newAt;
    private int newLength;
    private long oldSize;
    private long newSize;

    private ChangeRecord(String shard, long sequence, byte[] value) {
        if ((value[0] & 0xFF) != VERSION) {
            throw new IllegalStateException("unknown change record version " + (value[0] & 0xFF));
        }
        this.shard = shard;
        this.sequence = sequence;
        this.value = value;
    }

    /** What the change did, in DynamoDB Streams' words. */
    public enum Kind {
        INSERT,
        MODIFY,
        REMOVE
    }

    /** The partition whose sequence numbered it. */
    public String shard() {
        return shard;
    }

    /** Its number in that partition's sequence. */
    public long sequence() {
        return sequence;
    }

    public ChangeCause cause() {
        return ChangeCause.of(value[1] & 0xFF);
    }

    public long timeMillis() {
        return timeOf(value);
    }

    public Kind kind() {
        parse();
        return oldLength == 0 ? Kind.INSERT : newLength == 0 ? Kind.REMOVE : Kind.MODIFY;
    }

    /** The item's encoded key. */
    public byte[] key() {
        parse();
        return Arrays.copyOfRange(value, keyAt, keyAt + keyLength);
    }

    /** The item before the change in its stored form, or null if it did not exist. */
    public byte[] oldStored() {
        parse();
        return oldLength == 0 ? null : Arrays.copyOfRange(value, oldAt, oldAt + oldLength);
    }

    /** The item after the change in its stored form, or null if the change deleted it. */
    public byte[] newStored() {
        parse();
        return newLength == 0 ? null : Arrays.copyOfRange(value, newAt, newAt + newLength);
    }

    /** The old item's DynamoDB size (0: none). */
    public long oldSize() {
        parse();
        return oldSize;
    }

    /** The new item's DynamoDB size (0: none). */
    public long newSize() {
        parse();
        return newSize;
    }

    /** The item before the change, or null. */
    public Map<String, AttributeValue> oldImage() {
        byte[] b = oldStored();
        return b == null ? null : ItemCodec.decode(b);
    }

    /** The item after the change, or null. */
    public Map<String, AttributeValue> newImage() {
        byte[] b = newStored();
        return b == null ? null : ItemCodec.decode(b);
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
        return new ChangeRecord(shard, sequence, value);
    }

    private void parse() {
        if (keyAt != 0) {
            return;
        }
        int[] at = {10};
        oldSize = varint(value, at);
        newSize = varint(value, at);
        keyLength = varint(value, at);
        int key = at[0];
        at[0] += keyLength;
        oldLength = varint(value, at);
        oldAt = at[0];
        at[0] += oldLength;
        newLength = varint(value, at);
        newAt = at[0];
        keyAt = key;
    }

    private static int varint(byte[] b, int[] at) {
        int result = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[at[0]++] & 0xFF;
            result |= (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return result;
            }
        }
    }

    @Override
    public String toString() {
        return "ChangeRecord[" + shard + "#" + sequence + " " + kind() + " " + cause() + "]";
    }
}
