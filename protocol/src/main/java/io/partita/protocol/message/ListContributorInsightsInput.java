package io.partita.protocol.message;

/** DynamoDB's {@code ListContributorInsightsInput} shape. */
public record ListContributorInsightsInput(String tableName, String nextToken, Long maxResults) {}
