package io.partita.conformance.support;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Short constructors for {@link AttributeValue}s, so expected items in expression tests read like the JSON. */
public final class AttributeValues {
    private AttributeValues() {}

    public static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    public static AttributeValue n(String value) {
        return AttributeValue.fromN(value);
    }

    /** A binary value; each int is one (unsigned) byte, 0..255. */
    public static AttributeValue b(int... bytes) {
        return AttributeValue.fromB(bytes(bytes));
    }

    public static AttributeValue bool(boolean value) {
        return AttributeValue.fromBool(value);
    }

    public static AttributeValue nul() {
        return AttributeValue.fromNul(true);
    }

    public static AttributeValue l(AttributeValue... elements) {
        return AttributeValue.fromL(List.of(elements));
    }

    public static AttributeValue ss(String... values) {
        return AttributeValue.fromSs(List.of(values));
    }

    public static AttributeValue ns(String... values) {
        return AttributeValue.fromNs(List.of(values));
    }

    /** A binary set; each array is one element, as for {@link #b(int...)}. */
    public static AttributeValue bs(int[]... elements) {
        return AttributeValue.fromBs(
                Arrays.stream(elements).map(AttributeValues::bytes).toList());
    }

    /** A map value from alternating names and values: {@code m("a", s("x"), "b", n("1"))}. */
    public static AttributeValue m(Object... namesAndValues) {
        return AttributeValue.fromM(item(namesAndValues));
    }

    /** An item (or map) from alternating names and values, in the order given. */
    public static Map<String, AttributeValue> item(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must alternate");
        }
        Map<String, AttributeValue> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put((String) namesAndValues[i], (AttributeValue) namesAndValues[i + 1]);
        }
        return map;
    }

    /**
     * The same item with every set's elements sorted, recursively: DynamoDB keeps no order inside SS, NS and BS, so
     * items holding sets with more than one element are compared through this.
     */
    public static Map<String, AttributeValue> sorted(Map<String, AttributeValue> item) {
        if (item == null) {
            return null;
        }
        Map<String, AttributeValue> out = new TreeMap<>();
        item.forEach((name, value) -> out.put(name, sorted(value)));
        return out;
    }

    public static AttributeValue sorted(AttributeValue value) {
        if (value.hasSs()) {
            return AttributeValue.fromSs(value.ss().stream().sorted().toList());
        }
        if (value.hasNs()) {
            return AttributeValue.fromNs(value.ns().stream()
                    .sorted(Comparator.comparing(BigDecimal::new))
                    .toList());
        }
        if (value.hasBs()) {
            return AttributeValue.fromBs(value.bs().stream()
                    .sorted(Comparator.comparing(SdkBytes::asByteArray, Arrays::compareUnsigned))
                    .toList());
        }
        if (value.hasL()) {
            return AttributeValue.fromL(
                    value.l().stream().map(AttributeValues::sorted).toList());
        }
        if (value.hasM()) {
            return AttributeValue.fromM(sorted(value.m()));
        }
        return value;
    }

    public static SdkBytes bytes(int... bytes) {
        byte[] raw = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            raw[i] = (byte) bytes[i];
        }
        return SdkBytes.fromByteArray(raw);
    }
}
