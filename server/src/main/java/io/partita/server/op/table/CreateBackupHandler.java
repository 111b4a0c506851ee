package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.CreateBackupInput;
import io.partita.protocol.message.CreateBackupOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.backup.TableBackups.Backup;
import io.partita.storage.table.TableCatalog.Table;

/**
 * CreateBackup: a copy of the table's items now, in status {@code CREATING} in this answer and {@code AVAILABLE}
 * from then on (as DynamoDB answers a small table's). Names need not be unique: each call makes a backup.
 */
public final class CreateBackupHandler implements OperationHandler<CreateBackupInput, CreateBackupOutput> {
    private final StorageEngine storage;

    public CreateBackupHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<CreateBackupInput> inputType() {
        return CreateBackupInput.class;
    }

    @Override
    public CreateBackupOutput handle(RequestContext context, CreateBackupInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("tableName", in.tableName()).length("tableName", in.tableName(), 1, 1024);
        c.notNull("backupName", in.backupName())
                .length("backupName", in.backupName(), 3, 255)
                .pattern("backupName", in.backupName(), TableNames.NAME);
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        Table t = storage.tables().find(name);
        if (t == null) {
            throw new ApiException(ErrorCode.TABLE_NOT_FOUND, "Table not found: " + name);
        }
        Backup b;
        String part = context.backupPart();
        if (part != null) {
            // One group's part of a backup of a table cut by ranges, which the cluster recorded under this id and ran
            // from the node the client reached (docs/CLUSTER.md): its own range's items, under that id.
            if (t.metadata().hashRange() == null || !part.matches("\\d{14}-[0-9a-f]{8}")) {
                throw new ApiException(
                        ErrorCode.SERVICE_UNAVAILABLE,
                        "table " + name + " holds no hash range here, or the backup's id is malformed: try again");
            }
            b = storage.backups().create(t, in.backupName(), part);
        } else {
            io.partita.server.op.CutTables.refuse(context, t.metadata(), "CreateBackup");
            b = storage.backups().create(t, in.backupName());
        }
        var details = Backups.details(context, b, "CREATING");
        return new CreateBackupOutput(details);
    }
}
