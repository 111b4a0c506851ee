package io.partita.storage.write;

import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.table.HashRange;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of the items of one table whose partition key hashes into a range that changed since a range move's first
 * copy began ({@link ItemWrites#trackChanges}): the copy read each item once, as it was then, while writes went on;
 * once the writes are fenced, these items alone are copied again (or deleted, gone since). A change is offered after
 * its commit (and one of unknown outcome too), so that any change committed before the tracking began is in what the
 * copy reads after it. Up to {@code max} keys; past that, {@link #overflowed}: the move copies the range again whole.
 */
public final class ChangedKeys {
    private final long table;
    private final HashRange range;
    private final int max;
    private final Map<ByteBuffer, PrimaryKey> keys = new ConcurrentHashMap<>();
    private volatile boolean overflowed;

    ChangedKeys(Table table, HashRange range, int max) {
        this.table = table.cacheId();
        this.range = range;
        this.max = max;
    }

    /** Records {@code change}'s key if it is an item of the table and range tracked. */
    void offer(ItemChange change) {
        if (change.table().cacheId() != table || !range.holds(change.partitionHash())) {
            return;
        }
        ByteBuffer key = ByteBuffer.wrap(change.key());
        if (keys.containsKey(key)) {
            return;
        }
        if (keys.size() >= max) {
            overflowed = true;
            return;
        }
        keys.put(key, change.primaryKey());
    }

    /** The keys of the items changed so far, each once. */
    public List<PrimaryKey> keys() {
        return new ArrayList<>(keys.values());
    }

    /** Whether more items changed than this records: their keys are not all here. */
    public boolean overflowed() {
        return overflowed;
    }
}
