package io.partita.storage.write;

import io.partita.protocol.model.AttributeValue;
import io.partita.storage.feed.ChangeCause;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.index.IndexRowWriter;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.key.ByteSink;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Map;

/**
 * An item change the write path is about to commit, as its {@link BatchContributor}s see it. The old image's stored
 * bytes are present whenever the table records its changes or the write looked at it, decoded only if the write
 * looked at it; otherwise only its size and existence are known.
 */
public final class ItemChange {
    private final Table table;
    private final byte[] key;
    private final long keyHash;
    private final long partitionHash;
    private final ChangeCause cause;
    private final boolean existed;
    private final byte[] oldStored;
    private final Map<String, AttributeValue> oldItem;
    private final long oldSize;
    private final Map<String, AttributeValue> newItem;
    private final ByteSink newStored;
    private final long newSize;
    private final io.partita.protocol.model.PrimaryKey primaryKey;

    private FeedShard shard;
    private long sequence;
    private List<LocalRow> localRows = List.of();
    private byte[] collection;
    private long collectionDelta;

    /** One LSI's part of this change, planned before the batch is built. */
    public record LocalRow(LiveIndex index, IndexRowWriter.RowChange change) {}

    ItemChange(
            Table table,
            byte[] key,
            long keyHash,
            long partitionHash,
            ChangeCause cause,
            boolean existed,
            byte[] oldStored,
            Map<String, AttributeValue> oldItem,
            long oldSize,
            Map<String, AttributeValue> newItem,
            ByteSink newStored,
            long newSize,
            io.partita.protocol.model.PrimaryKey primaryKey) {
        this.table = table;
        this.key = key;
        this.keyHash = keyHash;
        this.partitionHash = partitionHash;
        this.cause = cause;
        this.existed = existed;
        this.oldStored = oldStored;
        this.oldItem = oldItem;
        this.oldSize = oldSize;
        this.newItem = newItem;
        this.newStored = newStored;
        this.newSize = newSize;
        this.primaryKey = primaryKey;
    }

    /** The item's key, as its write named it. */
    public io.partita.protocol.model.PrimaryKey primaryKey() {
        return primaryKey;
    }

    public Table table() {
        return table;
    }

    /** The item's encoded key ({@code ItemKeyEncoder}). */
    public byte[] key() {
        return key;
    }

    /** The hash of the whole encoded key, which picks the item's lock and cache slot. */
    public long keyHash() {
        return keyHash;
    }

    /** The partition-key hash, which places the item in a partition. */
    public long partitionHash() {
        return partitionHash;
    }

    public ChangeCause cause() {
        return cause;
    }

    /** Whether the item existed before the change. */
    public boolean existed() {
        return existed;
    }

    /** The old item's stored bytes, or null if it did not exist or was not read. */
    public byte[] oldStored() {
        return oldStored;
    }

    /** The old item, or null if it did not exist or the write did not look at it (see {@link #oldStored}). */
    public Map<String, AttributeValue> oldItem() {
        return oldItem;
    }

    /** The old item's DynamoDB size; 0 if it did not exist. */
    public long oldSize() {
        return oldSize;
    }

    /** The new item, or null if the change deletes it. */
    public Map<String, AttributeValue> newItem() {
        return newItem;
    }

    /** The new item's stored bytes, or null if the change deletes it. */
    public ByteSink newStored() {
        return newStored;
    }

    public long newSize() {
        return newSize;
    }

    /** The change feed's shard for this change, once it has numbered it; else null. */
    public FeedShard shard() {
        return shard;
    }

    /** The change's sequence number in {@link #shard}, or 0. */
    public long sequence() {
        return sequence;
    }

    /** What the change does to the table's LSIs, written in its own batch. */
    public List<LocalRow> localRows() {
        return localRows;
    }

    void localRows(List<LocalRow> rows) {
        this.localRows = rows;
    }

    /** The partition prefix of the item's collection (a table with LSIs keeps its size), or null. */
    public byte[] collection() {
        return collection;
    }

    /** How much the change grows (or shrinks) the item's collection. */
    public long collectionDelta() {
        return collectionDelta;
    }

    void collection(byte[] partitionPrefix, long delta) {
        this.collection = partitionPrefix;
        this.collectionDelta = delta;
    }

    /** Set by the change feed when it numbers the change. */
    public void sequenced(FeedShard s, long n) {
        this.shard = s;
        this.sequence = n;
    }
}
