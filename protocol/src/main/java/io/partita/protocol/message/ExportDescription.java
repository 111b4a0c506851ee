package io.partita.protocol.message;

import java.math.BigDecimal;

/** DynamoDB's {@code ExportDescription}. */
public record ExportDescription(
        String exportArn,
        String exportStatus,
        BigDecimal startTime,
        BigDecimal endTime,
        String exportManifest,
        String tableArn,
        String tableId,
        BigDecimal exportTime,
        String clientToken,
        String s3Bucket,
        String s3BucketOwner,
        String s3Prefix,
        String s3SseAlgorithm,
        String s3SseKmsKeyId,
        String failureCode,
        String failureMessage,
        String exportFormat,
        Long billedSizeBytes,
        Long itemCount,
        String exportType) {}
