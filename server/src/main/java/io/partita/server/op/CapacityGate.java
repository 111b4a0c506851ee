package io.partita.server.op;

import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.route.RequestContext;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.KeyText;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;

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
}
