package io.partita.protocol.message;

/** DynamoDB's {@code UpdateContinuousBackupsInput}. */
public record UpdateContinuousBackupsInput(
        String tableName, PointInTimeRecoverySpecification pointInTimeRecoverySpecification) {
    /** DynamoDB's {@code PointInTimeRecoverySpecification}. */
    public record PointInTimeRecoverySpecification(Boolean pointInTimeRecoveryEnabled, Integer recoveryPeriodInDays) {}
}
