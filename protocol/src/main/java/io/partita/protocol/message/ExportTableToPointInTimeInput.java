package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** DynamoDB's {@code ExportTableToPointInTimeInput}; {@code ExportTime} in epoch seconds, whole or not. */
public record ExportTableToPointInTimeInput(
        String tableArn,
        JsonNode exportTime,
        String clientToken,
        String s3Bucket,
        String s3BucketOwner,
        String s3Prefix,
        String s3SseAlgorithm,
        String s3SseKmsKeyId,
        String exportFormat,
        String exportType,
        JsonNode incrementalExportSpecification) {}
