package io.partita.server.op.insights;

import io.partita.protocol.error.ApiException;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;

/**
 * What the three Contributor Insights operations share. Partita keeps the top keys itself (a Space-Saving sketch per
 * table, {@code GET /admin/contributor-insights}) instead of CloudWatch rules; the rule names are DynamoDB's, so code
 * that reads them finds what it expects ("Contributor Insights for DynamoDB").
 */
final class ContributorInsights {
    static final List<String> ACTIONS = List.of("ENABLE", "DISABLE");
    static final List<String> MODES = List.of("ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS");

    private ContributorInsights() {}

    static String status(TableMetadata m) {
        return m.contributorInsightsMode() == null ? "DISABLED" : "ENABLED";
    }

    /**
     * DynamoDB's rules: {@code PKC}/{@code SKC} count the most accessed partition and sort keys, {@code PKT}/
     * {@code SKT} the most throttled ones; throttled-keys mode has only the latter.
     */
    static List<String> rules(TableMetadata m) {
        if (m.contributorInsightsMode() == null) {
            return List.of();
        }
        boolean accessed = !"THROTTLED_KEYS".equals(m.contributorInsightsMode());
        boolean sortKey = m.keySchema().hasSortKey();
        String suffix = "-" + m.name() + "-" + m.creationMillis();
        List<String> rules = new ArrayList<>();
        if (accessed) {
            rules.add("DynamoDBContributorInsights-PKC" + suffix);
        }
        rules.add("DynamoDBContributorInsights-PKT" + suffix);
        if (sortKey) {
            if (accessed) {
                rules.add("DynamoDBContributorInsights-SKC" + suffix);
            }
            rules.add("DynamoDBContributorInsights-SKT" + suffix);
        }
        return rules;
    }

    /** Partita has no secondary indexes yet, so any index is unknown. */
    static void refuseIndex(String table, String index) {
        if (index != null) {
            throw ApiException.resourceNotFound(
                    "Requested resource not found: Index: " + index + " not found for table: " + table);
        }
    }
}
