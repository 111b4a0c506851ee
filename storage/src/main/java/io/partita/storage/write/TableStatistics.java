package io.partita.storage.write;

import io.partita.storage.table.TableCatalog;
import org.rocksdb.WriteBatch;

/**
 * The table's item count and size: merge operands in the batch, then the live counters and the partition's size
 * (which may queue a split) once it has committed.
 */
final class TableStatistics implements BatchContributor {
    private final TableCatalog catalog;

    TableStatistics(TableCatalog catalog) {
        this.catalog = catalog;
    }

    private static long countDelta(ItemChange c) {
        return (c.newStored() == null ? 0 : 1) - (c.existed() ? 1 : 0);
    }

    @Override
    public void contribute(WriteBatch batch, ItemChange change) {
        catalog.addStatsDelta(batch, change.table(), countDelta(change), change.newSize() - change.oldSize());
    }

    @Override
    public void finished(ItemChange change, CommitOutcome outcome) {
        if (outcome != CommitOutcome.COMMITTED) {
            return;
        }
        long sizeDelta = change.newSize() - change.oldSize();
        catalog.applied(change.table(), countDelta(change), sizeDelta);
        if (sizeDelta != 0) {
            change.table().partitions().addSize(change.partitionHash(), sizeDelta);
        }
    }
}
