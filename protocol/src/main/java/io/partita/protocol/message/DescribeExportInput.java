package io.partita.protocol.message;

/** DynamoDB's {@code DescribeExportInput}. */
public record DescribeExportInput(String exportArn) {}
