package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.HashRange;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.Written;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Partita's own {@code Partita.PutMovedItems}: a range move's copy of items into the Raft group that takes the range
 * over (docs/CLUSTER.md, "Moving a range"), sent by the leader of the group that gives it. Each item is stored as it
 * was, through the one write path (its local secondary index rows and TTL entry this group's own), neither admitted
 * nor charged; each key of {@code Deletes} (an item the first copy took that the source deleted since) is deleted the
 * same way; all of one request commit together. Every item and key must be in the range this group's store holds: one
 * outside is refused, 503, with nothing written.
 */
public final class MovedItemsHandler implements OperationHandler<MovedItemsHandler.Input, MovedItemsHandler.Output> {
    /** What a page sent once the range is open is refused with ({@link #handle}), as the mover reads it. */
    public static final String NOT_RECEIVING = HashRange.NOT_RECEIVING;

    /** The most items one request carries: the mover sends pages of this many at most. */
    public static final int MAX_ITEMS = 100;

    /**
     * The table's name, the items, each as it was stored, the keys of items to delete (either may be null), and the
     * copy they are part of ({@link HashRange#copier}, named by {@link Clear}).
     */
    public record Input(
            String tableName,
            List<Map<String, AttributeValue>> items,
            List<Map<String, AttributeValue>> deletes,
            Long copier) {}

    /** How many items were stored. */
    public record Output(int stored) {}

    private final StorageEngine storage;

    public MovedItemsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Output handle(RequestContext context, Input in) {
        List<Map<String, AttributeValue>> items = in.items() == null ? List.of() : in.items();
        List<Map<String, AttributeValue>> deletes = in.deletes() == null ? List.of() : in.deletes();
        int count = items.size() + deletes.size();
        if (count == 0 || count > MAX_ITEMS) {
            throw ApiException.validation("Partita.PutMovedItems takes 1 to " + MAX_ITEMS + " Items and Deletes");
        }
        if (in.copier() == null) {
            throw ApiException.validation("Partita.PutMovedItems names its copy (Copier)");
        }
        Table table = receiving(context, storage, in.tableName(), "PutMovedItems");
        List<ItemWrite> writes = new ArrayList<>(count);
        java.util.Set<java.nio.ByteBuffer> keys = new java.util.HashSet<>();
        for (Map<String, AttributeValue> item : items) {
            if (item == null) {
                throw ApiException.validation("Partita.PutMovedItems: an item is null");
            }
            ItemRequests.checkAttributeNames(item);
            long size = ItemSize.of(item);
            if (size > ItemSize.MAX_ITEM_BYTES) {
                throw ApiException.validation("Item size has exceeded the maximum allowed size");
            }
            PrimaryKey key = heldKey(table, in.tableName(), item, keys);
            writes.add(ItemWrite.moveCopy(
                    table, key, ConditionalWrite.blind(new WriteDecision.Put(item, size)), in.copier()));
        }
        for (Map<String, AttributeValue> deleted : deletes) {
            if (deleted == null) {
                throw ApiException.validation("Partita.PutMovedItems: a key to delete is null");
            }
            PrimaryKey key = heldKey(table, in.tableName(), deleted, keys);
            writes.add(ItemWrite.moveCopy(table, key, ConditionalWrite.blind(new WriteDecision.Delete()), in.copier()));
        }
        Written[] written = storage.writes().writeAll(writes);
        for (Written w : written) {
            if (w == null) {
                // A part committed and a later one did not: the mover sends the page again (puts are idempotent).
                throw new ApiException(
                        ErrorCode.SERVICE_UNAVAILABLE, "Partita.PutMovedItems: a part of the page did not commit");
            }
        }
        return new Output(written.length);
    }

    /**
     * The key of {@code item} (an item, or a key alone), which must be in the hash range {@code table}'s store holds
     * and not among {@code seen} (the request's keys so far, to which it is added).
     */
    private static PrimaryKey heldKey(
            Table table, String name, Map<String, AttributeValue> item, java.util.Set<java.nio.ByteBuffer> seen) {
        PrimaryKey key = table.metadata().keySchema().keyOfItem(item);
        ItemKeyEncoder.EncodedKey encoded =
                ItemKeyEncoder.encode(table.metadata().keySchema(), key);
        // The move's writes are not refused outside the range by the write path (they are how items leave one):
        // refused here, so that none is stored where no read of this group looks for it.
        if (!table.metadata().hashRange().holds(encoded.hash())) {
            throw new ApiException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita.PutMovedItems: an item is not in the hash range of table " + name + " here");
        }
        if (!seen.add(java.nio.ByteBuffer.wrap(encoded.bytes()))) {
            throw ApiException.validation("Partita.PutMovedItems: an item is given twice");
        }
        return key;
    }

    /**
     * Table {@code name}, whose range must be receiving a move's copy: once open ({@link Open}) it takes writes of
     * users, which no late page of a copy ({@code operation}) may overwrite.
     */
    private static Table receiving(RequestContext context, StorageEngine storage, String name, String operation) {
        Table table = ItemRequests.table(context, storage, name);
        HashRange range = table.metadata().hashRange();
        if (range == null || !range.receiving()) {
            throw ApiException.validation(
                    "Partita." + operation + ": table " + name + " is " + NOT_RECEIVING + " a moved range");
        }
        return table;
    }

    /**
     * Partita's own {@code Partita.PutMovedTokens}: a range move's copy of the source's transaction tokens ({@code
     * ClientRequestToken}s of the last ten minutes, {@code TransactionTokens#records}), so that a repeat of a
     * transaction made before the move, sent here once the move is over, is answered as a repeat rather than made
     * again. Accepted while the table's range is receiving, as the items are; one commit, a token kept here already
     * left as it is.
     */
    public static final class Tokens implements OperationHandler<Tokens.Input, Tokens.Output> {
        /** The table's name, and the records: each its scope and token, and its value, as stored. */
        public record Input(String tableName, List<Token> tokens) {}

        /** One record. */
        public record Token(byte[] key, byte[] value) {}

        /** How many records came. */
        public record Output(int stored) {}

        /** The most records one request carries. */
        public static final int MAX_TOKENS = 1_000;

        private final StorageEngine storage;

        public Tokens(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            if (in.tokens() == null || in.tokens().isEmpty() || in.tokens().size() > MAX_TOKENS) {
                throw ApiException.validation("Partita.PutMovedTokens takes 1 to " + MAX_TOKENS + " Tokens");
            }
            receiving(context, storage, in.tableName(), "PutMovedTokens");
            List<byte[][]> records = new ArrayList<>(in.tokens().size());
            for (Token t : in.tokens()) {
                if (t == null || t.key() == null || t.value() == null || t.key().length == 0 || t.value().length < 9) {
                    throw ApiException.validation("Partita.PutMovedTokens: a token's record is malformed");
                }
                records.add(new byte[][] {t.key(), t.value()});
            }
            storage.writes().tokens().keep(records);
            return new Output(records.size());
        }
    }

    /**
     * Partita's own {@code Partita.ClearMovedRange}: the start of a run of a move's copy, {@code Copier} ({@link
     * HashRange#copier}, recorded in this group's log: the pages of any copy before it are refused from then on, a
     * leader of the source that was replaced still sending what it read), and the deletion of up to {@link #MAX_ITEMS}
     * of the items the receiving range holds, through the write path; answers how many (0 once none is left). A copy
     * begun before (the changes made during it are not known to this one) leaves nothing behind.
     */
    public static final class Clear implements OperationHandler<Clear.Input, Clear.Output> {
        /** The table's name, and the copy that begins. */
        public record Input(String tableName, Long copier) {}

        /** How many items were deleted. */
        public record Output(int deleted) {}

        private final StorageEngine storage;

        public Clear(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            if (in.copier() == null) {
                throw ApiException.validation("Partita.ClearMovedRange names the copy that begins (Copier)");
            }
            Table table = receiving(context, storage, in.tableName(), "ClearMovedRange");
            // Recorded, and every write holding an item's lock committed (a page of the copy before), before the items
            // are read to be deleted.
            storage.tables().changeRange(table.metadata().name(), h -> h.receiving() ? h.copiedBy(in.copier()) : h);
            HashRange range = table.metadata().hashRange();
            if (!range.receiving()) {
                throw ApiException.validation(
                        "Partita.ClearMovedRange: table " + in.tableName() + " is " + NOT_RECEIVING + " a moved range");
            }
            if (!range.takesCopy(in.copier())) {
                throw ApiException.validation("Partita.ClearMovedRange: table " + in.tableName()
                        + "'s moved range takes another copy's pages (" + HashRange.OTHER_COPY + ")");
            }
            List<ItemWrite> writes = new ArrayList<>(MAX_ITEMS);
            storage.range(
                    table,
                    io.partita.storage.key.KeyRanges.hashes(range.first(), range.last()),
                    true,
                    (key, item, stored) -> {
                        writes.add(ItemWrite.moveCopy(
                                table,
                                table.metadata().keySchema().keyOfItem(item),
                                ConditionalWrite.blind(new WriteDecision.Delete()),
                                in.copier()));
                        return writes.size() < MAX_ITEMS;
                    });
            if (writes.isEmpty()) {
                return new Output(0);
            }
            for (Written w : storage.writes().writeAll(writes)) {
                if (w == null) {
                    throw new ApiException(
                            ErrorCode.SERVICE_UNAVAILABLE, "Partita.ClearMovedRange: a part did not commit");
                }
            }
            return new Output(writes.size());
        }
    }

    /**
     * Partita's own {@code Partita.OpenMovedRange}: the end of a range move's copy into this group, recorded in its
     * log. The store then serves its range to users, and refuses any later page of the copy; a replica that has applied
     * it has applied every page before it. Opening an open range changes nothing.
     */
    public static final class Open implements OperationHandler<Open.Input, Open.Output> {
        /** The table's name, and the copy that ends ({@link Clear}): one before the range's own is refused. */
        public record Input(String tableName, Long copier) {}

        /** Whether the range was receiving until now. */
        public record Output(boolean opened) {}

        private final StorageEngine storage;

        public Open(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            Table table = ItemRequests.table(context, storage, in.tableName());
            HashRange range = table.metadata().hashRange();
            if (range == null) {
                throw ApiException.validation(
                        "Partita.OpenMovedRange: table " + in.tableName() + " holds no hash range");
            }
            storage.tables().changeRange(table.metadata().name(), h -> {
                if (h.receiving() && !h.takesCopy(in.copier())) {
                    throw ApiException.validation("Partita.OpenMovedRange: table " + in.tableName()
                            + "'s moved range takes another copy's pages (" + HashRange.OTHER_COPY + ")");
                }
                return h.received();
            });
            return new Output(range.receiving());
        }
    }

    /**
     * Partita's own {@code Partita.AwaitIndexes}: waits until every global secondary index of the table in this
     * group has applied every change made before it (a range move's copied items indexed), so that the source, which
     * gives up its range next, leaves no moved item missing from an index meanwhile (docs/CLUSTER.md, "Moving a
     * range"). Past 10 s, a 503: the mover asks again.
     */
    public static final class Indexed implements OperationHandler<Indexed.Input, Indexed.Output> {
        /** The table's name. */
        public record Input(String tableName) {}

        /** Every index caught up. */
        public record Output(boolean indexed) {}

        private final StorageEngine storage;

        public Indexed(StorageEngine storage) {
            this.storage = storage;
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public Output handle(RequestContext context, Input in) {
            Table table = ItemRequests.table(context, storage, in.tableName());
            if (!storage.globalIndexes().await(table, java.time.Duration.ofSeconds(10))) {
                throw new ApiException(
                        io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                        "Partita.AwaitIndexes: the global secondary indexes of table " + in.tableName()
                                + " have not applied the moved items yet; send it again");
            }
            return new Output(true);
        }
    }
}
