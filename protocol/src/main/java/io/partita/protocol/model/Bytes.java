package io.partita.protocol.model;

import java.util.Arrays;
import java.util.Base64;

/** An immutable byte string with value equality and unsigned lexicographic order, as DynamoDB orders binary. */
public final class Bytes implements Comparable<Bytes> {
    private final byte[] bytes;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Wraps {@code bytes} without copying; the caller must not change the array afterwards. */
    public static Bytes wrap(byte[] bytes) {
        return new Bytes(bytes);
    }

    public int length() {
        return bytes.length;
    }

    /** The bytes themselves; callers must not modify them. */
    public byte[] unsafeArray() {
        return bytes;
    }

    public String base64() {
        return Base64.getEncoder().encodeToString(bytes);
    }

    @Override
    public int compareTo(Bytes other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return base64();
    }
}
