package io.partita.protocol.message;

/** DynamoDB's {@code DescribeContributorInsightsInput} shape. */
public record DescribeContributorInsightsInput(String tableName, String indexName) {}
