package io.partita.storage.index;

import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.partition.PartitionMap;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;

/**
 * A GSI's own partitions and throughput: the same model as a table's ("Provisioned throughput considerations for
 * global secondary indexes": a GSI has its own read and write capacity, provisioned or on demand as its table is),
 * built from a table-shaped view of the index. A GSI's partitions do not split (yet): they start as DynamoDB sizes
 * them for the index's capacity.
 */
public final class IndexThroughput {
    /** A GSI's partitions neither split nor persist their map: they are sized from the capacity at every start. */
    private static final TablePartitions.Listener FIXED = new TablePartitions.Listener() {
        @Override
        public void splitWanted(
                TablePartitions table,
                io.partita.storage.partition.Partition partition,
                TablePartitions.SplitReason reason) {
            table.splitAbandoned(partition, reason == TablePartitions.SplitReason.SIZE);
        }

        @Override
        public void mapChanged(TablePartitions table, PartitionMap map, int nextId) {}
    };

    private IndexThroughput() {}

    /**
     * The GSI's partitions, for a table with metadata {@code table}: as many as DynamoDB gives a table of the index's
     * capacity, or more if its {@code WarmThroughput} asks for more ("Understanding DynamoDB warm throughput": the
     * throughput an index can serve at once), at 3,000 reads and 1,000 writes a second each; in a store that holds
     * part of the table's hashes alone, each with that part of its budget and ceilings ({@link
     * TablePartitions#ofIndex}); the index's own budget is whole there, charged every group's consumption.
     */
    public static TablePartitions partitions(TableMetadata table, IndexDefinition d, CapacityConfig capacity) {
        TableMetadata view = metadata(table, d);
        int n = count(view, d);
        long[] starts = PartitionMap.evenStarts(n);
        List<TablePartitions.PersistedPartition> even = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long end = i + 1 < n ? starts[i + 1] - 1 : -1L;
            even.add(new TablePartitions.PersistedPartition(Integer.toString(i), starts[i], end, null));
        }
        // In a store that holds part of the table's hashes alone, that part of each partition's: every group holds
        // a copy of the index's partitions, fed by its own items.
        return TablePartitions.ofIndex(view, table.hashRange(), capacity, FIXED, even, n);
    }

    /** How many partitions the GSI starts with. */
    static int count(TableMetadata view, IndexDefinition d) {
        double warm = orZero(d.warmReadUnitsPerSecond()) / CapacityConfig.PARTITION_READ_CEILING
                + orZero(d.warmWriteUnitsPerSecond()) / CapacityConfig.PARTITION_WRITE_CEILING;
        return (int) Math.min(1024, Math.max(TablePartitions.initialCount(view), Math.ceil(warm)));
    }

    private static double orZero(Long v) {
        return v == null ? 0 : v;
    }

    /** The throughput a GSI of {@code partitions} partitions serves at once: its {@code WarmThroughput}. */
    public static long[] warm(TablePartitions partitions) {
        int n = partitions.map().size();
        return new long[] {
            (long) (n * CapacityConfig.PARTITION_READ_CEILING), (long) (n * CapacityConfig.PARTITION_WRITE_CEILING)
        };
    }

    /** The table-shaped view of a GSI that its partitions are built from: its name is {@code table/index/name}. */
    public static TableMetadata metadata(TableMetadata table, IndexDefinition d) {
        return TableMetadata.create(
                        table.name() + "/index/" + d.name(),
                        d.id(),
                        table.keySchema(),
                        table.attributeDefinitions(),
                        table.billingMode(),
                        d.readCapacityUnits(),
                        d.writeCapacityUnits(),
                        d.creationMillis(),
                        table.tableClass(),
                        false,
                        java.util.Map.of())
                .withOnDemandMaximums(d.maxReadRequestUnits(), d.maxWriteRequestUnits());
    }
}
