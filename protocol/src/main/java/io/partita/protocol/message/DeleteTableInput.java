package io.partita.protocol.message;

/** DynamoDB's {@code DeleteTableInput} shape. */
public record DeleteTableInput(String tableName) {}
