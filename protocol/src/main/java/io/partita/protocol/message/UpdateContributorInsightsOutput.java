package io.partita.protocol.message;

/** DynamoDB's {@code UpdateContributorInsightsOutput} shape. */
public record UpdateContributorInsightsOutput(
        String tableName, String indexName, String contributorInsightsStatus, String contributorInsightsMode) {}
