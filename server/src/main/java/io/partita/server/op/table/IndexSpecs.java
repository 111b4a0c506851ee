package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.GlobalSecondaryIndex;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.message.LocalSecondaryIndex;
import io.partita.protocol.message.Projection;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.KeySchema.KeyAttribute;
import io.partita.protocol.model.ScalarType;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.storage.index.IndexDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * DynamoDB's rules for the secondary indexes of CreateTable (and UpdateTable's {@code Create}), in the order it
 * checks them, with its words ("Service, account, and table quotas"; "Improving data access with secondary indexes").
 * The limits: 5 LSIs and 20 GSIs per table; 100 projected non-key attributes across all of a table's indexes, each
 * counted once per index; an LSI has the table's partition key and one sort key; a GSI key has up to four partition
 * and four sort attributes ("Multi-attribute keys"), partition attributes first.
 */
final class IndexSpecs {
    static final int MAX_LOCAL = 5;
    static final int MAX_GLOBAL = 20;
    static final int MAX_PROJECTED = 100;
    static final int MAX_KEY_PARTS = 4;
    private static final List<String> PROJECTION_TYPES = List.of("ALL", "INCLUDE", "KEYS_ONLY");

    private IndexSpecs() {}

    /** The declarative checks of each index, added to the request's other constraint failures. */
    static void constrain(ConstraintSet c, List<LocalSecondaryIndex> locals, List<GlobalSecondaryIndex> globals) {
        if (locals != null) {
            for (int i = 0; i < locals.size(); i++) {
                LocalSecondaryIndex l = locals.get(i);
                if (l == null) {
                    c.notNull("localSecondaryIndexes." + (i + 1) + ".member", null);
                    continue;
                }
                constrainOne(
                        c,
                        "localSecondaryIndexes." + (i + 1) + ".member.",
                        l.indexName(),
                        l.keySchema(),
                        2,
                        l.projection());
            }
        }
        if (globals != null) {
            for (int i = 0; i < globals.size(); i++) {
                if (globals.get(i) == null) {
                    c.notNull("globalSecondaryIndexes." + (i + 1) + ".member", null);
                    continue;
                }
                constrainGlobal(c, "globalSecondaryIndexes." + (i + 1) + ".member.", globals.get(i));
            }
        }
    }

    /** The declarative checks of one GSI whose members are at {@code path}. */
    static void constrainGlobal(ConstraintSet c, String path, GlobalSecondaryIndex g) {
        constrainOne(c, path, g.indexName(), g.keySchema(), 2 * MAX_KEY_PARTS, g.projection());
        ProvisionedThroughput t = g.provisionedThroughput();
        if (t != null) {
            c.atLeast(path + "provisionedThroughput.readCapacityUnits", t.readCapacityUnits(), 1)
                    .atLeast(path + "provisionedThroughput.writeCapacityUnits", t.writeCapacityUnits(), 1);
        }
    }

    private static void constrainOne(
            ConstraintSet c, String path, String name, List<KeySchemaElement> keySchema, int maxKeys, Projection p) {
        c.notNull(path + "indexName", name)
                .length(path + "indexName", name, 3, 255)
                .pattern(path + "indexName", name, TableNames.NAME)
                .notNull(path + "keySchema", keySchema)
                .size(path + "keySchema", keySchema, 1, maxKeys)
                .notNull(path + "projection", p);
        if (keySchema != null) {
            for (int k = 0; k < keySchema.size(); k++) {
                KeySchemaElement e = keySchema.get(k);
                String at = path + "keySchema." + (k + 1) + ".member.";
                if (e == null) {
                    c.notNull(at.substring(0, at.length() - 1), null);
                    continue;
                }
                c.notNull(at + "attributeName", e.attributeName())
                        .length(at + "attributeName", e.attributeName(), 1, 255)
                        .notNull(at + "keyType", e.keyType())
                        .enumValue(at + "keyType", e.keyType(), List.of("HASH", "RANGE"));
            }
        }
        if (p != null) {
            c.enumValue(path + "projection.projectionType", p.projectionType(), PROJECTION_TYPES)
                    .size(path + "projection.nonKeyAttributes", p.nonKeyAttributes(), 1, 20);
            if (p.nonKeyAttributes() != null) {
                for (int a = 0; a < p.nonKeyAttributes().size(); a++) {
                    String at = path + "projection.nonKeyAttributes." + (a + 1) + ".member";
                    c.notNull(at, p.nonKeyAttributes().get(a))
                            .length(at, p.nonKeyAttributes().get(a), 1, 255);
                }
            }
        }
    }

