package io.partita.protocol.message;

/** DynamoDB's {@code KeySchemaElement} shape. */
public record KeySchemaElement(String attributeName, String keyType) {
    /** As DynamoDB prints one in a constraint message: {@code KeySchemaElement(attributeName=pk, keyType=HASH)}. */
    @Override
    public String toString() {
        return "KeySchemaElement(attributeName=" + attributeName + ", keyType=" + keyType + ")";
    }
}
