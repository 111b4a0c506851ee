package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;

/** DynamoDB's {@code ImportTableDescription}. */
public record ImportTableDescription(
        String importArn,
        String importStatus,
        String tableArn,
        String tableId,
        String clientToken,
        ImportTableInput.S3BucketSource s3BucketSource,
        Long errorCount,
        String cloudWatchLogGroupArn,
        String inputFormat,
        JsonNode inputFormatOptions,
        String inputCompressionType,
        ImportTableInput.TableCreationParameters tableCreationParameters,
        BigDecimal startTime,
        BigDecimal endTime,
        Long processedSizeBytes,
        Long processedItemCount,
        Long importedItemCount,
        String failureCode,
        String failureMessage) {}
