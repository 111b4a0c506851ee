package io.partita.protocol.message;

/** DynamoDB's {@code CreateBackupOutput}. */
public record CreateBackupOutput(BackupDetails backupDetails) {}
