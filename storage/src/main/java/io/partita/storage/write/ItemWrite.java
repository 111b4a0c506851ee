package io.partita.storage.write;

import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.feed.ChangeCause;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.table.TableCatalog.Table;

/**
 * One item write for {@link ItemWrites}: which item, what to do with it, and who asks.
 *
 * @param rejectedNewSize the size of the item the write would have stored (PutItem's item), charged with the old
 *     item's when its condition fails; 0 when unknown (UpdateItem, DeleteItem)
 */
public record ItemWrite(
        Table table, PrimaryKey key, ConditionalWrite write, long rejectedNewSize, ChangeCause cause, Long copier) {
    public ItemWrite(Table table, PrimaryKey key, ConditionalWrite write, long rejectedNewSize, ChangeCause cause) {
        this(table, key, write, rejectedNewSize, cause, null);
    }

    /** The TTL service's deletion of an expired item: not charged; its stream record names the service. */
    public static ItemWrite ttl(Table table, PrimaryKey key, ConditionalWrite write) {
        return new ItemWrite(table, key, write, 0, ChangeCause.TTL);
    }

    /** A restore's copy of an item into its new table: not admitted or charged. */
    public static ItemWrite restore(Table table, PrimaryKey key, ConditionalWrite write) {
        return new ItemWrite(table, key, write, 0, ChangeCause.RESTORE);
    }

    /**
     * A range move's copy of an item into the group that takes its range over, or its deletion from the group that
     * gave it: not admitted or charged, nor refused outside the store's range.
     */
    public static ItemWrite move(Table table, PrimaryKey key, ConditionalWrite write) {
        return new ItemWrite(table, key, write, 0, ChangeCause.MOVE);
    }

    /**
     * A range move's page of copy {@code copier} into the group that takes its range over: taken only while that copy
     * is the one the range receives ({@link io.partita.storage.table.HashRange#takesCopy}), checked under the item's
     * lock.
     */
    public static ItemWrite moveCopy(Table table, PrimaryKey key, ConditionalWrite write, long copier) {
        return new ItemWrite(table, key, write, 0, ChangeCause.MOVE, copier);
    }

    /** A user's write. */
    public static ItemWrite user(Table table, PrimaryKey key, ConditionalWrite write, long rejectedNewSize) {
        return new ItemWrite(table, key, write, rejectedNewSize, ChangeCause.USER);
    }
}
