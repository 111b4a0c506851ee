package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.RestoreTableToPointInTimeInput;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * RestoreTableToPointInTime: a new table with the source's items as they were at {@code RestoreDateTime} (or now,
 * {@code UseLatestRestorableTime}), within its recovery window, and the source's settings as {@link Restores} carries
 * them over. The checks run in DynamoDB's order (as observed): the request's shape, then the source, its PITR, the
 * time, and last the target's name; none creates anything.
 */
public final class RestoreTableToPointInTimeHandler
        implements OperationHandler<RestoreTableToPointInTimeInput, TableDescriptionOutput> {
    private final StorageEngine storage;
    /** Where a table made here goes in a cluster with a group per table; null elsewhere. */
    private final TablePlacement placement;

    public RestoreTableToPointInTimeHandler(StorageEngine storage, TablePlacement placement) {
        this.storage = storage;
        this.placement = placement;
    }

    @Override
    public Class<RestoreTableToPointInTimeInput> inputType() {
        return RestoreTableToPointInTimeInput.class;
    }

    @Override
    public TableDescriptionOutput handle(RequestContext context, RestoreTableToPointInTimeInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.checkNew(c, in.targetTableName());
        c.length("sourceTableArn", in.sourceTableArn(), 1, 1024);
        c.length("sourceTableName", in.sourceTableName(), 3, 255);
        Restores.constrain(c, in.billingModeOverride(), in.provisionedThroughputOverride());
        c.check();
        boolean latest = Boolean.TRUE.equals(in.useLatestRestorableTime());
        boolean dated = in.restoreDateTime() != null && !in.restoreDateTime().isNull();
        if (latest == dated) {
            throw ApiException.validation("Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime"
                    + " must be specified, but not both");
        }
        if (dated && !in.restoreDateTime().isNumber()) {
            throw ApiException.serialization("class java.lang.String can not be converted to milliseconds since epoch");
        }
        if (in.sourceTableArn() != null && in.sourceTableName() != null) {
            throw ApiException.validation("Must provide exactly one of: sourceTableArn, sourceTableName");
        }
        if (in.sourceTableArn() == null && in.sourceTableName() == null) {
            throw ApiException.validation("The parameter 'TableName' is required");
        }
        Table source = ContinuousBackups.table(
                context, storage, in.sourceTableArn() != null ? in.sourceTableArn() : in.sourceTableName());
        String name = source.metadata().name();
        if (!source.metadata().pitrEnabled()) {
            throw notEnabled(name);
        }
        long earliest = storage.pitr().earliestMillis(source);
        long latestMillis = storage.pitr().latestMillis();
        long at = latest
                ? latestMillis
                : in.restoreDateTime().decimalValue().movePointRight(3).longValue();
        if (at < earliest || at > latestMillis) {
            throw outsideWindow(at, earliest, latestMillis);
        }
        if (storage.tables().find(in.targetTableName()) != null) {
            throw new ApiException(ErrorCode.TABLE_ALREADY_EXISTS, "Table already exists: " + in.targetTableName());
        }
        Table t;
        if (context.restoresRange() && placement != null) {
            // One group's range of a restore of a table cut by ranges: its source's items of this group's range.
            t = Restores.rangeHere(
                    placement,
                    context,
                    source.metadata(),
                    in.targetTableName(),
                    in,
                    range -> storage.pitr().restore(source, at, range));
        } else {
            Restores.refuseCut(context, source.metadata(), in.targetTableName(), in, "RestoreTableToPointInTime");
            // The overrides are checked once the name is known to be free (in a cluster, in every group), as here.
            t = Restores.made(
                    placement,
                    context,
                    in.targetTableName(),
                    () -> storage.pitr()
                            .restore(
                                    source, at, Restores.target(context, source.metadata(), in.targetTableName(), in)));
        }
        TableDescription d = TableDescriptions.creating(context, storage, t, false)
                .withRestoreSummary(new TableDescription.RestoreSummary(
                        null, TableNames.arn(context, name), TableDescriptions.seconds(at), true));
        return new TableDescriptionOutput(d);
    }

    /** DynamoDB's refusal of a restore of table {@code name}, whose PITR is not enabled. */
    public static ApiException notEnabled(String name) {
        return new ApiException(
                ErrorCode.POINT_IN_TIME_RECOVERY_UNAVAILABLE,
                "Point in time recovery is not enabled for table '" + name + "'");
    }

    /** DynamoDB's refusal of a restore to {@code at}, outside the window from {@code earliest} to {@code latest}. */
    public static ApiException outsideWindow(long at, long earliest, long latest) {
        return new ApiException(
                ErrorCode.INVALID_RESTORE_TIME,
                "RestoreDateTime '" + iso(at) + "' must be within EarliestRestorableDateTime '" + iso(earliest)
                        + "' and LatestRestorableDateTime '" + iso(latest) + "'");
    }

    private static String iso(long millis) {
        return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
