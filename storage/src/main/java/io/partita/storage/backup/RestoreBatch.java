package io.partita.storage.backup;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.ItemWrites;
import io.partita.storage.write.Written;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A restore's writes into its new table, {@link #SIZE} to a commit ({@link ItemWrites#writeAll}: one log append, one
 * Raft entry in a cluster) rather than one each, which in a cluster waited for a round trip per item. Each item is
 * written once per batch; {@link #flush} between passes that may write an item again.
 */
final class RestoreBatch {
    /** A BatchWriteItem's most writes, the most {@link ItemWrites#writeAll} takes the locks of. */
    static final int SIZE = 25;

    private final ItemWrites writes;
    private final List<ItemWrite> pending = new ArrayList<>(SIZE);

    RestoreBatch(ItemWrites writes) {
        this.writes = writes;
    }

    /** Puts {@code item} in table {@code t}. */
    void put(Table t, Map<String, AttributeValue> item) {
        add(ItemWrite.restore(
                t, t.metadata().keySchema().keyOfItem(item), ConditionalWrite.blind(new WriteDecision.Put(item))));
    }

    /** Deletes the item of {@code item}'s key from table {@code t}. */
    void delete(Table t, Map<String, AttributeValue> item) {
        add(ItemWrite.restore(
                t, t.metadata().keySchema().keyOfItem(item), ConditionalWrite.blind(new WriteDecision.Delete())));
    }

    private void add(ItemWrite w) {
        pending.add(w);
        if (pending.size() == SIZE) {
            flush();
        }
    }

    /** Writes what is pending; a write the batch gives back (none is expected on a new table) is made alone. */
    void flush() {
        if (pending.isEmpty()) {
            return;
        }
        Written[] out = writes.writeAll(pending);
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                writes.write(pending.get(i));
            }
        }
        pending.clear();
    }
}
