package io.partita.protocol.message;

/** DynamoDB's {@code ExportTableToPointInTimeOutput} and {@code DescribeExportOutput}. */
public record ExportDescriptionOutput(ExportDescription exportDescription) {}
