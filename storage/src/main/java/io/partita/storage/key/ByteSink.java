package io.partita.storage.key;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** A growable byte array for building keys and values without {@code ByteArrayOutputStream}'s locking. */
public final class ByteSink {
    private byte[] buf;
    private int size;

    public ByteSink(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    public ByteSink put(int b) {
        ensure(1);
        buf[size++] = (byte) b;
        return this;
    }

    public ByteSink put(byte[] bytes) {
        return put(bytes, 0, bytes.length);
    }

    public ByteSink put(byte[] bytes, int off, int len) {
        ensure(len);
        System.arraycopy(bytes, off, buf, size, len);
        size += len;
        return this;
    }

    /** The bytes written so far into {@code other}. */
    public ByteSink put(ByteSink other) {
        return put(other.buf, 0, other.size);
    }

    public ByteSink putLong(long v) {
        ensure(8);
        for (int i = 7; i >= 0; i--) {
            buf[size++] = (byte) (v >>> (i * 8));
        }
        return this;
    }

    /** An unsigned LEB128 varint. */
    public ByteSink putVarint(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
        return this;
    }

    public int size() {
        return size;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** The bytes written so far into {@code out} at its position, which advances past them. */
    public void copyTo(ByteBuffer out) {
        out.put(buf, 0, size);
    }

    /** Whether the bytes written so far are exactly {@code other}. */
    public boolean contentEquals(byte[] other) {
        return Arrays.equals(buf, 0, size, other, 0, other.length);
    }

    /** Empties the sink for reuse, keeping its array. */
    public ByteSink clear() {
        size = 0;
        return this;
    }

    private void ensure(int extra) {
        if (size + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
        }
    }
}
