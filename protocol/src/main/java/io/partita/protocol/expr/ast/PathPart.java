package io.partita.protocol.expr.ast;

/** One step of a document path: a map key / attribute name, or a list index. */
public sealed interface PathPart permits PathPart.Attr, PathPart.Index {
    /**
     * An attribute or map key. Before resolution {@code placeholder} marks a {@code #name} reference to be replaced from
     * ExpressionAttributeNames; after resolution it is always false.
     */
    record Attr(String name, boolean placeholder) implements PathPart {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A list element, {@code [n]}. */
    record Index(int index) implements PathPart {
        @Override
        public String toString() {
            return "[" + index + "]";
        }
    }
}
