package io.partita.server.op.insights;

import io.partita.protocol.message.DescribeContributorInsightsInput;
import io.partita.protocol.message.DescribeContributorInsightsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableMetadata;

/** DescribeContributorInsights: the table's status, mode and rule names. */
public final class DescribeContributorInsightsHandler
        implements OperationHandler<DescribeContributorInsightsInput, DescribeContributorInsightsOutput> {
    private final StorageEngine storage;

    public DescribeContributorInsightsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DescribeContributorInsightsInput> inputType() {
        return DescribeContributorInsightsInput.class;
    }

    @Override
    public DescribeContributorInsightsOutput handle(RequestContext context, DescribeContributorInsightsInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        TableMetadata m = storage.tables()
                .require(name, "Requested resource not found: Table: " + name + " not found")
                .metadata();
        ContributorInsights.refuseIndex(name, in.indexName());
        return new DescribeContributorInsightsOutput(
                m.name(),
                null,
                ContributorInsights.rules(m),
                ContributorInsights.status(m),
                null,
                m.contributorInsightsMode());
    }
}
