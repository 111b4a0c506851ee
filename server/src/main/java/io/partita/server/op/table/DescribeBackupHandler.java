package io.partita.server.op.table;

import io.partita.protocol.message.BackupArnInput;
import io.partita.protocol.message.BackupDescriptionOutput;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;

/** DescribeBackup: the backup and what it recorded of its table. */
public final class DescribeBackupHandler implements OperationHandler<BackupArnInput, BackupDescriptionOutput> {
    private final StorageEngine storage;

    public DescribeBackupHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<BackupArnInput> inputType() {
        return BackupArnInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public BackupDescriptionOutput handle(RequestContext context, BackupArnInput in) {
        var b = Backups.require(context, storage, in.backupArn());
        return new BackupDescriptionOutput(Backups.describe(context, b, Backups.AVAILABLE));
    }
}
