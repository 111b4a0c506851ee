package io.partita.storage.key;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.DynamoNumber;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The key encodings sort exactly as DynamoDB sorts, over DynamoDB's whole value ranges. */
class OrderedBytesProperties {
    @Provide
    Arbitrary<BigDecimal> dynamoNumbers() {
        Arbitrary<BigInteger> unscaled = Arbitraries.strings()
                .withCharRange('0', '9')
                .ofMinLength(1)
                .ofMaxLength(38)
                .map(BigInteger::new);
        Arbitrary<Integer> exponent = Arbitraries.integers().between(-129, 126);
        Arbitrary<BigDecimal> general = Combinators.combine(unscaled, exponent, Arbitraries.of(1, -1))
                .as((u, e, sign) -> {
                    if (u.signum() == 0) {
                        return BigDecimal.ZERO;
                    }
                    BigDecimal v = new BigDecimal(u).stripTrailingZeros();
                    // Scale so that the number's exponent in 0.d×10^e form is e.
                    int scale = v.precision() - e;
                    return new BigDecimal(v.unscaledValue(), scale).multiply(BigDecimal.valueOf(sign));
                });
        Arbitrary<BigDecimal> small =
                Arbitraries.integers().between(-1000, 1000).map(i -> BigDecimal.valueOf(i, 1));
        return Arbitraries.oneOf(general, small).map(DynamoNumber::check);
    }

    private static byte[] number(BigDecimal n) {
        ByteSink out = new ByteSink(24);
        OrderedBytes.encodeNumber(out, n);
        return out.toByteArray();
    }

    private static byte[] string(String s) {
        ByteSink out = new ByteSink(24);
        OrderedBytes.encodeString(out, s);
        return out.toByteArray();
    }

    private static byte[] binary(byte[] b) {
        ByteSink out = new ByteSink(24);
        OrderedBytes.encodeBinary(out, b);
        return out.toByteArray();
    }

    @Property(tries = 3000)
    void numbersSortNumerically(@ForAll("dynamoNumbers") BigDecimal a, @ForAll("dynamoNumbers") BigDecimal b) {
        assertThat(Integer.signum(Arrays.compareUnsigned(number(a), number(b))))
                .isEqualTo(Integer.signum(a.compareTo(b)));
    }

    @Property(tries = 2000)
    void equalNumbersEncodeEqually(@ForAll("dynamoNumbers") BigDecimal a) {
        BigDecimal padded = a.setScale(Math.max(a.scale(), 0) + 3);
        assertThat(number(padded)).isEqualTo(number(a));
    }

    @Property(tries = 3000)
    void stringsSortByTheirUtf8Bytes(@ForAll String a, @ForAll String b) {
        int expected = Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
        assertThat(Integer.signum(Arrays.compareUnsigned(string(a), string(b)))).isEqualTo(Integer.signum(expected));
    }

    @Property(tries = 3000)
    void binarySortsAsUnsignedBytes(@ForAll byte[] a, @ForAll byte[] b) {
        assertThat(Integer.signum(Arrays.compareUnsigned(binary(a), binary(b))))
                .isEqualTo(Integer.signum(Arrays.compareUnsigned(a, b)));
    }

    /** A partition key followed by a sort key must not be confusable with another (pk, sk) pair. */
    @Property(tries = 2000)
    void encodingsAreSelfDelimiting(@ForAll byte[] a, @ForAll byte[] b, @ForAll byte[] c, @ForAll byte[] d) {
        byte[] first = concat(binary(a), binary(b));
        byte[] second = concat(binary(c), binary(d));
        boolean samePair = Arrays.equals(a, c) && Arrays.equals(b, d);
        assertThat(Arrays.equals(first, second)).isEqualTo(samePair);
        if (!Arrays.equals(a, c)) {
            assertThat(Integer.signum(Arrays.compareUnsigned(first, second)))
                    .isEqualTo(Integer.signum(Arrays.compareUnsigned(a, c)));
        }
    }

    private static byte[] concat(byte[] x, byte[] y) {
        byte[] out = Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }
}
