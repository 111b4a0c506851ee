package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.message.ProvisionedThroughputDescription;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.message.UpdateTableInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.List;

/**
 * UpdateTable: provisioned throughput, billing mode, on-demand maximums, deletion protection, streams, GSIs, table
 * class, encryption and warm throughput.
 */
public final class UpdateTableHandler implements OperationHandler<UpdateTableInput, TableDescriptionOutput> {
    private final StorageEngine storage;

    public UpdateTableHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<UpdateTableInput> inputType() {
        return UpdateTableInput.class;
    }

    @Override
    public TableDescriptionOutput handle(RequestContext context, UpdateTableInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        c.enumValue("billingMode", in.billingMode(), List.of("PROVISIONED", "PAY_PER_REQUEST"));
        c.enumValue("tableClass", in.tableClass(), List.of("STANDARD", "STANDARD_INFREQUENT_ACCESS"));
        Throughput.constrain(c, in.provisionedThroughput());
        CreateTableHandler.constrainDefinitions(c, in.attributeDefinitions());
        StreamSpecs.constrain(c, in.streamSpecification());
        GsiUpdates gsis = GsiUpdates.of(in);
        if (gsis != null) {
            gsis.constrain(c);
        }
        c.check();
        if (in.replicaUpdates() != null && !in.replicaUpdates().isNull()) {
            throw ApiException.validation("ReplicaUpdates is not supported by this version of Partita");
        }
        boolean throughputChange = in.billingMode() != null || in.provisionedThroughput() != null;
        Long maxRead = Throughput.tableOnDemandMax(in.onDemandThroughput(), "MaxReadRequestUnits", true);
        Long maxWrite = Throughput.tableOnDemandMax(in.onDemandThroughput(), "MaxWriteRequestUnits", true);
        boolean maximumsChange = maxRead != null || maxWrite != null;
        boolean streamChange = in.streamSpecification() != null;
        boolean otherChange = throughputChange
                || streamChange
                || maximumsChange
                || in.deletionProtectionEnabled() != null
                || in.tableClass() != null
                || (in.sseSpecification() != null && !in.sseSpecification().isNull());
        boolean warmChange = WarmThroughputs.given(in.warmThroughput());
        if (!otherChange && !warmChange && (gsis == null || gsis.isEmpty())) {
            throw ApiException.validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled,"
                    + " GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
        }
        // The request's own checks come first (DynamoDB validates a request before it reads anything), then the table.
        String name = TableNames.resolve(context, in.tableName());
        Table current = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
        io.partita.storage.table.HashRange.requireNotMoving(current.metadata());
        Long now = context.clock().millis();
        boolean sseChange =
                in.sseSpecification() != null && !in.sseSpecification().isNull();
        String effectiveClass = current.metadata().tableClass() == null
                ? "STANDARD"
                : current.metadata().tableClass();
        boolean classChange = in.tableClass() != null && !in.tableClass().equals(effectiveClass);
        boolean changesBesides = throughputChange
                || streamChange
                || maximumsChange
                || in.deletionProtectionEnabled() != null
                || gsis != null;
        if (warmChange) {
            if (changesBesides || sseChange || in.tableClass() != null) {
                throw ApiException.invalidParameter("WarmThroughput must be the only operation in the request");
            }
            return changeWarmThroughput(context, current, in);
        }
        if (sseChange) {
            if (changesBesides || in.tableClass() != null) {
                throw ApiException.invalidParameter(
                        "Server-Side Encryption modification must be the only operation in the request");
            }
            return changeEncryption(context, current, in);
        }
        if (maximumsChange) {
            String mode = in.billingMode() != null
                    ? in.billingMode()
                    : current.metadata().billingMode();
            if (TableMetadata.PROVISIONED.equals(mode)) {
                Throughput.refuseMaximumsWhenProvisioned(maxRead, maxWrite, true);
            }
            if (in.provisionedThroughput() != null
                    || streamChange
                    || in.deletionProtectionEnabled() != null
                    || gsis != null
                    || in.tableClass() != null) {
                throw ApiException.invalidParameter(
                        "OnDemandThroughput can only be combined with BillingMode in an UpdateTable request");
            }
        }
        if (classChange) {
            if (changesBesides) {
                throw ApiException.invalidParameter(
                        "TableClass modification must be the only operation in the request");
            }
            return changeTableClass(context, current, in.tableClass(), now);
        }
        if (streamChange) {
            if (in.provisionedThroughput() != null) {
                throw ApiException.invalidParameter("You cannot modify stream status while updating table IOPS");
            }
            if (gsis != null && gsis.createsOrDeletes()) {
                throw ApiException.invalidParameter("You cannot create or delete index while changing stream status");
            }
            StreamSpecs.checkUpdate(in.streamSpecification(), current);
        }
        if (gsis != null) {
            if (gsis.isEmpty()) {
                throw ApiException.invalidParameter("List of GlobalSecondaryIndexUpdates is empty");
            }
            if (in.provisionedThroughput() != null && gsis.createsOrDeletes()) {
                throw ApiException.invalidParameter("You cannot create or delete index while updating table IOPS");
            }
            String mode = in.billingMode() != null
                    ? in.billingMode()
                    : current.metadata().billingMode();
            gsis.check(current, in.attributeDefinitions(), mode);
            gsis.checkBillingSwitch(current.metadata(), in.billingMode());
        } else if (in.billingMode() != null) {
            GsiUpdates.none().checkBillingSwitch(current.metadata(), in.billingMode());
        }
        boolean onlyStreamOrIndexes = !throughputChange
                && !maximumsChange
                && in.deletionProtectionEnabled() == null
                && in.tableClass() == null
                && (in.sseSpecification() == null || in.sseSpecification().isNull());
        if (onlyStreamOrIndexes) {
            if (streamChange) {
                StreamSpecs.apply(storage, in.streamSpecification(), current);
            }
            TableMetadata applied =
                    gsis != null ? gsis.apply(storage, current, in.attributeDefinitions(), now) : current.metadata();
            return new TableDescriptionOutput(
                    TableDescriptions.updated(context, storage, current, applied, "UPDATING"));
        }
        TableMetadata before = current.metadata();
        Table table = storage.tables().update(name, m -> {
            // Checked again under the catalog's lock, which a range move's fence takes: none slips in after it.
            io.partita.storage.table.HashRange.requireNotMoving(m);
            // What the table was warm for stays: a change of capacity or mode never lowers it.
            TableMetadata next = throughputChange
                    ? WarmThroughputs.keep(changeThroughput(m, in, now), WarmThroughputs.of(m, current))
                    : m;
            if (in.deletionProtectionEnabled() != null) {
                next = next.withDeletionProtection(in.deletionProtectionEnabled());
            }
            if (maximumsChange) {
                next = next.withOnDemandMaximums(
                        maxRead != null ? maxRead : next.maxReadRequestUnits(),
                        maxWrite != null ? maxWrite : next.maxWriteRequestUnits());
            }
            return next;
        });
        if (streamChange) {
            StreamSpecs.apply(storage, in.streamSpecification(), table);
        }
        TableMetadata applied =
                gsis != null ? gsis.apply(storage, table, in.attributeDefinitions(), now) : table.metadata();
        if (throughputChange
                && TableMetadata.PAY_PER_REQUEST.equals(table.metadata().billingMode())) {
            // An on-demand table's GSIs are on demand too: their provisioned capacity goes.
            for (var d : table.metadata().indexes()) {
                if (d.global()) {
                    storage.tables()
                            .changeIndex(
                                    table,
                                    d.name(),
                                    i -> i.withThroughput(0, 0, i.maxReadRequestUnits(), i.maxWriteRequestUnits()));
                }
            }
            applied = table.metadata();
        }
        boolean indexChange = gsis != null && gsis.createsOrDeletes();
        // A stream turned on or off is UPDATING, with other changes too (the AWS CLI's update-table examples).
        TableDescription answer = TableDescriptions.updated(
                context,
                storage,
                table,
                applied,
                // A TableClass equal to the table's changes nothing, and still answers UPDATING (captured answers).
                throughputChange || indexChange || streamChange || in.tableClass() != null ? "UPDATING" : "ACTIVE");
        return new TableDescriptionOutput(
                provisionedBefore(before, table.metadata()) ? withCapacityBefore(answer, before) : answer);
    }

