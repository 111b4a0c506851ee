package io.partita.protocol.model;

import io.partita.protocol.error.ApiException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's primary key: a partition (HASH) attribute and an optional sort (RANGE) attribute, with their types.
 *
 * <p>Extracts and checks keys the way DynamoDB does for items (PutItem) and for key maps (GetItem, DeleteItem).
 */
public record KeySchema(KeyAttribute partitionKey, KeyAttribute sortKey) {
    public static final int MAX_PARTITION_KEY_BYTES = 2048;
    public static final int MAX_SORT_KEY_BYTES = 1024;

    /** One key attribute. */
    public record KeyAttribute(String name, ScalarType type) {}

    public boolean hasSortKey() {
        return sortKey != null;
    }

    public List<KeyAttribute> attributes() {
        return sortKey == null ? List.of(partitionKey) : List.of(partitionKey, sortKey);
    }

    /** The key of a whole item about to be written, with PutItem's checks and messages. */
    public PrimaryKey keyOfItem(Map<String, AttributeValue> item) {
        List<AttributeValue> parts = new ArrayList<>(2);
        for (KeyAttribute k : attributes()) {
            AttributeValue v = item.get(k.name());
            if (v == null) {
                throw ApiException.invalidParameter("Missing the key " + k.name() + " in the item");
            }
            if (!k.type().matches(v)) {
                throw ApiException.invalidParameter(
                        "Type mismatch for key " + k.name() + " expected: " + k.type() + " actual: " + v.type());
            }
            parts.add(v);
        }
        return checked(parts);
    }

    /** The key named by a Key parameter (GetItem, DeleteItem): exactly the schema's attributes, nothing more. */
    public PrimaryKey keyOf(Map<String, AttributeValue> key) {
        if (key.size() != attributes().size()) {
            throw ApiException.validation("The provided key element does not match the schema");
        }
        List<AttributeValue> parts = new ArrayList<>(2);
        for (KeyAttribute k : attributes()) {
            AttributeValue v = key.get(k.name());
            if (v == null || !k.type().matches(v)) {
                throw ApiException.validation("The provided key element does not match the schema");
            }
            parts.add(v);
        }
        return checked(parts);
    }

    private PrimaryKey checked(List<AttributeValue> parts) {
        List<KeyAttribute> attrs = attributes();
        for (int i = 0; i < parts.size(); i++) {
            AttributeValue v = parts.get(i);
            boolean empty = (v instanceof AttributeValue.S s && s.value().isEmpty())
                    || (v instanceof AttributeValue.B b && b.value().length() == 0);
            if (empty) {
                String what = v instanceof AttributeValue.S ? "string" : "binary";
                throw ApiException.validation("One or more parameter values are not valid. The AttributeValue for a"
                        + " key attribute cannot contain an empty " + what + " value. Key: "
                        + attrs.get(i).name());
            }
        }
        if (ItemSize.of(parts.get(0)) > MAX_PARTITION_KEY_BYTES) {
            throw ApiException.invalidParameter("Size of hashkey has exceeded the maximum size limit of2048 bytes");
        }
        if (parts.size() > 1 && ItemSize.of(parts.get(1)) > MAX_SORT_KEY_BYTES) {
            throw ApiException.invalidParameter(
                    "Aggregated size of all range keys has exceeded the size limit of 1024 bytes");
        }
        return new PrimaryKey(parts.get(0), parts.size() > 1 ? parts.get(1) : null);
    }

    /** The key attributes of {@code item} as a map, in schema order. */
    public Map<String, AttributeValue> keyMap(PrimaryKey key) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put(partitionKey.name(), key.partition());
        if (sortKey != null) {
            m.put(sortKey.name(), key.sort());
        }
        return m;
    }
}
