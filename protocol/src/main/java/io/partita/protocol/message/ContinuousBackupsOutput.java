package io.partita.protocol.message;

import java.math.BigDecimal;

/** DynamoDB's {@code UpdateContinuousBackupsOutput} and {@code DescribeContinuousBackupsOutput}. */
public record ContinuousBackupsOutput(ContinuousBackupsDescription continuousBackupsDescription) {
    /** DynamoDB's {@code ContinuousBackupsDescription}. */
    public record ContinuousBackupsDescription(
            String continuousBackupsStatus, PointInTimeRecoveryDescription pointInTimeRecoveryDescription) {}

    /** DynamoDB's {@code PointInTimeRecoveryDescription}: only the status while PITR is off. */
    public record PointInTimeRecoveryDescription(
            String pointInTimeRecoveryStatus,
            Integer recoveryPeriodInDays,
            BigDecimal earliestRestorableDateTime,
            BigDecimal latestRestorableDateTime) {}
}
