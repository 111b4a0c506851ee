package io.partita.protocol.message;

import java.math.BigDecimal;
import java.util.List;

/** DynamoDB's {@code ListBackupsOutput}. */
public record ListBackupsOutput(List<BackupSummary> backupSummaries, String lastEvaluatedBackupArn) {
    /** DynamoDB's {@code BackupSummary}. */
    public record BackupSummary(
            String tableName,
            String tableId,
            String tableArn,
            String backupArn,
            String backupName,
            BigDecimal backupCreationDateTime,
            BigDecimal backupExpiryDateTime,
            String backupStatus,
            String backupType,
            Long backupSizeBytes) {}
}
