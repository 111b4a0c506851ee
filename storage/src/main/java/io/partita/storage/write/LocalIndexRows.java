package io.partita.storage.write;

import io.partita.storage.index.IndexRowWriter;
import io.partita.storage.table.TableCatalog;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The item's rows in the table's LSIs, in the item's own batch: an LSI is never behind its table, so it may be read
 * with {@code ConsistentRead} ("Local secondary indexes": "the local secondary index is updated in the same
 * transaction as the table"). With them goes the size of the item's collection (its partition key's items and their
 * LSI entries), which DynamoDB limits to 10 GB on a table with LSIs. The write path plans each index's change before the batch is built ({@link
 * ItemChange#localRows}), because the same plan gives the write's index units.
 */
final class LocalIndexRows implements BatchContributor {
    private final IndexRowWriter writer;
    private final TableCatalog catalog;

    LocalIndexRows(IndexRowWriter writer, TableCatalog catalog) {
        this.writer = writer;
        this.catalog = catalog;
    }

    @Override
    public void contribute(WriteBatch batch, ItemChange change) throws RocksDBException {
        for (ItemChange.LocalRow r : change.localRows()) {
            writer.write(batch, change.table(), r.index(), r.change());
        }
        if (change.collection() != null) {
            catalog.addCollectionDelta(batch, change.table(), change.collection(), change.collectionDelta());
        }
    }
}
