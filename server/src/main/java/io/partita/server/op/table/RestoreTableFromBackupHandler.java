package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.RestoreTableFromBackupInput;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.backup.TableBackups.Backup;
import io.partita.storage.table.TableCatalog.Table;

/**
 * RestoreTableFromBackup: a new table with the backup's items, key schema, indexes, billing mode, capacity, on-demand
 * maxima and encryption, and not its streams, TTL, tags or deletion protection ("Restoring a DynamoDB table from a
 * backup": those are set up again by hand). The overrides change the billing mode, the capacity, the encryption,
 * and which of the source's indexes are kept (an index override can keep or drop, never add). The items are copied
 * before the answer, which is {@code CREATING} with its {@code RestoreSummary}, as DynamoDB's; the table is usable at
 * once.
 */
public final class RestoreTableFromBackupHandler
        implements OperationHandler<RestoreTableFromBackupInput, TableDescriptionOutput> {
    private final StorageEngine storage;
    /** Where a table made here goes in a cluster with a group per table; null elsewhere. */
    private final TablePlacement placement;

    public RestoreTableFromBackupHandler(StorageEngine storage, TablePlacement placement) {
        this.storage = storage;
        this.placement = placement;
    }

    @Override
    public Class<RestoreTableFromBackupInput> inputType() {
        return RestoreTableFromBackupInput.class;
    }

    @Override
    public TableDescriptionOutput handle(RequestContext context, RestoreTableFromBackupInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.checkNew(c, in.targetTableName());
        Backups.checkArn(c, in.backupArn());
        Restores.constrain(c, in.billingModeOverride(), in.provisionedThroughputOverride());
        c.check();
        Backup b = Backups.find(context, storage, in.backupArn());
        if (storage.tables().find(in.targetTableName()) != null) {
            throw new ApiException(ErrorCode.TABLE_ALREADY_EXISTS, "Table already exists: " + in.targetTableName());
        }
        String arn = Backups.arn(context, b);
        String inUse = "Backup is being used to restore another table: " + arn;
        Table t;
        if (context.restoresRange() && placement != null) {
            // One group's range of a restore of a backup of a table cut by ranges, whose parts the groups of its
            // ranges hold: this group's part, in the range the record gives it, which the part is of.
            t = Restores.rangeHere(
                    placement,
                    context,
                    b.source(),
                    in.targetTableName(),
                    in,
                    range -> storage.backups().restore(b, range, inUse));
        } else {
            Restores.refuseCut(context, b.source(), in.targetTableName(), in, "RestoreTableFromBackup");
            // The overrides are checked once the name is known to be free (in a cluster, in every group), as here.
            java.util.function.Supplier<Table> restore = () ->
                    storage.backups().restore(b, Restores.target(context, b.source(), in.targetTableName(), in), inUse);
            t = Restores.made(placement, context, in.targetTableName(), restore);
        }
        TableDescription d = TableDescriptions.creating(context, storage, t, false)
                .withRestoreSummary(new TableDescription.RestoreSummary(
                        arn,
                        TableNames.arn(context, b.source().name()),
                        TableDescriptions.seconds(b.creationMillis()),
                        true));
        return new TableDescriptionOutput(d);
    }
}