    /**
     * {@code WarmThroughput}, alone: raised at once (partitions split to serve it); the answer still shows what the
     * table was warm for, {@code UPDATING}, with the table {@code ACTIVE} (answers captured in 2026: DynamoDB takes
     * minutes to get there; DescribeTable here shows the new figures at once).
     */
    private TableDescriptionOutput changeWarmThroughput(RequestContext context, Table current, UpdateTableInput in) {
        Long read = WarmThroughputs.member(in.warmThroughput(), WarmThroughputs.READ);
        Long write = WarmThroughputs.member(in.warmThroughput(), WarmThroughputs.WRITE);
        TableMetadata before = current.metadata();
        long[] was = WarmThroughputs.of(before, current);
        WarmThroughputs.checkUpdate(read, write, was);
        Table table = storage.tables().update(before.name(), m -> {
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withWarmThroughput(
                    read != null ? read : Long.valueOf(was[0]), write != null ? write : Long.valueOf(was[1]));
        });
        TableDescription d = TableDescriptions.updated(context, storage, table, before, "ACTIVE");
        return new TableDescriptionOutput(TableDescriptions.reshape(
                d,
                d.provisionedThroughput(),
                d.billingModeSummary(),
                true,
                d.sseDescription(),
                new io.partita.protocol.message.TableWarmThroughputDescription(was[0], was[1], "UPDATING")));
    }

