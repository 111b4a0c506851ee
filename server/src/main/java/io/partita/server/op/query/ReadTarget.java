package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.KeySchema.KeyAttribute;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.index.IndexEntries;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a Query or Scan reads: a table, or one of its secondary indexes, with the key attributes it is ordered by, the
 * partitions whose capacity it consumes (a GSI's own, else the table's) and the resource its throttles name.
 */
record ReadTarget(Table table, LiveIndex index) {
    /** The table, or its index {@code indexName}; DynamoDB's error when the table has no such index. */
    static ReadTarget of(Table table, String indexName) {
        if (indexName == null) {
            return new ReadTarget(table, null);
        }
        LiveIndex index = table.indexes().find(indexName);
        if (index == null || "DELETING".equals(index.definition().status())) {
            throw ApiException.validation("The table does not have the specified index: " + indexName);
        }
        if (index.definition().backfilling()) {
            throw ApiException.validation("Cannot read from backfilling global secondary index: " + indexName);
        }
        return new ReadTarget(table, index);
    }

    boolean global() {
        return index != null && index.global();
    }

    IndexDefinition definition() {
        return index == null ? null : index.definition();
    }

    KeySchema tableSchema() {
        return table.metadata().keySchema();
    }

    List<KeyAttribute> partitionKeys() {
        return index == null
                ? List.of(tableSchema().partitionKey())
                : index.definition().partitionKeys();
    }

    List<KeyAttribute> sortKeys() {
        if (index != null) {
            return index.definition().sortKeys();
        }
        return tableSchema().hasSortKey() ? List.of(tableSchema().sortKey()) : List.of();
    }

    /** The attributes this target is keyed by (a filter may not name them). */
    List<KeyAttribute> keyAttributes() {
        List<KeyAttribute> out = new ArrayList<>(partitionKeys());
        out.addAll(sortKeys());
        return out;
    }

    TablePartitions partitions() {
        return global() ? index.partitions() : table.partitions();
    }

    /** The ARN its throttles name: the table's, or the GSI's. */
    String arn(RequestContext context) {
        String arn = TableNames.arn(context, table.metadata().name());
        return global() ? arn + "/index/" + index.name() : arn;
    }

    /** The key attributes of a read item for {@code LastEvaluatedKey}: the table's key, then the index's. */
    Map<String, AttributeValue> lastKey(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> out =
                new LinkedHashMap<>(tableSchema().keyMap(tableSchema().keyOfItem(item)));
        if (index != null) {
            for (KeyAttribute k : index.definition().keyAttributes()) {
                out.put(k.name(), item.get(k.name()));
            }
        }
        return out;
    }

    /**
     * The encoded position of {@code ExclusiveStartKey}: a table key, or for an index exactly the table's and the
     * index's key attributes, with DynamoDB's words for each way it can be wrong.
     */
    byte[] startKey(Map<String, AttributeValue> start) {
        KeySchema schema = tableSchema();
        if (index == null) {
            return KeyRanges.keyOf(schema, tableKey(start, schema, start));
        }
        Set<String> names = new LinkedHashSet<>();
        schema.attributes().forEach(k -> names.add(k.name()));
        index.definition().keyAttributes().forEach(k -> names.add(k.name()));
        if (!start.keySet().equals(names)) {
            throw ApiException.validation("The provided starting key is invalid");
        }
        Map<String, AttributeValue> tablePart = new LinkedHashMap<>();
        schema.attributes().forEach(k -> tablePart.put(k.name(), start.get(k.name())));
        PrimaryKey key = tableKey(tablePart, schema, start);
        for (KeyAttribute k : index.definition().keyAttributes()) {
            AttributeValue v = start.get(k.name());
            if (v == null || !k.type().matches(v)) {
                throw ApiException.validation("The provided key element does not match the schema");
            }
        }
        byte[] tableKey = ItemKeyEncoder.encode(schema, key).bytes();
        return IndexEntries.rowKey(index.definition(), start, tableKey);
    }

    /**
     * As {@link #startKey}, in Query's words for a table's start key (dynalite's tests against DynamoDB): the wrong
     * set of attributes is "The provided starting key is invalid", a key attribute of the wrong type "The provided key
     * element does not match the schema"; a Scan's are both the latter, prefixed by the former.
     */
    byte[] queryStartKey(Map<String, AttributeValue> start) {
        if (index == null) {
            KeySchema schema = tableSchema();
            Set<String> names = new LinkedHashSet<>();
            schema.attributes().forEach(k -> names.add(k.name()));
            if (!start.keySet().equals(names)) {
                throw ApiException.validation("The provided starting key is invalid");
            }
            return KeyRanges.keyOf(schema, schema.keyOf(start));
        }
        return startKey(start);
    }

    private static PrimaryKey tableKey(
            Map<String, AttributeValue> keyPart, KeySchema schema, Map<String, AttributeValue> start) {
        try {
            return schema.keyOf(keyPart);
        } catch (ApiException e) {
            throw ApiException.validation("The provided starting key is invalid: " + e.getMessage());
        }
    }

    /**
     * Whether an LSI read must fetch the item from the table: {@code ALL_ATTRIBUTES}, or a projection naming an
     * attribute the index does not copy ("Local secondary indexes": attribute projections and fetches, which cost a
     * read of the whole item from the table).
     */
    boolean fetches(String select, List<io.partita.protocol.expr.ast.Path> projection) {
        if (index == null || global() || index.definition().projectsAll()) {
            return false;
        }
        if ("ALL_ATTRIBUTES".equals(select)) {
            return true;
        }
        if (projection == null) {
            return false;
        }
        Set<String> copied = new LinkedHashSet<>();
        tableSchema().attributes().forEach(k -> copied.add(k.name()));
        index.definition().keyAttributes().forEach(k -> copied.add(k.name()));
        copied.addAll(index.definition().nonKeyAttributes());
        for (var p : projection) {
            if (!copied.contains(p.head().name())) {
                return true;
            }
        }
        return false;
    }
}
