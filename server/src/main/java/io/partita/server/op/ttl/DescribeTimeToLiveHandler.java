package io.partita.server.op.ttl;

import io.partita.protocol.message.DescribeTimeToLiveInput;
import io.partita.protocol.message.DescribeTimeToLiveOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.ttl.TtlSettings;

/** DescribeTimeToLive: {@code ENABLED} with its attribute, or {@code DISABLED}. */
public final class DescribeTimeToLiveHandler
        implements OperationHandler<DescribeTimeToLiveInput, DescribeTimeToLiveOutput> {
    private final StorageEngine storage;

    public DescribeTimeToLiveHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DescribeTimeToLiveInput> inputType() {
        return DescribeTimeToLiveInput.class;
    }

    @Override
    public DescribeTimeToLiveOutput handle(RequestContext context, DescribeTimeToLiveInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        Table t = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
        TtlSettings ttl = t.metadata().ttl();
        if (ttl == null || !ttl.enabled()) {
            return new DescribeTimeToLiveOutput(new DescribeTimeToLiveOutput.Description("DISABLED", null));
        }
        return new DescribeTimeToLiveOutput(new DescribeTimeToLiveOutput.Description("ENABLED", ttl.attributeName()));
    }
}
