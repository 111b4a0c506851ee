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

    /**
     * The units of two reads answered as one (a PartiQL SELECT that runs a Query per partition key value); either may
     * be null. Both are of one table and one {@code ReturnConsumedCapacity}, so their shapes agree.
     */
    public static ConsumedCapacity sum(ConsumedCapacity a, ConsumedCapacity b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return new ConsumedCapacity(
                a.tableName,
                add(a.capacityUnits, b.capacityUnits),
                add(a.readCapacityUnits, b.readCapacityUnits),
                add(a.writeCapacityUnits, b.writeCapacityUnits),
                Capacity.sum(a.table, b.table),
                sum(a.localSecondaryIndexes, b.localSecondaryIndexes),
                sum(a.globalSecondaryIndexes, b.globalSecondaryIndexes));
    }

    private static Double add(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(a + b);
    }

    private static Map<String, Capacity> sum(Map<String, Capacity> a, Map<String, Capacity> b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        Map<String, Capacity> out = new LinkedHashMap<>(a);
        b.forEach((k, v) -> out.merge(k, v, Capacity::sum));
        return out;
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

        static Capacity sum(Capacity a, Capacity b) {
            if (a == null || b == null) {
                return a == null ? b : a;
            }
            return new Capacity(
                    add(a.capacityUnits, b.capacityUnits),
                    add(a.readCapacityUnits, b.readCapacityUnits),
                    add(a.writeCapacityUnits, b.writeCapacityUnits));
        }

        Capacity split(boolean read) {
            return new Capacity(capacityUnits, read ? capacityUnits : null, read ? null : capacityUnits);
        }
    }
}
