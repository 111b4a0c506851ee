package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ListBackupsInput;
import io.partita.protocol.message.ListBackupsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.backup.TableBackups.Backup;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * ListBackups, oldest first: of one table or all, created in [{@code TimeRangeLowerBound}, {@code
 * TimeRangeUpperBound}), {@code Limit} (1 to 100) a page, resumed after {@code ExclusiveStartBackupArn}. A table
 * without backups, or none at all, is an empty list. Every backup here is {@code USER}: {@code BackupType} {@code
 * SYSTEM} or {@code AWS_BACKUP} lists none.
 */
public final class ListBackupsHandler implements OperationHandler<ListBackupsInput, ListBackupsOutput> {
    private final StorageEngine storage;

    public ListBackupsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<ListBackupsInput> inputType() {
        return ListBackupsInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ListBackupsOutput handle(RequestContext context, ListBackupsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.length("tableName", in.tableName(), 1, 1024);
        c.atLeast("limit", in.limit() == null ? null : (long) in.limit(), 1)
                .atMost("limit", in.limit() == null ? null : (long) in.limit(), 100);
        c.length("exclusiveStartBackupArn", in.exclusiveStartBackupArn(), 37, 1024);
        c.enumValue("backupType", in.backupType(), List.of("USER", "SYSTEM", "AWS_BACKUP", "ALL"));
        c.check();
        BigDecimal lower = seconds(in.timeRangeLowerBound());
        BigDecimal upper = seconds(in.timeRangeUpperBound());
        if (lower != null && upper != null && lower.compareTo(upper) > 0) {
            throw ApiException.validation("Time range lower bound must be less than or equal to upper bound");
        }
        String table = in.tableName() == null ? null : TableNames.resolve(context, in.tableName());
        boolean user = in.backupType() == null
                || in.backupType().equals("USER")
                || in.backupType().equals("ALL");
        int limit = in.limit() == null ? 100 : in.limit();
        List<ListBackupsOutput.BackupSummary> out = new ArrayList<>();
        // A cursor: backup ids begin with their creation time, so a deleted backup's ARN still resumes after it.
        String after = in.exclusiveStartBackupArn() == null ? null : idOf(in.exclusiveStartBackupArn());
        String last = null;
        if (user) {
            for (Backup b : storage.backups().all()) {
                if (after != null && b.id().compareTo(after) <= 0) {
                    continue;
                }
                String arn = Backups.arn(context, b);
                BigDecimal created = TableDescriptions.seconds(b.creationMillis());
                if ((table != null && !table.equals(b.source().name()))
                        || (lower != null && created.compareTo(lower) < 0)
                        || (upper != null && created.compareTo(upper) >= 0)) {
                    continue;
                }
                if (out.size() == limit) {
                    return new ListBackupsOutput(out, last);
                }
                out.add(Backups.summary(context, b));
                last = arn;
            }
        }
        return new ListBackupsOutput(out, null);
    }

    /** A timestamp member: epoch seconds as a JSON number, whole or not. */
    private static BigDecimal seconds(com.fasterxml.jackson.databind.JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw ApiException.serialization("class java.lang.String can not be converted to milliseconds since epoch");
        }
        return v.decimalValue();
    }

    private static String idOf(String arn) {
        int at = arn.lastIndexOf("/backup/");
        return at < 0 ? arn : arn.substring(at + "/backup/".length());
    }
}
