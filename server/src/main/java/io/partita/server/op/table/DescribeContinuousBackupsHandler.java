package io.partita.server.op.table;

import io.partita.protocol.message.ContinuousBackupsOutput;
import io.partita.protocol.message.DescribeTableInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;

/** DescribeContinuousBackups: whether PITR is on, its period and its restorable window. */
public final class DescribeContinuousBackupsHandler
        implements OperationHandler<DescribeTableInput, ContinuousBackupsOutput> {
    private final StorageEngine storage;

    public DescribeContinuousBackupsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DescribeTableInput> inputType() {
        return DescribeTableInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ContinuousBackupsOutput handle(RequestContext context, DescribeTableInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("tableName", in.tableName()).length("tableName", in.tableName(), 1, 1024);
        c.check();
        return ContinuousBackups.describe(storage, ContinuousBackups.table(context, storage, in.tableName()));
    }
}
