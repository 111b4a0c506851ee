package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.GlobalSecondaryIndex;
import io.partita.protocol.message.GlobalSecondaryIndexUpdate;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.message.UpdateTableInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * UpdateTable's {@code GlobalSecondaryIndexUpdates}: create a GSI on a table with data (it backfills), delete one, or
 * change one's throughput, with DynamoDB's rules ("Managing global secondary indexes"): one index created or deleted
 * at a time per table, one action per index, the new index's key attributes defined in the request, and no index
 * created or deleted while the table's own throughput changes.
 */
final class GsiUpdates {
    private final List<GlobalSecondaryIndexUpdate> updates;

    private GsiUpdates(List<GlobalSecondaryIndexUpdate> updates) {
        this.updates = updates;
    }

    /** The updates of {@code in}, or null if it has none. */
    static GsiUpdates of(UpdateTableInput in) {
        return in.globalSecondaryIndexUpdates() == null ? null : new GsiUpdates(in.globalSecondaryIndexUpdates());
    }

    /** No updates: what a billing-mode switch without GlobalSecondaryIndexUpdates is checked against. */
    static GsiUpdates none() {
        return new GsiUpdates(List.of());
    }

    boolean isEmpty() {
        return updates.isEmpty();
    }

    boolean createsOrDeletes() {
        return updates.stream().anyMatch(u -> u.create() != null || u.delete() != null);
    }

    /** The constraint checks of each create and update. */
    void constrain(ConstraintSet c) {
        for (int i = 0; i < updates.size(); i++) {
            GlobalSecondaryIndexUpdate u = updates.get(i);
            String path = "globalSecondaryIndexUpdates." + (i + 1) + ".member.";
            if (u == null) {
                c.notNull(path.substring(0, path.length() - 1), null);
                continue;
            }
            if (u.create() != null) {
                IndexSpecs.constrainGlobal(c, path + "create.", u.create());
            }
            if (u.update() != null) {
                c.notNull(path + "update.indexName", u.update().indexName());
                ProvisionedThroughput t = u.update().provisionedThroughput();
                if (t != null) {
                    c.atLeast(path + "update.provisionedThroughput.readCapacityUnits", t.readCapacityUnits(), 1)
                            .atLeast(
                                    path + "update.provisionedThroughput.writeCapacityUnits",
                                    t.writeCapacityUnits(),
                                    1);
                }
            }
            if (u.delete() != null) {
                c.notNull(path + "delete.indexName", u.delete().indexName());
            }
        }
    }

    /** Checks every update against the table as it is, before anything changes. */
    void check(Table table, List<AttributeDefinition> definitions, String billingMode) {
        TableMetadata m = table.metadata();
        Set<String> named = new HashSet<>();
        int createsOrDeletes = 0;
        for (GlobalSecondaryIndexUpdate u : updates) {
            int actions = (u.create() != null ? 1 : 0) + (u.update() != null ? 1 : 0) + (u.delete() != null ? 1 : 0);
            if (actions == 0) {
                throw ApiException.invalidParameter("One of GlobalSecondaryIndexUpdate.Update,"
                        + " GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null");
            }
            if (actions > 1) {
                throw ApiException.invalidParameter(
                        "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object");
            }
            String name = name(u);
            if (!named.add(name)) {
                throw ApiException.invalidParameter(
                        "Only one global secondary index update per index is allowed simultaneously. Index: " + name);
            }
            if (u.create() != null || u.delete() != null) {
                createsOrDeletes++;
            }
        }
        boolean busy = m.indexes().stream().anyMatch(d -> d.global() && !"ACTIVE".equals(d.status()));
        if (createsOrDeletes > 1 || (createsOrDeletes == 1 && busy)) {
            throw ApiException.limitExceeded("Subscriber limit exceeded: Only 1 online index can be created or deleted"
                    + " simultaneously per table");
        }
        boolean onDemand = TableMetadata.PAY_PER_REQUEST.equals(billingMode);
        for (GlobalSecondaryIndexUpdate u : updates) {
            if (u.create() != null) {
                checkCreate(m, u.create(), definitions, onDemand);
            } else {
                IndexDefinition d = m.index(name(u));
                if (d == null) {
                    throw ApiException.resourceNotFound(
                            "Requested resource not found: Index " + name(u) + " for table " + m.name());
                }
                if (!d.global()) {
                    throw ApiException.validation("Cannot " + (u.delete() != null ? "delete" : "update")
                            + " an index that is not a GlobalSecondaryIndex: " + d.name());
                }
                if (u.update() != null) {
                    checkUpdate(d, u.update(), onDemand);
                }
            }
        }
    }

