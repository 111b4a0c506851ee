package io.partita.protocol.message;

/** DynamoDB's {@code DescribeImportInput}. */
public record DescribeImportInput(String importArn) {}
