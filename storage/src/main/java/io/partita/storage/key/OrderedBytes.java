package io.partita.storage.key;

import io.partita.protocol.model.DynamoNumber;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Self-delimiting encodings of key values whose unsigned byte order ({@code memcmp}) is DynamoDB's order.
 *
 * <p>Strings compare by their UTF-8 bytes and binary values as unsigned bytes, so both are written as their bytes
 * with {@code 0x00} escaped as {@code 00 FF} and a {@code 00 01} terminator; a prefix then sorts before its
 * extensions, and the terminator lets a partition key be followed by a sort key.
 *
 * <p>Numbers ({@link DynamoNumber}: 38 digits, exponent -129..126 in {@code 0.d₁d₂… × 10^e} form) are written as:
 *
 * <pre>
 *   negative: 0x01 | 255-(e+129) | 255-pair… | 0xFF     pair = 10·dᵢ + dᵢ₊₁ + 1  (1..100)
 *   zero:     0x02
 *   positive: 0x03 | e+129       | pair…     | 0x00
 * </pre>
 *
 * A larger exponent means a larger magnitude; with equal exponents the digit pairs decide, and the terminator sorts
 * a shorter digit string (fewer significant digits) first. Negative numbers complement every byte to reverse it.
 */
public final class OrderedBytes {
    private static final int NEGATIVE = 0x01;
    private static final int ZERO = 0x02;
    private static final int POSITIVE = 0x03;

    private OrderedBytes() {}

    public static void encodeString(ByteSink out, String value) {
        encodeBinary(out, value.getBytes(StandardCharsets.UTF_8));
    }

    public static void encodeBinary(ByteSink out, byte[] value) {
        int start = 0;
        for (int i = 0; i < value.length; i++) {
            if (value[i] == 0) {
                out.put(value, start, i - start).put(0x00).put(0xFF);
                start = i + 1;
            }
        }
        out.put(value, start, value.length - start).put(0x00).put(0x01);
    }

    public static void encodeNumber(ByteSink out, BigDecimal value) {
        int sign = value.signum();
        if (sign == 0) {
            out.put(ZERO);
            return;
        }
        BigDecimal stripped = value.stripTrailingZeros();
        int exponent = (int) DynamoNumber.exponentOf(stripped) - DynamoNumber.MIN_EXPONENT;
        String digits = stripped.unscaledValue().abs().toString();
        int flip = sign < 0 ? 0xFF : 0x00;
        out.put(sign < 0 ? NEGATIVE : POSITIVE);
        out.put(exponent ^ flip);
        for (int i = 0; i < digits.length(); i += 2) {
            int hi = digits.charAt(i) - '0';
            int lo = i + 1 < digits.length() ? digits.charAt(i + 1) - '0' : 0;
            out.put((hi * 10 + lo + 1) ^ flip);
        }
        out.put(flip);
    }
}