    private static String name(GlobalSecondaryIndexUpdate u) {
        return u.create() != null
                ? u.create().indexName()
                : u.update() != null ? u.update().indexName() : u.delete().indexName();
    }

    private static void checkCreate(
            TableMetadata m, GlobalSecondaryIndex g, List<AttributeDefinition> definitions, boolean onDemand) {
        if (m.index(g.indexName()) != null) {
            throw ApiException.validation("Attempting to create an index which already exists");
        }
        if (m.indexes().stream().filter(IndexDefinition::global).count() >= IndexSpecs.MAX_GLOBAL) {
            throw ApiException.limitExceeded("Subscriber limit exceeded: Number of global secondary indexes exceeds"
                    + " per-table limit of " + IndexSpecs.MAX_GLOBAL);
        }
        if (definitions == null) {
            throw ApiException.invalidParameter("AttributeDefinitions is not specified for index: " + g.indexName());
        }
        Map<String, String> types = CreateTableHandler.types(definitions);
        for (KeySchemaElement e : g.keySchema()) {
            if (!types.containsKey(e.attributeName())) {
                throw ApiException.validation("Invalid KeySchema: Some index key attribute have no definition");
            }
        }
        for (AttributeDefinition old : m.attributeDefinitions()) {
            String given = types.get(old.attributeName());
            if (given != null && !given.equals(old.attributeType())) {
                throw ApiException.invalidParameter("Attributes cannot be redefined. Please check that your attribute"
                        + " has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{"
                        + old.attributeName() + ":" + old.attributeType() + "}] New schema: Schema:[SchemaElement: key{"
                        + old.attributeName() + ":" + given + "}]");
            }
        }
        ProvisionedThroughput t = g.provisionedThroughput();
        if (onDemand && t != null) {
            throw ApiException.invalidParameter("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for"
                    + " index: " + g.indexName() + " when BillingMode is PAY_PER_REQUEST");
        }
        if (!onDemand && (t == null || t.readCapacityUnits() == null || t.writeCapacityUnits() == null)) {
            throw ApiException.invalidParameter(
                    "Both ReadCapacityUnits and WriteCapacityUnits must be specified for" + " index: " + g.indexName());
        }
        IndexDefinition d = IndexSpecs.global(g, types, onDemand, 0, "CREATING");
        List<IndexDefinition> all = new ArrayList<>(m.indexes());
        all.add(d);
        IndexSpecs.checkTogether(all);
    }

    private static void checkUpdate(IndexDefinition d, GlobalSecondaryIndexUpdate.Update u, boolean onDemand) {
        ProvisionedThroughput t = u.provisionedThroughput();
        if (onDemand && t != null) {
            throw ApiException.invalidParameter("The only Updates for index: " + d.name()
                    + " when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput");
        }
        if (u.warmThroughput() != null && !u.warmThroughput().isNull()) {
            // A GSI's partitions do not split yet, so its warm throughput is what it was created with.
            throw ApiException.validation("Changing the WarmThroughput of an existing index is not supported by this"
                    + " version of Partita");
        }
        if (t != null) {
            if (t.readCapacityUnits() == null || t.writeCapacityUnits() == null) {
                throw ApiException.invalidParameter(
                        "Both ReadCapacityUnits and WriteCapacityUnits must be specified" + " for index: " + d.name());
            }
            if (t.readCapacityUnits() == d.readCapacityUnits() && t.writeCapacityUnits() == d.writeCapacityUnits()) {
                throw ApiException.validation("The provisioned throughput for the index " + d.name() + " will not"
                        + " change. The requested value equals the current value. Current ReadCapacityUnits"
                        + " provisioned for index " + d.name() + ": " + d.readCapacityUnits()
                        + ". Requested ReadCapacityUnits: " + t.readCapacityUnits() + ". Current WriteCapacityUnits"
                        + " provisioned for index " + d.name() + ": " + d.writeCapacityUnits()
                        + ". Requested WriteCapacityUnits: " + t.writeCapacityUnits() + ". Refer to the Amazon"
                        + " DynamoDB Developer Guide for current limits and how to request higher limits.");
            }
        } else if (!onDemand
                && (u.onDemandThroughput() == null || u.onDemandThroughput().isNull())) {
            throw ApiException.invalidParameter("ProvisionedThroughput must be specified for index: " + d.name());
        }
    }

