package io.partita.storage.feed;

import io.partita.storage.BackgroundThreads;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.table.TableCatalog.Table;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes change records no consumer needs any more, on one named thread: every 10 s by default
 * ({@code -Dpartita.feed.trimMillis=N}), and before each of the commit log's checkpoints ({@link #trimSoon}).
 *
 * <p>A consumer needs the records of a shard after its position; one with a retention (a stream: 24 hours) needs
 * only those of them younger than the retention. A shard is trimmed up to the lowest record any consumer needs, never
 * past its watermark; with no consumer left, everything visible goes. The deletion is one range tombstone, committed
 * with the shard's new floor in one batch. A split partition's shard is forgotten once it is drained and empty.
 */
public final class FeedTrimmer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedTrimmer.class);
    static final long DEFAULT_PERIOD_MILLIS = 10_000;

    private final ChangeFeed feed;
    private final Supplier<Collection<Table>> tables;
    private final ScheduledExecutorService executor;

    /** Starts trimming {@code tables()} every {@code periodMillis}; 0 or less never trims on its own (tests). */
    public FeedTrimmer(ChangeFeed feed, Supplier<Collection<Table>> tables, long periodMillis) {
        this.feed = feed;
        this.tables = tables;
        this.executor = Executors.newSingleThreadScheduledExecutor(BackgroundThreads.named("partita-feed-trim"));
        if (periodMillis > 0) {
            executor.scheduleWithFixedDelay(
                    () -> {
                        try {
                            trim(tables.get());
                        } catch (StorageUnavailableException e) {
                            // A full disk: the store said so once; the next period tries again.
                            log.debug("change feed trim refused by the store", e);
                        } catch (RuntimeException e) {
                            log.warn("change feed trim failed; trying again in {} ms", periodMillis, e);
                        }
                    },
                    periodMillis,
                    periodMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Trims on the trim thread now and waits for it, at most {@code waitMillis}: before a checkpoint flushes, so that
     * records every consumer has read are deleted while still in the memtable and are never flushed or compacted.
     * The wait is bounded because the trim's own batch may wait for that very checkpoint (a full log).
     */
    public void trimSoon(long waitMillis) {
        try {
            executor.submit(() -> trim(tables.get())).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | RejectedExecutionException e) {
            // Flush what there is; the trim finishes after the checkpoint, or the engine is closing.
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StorageUnavailableException) {
                log.debug("change feed trim before a checkpoint refused by the store", e.getCause());
            } else {
                log.warn("change feed trim before a checkpoint failed", e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static long periodFromProperties() {
        return Long.getLong("partita.feed.trimMillis", DEFAULT_PERIOD_MILLIS);
    }

    /**
     * Trims every shard of {@code tables} now; returns how many sequence numbers the floors moved past (records and
     * the holes of failed writes). One trim at a time: two at once could each save a floor, the lower one last.
     */
    public synchronized long trim(Collection<Table> tables) {
        long started = System.nanoTime();
        long now = feed.clock().millis();
        long deleted = 0;
        for (Table t : tables) {
            List<FeedShard> shards = feed.shards(t);
            Set<String> present = new HashSet<>();
            shards.forEach(s -> present.add(s.partitionId()));
            for (FeedShard s : shards) {
                deleted += trim(t, s, now);
                // Oldest first, and only once the parent is gone: a child names its parent, and a consumer must find
                // every ancestor still unread (FeedConsumer.mayRead).
                if (s.drained()
                        && s.floor() >= s.visible() - 1
                        && t.partitions().retired().contains(s)
                        && !present.contains(s.parentId())) {
                    forget(t, s);
                    present.remove(s.partitionId());
                }
            }
        }
        if (deleted > 0) {
            log.info(
                    "trimmed {} change records (and holes) in {} ms",
                    deleted,
                    (System.nanoTime() - started) / 1_000_000);
        }
        return deleted;
    }

    /** Trims one shard up to what its consumers still need; returns how many numbers its floor moved past. */
    private long trim(Table table, FeedShard shard, long now) {
        long through = shard.visible() - 1;
        boolean drained = shard.drained();
        for (FeedConsumer c : table.feed().consumers()) {
            // A consumer's position is its last record: one that has finished a drained shard has read through the
            // holes after it too, else a shard ending in a failed write's number could never be forgotten.
            long read = drained && c.finished(shard) ? through : c.position(shard);
            if (c.retention() != null) {
                read = Math.max(
                        read, expiredThrough(table, shard, now - c.retention().toMillis()));
            }
            through = Math.min(through, read);
        }
        long floor = shard.floor();
        if (through <= floor) {
            return 0;
        }
        long last = through;
        String id = table.metadata().id();
        byte[] prefix = FeedKeys.shard(id, shard.number());
        // Raised before the records go: a reader checking the floor after its read (a stream's) then never mistakes
        // records the tombstone removed under it for records that were never there.
        shard.trimmedThrough(last);
        feed.store().write(batch -> {
            try {
                batch.deleteRange(
                        feed.changelog(), FeedKeys.record(prefix, floor + 1), FeedKeys.record(prefix, last + 1));
                batch.put(feed.meta(), FeedKeys.floor(id, shard.number()), FeedKeys.longValue(last));
            } catch (RocksDBException e) {
                throw new StorageException("change feed trim failed", e);
            }
        });
        return last - floor;
    }

    /**
     * The number of the last record of {@code shard} committed before {@code cutoffMillis}, reading from the floor
     * up to the first younger one (numbers and times rise together, up to the few writes committing at once).
     */
    private long expiredThrough(Table table, FeedShard shard, long cutoffMillis) {
        long[] last = {shard.floor()};
        byte[] prefix = FeedKeys.shard(table.metadata().id(), shard.number());
        feed.store()
                .range(
                        feed.changelog(),
                        FeedKeys.record(prefix, shard.floor() + 1),
                        FeedKeys.record(prefix, shard.visible()),
                        true,
                        (k, v) -> {
                            if (ChangeRecord.timeOf(v) >= cutoffMillis) {
                                return false;
                            }
                            last[0] = FeedKeys.sequenceOf(k);
                            return true;
                        });
        return last[0];
    }

    /** Forgets a drained, empty shard of a split partition: its floor and positions, then its place in the map. */
    private void forget(Table table, FeedShard shard) {
        String id = table.metadata().id();
        byte[] positions = FeedKeys.positions(id, shard.number());
        feed.store().write(batch -> {
            try {
                batch.delete(feed.meta(), FeedKeys.floor(id, shard.number()));
                batch.deleteRange(feed.meta(), positions, FeedKeys.after(positions));
            } catch (RocksDBException e) {
                throw new StorageException("change feed trim failed", e);
            }
        });
        for (FeedConsumer c : table.feed().consumers()) {
            c.forget(shard.partitionId());
        }
        table.partitions().forgetRetired(shard);
    }

    @Override
    public void close() {
        BackgroundThreads.stop(executor);
    }
}
