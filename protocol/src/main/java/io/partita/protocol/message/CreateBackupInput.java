package io.partita.protocol.message;

/** DynamoDB's {@code CreateBackupInput}. */
public record CreateBackupInput(String tableName, String backupName) {}
