package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ContinuousBackupsOutput;
import io.partita.protocol.message.UpdateContinuousBackupsInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.backup.PointInTimeRecovery;
import io.partita.storage.table.TableCatalog.Table;

/**
 * UpdateContinuousBackups: turns PITR on (a recovery period of {@code RecoveryPeriodInDays}, 1 to 35, 35 when not
 * given), changes the period of a table that has it, or turns it off; at once, and idempotent. Disabling with a period
 * is refused with DynamoDB's words.
 */
public final class UpdateContinuousBackupsHandler
        implements OperationHandler<UpdateContinuousBackupsInput, ContinuousBackupsOutput> {
    private final StorageEngine storage;

    public UpdateContinuousBackupsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<UpdateContinuousBackupsInput> inputType() {
        return UpdateContinuousBackupsInput.class;
    }

    @Override
    public ContinuousBackupsOutput handle(RequestContext context, UpdateContinuousBackupsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("tableName", in.tableName()).length("tableName", in.tableName(), 1, 1024);
        var spec = in.pointInTimeRecoverySpecification();
        c.notNull("pointInTimeRecoverySpecification", spec);
        if (spec != null) {
            String days = "pointInTimeRecoverySpecification.recoveryPeriodInDays";
            Long period = spec.recoveryPeriodInDays() == null ? null : (long) spec.recoveryPeriodInDays();
            c.notNull("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled", spec.pointInTimeRecoveryEnabled())
                    .atLeast(days, period, 1)
                    .atMost(days, period, PointInTimeRecovery.MAX_DAYS);
        }
        c.check();
        Table t = ContinuousBackups.table(context, storage, in.tableName());
        if (!spec.pointInTimeRecoveryEnabled() && spec.recoveryPeriodInDays() != null) {
            throw ApiException.validation(
                    "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.");
        }
        if (spec.pointInTimeRecoveryEnabled()) {
            int days = spec.recoveryPeriodInDays() == null ? PointInTimeRecovery.MAX_DAYS : spec.recoveryPeriodInDays();
            storage.pitr().enable(t, days);
        } else {
            storage.pitr().disable(t);
        }
        return ContinuousBackups.describe(
                storage, storage.tables().find(t.metadata().name()));
    }
}
