package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.ContinuousBackupsOutput;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.PitrSettings;
import io.partita.storage.table.TableCatalog.Table;

/**
 * The continuous backups' description: {@code ContinuousBackupsStatus} is always {@code ENABLED} (it is not the
 * PITR flag: DynamoDB turns it on for every table), PITR's own status, period and window while it is on.
 */
final class ContinuousBackups {
    private ContinuousBackups() {}

    /** The table {@code nameOrArn} names, or TableNotFoundException "Table not found: T" (observed answers). */
    static Table table(RequestContext context, StorageEngine storage, String nameOrArn) {
        String name = TableNames.resolve(context, nameOrArn);
        Table t = storage.tables().find(name);
        if (t == null) {
            throw new ApiException(ErrorCode.TABLE_NOT_FOUND, "Table not found: " + name);
        }
        return t;
    }

    static ContinuousBackupsOutput describe(StorageEngine storage, Table t) {
        PitrSettings p = t.metadata().pointInTimeRecovery();
        ContinuousBackupsOutput.PointInTimeRecoveryDescription pitr = p == null || !p.enabled()
                ? new ContinuousBackupsOutput.PointInTimeRecoveryDescription("DISABLED", null, null, null)
                : new ContinuousBackupsOutput.PointInTimeRecoveryDescription(
                        "ENABLED",
                        p.recoveryPeriodDays(),
                        TableDescriptions.seconds(storage.pitr().earliestMillis(t)),
                        TableDescriptions.seconds(storage.pitr().latestMillis()));
        return new ContinuousBackupsOutput(new ContinuousBackupsOutput.ContinuousBackupsDescription("ENABLED", pitr));
    }
}
