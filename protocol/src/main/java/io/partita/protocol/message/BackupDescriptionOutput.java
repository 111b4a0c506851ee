package io.partita.protocol.message;

/** DynamoDB's {@code DescribeBackupOutput} and {@code DeleteBackupOutput}. */
public record BackupDescriptionOutput(BackupDescription backupDescription) {}
