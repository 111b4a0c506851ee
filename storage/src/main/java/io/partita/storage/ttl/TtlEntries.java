package io.partita.storage.ttl;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.ItemCodec;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.BatchContributor;
import io.partita.storage.write.ItemChange;
import java.time.Clock;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The item's entry in the expiry-ordered {@code ttl} family, in the item's own batch: a write that sets, changes or
 * removes the TTL attribute (or deletes the item) moves or removes its entry, so the reaper never scans the table.
 */
public final class TtlEntries implements BatchContributor {
    private final ColumnFamilyHandle family;
    private final Clock clock;

    public TtlEntries(RocksStore store, Clock clock) {
        this.family = store.family(RocksStore.TTL);
        this.clock = clock;
    }

    /** Whether writes to {@code t} keep TTL entries (so need the old image). */
    public static boolean applies(Table t) {
        return t.metadata().ttlEnabled();
    }

    @Override
    public void contribute(WriteBatch batch, ItemChange change) throws RocksDBException {
        Table t = change.table();
        if (!applies(t)) {
            return;
        }
        String attribute = t.metadata().ttl().attributeName();
        long now = clock.millis() / 1000;
        Map<String, AttributeValue> old = change.oldItem() != null || change.oldStored() == null
                ? change.oldItem()
                : ItemCodec.decode(change.oldStored());
        long before = TtlKeys.expiry(old, attribute, now);
        long after = TtlKeys.expiry(change.newItem(), attribute, now);
        if (before == after) {
            return;
        }
        String id = t.metadata().id();
        if (before >= 0) {
            batch.delete(family, TtlKeys.entry(id, before, change.key()));
        }
        if (after >= 0) {
            batch.put(family, TtlKeys.entry(id, after, change.key()), new byte[0]);
        }
    }
}
