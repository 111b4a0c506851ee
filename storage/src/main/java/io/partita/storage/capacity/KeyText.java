package io.partita.storage.capacity;

import io.partita.protocol.model.AttributeValue;

/** A partition key as Contributor Insights shows it: the string, the number, or binary in base64. */
public final class KeyText {
    private KeyText() {}

    public static String of(AttributeValue v) {
        if (v == null) {
            return "(scan)";
        }
        if (v instanceof AttributeValue.S s) {
            return s.value();
        }
        if (v instanceof AttributeValue.N n) {
            return n.value().toString();
        }
        if (v instanceof AttributeValue.B b) {
            return b.value().base64();
        }
        return String.valueOf(v);
    }
}
