package io.partita.protocol.model;

/** The three types a key attribute may have. */
public enum ScalarType {
    S,
    N,
    B;

    public boolean matches(AttributeValue value) {
        return value.type().equals(name());
    }
}
