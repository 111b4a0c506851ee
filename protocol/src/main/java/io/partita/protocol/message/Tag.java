package io.partita.protocol.message;

/** DynamoDB's {@code Tag} shape. */
public record Tag(String key, String value) {}
