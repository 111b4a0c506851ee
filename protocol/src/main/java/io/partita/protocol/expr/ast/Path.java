package io.partita.protocol.expr.ast;

import java.util.List;

/**
 * A document path such as {@code a.b[2].#c}. The first part is always an {@link PathPart.Attr}. Printed the way
 * DynamoDB prints paths in its messages: {@code [a, b, [2], c]}.
 */
public record Path(List<PathPart> parts) implements Operand {
    public Path {
        parts = List.copyOf(parts);
    }

    public static Path of(String attribute) {
        return new Path(List.of(new PathPart.Attr(attribute, false)));
    }

    public PathPart.Attr head() {
        return (PathPart.Attr) parts.get(0);
    }

    public boolean isTopLevel() {
        return parts.size() == 1;
    }

    /** Whether {@code this} equals {@code other} or is a prefix of it. */
    public boolean isPrefixOf(Path other) {
        if (parts.size() > other.parts.size()) {
            return false;
        }
        for (int i = 0; i < parts.size(); i++) {
            if (!parts.get(i).equals(other.parts.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return parts.toString();
    }
}
