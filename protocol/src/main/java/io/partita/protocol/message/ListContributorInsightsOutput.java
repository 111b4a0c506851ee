package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code ListContributorInsightsOutput} shape. */
public record ListContributorInsightsOutput(List<Summary> contributorInsightsSummaries, String nextToken) {
    /** DynamoDB's {@code ContributorInsightsSummary}. */
    public record Summary(
            String tableName, String indexName, String contributorInsightsStatus, String contributorInsightsMode) {}
}
