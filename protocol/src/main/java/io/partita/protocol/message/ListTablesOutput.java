package io.partita.protocol.message;

/** DynamoDB's {@code ListTablesOutput} shape. */
public record ListTablesOutput(java.util.List<String> tableNames, String lastEvaluatedTableName) {}
