package io.partita.protocol.model;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Item and attribute sizes by DynamoDB's documented formula ("Item sizes and formats", CapacityUnitCalculations).
 *
 * <ul>
 *   <li>String and binary: their byte length (UTF-8 for strings); attribute names count as strings.
 *   <li>Number: 1 byte per two significant digits, plus 1 byte.
 *   <li>Boolean and null: 1 byte.
 *   <li>List and map: 3 bytes, plus 1 byte per element, plus the elements (a map element includes its key).
 *   <li>Sets: the sum of their elements.
 * </ul>
 */
public final class ItemSize {
    /** DynamoDB's maximum item size: 400 KB, names included. */
    public static final int MAX_ITEM_BYTES = 400 * 1024;

    private ItemSize() {}

    public static long of(Map<String, AttributeValue> item) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            size += utf8Length(e.getKey()) + of(e.getValue());
        }
        return size;
    }

    public static long of(AttributeValue value) {
        if (value instanceof AttributeValue.S s) {
            return utf8Length(s.value());
        } else if (value instanceof AttributeValue.N n) {
            return numberSize(n.value());
        } else if (value instanceof AttributeValue.B b) {
            return b.value().length();
        } else if (value instanceof AttributeValue.Bool || value instanceof AttributeValue.Null) {
            return 1;
        } else if (value instanceof AttributeValue.SS ss) {
            long size = 0;
            for (String s : ss.values()) {
                size += utf8Length(s);
            }
            return size;
        } else if (value instanceof AttributeValue.NS ns) {
            long size = 0;
            for (var n : ns.values()) {
                size += numberSize(n);
            }
            return size;
        } else if (value instanceof AttributeValue.BS bs) {
            long size = 0;
            for (Bytes b : bs.values()) {
                size += b.length();
            }
            return size;
        } else if (value instanceof AttributeValue.L l) {
            long size = 3;
            for (AttributeValue v : l.values()) {
                size += 1 + of(v);
            }
            return size;
        } else {
            long size = 3;
            for (Map.Entry<String, AttributeValue> e :
                    ((AttributeValue.M) value).values().entrySet()) {
                size += 1 + utf8Length(e.getKey()) + of(e.getValue());
            }
            return size;
        }
    }

    private static long numberSize(java.math.BigDecimal n) {
        int digits = n.signum() == 0 ? 1 : n.precision();
        return (digits + 1) / 2 + 1;
    }

    /** The UTF-8 length of {@code s}, without encoding it. */
    public static int utf8Length(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    bytes += 2;
                    i++;
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
