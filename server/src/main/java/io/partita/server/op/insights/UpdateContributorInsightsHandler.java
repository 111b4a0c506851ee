package io.partita.server.op.insights;

import io.partita.protocol.message.UpdateContributorInsightsInput;
import io.partita.protocol.message.UpdateContributorInsightsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;

/**
 * UpdateContributorInsights: turns key counting on or off for a table. The answer says {@code ENABLING} or
 * {@code DISABLING}, as DynamoDB's does; Partita switches at once, so DescribeContributorInsights then says
 * {@code ENABLED} or {@code DISABLED}.
 */
public final class UpdateContributorInsightsHandler
        implements OperationHandler<UpdateContributorInsightsInput, UpdateContributorInsightsOutput> {
    private final StorageEngine storage;

    public UpdateContributorInsightsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<UpdateContributorInsightsInput> inputType() {
        return UpdateContributorInsightsInput.class;
    }

    @Override
    public UpdateContributorInsightsOutput handle(RequestContext context, UpdateContributorInsightsInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.notNull("contributorInsightsAction", in.contributorInsightsAction())
                .enumValue("contributorInsightsAction", in.contributorInsightsAction(), ContributorInsights.ACTIONS)
                .enumValue("contributorInsightsMode", in.contributorInsightsMode(), ContributorInsights.MODES);
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        io.partita.storage.table.HashRange.requireNotMoving(storage.tables()
                .require(name, "Requested resource not found: Table: " + name + " not found")
                .metadata());
        ContributorInsights.refuseIndex(name, in.indexName());
        boolean enable = in.contributorInsightsAction().equals("ENABLE");
        String mode =
                in.contributorInsightsMode() != null ? in.contributorInsightsMode() : "ACCESSED_AND_THROTTLED_KEYS";
        Table table = storage.tables().update(name, m -> {
            // Again under the catalog's lock, which a range move's fence takes: none slips in after it.
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withContributorInsights(enable ? mode : null);
        });
        return new UpdateContributorInsightsOutput(
                table.metadata().name(), null, enable ? "ENABLING" : "DISABLING", enable ? mode : null);
    }
}
