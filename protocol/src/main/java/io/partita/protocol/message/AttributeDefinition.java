package io.partita.protocol.message;

/** DynamoDB's {@code AttributeDefinition} shape. */
public record AttributeDefinition(String attributeName, String attributeType) {}
