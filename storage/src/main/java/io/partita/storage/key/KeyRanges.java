package io.partita.storage.key;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Byte ranges over item keys ({@link ItemKeyEncoder}) for Query and Scan: a partition, a sort-key condition within
 * it, a parallel-scan segment of the hash space, and the position just after a key.
 *
 * <p>Every encoded key value is self-delimiting and no encoding is a prefix of another, so "all keys with sort key
 * ≤ v" end just before {@code prefix ‖ enc(v) ‖ 0x00}, and a partition is every key starting with
 * {@code hash ‖ enc(pk)}.
 */
public final class KeyRanges {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private KeyRanges() {}

    /** A half-open byte range [lower, upper); a null bound is open. */
    public record Range(byte[] lower, byte[] upper) {
        /** This range narrowed to start strictly after {@code key} (forward) or end before it (backward). */
        public Range resumeAfter(byte[] key, boolean forward) {
            if (forward) {
                byte[] next = after(key);
                return new Range(lower == null || Arrays.compareUnsigned(next, lower) > 0 ? next : lower, upper);
            }
            return new Range(lower, upper == null || Arrays.compareUnsigned(key, upper) < 0 ? key : upper);
        }

        /** The keys in both this range and {@code other}. */
        public Range intersect(Range other) {
            byte[] lo = lower == null
                    ? other.lower
                    : other.lower == null || Arrays.compareUnsigned(lower, other.lower) >= 0 ? lower : other.lower;
            byte[] up = upper == null
                    ? other.upper
                    : other.upper == null || Arrays.compareUnsigned(upper, other.upper) <= 0 ? upper : other.upper;
            return new Range(lo, up);
        }

        public boolean contains(byte[] key) {
            return (lower == null || Arrays.compareUnsigned(key, lower) >= 0)
                    && (upper == null || Arrays.compareUnsigned(key, upper) < 0);
        }
    }

    /** {@code hash64(pk) ‖ enc(pk)}: the prefix every key of one partition starts with. */
    public static byte[] partitionPrefix(AttributeValue partitionKey) {
        ByteSink pk = new ByteSink(32);
        ItemKeyEncoder.encodeValue(pk, partitionKey);
        byte[] pkBytes = pk.toByteArray();
        return new ByteSink(8 + pkBytes.length)
                .putLong(PartitionHash.of(pkBytes))
                .put(pkBytes)
                .toByteArray();
    }

    public static Range partition(AttributeValue partitionKey) {
        byte[] prefix = partitionPrefix(partitionKey);
        return new Range(prefix, successor(prefix));
    }

    /** The keys of one partition whose sort key satisfies {@code operator} (EQ, LT, LE, GT, GE, BETWEEN, BEGINS_WITH). */
    public static Range sortKey(AttributeValue partitionKey, String operator, AttributeValue a, AttributeValue b) {
        return within(partitionPrefix(partitionKey), operator, a, b);
    }

    /**
     * The keys that start with {@code prefix} and whose next encoded value satisfies {@code operator}. Keys may go on
     * after that value (an index row goes on with more sort attributes and the table's key), so "≤ v" ends before the
     * successor of {@code prefix ‖ enc(v)}, not just after it.
     */
    public static Range within(byte[] prefix, String operator, AttributeValue a, AttributeValue b) {
        byte[] start = prefix;
        byte[] end = successor(prefix);
        switch (operator) {
            case "EQ" -> {
                start = withSortKey(prefix, a);
                end = successorWithin(start, end);
            }
            case "LT" -> end = withSortKey(prefix, a);
            case "LE" -> end = successorWithin(withSortKey(prefix, a), end);
            case "GT" -> start = successorWithin(withSortKey(prefix, a), end);
            case "GE" -> start = withSortKey(prefix, a);
            case "BETWEEN" -> {
                start = withSortKey(prefix, a);
                end = successorWithin(withSortKey(prefix, b), end);
            }
            case "BEGINS_WITH" -> {
                // Escaping is applied byte by byte, so the escaped prefix is a prefix of every escaped extension.
                ByteSink sink = new ByteSink(prefix.length + 16).put(prefix);
                byte[] raw = a instanceof AttributeValue.S s
                        ? s.value().getBytes(java.nio.charset.StandardCharsets.UTF_8)
                        : ((AttributeValue.B) a).value().unsafeArray();
                OrderedBytes.encodeBinary(sink, raw);
                byte[] terminated = sink.toByteArray();
                start = Arrays.copyOf(terminated, terminated.length - 2);
                end = successorWithin(start, end);
            }
            default -> throw new IllegalArgumentException("not a sort key operator: " + operator);
        }
        return new Range(start, end);
    }

    /** The successor of {@code key}, or {@code bound} if it has none (a key of 0xFF bytes only). */
    private static byte[] successorWithin(byte[] key, byte[] bound) {
        byte[] s = successor(key);
        return s == null ? bound : s;
    }

    /** Every key starting with {@code prefix}. */
    public static Range prefixed(byte[] prefix) {
        return new Range(prefix, successor(prefix));
    }

    /** The keys whose partition hash falls in segment {@code segment} of {@code total} equal slices of 2^64. */
    public static Range segment(int segment, int total) {
        byte[] lower = segment == 0 ? null : hashBound(segment, total);
        byte[] upper = segment == total - 1 ? null : hashBound(segment + 1, total);
        return new Range(lower, upper);
    }

    /** The keys whose partition hash is from {@code first} to {@code last}, both included, in unsigned order. */
    public static Range hashes(long first, long last) {
        byte[] lower = first == 0 ? null : new ByteSink(8).putLong(first).toByteArray();
        byte[] upper = last == -1L ? null : new ByteSink(8).putLong(last + 1).toByteArray();
        return new Range(lower, upper);
    }

    private static byte[] hashBound(int segment, int total) {
        long bound = TWO_TO_64
                .multiply(BigInteger.valueOf(segment))
                .divide(BigInteger.valueOf(total))
                .longValue();
        return new ByteSink(8).putLong(bound).toByteArray();
    }

    /** The encoded key of {@code key}. */
    public static byte[] keyOf(KeySchema schema, PrimaryKey key) {
        return ItemKeyEncoder.encode(schema, key).bytes();
    }

    private static byte[] withSortKey(byte[] prefix, AttributeValue sort) {
        ByteSink sink = new ByteSink(prefix.length + 24).put(prefix);
        ItemKeyEncoder.encodeValue(sink, sort);
        return sink.toByteArray();
    }

    /** The smallest byte string greater than {@code key} and every key that starts with it... followed by 0x00. */
    static byte[] after(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    /** The smallest byte string greater than every string that starts with {@code prefix}; null if there is none. */
    static byte[] successor(byte[] prefix) {
        int i = prefix.length - 1;
        while (i >= 0 && prefix[i] == (byte) 0xFF) {
            i--;
        }
        if (i < 0) {
            return null;
        }
        byte[] out = Arrays.copyOf(prefix, i + 1);
        out[i]++;
        return out;
    }
}
