package io.partita.protocol.expr;

import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.model.AttributeValue;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/** Value semantics shared by conditions, updates and projections: path lookup, equality and ordering. */
public final class Values {
    private Values() {}

    /** The value at {@code path} in {@code item}, or null when any step is missing or of the wrong kind. */
    public static AttributeValue at(Map<String, AttributeValue> item, Path path) {
        if (item == null) {
            return null;
        }
        AttributeValue current = item.get(path.head().name());
        for (int i = 1; i < path.parts().size() && current != null; i++) {
            PathPart part = path.parts().get(i);
            if (part instanceof PathPart.Attr attr) {
                current = current instanceof AttributeValue.M m ? m.values().get(attr.name()) : null;
            } else {
                int index = ((PathPart.Index) part).index();
                current = current instanceof AttributeValue.L l
                                && index < l.values().size()
                        ? l.values().get(index)
                        : null;
            }
        }
        return current;
    }

    /** DynamoDB equality: sets compare as sets, everything else structurally. */
    public static boolean equal(AttributeValue a, AttributeValue b) {
        if (a == null || b == null || !a.type().equals(b.type())) {
            return false;
        }
        if (a instanceof AttributeValue.SS x) {
            return sameElements(x.values(), ((AttributeValue.SS) b).values());
        } else if (a instanceof AttributeValue.NS x) {
            return sameElements(x.values(), ((AttributeValue.NS) b).values());
        } else if (a instanceof AttributeValue.BS x) {
            return sameElements(x.values(), ((AttributeValue.BS) b).values());
        } else if (a instanceof AttributeValue.L x) {
            List<AttributeValue> y = ((AttributeValue.L) b).values();
            if (x.values().size() != y.size()) {
                return false;
            }
            for (int i = 0; i < y.size(); i++) {
                if (!equal(x.values().get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        } else if (a instanceof AttributeValue.M x) {
            Map<String, AttributeValue> y = ((AttributeValue.M) b).values();
            if (x.values().size() != y.size()) {
                return false;
            }
            for (Map.Entry<String, AttributeValue> e : x.values().entrySet()) {
                if (!equal(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    private static boolean sameElements(List<?> a, List<?> b) {
        return a.size() == b.size() && new HashSet<>(a).equals(new HashSet<>(b));
    }

    /** Whether {@code v} has an order: strings, numbers and binary. */
    public static boolean isOrdered(AttributeValue v) {
        return v instanceof AttributeValue.S || v instanceof AttributeValue.N || v instanceof AttributeValue.B;
    }

    /**
     * Compares two ordered values of the same type as DynamoDB does: numbers numerically, strings by UTF-8 bytes
     * (the same as code point order, not Java's UTF-16 order), binary as unsigned bytes.
     */
    public static int compare(AttributeValue a, AttributeValue b) {
        if (a instanceof AttributeValue.N x) {
            return x.value().compareTo(((AttributeValue.N) b).value());
        } else if (a instanceof AttributeValue.S x) {
            return compareUtf8(x.value(), ((AttributeValue.S) b).value());
        } else {
            return ((AttributeValue.B) a).value().compareTo(((AttributeValue.B) b).value());
        }
    }

    public static int compareUtf8(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
