package io.partita.protocol.message;

/** DynamoDB's {@code DescribeTimeToLiveInput}. */
public record DescribeTimeToLiveInput(String tableName) {}