    /**
     * {@code SSESpecification}, alone: the table stays {@code ACTIVE}; the answer's {@code SSEDescription} is
     * {@code UPDATING} (the key it moves to, or the one it leaves for an AWS owned key).
     */
    private TableDescriptionOutput changeEncryption(RequestContext context, Table current, UpdateTableInput in) {
        SseSpecs.Sse asked = SseSpecs.parse(in.sseSpecification());
        String was = current.metadata().sseKmsKeyArn();
        String next = SseSpecs.update(context, was, asked == null ? new SseSpecs.Sse(false, null) : asked);
        Table table = storage.tables().update(current.metadata().name(), m -> {
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withSseKey(next);
        });
        TableDescription d = TableDescriptions.updated(context, storage, table, table.metadata(), "ACTIVE");
        return new TableDescriptionOutput(TableDescriptions.reshape(
                d,
                d.provisionedThroughput(),
                d.billingModeSummary(),
                true,
                SseSpecs.describe(next != null ? next : was, "UPDATING"),
                d.warmThroughput()));
    }

    /**
     * A change of {@code TableClass}, alone: {@code UPDATING}, the answer showing the class the table had; at most
     * two in 30 days ("Table classes", developer guide: "You can change a table's class twice in a 30-day period").
     */
    private TableDescriptionOutput changeTableClass(
            RequestContext context, Table current, String tableClass, long now) {
        TableMetadata before = current.metadata();
        List<Long> recent = before.tableClassChanges().stream()
                .filter(t -> now - t < java.util.concurrent.TimeUnit.DAYS.toMillis(30))
                .toList();
        if (recent.size() >= 2) {
            throw ApiException.limitExceeded(
                    "Subscriber limit exceeded: Updates to TableClass are limited to 2 times in 30 day(s).");
        }
        Table table = storage.tables().update(before.name(), m -> {
            // Again under the catalog's lock: a range move may have begun since (HashRange.requireNotMoving).
            io.partita.storage.table.HashRange.requireNotMoving(m);
            return m.withTableClassChanged(tableClass, now);
        });
        return new TableDescriptionOutput(TableDescriptions.updated(context, storage, table, before, "UPDATING"));
    }

