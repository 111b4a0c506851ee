package io.partita.server.op.table;

import io.partita.protocol.message.BackupArnInput;
import io.partita.protocol.message.BackupDescriptionOutput;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;

/**
 * DeleteBackup: gone at once, answered in status {@code DELETED}; one a restore is reading is refused with
 * BackupInUseException ("Backup is being used to restore table: ARN").
 */
public final class DeleteBackupHandler implements OperationHandler<BackupArnInput, BackupDescriptionOutput> {
    private final StorageEngine storage;

    public DeleteBackupHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<BackupArnInput> inputType() {
        return BackupArnInput.class;
    }

    @Override
    public BackupDescriptionOutput handle(RequestContext context, BackupArnInput in) {
        var b = Backups.require(context, storage, in.backupArn());
        var description = Backups.describe(context, b, Backups.DELETED);
        storage.backups()
                .delete(b.id(), target -> "Backup is being used to restore table: " + TableNames.arn(context, target));
        return new BackupDescriptionOutput(description);
    }
}
