package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.GlobalSecondaryIndex;
import io.partita.protocol.message.LocalSecondaryIndex;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.message.RestoreOverrides;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.RequestContext;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What both restores share (from a backup, to a point in time): the new table is the source's key schema, indexes,
 * billing mode, capacity, on-demand maxima and encryption — not its stream, TTL, PITR, tags or deletion protection
 * ("Restoring a DynamoDB table from a backup": those are set up again by hand) — with the overrides applied: billing
 * mode, capacity, encryption, on-demand maxima, and which of the source's indexes to keep (an index override can keep
 * or drop, never add).
 */
final class Restores {
    private Restores() {}

    /**
     * The restored table {@code name}, which {@code restore} makes in this server's store: in a cluster with a group
     * per table ({@code placement}), as {@link TablePlacement#restoreHere} places it.
     */
    static io.partita.storage.table.TableCatalog.Table made(
            TablePlacement placement,
            RequestContext context,
            String name,
            java.util.function.Supplier<io.partita.storage.table.TableCatalog.Table> restore) {
        if (placement == null) {
            return restore.get();
        }
        return placement.restoreHere(context.accountId(), name, restore);
    }

    /**
     * The restored table {@code in}'s target, made here by {@code restore} (given its metadata) as one group's range of
     * a restore of a table cut by ranges over a cluster's groups ({@link RequestContext#restoresRange}), which the
     * cluster ran from the node the client reached and recorded as cut by the ranges of {@code source} (the table, or
     * the backup's part, this group restores from) in its groups (docs/CLUSTER.md): the range the record gives this
     * group, which must be {@code source}'s.
     *
     * @throws ApiException a 503 when the record gives this group another range, or none
     */
    static io.partita.storage.table.TableCatalog.Table rangeHere(
            TablePlacement placement,
            RequestContext context,
            TableMetadata source,
            String name,
            RestoreOverrides in,
            java.util.function.Function<TableMetadata, io.partita.storage.table.TableCatalog.Table> restore) {
        TablePlacement.Placed placed = placement.place(
                context.accountId(),
                name,
                new TablePlacement.Layout(1, source.keySchema().partitionKey().name()));
        io.partita.storage.table.HashRange held = source.hashRange();
        if (placed.elsewhere()
                || placed.range() == null
                || held == null
                || held.first() != placed.range().first()
                || held.last() != placed.range().last()) {
            throw new ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "table " + name + " is not recorded as restored here by range: try again");
        }
        TableMetadata range = target(context, source, name, in).withHashRange(placed.range());
        return placement.makeHere(name, () -> restore.apply(range));
    }

    /**
     * Refuses restore {@code operation} of {@code source} into {@code name} on a table cut by ranges ({@link
     * io.partita.server.op.CutTables#refuse}), once its overrides are checked too: a cluster then restores each range
     * of it, every group at once.
     */
    static void refuseCut(
            RequestContext context, TableMetadata source, String name, RestoreOverrides in, String operation) {
        if (context.cutByRanges() || source.hashRange() != null) {
            target(context, source, name, in);
        }
        io.partita.server.op.CutTables.refuse(context, source, operation);
    }

    /** The overrides' own constraints. */
    static void constrain(ConstraintSet c, String billingMode, ProvisionedThroughput throughput) {
        c.enumValue("billingModeOverride", billingMode, List.of("PROVISIONED", "PAY_PER_REQUEST"));
        if (throughput != null) {
            String read = "provisionedThroughputOverride.readCapacityUnits";
            String write = "provisionedThroughputOverride.writeCapacityUnits";
            c.notNull(read, throughput.readCapacityUnits())
                    .atLeast(read, throughput.readCapacityUnits(), 1)
                    .notNull(write, throughput.writeCapacityUnits())
                    .atLeast(write, throughput.writeCapacityUnits(), 1);
        }
    }

    /** The new table's metadata: the source's, renamed, with the overrides applied (DynamoDB's refusals). */
    static TableMetadata target(RequestContext context, TableMetadata source, String targetName, RestoreOverrides in) {
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
                        targetName,
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
