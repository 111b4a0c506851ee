package io.partita.storage.partition;

import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "partita-splitter");
        t.setDaemon(true);
        return t;
    });
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
    }

    @Override
    public void mapChanged(TablePartitions table, PartitionMap map, int nextId) {
        TableCatalog c = catalog;
        if (c != null) {
            c.savePartitions(table, nextId);
        }
    }

    private void run(TablePartitions table, Partition p, TablePartitions.SplitReason reason) {
        long started = System.nanoTime();
        Long at = reason == TablePartitions.SplitReason.SIZE ? sizeCut(table, p) : heatCut(p);
        if (at == null) {
            log.info(
                    "partition {} of {} cannot split for {}: one key",
                    p.id(),
                    table.metadata().name(),
                    reason);
            table.splitAbandoned(p, reason == TablePartitions.SplitReason.SIZE);
            return;
        }
        long[] sizes = sizes(table, p, at);
        table.split(p, at, sizes[0], sizes[1], reason);
        log.info(
                "split partition {} of {} for {} at {} in {} ms",
                p.id(),
                table.metadata().name(),
                reason,
                Long.toHexString(at),
                (System.nanoTime() - started) / 1_000_000);
    }

    /** The hottest key's hash starts the right half; if it is the partition's first hash, it gets a half alone. */
    private static Long heatCut(Partition p) {
        if (p.start() == p.end()) {
            return null;
        }
        long hot = p.throughput().hottestHash();
        if (!p.contains(hot)) {
            return PartitionMap.midpoint(p.start(), p.end());
        }
        return hot == p.start() ? hot + 1 : hot;
    }

    /** The first hash at which the bytes before it reach half of the partition's bytes, or null. */
    private Long sizeCut(TablePartitions table, Partition p) {
        Table t = requireTable(table);
        long[] total = {0};
        store.range(t.items(), bound(p.start()), upper(p), true, (k, v) -> {
            total[0] += k.length + v.length;
            return true;
        });
        long[] seen = {0};
        Long[] cut = {null};
        store.range(t.items(), bound(p.start()), upper(p), true, (k, v) -> {
            long hash = ByteBuffer.wrap(k).getLong();
            if (seen[0] * 2 >= total[0] && hash != p.start()) {
                cut[0] = hash;
                return false;
            }
            seen[0] += k.length + v.length;
            return true;
        });
        return cut[0];
    }

    /** Shares the partition's tracked size between the halves in the proportion of their stored bytes. */
    private long[] sizes(TablePartitions table, Partition p, long at) {
        Table t = requireTable(table);
        long[] bytes = {0, 0};
        store.range(t.items(), bound(p.start()), upper(p), true, (k, v) -> {
            long hash = ByteBuffer.wrap(k).getLong();
            bytes[Long.compareUnsigned(hash, at) < 0 ? 0 : 1] += k.length + v.length;
            return true;
        });
        long all = bytes[0] + bytes[1];
        long left = all == 0 ? p.sizeBytes() / 2 : Math.round((double) p.sizeBytes() * bytes[0] / all);
        return new long[] {left, p.sizeBytes() - left};
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

    private static byte[] upper(Partition p) {
        return p.end() == -1L ? null : bound(p.end() + 1);
    }

    /** Waits until every queued split has run (tests and the admin endpoint use it). */
    public void awaitIdle() throws InterruptedException {
        try {
            executor.submit(() -> {}).get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
