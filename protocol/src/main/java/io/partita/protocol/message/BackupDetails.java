package io.partita.protocol.message;

import java.math.BigDecimal;

/** DynamoDB's {@code BackupDetails}. */
public record BackupDetails(
        String backupArn,
        String backupName,
        Long backupSizeBytes,
        String backupStatus,
        String backupType,
        BigDecimal backupCreationDateTime,
        BigDecimal backupExpiryDateTime) {}
