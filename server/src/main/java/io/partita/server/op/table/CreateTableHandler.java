package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.CreateTableInput;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.message.TableDescriptionOutput;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.ScalarType;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * CreateTable. The table is usable at once; the response says {@code CREATING}, as DynamoDB's does, and
 * DescribeTable says {@code ACTIVE} from then on, so both waiters and create-then-use code work.
 */
public final class CreateTableHandler implements OperationHandler<CreateTableInput, TableDescriptionOutput> {
    private final StorageEngine storage;
    /** Where a new table goes in a cluster with a group per table; null everywhere else. */
    private final TablePlacement placement;

    public CreateTableHandler(StorageEngine storage, TablePlacement placement) {
        this.storage = storage;
        this.placement = placement;
    }

    @Override
    public Class<CreateTableInput> inputType() {
        return CreateTableInput.class;
    }

    @Override
    public TableDescriptionOutput handle(RequestContext context, CreateTableInput in) {
        validate(in);
        TableFeatures.refuseUnsupported(null, in.resourcePolicy());
        boolean indexed = in.localSecondaryIndexes() != null || in.globalSecondaryIndexes() != null;
        Map<String, String> types = types(in.attributeDefinitions());
        checkShape(in.keySchema());
        if (indexed) {
            IndexSpecs.checkDefinitions(
                    in.keySchema(), in.attributeDefinitions(), in.localSecondaryIndexes(), in.globalSecondaryIndexes());
        } else {
            checkDefinitions(in.keySchema(), in.attributeDefinitions(), types);
        }
        KeySchema schema = keySchema(in.keySchema(), types);
        Throughput throughput = Throughput.forCreate(in.billingMode(), in.provisionedThroughput());
        long now = context.clock().millis();
        List<IndexDefinition> indexes =
                new ArrayList<>(IndexSpecs.locals(in.localSecondaryIndexes(), schema, types, now));
        indexes.addAll(IndexSpecs.globals(in.globalSecondaryIndexes(), types, throughput.onDemand(), now));
        IndexSpecs.checkTogether(indexes);
        Map<String, String> tags = Tags.toMap(in.tags());
        Tags.checkCount(tags);
        Long maxRead = Throughput.tableOnDemandMax(in.onDemandThroughput(), "MaxReadRequestUnits", false);
        Long maxWrite = Throughput.tableOnDemandMax(in.onDemandThroughput(), "MaxWriteRequestUnits", false);
        if (!throughput.onDemand()) {
            Throughput.refuseMaximumsWhenProvisioned(maxRead, maxWrite, false);
        }
        TableMetadata m = TableMetadata.create(
                        in.tableName(),
                        UUID.randomUUID().toString(),
                        schema,
                        in.attributeDefinitions(),
                        throughput.billingMode(),
                        throughput.readCapacityUnits(),
                        throughput.writeCapacityUnits(),
                        now,
                        in.tableClass(),
                        Boolean.TRUE.equals(in.deletionProtectionEnabled()),
                        tags)
                .withOnDemandMaximums(maxRead, maxWrite)
                .withIndexes(indexes);
        Long warmRead = WarmThroughputs.member(in.warmThroughput(), WarmThroughputs.READ);
        Long warmWrite = WarmThroughputs.member(in.warmThroughput(), WarmThroughputs.WRITE);
        WarmThroughputs.checkCreate(warmRead, warmWrite, m);
        m = m.withWarmThroughput(warmRead, warmWrite)
                .withSseKey(SseSpecs.keyArn(context, SseSpecs.parse(in.sseSpecification())));
        boolean stream = StreamSpecs.forCreate(in.streamSpecification());
        // With --cluster-partition-groups, each partition its declared throughput (provisioned capacity, or a warm
        // throughput) needs at its creation is a Raft group of its own. An on-demand table that declared neither needs
        // one (its four partitions are headroom, not a need). (A global secondary index is cut too: each range's group
        // keeps the rows of its own items; and a stream: each group's shards are those of its range's partitions.)
        boolean declared = !m.onDemand() || warmRead != null || warmWrite != null;
        TablePlacement.Layout layout = new TablePlacement.Layout(
                declared ? io.partita.storage.partition.TablePartitions.initialCount(m) : 1,
                schema.partitionKey().name());
        io.partita.storage.table.HashRange range = placeElsewhere(placement, storage, context, in.tableName(), layout);
        TableMetadata made = range == null ? m : m.withHashRange(range);
        java.util.function.Supplier<Table> make = () -> {
            Table t = storage.tables().create(made);
            if (stream) {
                // One range of a table cut by ranges: the stream's label is the one its first group gave it.
                storage.streams()
                        .enable(
                                t,
                                in.streamSpecification().streamViewType(),
                                range == null ? null : in.streamSpecification().partitaStreamLabel());
            }
            return t;
        };
        Table table = placement == null ? make.get() : placement.makeHere(in.tableName(), make);
        return new TableDescriptionOutput(
                TableDescriptions.creating(context, storage, table, WarmThroughputs.given(in.warmThroughput())));
    }

    /**
     * In a cluster with a group per table, once a new table {@code name} has passed every check but its name's: when
     * it belongs in a group of its own ({@link TablePlacement#place}), answers Partita's own {@link
     * ErrorCode#TABLE_PLACED}, and the node the client sent the request to sends it there. A table of that name here
     * (made before the cluster had a group per table) is refused as usual.
     *
     * @return the hash range of the table this store is to hold, when it is one of the ranges of a table cut by them;
     *     null for a whole table
     */
    static io.partita.storage.table.HashRange placeElsewhere(
            TablePlacement placement,
            StorageEngine storage,
            RequestContext context,
            String name,
            TablePlacement.Layout layout) {
        if (placement == null || storage.tables().find(name) != null) {
            return null;
        }
        TablePlacement.Placed placed = placement.place(context.accountId(), name, layout);
        if (placed.elsewhere()) {
            throw new ApiException(ErrorCode.TABLE_PLACED, "Table " + name + " is placed in a group of its own");
        }
        return placed.range();
    }

