package io.partita.storage.key;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** A sort-key range holds exactly the keys of its partition that satisfy the condition, and nothing else. */
class KeyRangesProperties {
    private static final KeySchema NUMERIC = new KeySchema(
            new KeySchema.KeyAttribute("pk", ScalarType.S), new KeySchema.KeyAttribute("sk", ScalarType.N));
    private static final KeySchema STRING = new KeySchema(
            new KeySchema.KeyAttribute("pk", ScalarType.S), new KeySchema.KeyAttribute("sk", ScalarType.S));

    @Provide
    Arbitrary<BigDecimal> numbers() {
        return Arbitraries.bigDecimals()
                .between(new BigDecimal("-1000"), new BigDecimal("1000"))
                .ofScale(2)
                .map(BigDecimal::stripTrailingZeros);
    }

    @Provide
    Arbitrary<String> partitions() {
        return Arbitraries.of("a", "b", "a\u0000", "ab");
    }

    @Provide
    Arbitrary<String> operators() {
        return Arbitraries.of("EQ", "LT", "LE", "GT", "GE", "BETWEEN");
    }

    /** Whether {@code value} satisfies sort-key operator {@code op} with bounds {@code lo} (and {@code hi}). */
    static boolean satisfies(String op, BigDecimal value, BigDecimal lo, BigDecimal hi) {
        int c = value.compareTo(lo);
        return switch (op) {
            case "EQ" -> c == 0;
            case "LT" -> c < 0;
            case "LE" -> c <= 0;
            case "GT" -> c > 0;
            case "GE" -> c >= 0;
            default -> c >= 0 && value.compareTo(hi) <= 0;
        };
    }

    private static byte[] key(KeySchema schema, String pk, AttributeValue sk) {
        return KeyRanges.keyOf(schema, new PrimaryKey(new AttributeValue.S(pk), sk));
    }

    @Property(tries = 3000)
    void numericSortConditions(
            @ForAll("partitions") String queried,
            @ForAll("partitions") String stored,
            @ForAll("operators") String op,
            @ForAll("numbers") BigDecimal a,
            @ForAll("numbers") BigDecimal b,
            @ForAll("numbers") BigDecimal value) {
        BigDecimal lo = a.min(b);
        BigDecimal hi = a.max(b);
        KeyRanges.Range range = KeyRanges.sortKey(
                new AttributeValue.S(queried), op, new AttributeValue.N(lo), new AttributeValue.N(hi));
        boolean expected = queried.equals(stored) && satisfies(op, value, lo, hi);
        assertThat(range.contains(key(NUMERIC, stored, new AttributeValue.N(value))))
                .isEqualTo(expected);
    }

    @Property(tries = 3000)
    void beginsWithSelectsExactlyThePrefixedStrings(
            @ForAll("partitions") String pk, @ForAll String prefix, @ForAll String value) {
        KeyRanges.Range range =
                KeyRanges.sortKey(new AttributeValue.S(pk), "BEGINS_WITH", new AttributeValue.S(prefix), null);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
        boolean expected = v.length >= p.length && Arrays.equals(v, 0, p.length, p, 0, p.length);
        assertThat(range.contains(key(STRING, pk, new AttributeValue.S(value)))).isEqualTo(expected);
        assertThat(range.contains(key(STRING, pk, new AttributeValue.S(prefix))))
                .isTrue();
    }

    @Property(tries = 500)
    void segmentsPartitionTheHashSpace(@ForAll("partitions") String pk, @ForAll int rawTotal) {
        int total = Math.floorMod(rawTotal, 1_000_000) + 1;
        byte[] k = key(NUMERIC, pk + rawTotal, AttributeValue.N.of("1"));
        int hits = 0;
        // Only segments near the key's position can hold it; count over all of them for small totals.
        if (total <= 64) {
            for (int s = 0; s < total; s++) {
                if (KeyRanges.segment(s, total).contains(k)) {
                    hits++;
                }
            }
            assertThat(hits).isEqualTo(1);
        } else {
            long hash = java.nio.ByteBuffer.wrap(k, 0, 8).getLong();
            int segment = new java.math.BigInteger(Long.toUnsignedString(hash))
                    .multiply(java.math.BigInteger.valueOf(total))
                    .shiftRight(64)
                    .intValue();
            assertThat(KeyRanges.segment(segment, total).contains(k)).isTrue();
            if (segment > 0) {
                assertThat(KeyRanges.segment(segment - 1, total).contains(k)).isFalse();
            }
            if (segment < total - 1) {
                assertThat(KeyRanges.segment(segment + 1, total).contains(k)).isFalse();
            }
        }
    }
}