    /** A provisioned table whose capacity changed and stays provisioned. */
    private static boolean provisionedBefore(TableMetadata before, TableMetadata after) {
        return !TableMetadata.PAY_PER_REQUEST.equals(before.billingMode())
                && !TableMetadata.PAY_PER_REQUEST.equals(after.billingMode())
                && (before.readCapacityUnits() != after.readCapacityUnits()
                        || before.writeCapacityUnits() != after.writeCapacityUnits());
    }

    /**
     * UpdateTable's answer to a capacity change names the capacity the table still has while it is UPDATING, and the
     * decreases counted so far, with the times of the change already set ("UpdateTable", Examples, in the API
     * reference: a 5/5 table raised to 10/10 answers 5/5 with a new LastIncreaseDateTime). DescribeTable shows the new
     * capacity.
     */
    private static TableDescription withCapacityBefore(TableDescription d, TableMetadata before) {
        ProvisionedThroughputDescription now = d.provisionedThroughput();
        return TableDescriptions.reshape(
                d,
                new ProvisionedThroughputDescription(
                        now.lastIncreaseDateTime(),
                        now.lastDecreaseDateTime(),
                        (long) before.decreasesToday(),
                        before.readCapacityUnits(),
                        before.writeCapacityUnits()),
                d.billingModeSummary(),
                true);
    }

    private static TableMetadata changeThroughput(TableMetadata m, UpdateTableInput in, Long now) {
        String mode = in.billingMode() != null ? in.billingMode() : m.billingMode();
        ProvisionedThroughput t = in.provisionedThroughput();
        if (TableMetadata.PAY_PER_REQUEST.equals(mode)) {
            if (t != null) {
                throw ApiException.invalidParameter("Neither ReadCapacityUnits nor WriteCapacityUnits can be"
                        + " specified when BillingMode is PAY_PER_REQUEST");
            }
            Long switched = TableMetadata.PAY_PER_REQUEST.equals(m.billingMode()) ? m.lastPayPerRequestMillis() : now;
            return m.withThroughput(
                    mode, 0, 0, m.lastIncreaseMillis(), m.lastDecreaseMillis(), m.decreasesToday(), switched);
        }
        if (t == null) {
            throw ApiException.validation("One or more parameter values were invalid: ProvisionedThroughput must be"
                    + " specified when BillingMode is PROVISIONED");
        }
        boolean wasProvisioned = TableMetadata.PROVISIONED.equals(m.billingMode());
        if (wasProvisioned
                && t.readCapacityUnits() == m.readCapacityUnits()
                && t.writeCapacityUnits() == m.writeCapacityUnits()) {
            throw ApiException.validation("The provisioned throughput for the table will not change. The requested"
                    + " value equals the current value. Current ReadCapacityUnits provisioned for the table: "
                    + m.readCapacityUnits() + ". Requested ReadCapacityUnits: " + t.readCapacityUnits()
                    + ". Current WriteCapacityUnits provisioned for the table: " + m.writeCapacityUnits()
                    + ". Requested WriteCapacityUnits: " + t.writeCapacityUnits()
                    + ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher"
                    + " limits.");
        }
        boolean increase = !wasProvisioned
                || t.readCapacityUnits() > m.readCapacityUnits()
                || t.writeCapacityUnits() > m.writeCapacityUnits();
        boolean decrease = wasProvisioned
                && (t.readCapacityUnits() < m.readCapacityUnits() || t.writeCapacityUnits() < m.writeCapacityUnits());
        return m.withThroughput(
                TableMetadata.PROVISIONED,
                t.readCapacityUnits(),
                t.writeCapacityUnits(),
                increase ? now : m.lastIncreaseMillis(),
                decrease ? now : m.lastDecreaseMillis(),
                m.decreasesToday() + (decrease ? 1 : 0),
                m.lastPayPerRequestMillis());
    }
}
