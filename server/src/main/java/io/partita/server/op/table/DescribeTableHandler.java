package io.partita.server.op.table;

import io.partita.protocol.message.DescribeTableInput;
import io.partita.protocol.message.TableOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;

/** DescribeTable. */
public final class DescribeTableHandler implements OperationHandler<DescribeTableInput, TableOutput> {
    private final StorageEngine storage;

    public DescribeTableHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DescribeTableInput> inputType() {
        return DescribeTableInput.class;
    }

    /** Bounded: a table's description. */
    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public TableOutput handle(RequestContext context, DescribeTableInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        Table table = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
        return new TableOutput(TableDescriptions.describe(context, storage, table, "ACTIVE"));
    }
}
