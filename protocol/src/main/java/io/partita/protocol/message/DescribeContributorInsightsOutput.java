package io.partita.protocol.message;

import java.math.BigDecimal;
import java.util.List;

/** DynamoDB's {@code DescribeContributorInsightsOutput} shape. */
public record DescribeContributorInsightsOutput(
        String tableName,
        String indexName,
        List<String> contributorInsightsRuleList,
        String contributorInsightsStatus,
        BigDecimal lastUpdateDateTime,
        String contributorInsightsMode) {}
