package io.partita.server.op;

import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.route.RequestContext;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.KeyText;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every read handler does about throughput: admit the request on the partition that holds its key (or answer
 * DynamoDB's throttling error), then charge what it consumed. Writes are admitted and charged by the storage's one
 * write path ({@link io.partita.storage.write.ItemWrites}). See {@link io.partita.storage.partition.TablePartitions}
 * for the model.
 */
public final class CapacityGate {
    private CapacityGate() {}

    /** The partition of {@code hash}, once the request may go ahead; in ENFORCE mode a refusal is thrown. */
    public static Partition admit(
            RequestContext context, Table table, long hash, CapacityKind kind, AttributeValue partitionKey) {
        Partition p = table.partitions().partitionFor(hash);
        Throttle t = table.partitions().admit(p, kind, () -> KeyText.of(partitionKey));
        if (t != null) {
            throw t.toException(TableNames.arn(context, table.metadata().name()));
        }
        return p;
    }

    /** For batches: null when the request may go ahead, else the refusal (never thrown here). */
    public static Throttle tryAdmit(Table table, long hash, CapacityKind kind, AttributeValue partitionKey) {
        return table.partitions().admit(table.partitions().partitionFor(hash), kind, () -> KeyText.of(partitionKey));
    }

    public static void charge(
            Table table, Partition p, CapacityKind kind, double units, long hash, AttributeValue partitionKey) {
        table.partitions().charge(p, kind, units, hash, () -> KeyText.of(partitionKey));
    }

    /** As {@link #charge(Table, Partition, CapacityKind, double, long, AttributeValue)}, finding the partition. */
    public static void charge(Table table, CapacityKind kind, double units, long hash, AttributeValue partitionKey) {
        charge(table, table.partitions().partitionFor(hash), kind, units, hash, partitionKey);
    }

    /** DynamoDB's {@code ConsumedCapacity} for {@code mode} (TOTAL or INDEXES), or null for NONE. */
    public static ConsumedCapacity consumed(String mode, String tableName, double units) {
        if (mode == null || mode.equals("NONE")) {
            return null;
        }
        ConsumedCapacity.Capacity table = mode.equals("INDEXES") ? new ConsumedCapacity.Capacity(units) : null;
        return new ConsumedCapacity(tableName, units, table);
    }

    /**
     * As {@link #consumed(String, String, double)} for a request that read or wrote secondary indexes: {@code INDEXES}
     * shows the table's units and each index's ("ReturnConsumedCapacity"); {@code TOTAL} only their sum.
     */
    public static ConsumedCapacity consumed(
            String mode,
            String tableName,
            double total,
            double tableUnits,
            Map<String, Double> locals,
            Map<String, Double> globals) {
        if (mode == null || mode.equals("NONE")) {
            return null;
        }
        if (!mode.equals("INDEXES")) {
            return new ConsumedCapacity(tableName, total, null);
        }
        return new ConsumedCapacity(
                tableName, total, new ConsumedCapacity.Capacity(tableUnits), capacities(locals), capacities(globals));
    }

    private static Map<String, ConsumedCapacity.Capacity> capacities(Map<String, Double> units) {
        if (units == null || units.isEmpty()) {
            return null;
        }
        Map<String, ConsumedCapacity.Capacity> out = new TreeMap<>();
        units.forEach((k, v) -> out.put(k, new ConsumedCapacity.Capacity(v)));
        return out;
    }

    /** The {@code ConsumedCapacity} of one item write, with its index writes when the table has indexes. */
    public static ConsumedCapacity consumed(String mode, String tableName, io.partita.storage.write.Written w) {
        var iu = w.indexUnits();
        if (iu == null) {
            return consumed(mode, tableName, w.units());
        }
        return consumed(mode, tableName, w.units(), iu.table(), iu.local(), iu.global());
    }
}
