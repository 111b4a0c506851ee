package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.GlobalSecondaryIndex;
import io.partita.protocol.message.LocalSecondaryIndex;
import io.partita.protocol.message.RestoreTableFromBackupInput;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.backup.TableBackups.Backup;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

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

    public RestoreTableFromBackupHandler(StorageEngine storage) {
        this.storage = storage;
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
        c.enumValue("billingModeOverride", in.billingModeOverride(), List.of("PROVISIONED", "PAY_PER_REQUEST"));
        if (in.provisionedThroughputOverride() != null) {
            c.notNull(
                            "provisionedThroughputOverride.readCapacityUnits",
                            in.provisionedThroughputOverride().readCapacityUnits())
                    .atLeast(
                            "provisionedThroughputOverride.readCapacityUnits",
                            in.provisionedThroughputOverride().readCapacityUnits(),
                            1)
                    .notNull(
                            "provisionedThroughputOverride.writeCapacityUnits",
                            in.provisionedThroughputOverride().writeCapacityUnits())
                    .atLeast(
                            "provisionedThroughputOverride.writeCapacityUnits",
                            in.provisionedThroughputOverride().writeCapacityUnits(),
                            1);
        }
        c.check();
        Backup b = Backups.find(context, storage, in.backupArn());
        if (storage.tables().find(in.targetTableName()) != null) {
            throw new ApiException(ErrorCode.TABLE_ALREADY_EXISTS, "Table already exists: " + in.targetTableName());
        }
        TableMetadata target = target(context, b.source(), in);
        String arn = Backups.arn(context, b);
        Table t = storage.backups().restore(b, target, "Backup is being used to restore another table: " + arn);
        TableDescription d = TableDescriptions.creating(context, storage, t, false)
                .withRestoreSummary(new TableDescription.RestoreSummary(
                        arn,
                        TableNames.arn(context, b.source().name()),
                        TableDescriptions.seconds(b.creationMillis()),
                        true));
        return new TableDescriptionOutput(d);
    }

    /** The new table's metadata: the source's, renamed, with the overrides applied (DynamoDB's refusals). */
    private static TableMetadata target(RequestContext context, TableMetadata source, RestoreTableFromBackupInput in) {
        String billing = in.billingModeOverride() != null ? in.billingModeOverride() : source.billingMode();
        boolean provisioned = TableMetadata.PROVISIONED.equals(billing);
        var capacity = in.provisionedThroughputOverride();
        if (capacity != null && !provisioned) {
            throw ApiException.validation("Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED");
        }
        if (capacity == null && provisioned && !TableMetadata.PROVISIONED.equals(source.billingMode())) {
            throw ApiException.validation(
                    "Must override ProvisionedThroughput if BillingMode is overridden to" + " PROVISIONED");
        }
        long rcu = !provisioned ? 0 : capacity != null ? capacity.readCapacityUnits() : source.readCapacityUnits();
        long wcu = !provisioned ? 0 : capacity != null ? capacity.writeCapacityUnits() : source.writeCapacityUnits();
        List<IndexDefinition> indexes = new ArrayList<>();
        Set<String> keptGlobals = kept(source, true, names(in.globalSecondaryIndexOverride(), null));
        Set<String> keptLocals = kept(source, false, names(null, in.localSecondaryIndexOverride()));
        for (IndexDefinition d : source.indexes()) {
            if (!(d.global() ? keptGlobals : keptLocals).contains(d.name())) {
                continue;
            }
            if (d.global()) {
                long[] own = indexCapacity(in.globalSecondaryIndexOverride(), d, rcu, wcu);
                d = provisioned
                        ? d.withThroughput(own[0], own[1], null, null)
                        : d.withThroughput(0, 0, d.maxReadRequestUnits(), d.maxWriteRequestUnits());
            }
            indexes.add(d);
        }
        Long maxRead = source.maxReadRequestUnits();
        Long maxWrite = source.maxWriteRequestUnits();
        if (in.onDemandThroughputOverride() != null) {
            maxRead = Throughput.tableOnDemandMax(in.onDemandThroughputOverride(), "MaxReadRequestUnits", false);
            maxWrite = Throughput.tableOnDemandMax(in.onDemandThroughputOverride(), "MaxWriteRequestUnits", false);
        }
        if (provisioned) {
            maxRead = null;
            maxWrite = null;
        }
        String sseKey = in.sseSpecificationOverride() != null
                ? SseSpecs.keyArn(context, SseSpecs.parse(in.sseSpecificationOverride()))
                : source.sseKmsKeyArn();
        TableMetadata m = TableMetadata.create(
                        in.targetTableName(),
                        UUID.randomUUID().toString(),
                        source.keySchema(),
                        definitions(source, indexes),
                        billing,
                        rcu,
                        wcu,
                        context.clock().millis(),
                        source.tableClass(),
                        false,
                        Map.of())
                .withOnDemandMaximums(maxRead, maxWrite)
                .withIndexes(indexes);
        return m.withSseKey(sseKey);
    }

    private static Set<String> names(List<GlobalSecondaryIndex> globals, List<LocalSecondaryIndex> locals) {
        if (globals == null && locals == null) {
            return null;
        }
        Set<String> out = new HashSet<>();
        if (globals != null) {
            globals.forEach(g -> out.add(g.indexName()));
        }
        if (locals != null) {
            locals.forEach(l -> out.add(l.indexName()));
        }
        return out;
    }

    /**
     * The source's indexes of one kind to keep: all without an override; with one (an empty list drops them all),
     * those it names, each of which must have existed in the source.
     */
    private static Set<String> kept(TableMetadata source, boolean global, Set<String> override) {
        Set<String> existing = new HashSet<>();
        for (IndexDefinition d : source.indexes()) {
            if (d.global() == global) {
                existing.add(d.name());
            }
        }
        if (override == null) {
            return existing;
        }
        for (String name : override) {
            if (!existing.contains(name)) {
                throw ApiException.validation("Index " + name + " does not match a secondary index that existed in"
                        + " the source table and cannot be created during the restore operation");
            }
        }
        return override;
    }

    /** A kept GSI's provisioned capacity: its override's, else its own, else (from on demand) the table's. */
    private static long[] indexCapacity(List<GlobalSecondaryIndex> overrides, IndexDefinition d, long rcu, long wcu) {
        if (overrides != null) {
            for (GlobalSecondaryIndex g : overrides) {
                if (d.name().equals(g.indexName())
                        && g.provisionedThroughput() != null
                        && g.provisionedThroughput().readCapacityUnits() != null
                        && g.provisionedThroughput().writeCapacityUnits() != null) {
                    return new long[] {
                        g.provisionedThroughput().readCapacityUnits(),
                        g.provisionedThroughput().writeCapacityUnits()
                    };
                }
            }
        }
        if (d.readCapacityUnits() > 0 && d.writeCapacityUnits() > 0) {
            return new long[] {d.readCapacityUnits(), d.writeCapacityUnits()};
        }
        return new long[] {rcu, wcu};
    }

    /** The attribute definitions the new table's keys and kept indexes' keys use. */
    private static List<AttributeDefinition> definitions(TableMetadata source, List<IndexDefinition> indexes) {
        Set<String> used = new HashSet<>();
        source.keySchema().attributes().forEach(k -> used.add(k.name()));
        for (IndexDefinition d : indexes) {
            for (KeySchema.KeyAttribute k : d.keyAttributes()) {
                used.add(k.name());
            }
        }
        List<AttributeDefinition> out = new ArrayList<>();
        for (AttributeDefinition a : source.attributeDefinitions()) {
            if (used.contains(a.attributeName())) {
                out.add(a);
            }
        }
        return out;
    }
}