    /**
     * Every attribute definition must be a key of the table or of an index, and every key must be defined: DynamoDB
     * words the failures differently with and without indexes (checked before anything else about the indexes).
     */
    static void checkDefinitions(
            List<KeySchemaElement> tableKeys,
            List<AttributeDefinition> definitions,
            List<LocalSecondaryIndex> locals,
            List<GlobalSecondaryIndex> globals) {
        List<String> defined =
                definitions.stream().map(AttributeDefinition::attributeName).toList();
        Set<String> used = new LinkedHashSet<>();
        List<List<KeySchemaElement>> schemas = new ArrayList<>();
        schemas.add(tableKeys);
        if (locals != null) {
            locals.forEach(l -> schemas.add(l.keySchema()));
        }
        if (globals != null) {
            globals.forEach(g -> schemas.add(g.keySchema()));
        }
        for (List<KeySchemaElement> schema : schemas) {
            List<String> keys =
                    schema.stream().map(KeySchemaElement::attributeName).toList();
            if (!defined.containsAll(keys)) {
                throw ApiException.invalidParameter("Some index key attributes are not defined in"
                        + " AttributeDefinitions. Keys: " + keys + ", AttributeDefinitions: " + defined);
            }
            used.addAll(keys);
        }
        if (!used.containsAll(defined)) {
            throw ApiException.invalidParameter("Some AttributeDefinitions are not used. AttributeDefinitions: "
                    + new TreeSet<>(defined) + ", keys used: " + new TreeSet<>(used));
        }
    }

    /** The LSIs, checked against the table's key schema. */
    static List<IndexDefinition> locals(
            List<LocalSecondaryIndex> locals, KeySchema table, Map<String, String> types, long now) {
        List<IndexDefinition> out = new ArrayList<>();
        if (locals == null) {
            return out;
        }
        if (locals.isEmpty()) {
            throw ApiException.invalidParameter("List of LocalSecondaryIndexes is empty");
        }
        if (!table.hasSortKey()) {
            throw ApiException.invalidParameter(
                    "Table KeySchema does not have a range key, which is required when specifying a"
                            + " LocalSecondaryIndex");
        }
        if (locals.size() > MAX_LOCAL) {
            throw ApiException.invalidParameter(
                    "Number of LocalSecondaryIndexes exceeds per-table limit of " + MAX_LOCAL);
        }
        for (LocalSecondaryIndex l : locals) {
            List<KeySchemaElement> keys = l.keySchema();
            CreateTableHandler.checkShape(keys);
            String hash = keys.get(0).attributeName();
            if (!hash.equals(table.partitionKey().name())) {
                throw ApiException.invalidParameter("Index KeySchema does not have the same leading hash key as"
                        + " table KeySchema for index: " + l.indexName() + ". index hash key: " + hash
                        + ", table hash key: " + table.partitionKey().name());
            }
            if (keys.size() < 2) {
                throw ApiException.invalidParameter(
                        "Index KeySchema does not have a range key for index: " + l.indexName());
            }
            Projection p = projection(l.projection());
            out.add(new IndexDefinition(
                    l.indexName(),
                    UUID.randomUUID().toString(),
                    false,
                    List.of(table.partitionKey()),
                    List.of(attribute(keys.get(1), types)),
                    p.projectionType(),
                    p.nonKeyAttributes(),
                    0,
                    0,
                    null,
                    null,
                    "ACTIVE",
                    false,
                    now,
                    null,
                    null));
        }
        return out;
    }

    /** The GSIs of a new table whose billing is {@code onDemand} or not. */
    static List<IndexDefinition> globals(
            List<GlobalSecondaryIndex> globals, Map<String, String> types, boolean onDemand, long now) {
        List<IndexDefinition> out = new ArrayList<>();
        if (globals == null) {
            return out;
        }
        if (globals.isEmpty()) {
            throw ApiException.invalidParameter("List of GlobalSecondaryIndexes is empty");
        }
        if (globals.size() > MAX_GLOBAL) {
            throw ApiException.invalidParameter(
                    "GlobalSecondaryIndex count exceeds the per-table limit of " + MAX_GLOBAL);
        }
        for (GlobalSecondaryIndex g : globals) {
            out.add(global(g, types, onDemand, now, "ACTIVE"));
        }
        return out;
    }

