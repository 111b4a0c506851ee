package io.partita.protocol.message;

/** DynamoDB's {@code ListTablesInput} shape. */
public record ListTablesInput(String exclusiveStartTableName, Long limit) {}
