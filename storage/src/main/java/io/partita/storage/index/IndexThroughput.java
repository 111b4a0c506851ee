package io.partita.storage.index;

import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.partition.PartitionMap;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableMetadata;

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

    /** The GSI's partitions, for a table with metadata {@code table}. */
    public static TablePartitions partitions(TableMetadata table, IndexDefinition d, CapacityConfig capacity) {
        return new TablePartitions(metadata(table, d), capacity, FIXED, null, null, 0, 0);
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