    /** One GSI, checked: its key, projection and throughput. */
    static IndexDefinition global(
            GlobalSecondaryIndex g, Map<String, String> types, boolean onDemand, long now, String status) {
        List<KeyAttribute> partition = new ArrayList<>();
        List<KeyAttribute> sort = new ArrayList<>();
        globalKey(g.keySchema(), types, partition, sort);
        Projection p = projection(g.projection());
        ProvisionedThroughput t = g.provisionedThroughput();
        if (onDemand && t != null) {
            throw ApiException.invalidParameter("ProvisionedThroughput should not be specified for index: "
                    + g.indexName() + " when BillingMode is PAY_PER_REQUEST");
        }
        if (!onDemand && t == null) {
            throw ApiException.invalidParameter("ProvisionedThroughput is not specified for index: " + g.indexName());
        }
        if (t != null && (t.readCapacityUnits() == null || t.writeCapacityUnits() == null)) {
            throw ApiException.invalidParameter(
                    "Both ReadCapacityUnits and WriteCapacityUnits must be specified for" + " index: " + g.indexName());
        }
        Long warmRead = warm(g.warmThroughput(), "ReadUnitsPerSecond");
        Long warmWrite = warm(g.warmThroughput(), "WriteUnitsPerSecond");
        return new IndexDefinition(
                g.indexName(),
                UUID.randomUUID().toString(),
                true,
                partition,
                sort,
                p.projectionType(),
                p.nonKeyAttributes(),
                t == null ? 0 : t.readCapacityUnits(),
                t == null ? 0 : t.writeCapacityUnits(),
                Throughput.onDemandMax(g.onDemandThroughput(), "MaxReadRequestUnits"),
                Throughput.onDemandMax(g.onDemandThroughput(), "MaxWriteRequestUnits"),
                status,
                false,
                now,
                warmRead,
                warmWrite);
    }

    /**
     * One member of a GSI's {@code WarmThroughput}: null when absent, else a positive number of units a second
     * (WarmThroughput: ReadUnitsPerSecond, WriteUnitsPerSecond, both optional longs).
     */
    static Long warm(com.fasterxml.jackson.databind.JsonNode warmThroughput, String member) {
        if (warmThroughput == null || warmThroughput.isNull()) {
            return null;
        }
        com.fasterxml.jackson.databind.JsonNode v = warmThroughput.get(member);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber()) {
            throw ApiException.serialization("NUMBER_VALUE cannot be converted to Long");
        }
        if (v.asLong() < 1) {
            throw ApiException.invalidParameter(member + " must be greater than 0");
        }
        return v.asLong();
    }

    /** A GSI's key: one to four HASH attributes, then up to four RANGE attributes. */
    private static void globalKey(
            List<KeySchemaElement> keys,
            Map<String, String> types,
            List<KeyAttribute> partition,
            List<KeyAttribute> sort) {
        if (!"HASH".equals(keys.get(0).keyType())) {
            throw ApiException.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        }
        Set<String> names = new HashSet<>();
        for (KeySchemaElement e : keys) {
            if (!names.add(e.attributeName())) {
                if (keys.size() == 2) {
                    throw ApiException.validation(
                            "Both the Hash Key and the Range Key element in the KeySchema have the same name");
                }
                throw ApiException.validation("The KeySchema contains multiple key attributes with the same name");
            }
            if ("HASH".equals(e.keyType())) {
                if (!sort.isEmpty()) {
                    throw ApiException.invalidParameter(
                            "All HASH key attributes must precede RANGE key attributes in the KeySchema");
                }
                partition.add(attribute(e, types));
            } else {
                sort.add(attribute(e, types));
            }
        }
        if (partition.size() > MAX_KEY_PARTS) {
            throw ApiException.invalidParameter(
                    "The KeySchema exceeds the maximum allowed number of HASH key attributes");
        }
        if (sort.size() > MAX_KEY_PARTS) {
            throw ApiException.invalidParameter(
                    "The KeySchema exceeds the maximum allowed number of RANGE key attributes");
        }
    }

    private static KeyAttribute attribute(KeySchemaElement e, Map<String, String> types) {
        return new KeyAttribute(e.attributeName(), ScalarType.valueOf(types.get(e.attributeName())));
    }

    private static Projection projection(Projection p) {
        String type = p.projectionType();
        if (type == null) {
            throw ApiException.invalidParameter("Unknown ProjectionType: null");
        }
        List<String> nonKey = p.nonKeyAttributes();
        if (!type.equals("INCLUDE") && nonKey != null) {
            throw ApiException.invalidParameter("ProjectionType is " + type + ", but NonKeyAttributes is specified");
        }
        if (type.equals("INCLUDE")) {
            if (nonKey == null) {
                throw ApiException.invalidParameter("ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
            }
            Set<String> seen = new HashSet<>();
            for (String a : nonKey) {
                if (!seen.add(a)) {
                    throw ApiException.invalidParameter("Duplicate element in NonKeyAttributes: " + a);
                }
            }
        }
        return new Projection(type, nonKey == null ? List.of() : nonKey);
    }

    /** Index names are unique across a table's LSIs and GSIs; the projected non-key attributes number at most 100. */
    static void checkTogether(List<IndexDefinition> indexes) {
        Set<String> names = new HashSet<>();
        int projected = 0;
        for (IndexDefinition d : indexes) {
            if (!names.add(d.name())) {
                throw ApiException.invalidParameter("Duplicate index name: " + d.name());
            }
            projected += d.nonKeyAttributes().size();
        }
        if (projected > MAX_PROJECTED) {
            throw ApiException.invalidParameter(
                    "Number of projected attributes in all indexes exceeds limit of " + MAX_PROJECTED);
        }
    }
}
