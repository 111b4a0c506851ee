package io.partita.storage.index;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.KeySchema.KeyAttribute;
import io.partita.storage.key.IndexKeyEncoder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an item looks like in one secondary index: whether it is there at all (an item without every index key
 * attribute is absent: a sparse index), its row key, and the attributes the index copies.
 */
public final class IndexEntries {
    /**
     * What DynamoDB adds to every index entry's size ("Item collections", the size of a local secondary index entry:
     * the table's key, the index key, the projected attributes and 100 bytes of overhead).
     */
    public static final long ENTRY_OVERHEAD_BYTES = 100;

    private IndexEntries() {}

    /**
     * Refuses an item that would have an index key of the wrong type or an empty one, as DynamoDB refuses the write
     * (PutItem, UpdateItem, BatchWriteItem and transactions alike); an absent index key attribute is allowed.
     */
    public static void check(List<IndexDefinition> indexes, Map<String, AttributeValue> item) {
        for (IndexDefinition d : indexes) {
            for (KeyAttribute k : d.keyAttributes()) {
                AttributeValue v = item.get(k.name());
                if (v == null) {
                    continue;
                }
                if (!k.type().matches(v)) {
                    throw ApiException.invalidParameter("Type mismatch for Index Key " + k.name() + " Expected: "
                            + k.type() + " Actual: " + v.type() + " IndexName: " + d.name());
                }
                long size = ItemSize.of(v);
                long max = d.partitionKeys().contains(k)
                        ? KeySchema.MAX_PARTITION_KEY_BYTES
                        : KeySchema.MAX_SORT_KEY_BYTES;
                if (size > max) {
                    throw ApiException.invalidParameter("Size limit exceeded for Index Key " + k.name()
                            + " Actual Size: " + size + " bytes Max Size: " + max + " bytes IndexName: " + d.name());
                }
                boolean empty = (v instanceof AttributeValue.S s && s.value().isEmpty())
                        || (v instanceof AttributeValue.B b && b.value().length() == 0);
                if (empty) {
                    throw ApiException.validation("One or more parameter values are not valid. A value specified for"
                            + " a secondary index key is not supported. The AttributeValue for a key attribute cannot"
                            + " contain an empty " + (v instanceof AttributeValue.S ? "string" : "binary")
                            + " value. IndexName: " + d.name() + ", IndexKey: " + k.name());
                }
            }
        }
    }

    /**
     * The row key of {@code item} in index {@code d}, or null if the item is not in it: an index key attribute is
     * absent, or (only for items written before the index existed, which a backfill skips) of the wrong type.
     */
    public static byte[] rowKey(IndexDefinition d, Map<String, AttributeValue> item, byte[] tableKey) {
        if (item == null) {
            return null;
        }
        List<AttributeValue> partition = values(d.partitionKeys(), item);
        List<AttributeValue> sort = partition == null ? null : values(d.sortKeys(), item);
        if (sort == null) {
            return null;
        }
        return IndexKeyEncoder.rowKey(partition, sort, tableKey);
    }

    private static List<AttributeValue> values(List<KeyAttribute> keys, Map<String, AttributeValue> item) {
        List<AttributeValue> out = new ArrayList<>(keys.size());
        for (KeyAttribute k : keys) {
            AttributeValue v = item.get(k.name());
            if (v == null || !k.type().matches(v)) {
                return null;
            }
            out.add(v);
        }
        return out;
    }

    /** The attributes of {@code item} that index {@code d} copies: the table's and the index's keys, and its projection. */
    public static Map<String, AttributeValue> project(
            IndexDefinition d, KeySchema table, Map<String, AttributeValue> item) {
        if (d.projectsAll()) {
            return item;
        }
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        for (KeyAttribute k : table.attributes()) {
            copy(item, k.name(), out);
        }
        for (KeyAttribute k : d.keyAttributes()) {
            copy(item, k.name(), out);
        }
        for (String a : d.nonKeyAttributes()) {
            copy(item, a, out);
        }
        return out;
    }

    private static void copy(Map<String, AttributeValue> from, String name, Map<String, AttributeValue> to) {
        AttributeValue v = from.get(name);
        if (v != null) {
            to.put(name, v);
        }
    }

    /** An entry's size as IndexSizeBytes counts it. */
    public static long entrySize(Map<String, AttributeValue> projected) {
        return ItemSize.of(projected) + ENTRY_OVERHEAD_BYTES;
    }
}
