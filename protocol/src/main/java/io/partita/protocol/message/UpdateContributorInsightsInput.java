package io.partita.protocol.message;

/** DynamoDB's {@code UpdateContributorInsightsInput} shape. */
public record UpdateContributorInsightsInput(
        String tableName, String indexName, String contributorInsightsAction, String contributorInsightsMode) {}
