package io.partita.protocol.message;

import java.math.BigDecimal;
import java.util.List;

/** DynamoDB's {@code ListImportsOutput}. */
public record ListImportsOutput(List<ImportSummary> importSummaryList, String nextToken) {
    /** DynamoDB's {@code ImportSummary}. */
    public record ImportSummary(
            String importArn,
            String importStatus,
            String tableArn,
            ImportTableInput.S3BucketSource s3BucketSource,
            String cloudWatchLogGroupArn,
            String inputFormat,
            BigDecimal startTime,
            BigDecimal endTime) {}
}