    private static void validate(CreateTableInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("attributeDefinitions", in.attributeDefinitions());
        TableNames.checkNew(c, in.tableName());
        c.notNull("keySchema", in.keySchema()).size("keySchema", in.keySchema(), 1, 2);
        if (in.keySchema() != null) {
            for (int i = 0; i < in.keySchema().size(); i++) {
                KeySchemaElement e = in.keySchema().get(i);
                String path = "keySchema." + (i + 1) + ".member.";
                if (e == null) {
                    c.notNull("keySchema." + (i + 1) + ".member", null);
                    continue;
                }
                c.notNull(path + "attributeName", e.attributeName())
                        .length(path + "attributeName", e.attributeName(), 1, 255)
                        .notNull(path + "keyType", e.keyType())
                        .enumValue(path + "keyType", e.keyType(), List.of("HASH", "RANGE"));
            }
        }
        constrainDefinitions(c, in.attributeDefinitions());
        c.enumValue("billingMode", in.billingMode(), List.of("PROVISIONED", "PAY_PER_REQUEST"));
        c.enumValue("tableClass", in.tableClass(), List.of("STANDARD", "STANDARD_INFREQUENT_ACCESS"));
        Throughput.constrain(c, in.provisionedThroughput());
        IndexSpecs.constrain(c, in.localSecondaryIndexes(), in.globalSecondaryIndexes());
        StreamSpecs.constrain(c, in.streamSpecification());
        c.check();
        Tags.check(in.tags());
    }

    /** The declarative checks of each attribute definition (CreateTable's, and UpdateTable's for a new GSI). */
    static void constrainDefinitions(ConstraintSet c, List<AttributeDefinition> definitions) {
        if (definitions == null) {
            return;
        }
        for (int i = 0; i < definitions.size(); i++) {
            AttributeDefinition d = definitions.get(i);
            String path = "attributeDefinitions." + (i + 1) + ".member";
            if (d == null) {
                c.notNull(path, null);
                continue;
            }
            c.notNull(path + ".attributeName", d.attributeName())
                    .length(path + ".attributeName", d.attributeName(), 1, 255)
                    .notNull(path + ".attributeType", d.attributeType())
                    .enumValue(path + ".attributeType", d.attributeType(), List.of("B", "N", "S"));
        }
    }

    /** The attribute types by name; a name defined twice is refused. */
    static Map<String, String> types(List<AttributeDefinition> definitions) {
        Map<String, String> types = new HashMap<>();
        for (AttributeDefinition d : definitions) {
            if (types.put(d.attributeName(), d.attributeType()) != null) {
                throw ApiException.validation("Attribute Name is duplicated: " + d.attributeName());
            }
        }
        return types;
    }

    /** A table's or an LSI's key schema: a HASH element, then at most one RANGE element of another name. */
    static void checkShape(List<KeySchemaElement> elements) {
        KeySchemaElement hash = elements.get(0);
        if (!"HASH".equals(hash.keyType())) {
            throw ApiException.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        }
        KeySchemaElement range = elements.size() > 1 ? elements.get(1) : null;
        if (range != null) {
            if (range.attributeName().equals(hash.attributeName())) {
                throw ApiException.validation(
                        "Both the Hash Key and the Range Key element in the KeySchema have the same name");
            }
            if (!"RANGE".equals(range.keyType())) {
                throw ApiException.validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
            }
        }
    }

    /**
     * A table without indexes: every definition is a key and every key is defined. DynamoDB words a mismatch by how
     * the counts compare: fewer definitions than keys, more definitions than keys, or the same count with different
     * names.
     */
    private static void checkDefinitions(
            List<KeySchemaElement> elements, List<AttributeDefinition> definitions, Map<String, String> types) {
        List<String> keys =
                elements.stream().map(KeySchemaElement::attributeName).toList();
        if (definitions.size() < keys.size()) {
            throw ApiException.validation("Invalid KeySchema: Some index key attribute have no definition");
        }
        if (definitions.size() > keys.size()) {
            throw ApiException.invalidParameter("Number of attributes in KeySchema does not exactly match number of"
                    + " attributes defined in AttributeDefinitions");
        }
        if (!types.keySet().containsAll(keys)) {
            List<String> defined =
                    definitions.stream().map(AttributeDefinition::attributeName).toList();
            throw ApiException.invalidParameter("Some index key attributes are not defined in AttributeDefinitions."
                    + " Keys: " + keys + ", AttributeDefinitions: " + defined);
        }
    }

    /** The table's key schema, once its elements and definitions have been checked. */
    static KeySchema keySchema(List<KeySchemaElement> elements, Map<String, String> types) {
        KeySchemaElement hash = elements.get(0);
        KeySchemaElement range = elements.size() > 1 ? elements.get(1) : null;
        return new KeySchema(
                new KeySchema.KeyAttribute(hash.attributeName(), ScalarType.valueOf(types.get(hash.attributeName()))),
                range == null
                        ? null
                        : new KeySchema.KeyAttribute(
                                range.attributeName(), ScalarType.valueOf(types.get(range.attributeName()))));
    }
}
