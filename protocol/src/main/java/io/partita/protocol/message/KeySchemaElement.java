package io.partita.protocol.message;

/** DynamoDB's {@code KeySchemaElement} shape. */
public record KeySchemaElement(String attributeName, String keyType) {}