    /**
     * The throughput every GSI has after a change of the table's billing mode to {@code billingMode}: a switch to
     * PROVISIONED must give each GSI its capacity in the same request; a switch to PAY_PER_REQUEST drops it.
     */
    void checkBillingSwitch(TableMetadata m, String billingMode) {
        if (billingMode == null || billingMode.equals(m.billingMode())) {
            return;
        }
        if (TableMetadata.PROVISIONED.equals(billingMode)) {
            for (IndexDefinition d : m.indexes()) {
                if (d.global() && updateOf(d.name()) == null) {
                    throw ApiException.invalidParameter(
                            "ProvisionedThroughput must be specified for index: " + d.name());
                }
            }
        }
    }

    private GlobalSecondaryIndexUpdate.Update updateOf(String name) {
        for (GlobalSecondaryIndexUpdate u : updates) {
            if (u.update() != null && name.equals(u.update().indexName())) {
                return u.update();
            }
        }
        return null;
    }

    /** Applies the updates: throughput changes at once, a create or a delete in the background. */
    /**
     * Applies the updates.
     *
     * @return the table's metadata once they are applied, taken before an index's backfill or deletion can finish
     */
    TableMetadata apply(StorageEngine storage, Table table, List<AttributeDefinition> definitions, long now) {
        for (GlobalSecondaryIndexUpdate u : updates) {
            if (u.update() != null) {
                ProvisionedThroughput t = u.update().provisionedThroughput();
                Long maxRead = Throughput.onDemandMax(u.update().onDemandThroughput(), "MaxReadRequestUnits");
                Long maxWrite = Throughput.onDemandMax(u.update().onDemandThroughput(), "MaxWriteRequestUnits");
                storage.tables()
                        .changeIndex(
                                table,
                                u.update().indexName(),
                                d -> d.withThroughput(
                                        t == null ? d.readCapacityUnits() : t.readCapacityUnits(),
                                        t == null ? d.writeCapacityUnits() : t.writeCapacityUnits(),
                                        maxRead != null ? maxRead : d.maxReadRequestUnits(),
                                        maxWrite != null ? maxWrite : d.maxWriteRequestUnits()));
            }
        }
        TableMetadata applied = table.metadata();
        for (GlobalSecondaryIndexUpdate u : updates) {
            if (u.create() != null) {
                Map<String, String> types = CreateTableHandler.types(definitions);
                boolean onDemand = table.metadata().onDemand();
                IndexDefinition d = IndexSpecs.global(u.create(), types, onDemand, now, "CREATING");
                addDefinitions(storage, table, definitions, d);
                applied = storage.globalIndexes().create(table, d);
            } else if (u.delete() != null) {
                applied = storage.globalIndexes().delete(table, u.delete().indexName());
            }
        }
        return applied;
    }

    /** The table keeps the definitions of every key attribute of its new index. */
    private static void addDefinitions(
            StorageEngine storage, Table table, List<AttributeDefinition> given, IndexDefinition d) {
        Map<String, AttributeDefinition> all = new LinkedHashMap<>();
        table.metadata().attributeDefinitions().forEach(a -> all.put(a.attributeName(), a));
        Map<String, AttributeDefinition> byName = new HashMap<>();
        given.forEach(a -> byName.put(a.attributeName(), a));
        d.keyAttributes().forEach(k -> all.putIfAbsent(k.name(), byName.get(k.name())));
        storage.tables()
                .update(table.metadata().name(), m -> m.withAttributeDefinitions(new ArrayList<>(all.values())));
    }
}
