package io.partita.storage.key;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Index rows ({@link IndexKeyEncoder}) sort by their index key as a tuple, attribute by attribute in DynamoDB's
 * order, whatever table key follows; and a Query's range over them ({@link KeyRanges#within}: equality on the first
 * sort attributes, a condition on the next) holds exactly the rows that satisfy it, though every row goes on past the
 * attribute the condition is about.
 */
class IndexKeyEncoderProperties {
    private static final KeySchema TABLE = new KeySchema(new KeySchema.KeyAttribute("id", ScalarType.S), null);

    @Provide
    Arbitrary<BigDecimal> numbers() {
        return Arbitraries.bigDecimals()
                .between(new BigDecimal("-100"), new BigDecimal("100"))
                .ofScale(1)
                .map(BigDecimal::stripTrailingZeros);
    }

    @Provide
    Arbitrary<String> words() {
        return Arbitraries.of("", "a", "a\u0000", "ab", "b", "\uFFFF", "z");
    }

    @Provide
    Arbitrary<String> operators() {
        return Arbitraries.of("EQ", "LT", "LE", "GT", "GE", "BETWEEN");
    }

    @Provide
    Arbitrary<String> ids() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(6);
    }

    private static byte[] row(String partition, String s1, BigDecimal s2, String id) {
        byte[] tableKey = KeyRanges.keyOf(TABLE, new PrimaryKey(new AttributeValue.S(id), null));
        return IndexKeyEncoder.rowKey(
                List.of(new AttributeValue.S(partition), new AttributeValue.N(java.math.BigDecimal.ONE)),
                List.of(new AttributeValue.S(s1.isEmpty() ? "-" : s1), new AttributeValue.N(s2)),
                tableKey);
    }

    @Property(tries = 3000)
    void rowsOfOnePartitionSortByTheirSortTuple(
            @ForAll("words") String a1,
            @ForAll("numbers") BigDecimal a2,
            @ForAll("ids") String aId,
            @ForAll("words") String b1,
            @ForAll("numbers") BigDecimal b2,
            @ForAll("ids") String bId) {
        int bytes = Integer.signum(Arrays.compareUnsigned(row("p", a1, a2, aId), row("p", b1, b2, bId)));
        String x = a1.isEmpty() ? "-" : a1;
        String y = b1.isEmpty() ? "-" : b1;
        int first = Integer.signum(compareUtf8(x, y));
        int second = Integer.signum(a2.compareTo(b2));
        if (first != 0) {
            assertThat(bytes).isEqualTo(first);
        } else if (second != 0) {
            assertThat(bytes).isEqualTo(second);
        } else if (!aId.equals(bId)) {
            assertThat(bytes).isNotZero();
        }
    }

    @Property(tries = 3000)
    void aQueryRangeHoldsExactlyTheMatchingRows(
            @ForAll("words") String queriedFirst,
            @ForAll("words") String storedFirst,
            @ForAll("operators") String op,
            @ForAll("numbers") BigDecimal a,
            @ForAll("numbers") BigDecimal b,
            @ForAll("numbers") BigDecimal value,
            @ForAll("ids") String id) {
        BigDecimal lo = a.min(b);
        BigDecimal hi = a.max(b);
        String q = queriedFirst.isEmpty() ? "-" : queriedFirst;
        byte[] prefix = IndexKeyEncoder.extend(
                IndexKeyEncoder.partitionPrefix(
                        List.of(new AttributeValue.S("p"), new AttributeValue.N(java.math.BigDecimal.ONE))),
                List.of(new AttributeValue.S(q)));
        KeyRanges.Range range = KeyRanges.within(prefix, op, new AttributeValue.N(lo), new AttributeValue.N(hi));
        boolean expected =
                q.equals(storedFirst.isEmpty() ? "-" : storedFirst) && KeyRangesProperties.satisfies(op, value, lo, hi);
        assertThat(range.contains(row("p", storedFirst, value, id))).isEqualTo(expected);
        // Another partition of the index is never in the range.
        assertThat(range.contains(row("q", storedFirst, value, id))).isFalse();
    }

    private static int compareUtf8(String x, String y) {
        return Arrays.compareUnsigned(
                x.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                y.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
