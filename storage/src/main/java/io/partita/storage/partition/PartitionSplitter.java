package io.partita.storage.partition;

import io.partita.storage.BackgroundThreads;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits partitions in the background, on one named thread: for size, at the hash that halves the partition's
 * bytes; for heat, next to the hash of the key drawing most of its traffic. A cut always falls between two
 * partition-key hashes, so one key's items are never separated. A split only rewrites the partition map: no item
 * moves, because item keys already sort by hash.
 */
public final class PartitionSplitter implements TablePartitions.Listener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionSplitter.class);

    private final RocksStore store;
    private final ExecutorService executor =
            Executors.newSingleThreadExecutor(BackgroundThreads.named("partita-splitter"));
    private volatile TableCatalog catalog;

    public PartitionSplitter(RocksStore store) {
        this.store = store;
    }

    /** Set once the catalog exists (the catalog needs this listener to build its tables). */
    public void attach(TableCatalog c) {
        this.catalog = c;
    }

    @Override
    public void splitWanted(TablePartitions table, Partition partition, TablePartitions.SplitReason reason) {
        try {
            executor.execute(() -> {
                try {
                    run(table, partition, reason);
                } catch (RuntimeException e) {
                    log.warn(
                            "split of partition {} of {} failed",
                            partition.id(),
                            table.metadata().name(),
                            e);
                    table.splitAbandoned(partition, reason == TablePartitions.SplitReason.SIZE);
                }
            });
        } catch (RejectedExecutionException closing) {
            // The engine is closing: a write that finished just now asked; the split is not needed any more.
        }
    }

    @Override
    public void mapChanged(TablePartitions table, PartitionMap map, int nextId) {
        TableCatalog c = catalog;
        if (c != null) {
            c.savePartitions(table, map, nextId);
        }
    }

    private void run(TablePartitions table, Partition p, TablePartitions.SplitReason reason) {
        long started = System.nanoTime();
        Cut cut = reason == TablePartitions.SplitReason.SIZE ? sizeCut(table, p) : heatCut(table, p);
        if (cut == null) {
            log.info(
                    "partition {} of {} cannot split for {}: one key",
                    p.id(),
                    table.metadata().name(),
                    reason);
            table.splitAbandoned(p, reason == TablePartitions.SplitReason.SIZE);
            return;
        }
        // The tracked size (DynamoDB's item sizes) is shared in the proportion of the halves' stored bytes.
        long left = cut.totalBytes() == 0
                ? p.sizeBytes() / 2
                : Math.round((double) p.sizeBytes() * cut.leftBytes() / cut.totalBytes());
        table.split(p, cut.at(), left, p.sizeBytes() - left, reason);
        log.info(
                "split partition {} of {} for {} at {} in {} ms",
                p.id(),
                table.metadata().name(),
                reason,
                Long.toHexString(cut.at()),
                (System.nanoTime() - started) / 1_000_000);
    }

    /** Where to cut (the first hash of the right half) and the stored bytes on the left and in all. */
    private record Cut(long at, long leftBytes, long totalBytes) {}

    /**
     * The hottest key's hash starts the right half; if it is the partition's first hash, it gets a half alone. One
     * pass counts the bytes on each side.
     */
    private Cut heatCut(TablePartitions table, Partition p) {
        if (p.start() == p.end()) {
            return null;
        }
        long hot = p.throughput().hottestHash();
        long at = !p.contains(hot) ? PartitionMap.midpoint(p.start(), p.end()) : hot == p.start() ? hot + 1 : hot;
        long[] bytes = {0, 0};
        scan(table, p, (hash, size) -> {
            bytes[Long.compareUnsigned(hash, at) < 0 ? 0 : 1] += size;
            return true;
        });
        return new Cut(at, bytes[0], bytes[0] + bytes[1]);
    }

    /** The first hash at which the bytes before it reach half of the partition's bytes (two passes), or null. */
    private Cut sizeCut(TablePartitions table, Partition p) {
        long[] total = {0};
        scan(table, p, (hash, size) -> {
            total[0] += size;
            return true;
        });
        long[] seen = {0};
        Long[] at = {null};
        scan(table, p, (hash, size) -> {
            if (seen[0] * 2 >= total[0] && hash != p.start()) {
                at[0] = hash;
                return false;
            }
            seen[0] += size;
            return true;
        });
        return at[0] == null ? null : new Cut(at[0], seen[0], total[0]);
    }

    /** Receives each item of a partition: its key hash and stored bytes; returns false to stop. */
    @FunctionalInterface
    private interface ItemBytes {
        boolean visit(long hash, long bytes);
    }

    private void scan(TablePartitions table, Partition p, ItemBytes visitor) {
        Table t = requireTable(table);
        store.range(
                t.items(),
                bound(p.start()),
                p.end() == -1L ? null : bound(p.end() + 1),
                true,
                (k, v) -> visitor.visit(ByteBuffer.wrap(k).getLong(), k.length + v.length));
    }

    private Table requireTable(TablePartitions table) {
        Table t = catalog.find(table.metadata().name());
        if (t == null || t.partitions() != table) {
            throw new IllegalStateException("table " + table.metadata().name() + " is gone");
        }
        return t;
    }

    static byte[] bound(long hash) {
        return ByteBuffer.allocate(8).putLong(hash).array();
    }

    @Override
    public void close() {
        BackgroundThreads.stop(executor);
    }
}
