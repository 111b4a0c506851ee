package io.partita.protocol.message;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DynamoDB's {@code ConsumedCapacity} shape; {@code table} and the index maps are only present for {@code INDEXES}
 * (the maps only when an index was read or written). {@code ReadCapacityUnits} and {@code WriteCapacityUnits} are
 * only in the answers of transactions, which split their units so ({@link #split}); the other operations give only
 * {@code CapacityUnits}.
 */
public record ConsumedCapacity(
        String tableName,
        Double capacityUnits,
        Double readCapacityUnits,
        Double writeCapacityUnits,
        Capacity table,
        Map<String, Capacity> localSecondaryIndexes,
        Map<String, Capacity> globalSecondaryIndexes) {
    public ConsumedCapacity(
            String tableName,
            Double capacityUnits,
            Capacity table,
            Map<String, Capacity> localSecondaryIndexes,
            Map<String, Capacity> globalSecondaryIndexes) {
        this(tableName, capacityUnits, null, null, table, localSecondaryIndexes, globalSecondaryIndexes);
    }

    public ConsumedCapacity(String tableName, Double capacityUnits, Capacity table) {
        this(tableName, capacityUnits, table, null, null);
    }

    /** The same units, each also given as read ({@code read}) or write units, as transactions answer them. */
    public ConsumedCapacity split(boolean read) {
        return new ConsumedCapacity(
                tableName,
                capacityUnits,
                read ? capacityUnits : null,
                read ? null : capacityUnits,
                table == null ? null : table.split(read),
                split(localSecondaryIndexes, read),
                split(globalSecondaryIndexes, read));
    }

    private static Map<String, Capacity> split(Map<String, Capacity> m, boolean read) {
        if (m == null) {
            return null;
        }
        Map<String, Capacity> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v.split(read)));
        return out;
    }

    /** DynamoDB's {@code Capacity} shape. */
    public record Capacity(Double capacityUnits, Double readCapacityUnits, Double writeCapacityUnits) {
        public Capacity(Double capacityUnits) {
            this(capacityUnits, null, null);
        }

        Capacity split(boolean read) {
            return new Capacity(capacityUnits, read ? capacityUnits : null, read ? null : capacityUnits);
        }
    }
}
