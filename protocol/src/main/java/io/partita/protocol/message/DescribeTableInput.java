package io.partita.protocol.message;

/** DynamoDB's {@code DescribeTableInput} shape. */
public record DescribeTableInput(String tableName) {}
