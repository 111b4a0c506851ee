package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.DeleteTableInput;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;

/** DeleteTable: answers the table as it was, without its schema, in status {@code DELETING}; it is gone at once. */
public final class DeleteTableHandler implements OperationHandler<DeleteTableInput, TableDescriptionOutput> {
    private final StorageEngine storage;
    /** Where the tables are in a cluster with a group per table; null everywhere else. */
    private final TablePlacement placement;

    public DeleteTableHandler(StorageEngine storage, TablePlacement placement) {
        this.storage = storage;
        this.placement = placement;
    }

    @Override
    public Class<DeleteTableInput> inputType() {
        return DeleteTableInput.class;
    }

    @Override
    public TableDescriptionOutput handle(RequestContext context, DeleteTableInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        Table table = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
        if (table.metadata().deletionProtectionEnabled()) {
            // "Using deletion protection" (WorkingWithTables.Basics): a protected table cannot be deleted.
            throw ApiException.validation("Resource cannot be deleted as it is currently protected against deletion."
                    + " Disable deletion protection first.");
        }
        if (table.metadata().indexes().stream().anyMatch(d -> d.global() && !"ACTIVE".equals(d.status()))) {
            throw ApiException.resourceInUse("Attempt to change a resource which is still in use: Cannot delete table"
                    + " while indexes are being created, updated, or deleted.");
        }
        var description = TableDescriptions.deleting(context, storage, table);
        storage.tables().delete(name);
        if (placement != null) {
            placement.deleted(context.accountId(), name);
        }
        return new TableDescriptionOutput(description);
    }
}
