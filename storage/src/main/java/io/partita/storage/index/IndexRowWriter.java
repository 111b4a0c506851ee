package io.partita.storage.index;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.key.ByteSink;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrites;
import java.util.Arrays;
import java.util.Map;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Turns one item change into one index's row changes: the old row deleted when the item leaves the index or its index
 * key changes, the new row put when the item is in the index and what the index copies changed. The same code writes
 * LSI rows in the item's own batch and GSI rows in the applier's, so the two kinds of index cannot disagree.
 *
 * <p>The write units follow "Provisioned throughput considerations for global secondary indexes": an item that enters
 * or leaves the index, or changes only projected attributes, is one index write of its entry's size; one whose index
 * key changes is two (a delete and a put); a change that leaves the index entry as it was costs nothing.
 */
public final class IndexRowWriter {
    private final RocksStore store;
    private final TableCatalog catalog;

    public IndexRowWriter(RocksStore store, TableCatalog catalog) {
        this.store = store;
        this.catalog = catalog;
    }

    /** One index's part of one item change: the row to delete, the row to put, and what that costs and changes. */
    public record RowChange(
            byte[] deleteKey,
            byte[] putKey,
            Map<String, AttributeValue> putEntry,
            double units,
            long countDelta,
            long sizeDelta,
            long partitionHash) {
        static final RowChange NONE = new RowChange(null, null, null, 0, 0, 0, 0);

        public boolean isEmpty() {
            return deleteKey == null && putKey == null;
        }
    }

    /**
     * What a change of the item with table key {@code tableKey} from {@code oldItem} to {@code newItem} (either null
     * for absent) does to index {@code index}. {@code stored}: what the index holds under a row key, looked up rather
     * than trusted (while a GSI catches up on changes that its backfill may already have copied); null to trust that
     * the index is exactly as the old item says.
     */
    public static RowChange plan(
            Table table,
            LiveIndex index,
            byte[] tableKey,
            Map<String, AttributeValue> oldItem,
            Map<String, AttributeValue> newItem,
            java.util.function.Function<byte[], byte[]> stored) {
        IndexDefinition d = index.definition();
        KeySchema schema = table.metadata().keySchema();
        byte[] oldKey = IndexEntries.rowKey(d, oldItem, tableKey);
        byte[] newKey = IndexEntries.rowKey(d, newItem, tableKey);
        if (oldKey == null && newKey == null) {
            return RowChange.NONE;
        }
        boolean sameKey = oldKey != null && newKey != null && Arrays.equals(oldKey, newKey);
        Map<String, AttributeValue> oldEntry = oldKey == null ? null : IndexEntries.project(d, schema, oldItem);
        Map<String, AttributeValue> newEntry = newKey == null ? null : IndexEntries.project(d, schema, newItem);
        // What the index holds now under the old and the new row key.
        Map<String, AttributeValue> atOld = oldEntry;
        Map<String, AttributeValue> atNew = sameKey ? oldEntry : null;
        if (stored != null) {
            atOld = oldKey == null ? null : decoded(stored.apply(oldKey));
            atNew = newKey == null ? null : sameKey ? atOld : decoded(stored.apply(newKey));
        }
        if (sameKey && atNew != null && ItemWrites.sameItem(atNew, newEntry)) {
            return RowChange.NONE;
        }
        long oldSize = oldEntry == null ? 0 : ItemSize.of(oldEntry);
        long newSize = newEntry == null ? 0 : ItemSize.of(newEntry);
        // The units follow the logical change, whatever a catching-up index held.
        double units = 0;
        if (oldKey != null && !sameKey) {
            units += CapacityUnits.write(oldSize, 0);
        }
        if (newKey != null) {
            units += CapacityUnits.write(sameKey ? oldSize : 0, newSize);
        }
        long count = 0;
        long size = 0;
        byte[] deleteKey = null;
        if (atOld != null && !sameKey) {
            deleteKey = oldKey;
            count--;
            size -= ItemSize.of(atOld) + IndexEntries.ENTRY_OVERHEAD_BYTES;
        }
        byte[] putKey = null;
        if (newKey != null && (atNew == null || !ItemWrites.sameItem(atNew, newEntry))) {
            putKey = newKey;
            if (atNew == null) {
                count++;
                size += newSize + IndexEntries.ENTRY_OVERHEAD_BYTES;
            } else {
                size += newSize - ItemSize.of(atNew);
            }
        }
        // The index partition the units are charged to: the new row's, else the old one's.
        long hash = java.nio.ByteBuffer.wrap(newKey != null ? newKey : oldKey).getLong();
        return new RowChange(deleteKey, putKey, newEntry, units, count, size, hash);
    }

    private static Map<String, AttributeValue> decoded(byte[] stored) {
        return stored == null ? null : ItemCodec.decode(stored);
    }

    /** Adds {@code change} to {@code batch}, with the index's count and size. */
    public void write(WriteBatch batch, Table table, LiveIndex index, RowChange change) throws RocksDBException {
        if (change.isEmpty()) {
            return;
        }
        if (change.deleteKey() != null) {
            batch.delete(index.family(), change.deleteKey());
        }
        if (change.putKey() != null) {
            RocksStore.put(
                    batch, index.family(), change.putKey(), ItemCodec.encode(change.putEntry(), new ByteSink(256)));
        }
        catalog.addIndexStatsDelta(batch, table, index.definition().id(), change.countDelta(), change.sizeDelta());
    }
}
