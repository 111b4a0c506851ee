package io.partita.storage.write;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The items that write transactions in progress hold. DynamoDB does not make a write wait for a transaction: a
 * single-item write to an item a transaction holds fails with {@code TransactionConflictException}, and a transaction
 * that meets another's item is cancelled with {@code TransactionConflict} ("Transaction conflict handling in
 * DynamoDB"). The item locks serialise the commits; the holds make the conflicts visible, from the moment a
 * transaction claims its items until it has committed (or given up) and released them.
 *
 * <p>A write that finds no transaction holding anything pays one volatile read.
 */
final class TransactionHolds {
    /** An item of a table: the table's cache id and the item's encoded key. */
    record Item(long table, ByteBuffer key) {
        Item(long table, byte[] key) {
            this(table, ByteBuffer.wrap(key));
        }
    }

    private final ConcurrentHashMap<Item, Boolean> held = new ConcurrentHashMap<>();
    /** Transactions between their claim and their release. */
    private final AtomicInteger holding = new AtomicInteger();

    /** Whether a transaction in progress holds the item with encoded key {@code key} of table {@code table}. */
    boolean held(long table, byte[] key) {
        return holding.get() > 0 && held.containsKey(new Item(table, key));
    }

    /**
     * Claims every item, or none: returns -1 when all are now held by the caller, else the index of the first item
     * another transaction holds (and the caller holds nothing).
     */
    int claim(Item[] items) {
        holding.incrementAndGet();
        for (int i = 0; i < items.length; i++) {
            if (held.putIfAbsent(items[i], Boolean.TRUE) != null) {
                for (int j = 0; j < i; j++) {
                    held.remove(items[j]);
                }
                holding.decrementAndGet();
                return i;
            }
        }
        return -1;
    }

    /** Whether an item of table {@code table} whose partition key's hash passes {@code hash} is held. */
    boolean holdsAny(long table, java.util.function.LongPredicate hash) {
        if (holding.get() == 0) {
            return false;
        }
        for (Item i : held.keySet()) {
            if (i.table() == table && hash.test(i.key().getLong(0))) {
                return true;
            }
        }
        return false;
    }

    /** Releases items a successful {@link #claim} took. */
    void release(Item[] items) {
        for (Item item : items) {
            held.remove(item);
        }
        holding.decrementAndGet();
    }
}
