package io.partita.protocol.message;

/** DynamoDB's {@code DescribeBackupInput} and {@code DeleteBackupInput}: one backup's ARN. */
public record BackupArnInput(String backupArn) {}
