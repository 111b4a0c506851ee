package io.partita.server.op.insights;

import io.partita.protocol.message.ListContributorInsightsInput;
import io.partita.protocol.message.ListContributorInsightsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;

/**
 * ListContributorInsights: one summary per table in name order (or just the named table), {@code MaxResults} at a
 * time (at most 100), continued from {@code NextToken}, which is the last table name returned.
 */
public final class ListContributorInsightsHandler
        implements OperationHandler<ListContributorInsightsInput, ListContributorInsightsOutput> {
    private final StorageEngine storage;

    public ListContributorInsightsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<ListContributorInsightsInput> inputType() {
        return ListContributorInsightsInput.class;
    }

    @Override
    public ListContributorInsightsOutput handle(RequestContext context, ListContributorInsightsInput in) {
        ConstraintSet c = new ConstraintSet();
        if (in.tableName() != null) {
            TableNames.check(c, in.tableName());
        }
        c.atMost("maxResults", in.maxResults(), 100);
        c.check();
        int max = in.maxResults() == null || in.maxResults() <= 0
                ? 100
                : in.maxResults().intValue();
        List<ListContributorInsightsOutput.Summary> out = new ArrayList<>();
        String next = null;
        if (in.tableName() != null) {
            String name = TableNames.resolve(context, in.tableName());
            Table t = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
            out.add(summary(t.metadata()));
        } else {
            for (String name : storage.tables().names()) {
                if (in.nextToken() != null && name.compareTo(in.nextToken()) <= 0) {
                    continue;
                }
                if (out.size() == max) {
                    next = out.get(out.size() - 1).tableName();
                    break;
                }
                Table t = storage.tables().find(name);
                if (t != null) {
                    out.add(summary(t.metadata()));
                }
            }
        }
        return new ListContributorInsightsOutput(out, next);
    }

    private static ListContributorInsightsOutput.Summary summary(TableMetadata m) {
        return new ListContributorInsightsOutput.Summary(
                m.name(), null, ContributorInsights.status(m), m.contributorInsightsMode());
    }
}
