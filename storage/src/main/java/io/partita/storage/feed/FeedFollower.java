package io.partita.storage.feed;

import io.partita.storage.BackgroundThreads;
import io.partita.storage.StorageException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a consumer's records as they become visible and hands each page to a {@link Sink}, committing the consumer's
 * position after the sink has taken it: the loop a GSI's applier runs, or any consumer that keeps up with its table.
 *
 * <p>It reads a shard only once its ancestors are finished ({@link FeedConsumer#mayRead}), so the sink sees each
 * item's changes in commit order across splits. {@link #poll} reads until nothing more is visible; {@link #start} polls on a thread of
 * its own, resting {@value #IDLE_MICROS} µs between polls.
 */
public final class FeedFollower implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedFollower.class);
    static final int PAGE = 500;
    static final long IDLE_MICROS = Long.getLong("partita.feed.followMicros", 5000);

    /** Receives one page of one shard's records, in order; the position is committed once it returns. */
    @FunctionalInterface
    public interface Sink {
        void accept(FeedShard shard, List<ChangeRecord> page);
    }

    /**
     * Applies records into the batch that also saves the consumer's position, so that each record's effects commit
     * exactly once, across crashes: what a GSI's applier is.
     */
    public interface BatchSink {
        /** How many of {@code page}'s first records may be applied now (a sink may hold records back); default all. */
        default int ready(FeedShard shard, List<ChangeRecord> page, boolean draining) {
            return page.size();
        }

        /** Adds the effects of {@code records} to {@code batch}. */
        void apply(FeedShard shard, List<ChangeRecord> records, WriteBatch batch) throws RocksDBException;

        /** Called once {@code records}' batch has committed. */
        default void committed(FeedShard shard, List<ChangeRecord> records) {}
    }

    private final ChangeFeed feed;
    private final FeedConsumer consumer;
    private final Sink sink;
    private final BatchSink batchSink;
    /** Held by every pass, so a drain and the follower's own thread never apply a record twice. */
    private final Object passes = new Object();

    private final AtomicLong records = new AtomicLong();
    private volatile ExecutorService thread;
    private volatile boolean stopped;

    public FeedFollower(ChangeFeed feed, FeedConsumer consumer, Sink sink) {
        this.feed = feed;
        this.consumer = consumer;
        this.sink = sink;
        this.batchSink = null;
    }

    public FeedFollower(ChangeFeed feed, FeedConsumer consumer, BatchSink sink) {
        this.feed = feed;
        this.consumer = consumer;
        this.sink = null;
        this.batchSink = sink;
    }

    public FeedConsumer consumer() {
        return consumer;
    }

    /** Records handed to the sink and committed so far. */
    public long records() {
        return records.get();
    }

    /**
     * Hands every record visible now that the consumer has not read to the sink, shard by shard, parents before
     * children, and then commits how far it got, for all shards in one batch; returns how many it handed over.
     */
    public long poll() {
        synchronized (passes) {
            return batchSink != null ? pollBatches(false) : pollPages();
        }
    }

    /**
     * Applies every record visible now, including those the sink would hold back, and returns how many; what a test
     * that waits for its indexes calls. Records that become visible meanwhile may be applied too.
     */
    public long drain() {
        synchronized (passes) {
            return batchSink != null ? pollBatches(true) : pollPages();
        }
    }

    private long pollBatches(boolean draining) {
        long handed = 0;
        boolean progress = true;
        while (progress && !stopped) {
            progress = false;
            List<FeedShard> shards = feed.shards(consumer.table());
            for (FeedShard s : shards) {
                if (!consumer.mayRead(s, shards)) {
                    continue;
                }
                long n = applyShard(s, draining);
                if (n > 0) {
                    handed += n;
                    // A parent read to its end now lets its children be read in the next round.
                    progress = true;
                }
            }
        }
        records.addAndGet(handed);
        return handed;
    }

    /** Applies one shard's ready records a page at a time, each page in one batch with the position. */
    private long applyShard(FeedShard s, boolean draining) {
        long handed = 0;
        List<ChangeRecord> page;
        do {
            page = feed.read(consumer.table(), s, consumer.position(s), PAGE);
            int ready = page.isEmpty() ? 0 : batchSink.ready(s, page, draining);
            if (ready == 0) {
                break;
            }
            List<ChangeRecord> taken = ready == page.size() ? page : page.subList(0, ready);
            long last = taken.get(taken.size() - 1).sequence();
            feed.store().write(batch -> {
                try {
                    batchSink.apply(s, taken, batch);
                    consumer.savePosition(batch, s, last);
                } catch (RocksDBException e) {
                    throw new StorageException("applying " + consumer.name() + " failed", e);
                }
            });
            consumer.positionSaved(s, last);
            batchSink.committed(s, taken);
            handed += ready;
            if (ready < page.size()) {
                break;
            }
        } while (page.size() == PAGE && !stopped);
        return handed;
    }

    private long pollPages() {
        long handed = 0;
        long counted = 0;
        boolean progress = true;
        while (progress && !stopped) {
            progress = false;
            List<FeedShard> shards = feed.shards(consumer.table());
            Map<FeedShard, Long> read = new HashMap<>();
            for (FeedShard s : shards) {
                if (!consumer.mayRead(s, shards)) {
                    continue;
                }
                long after = consumer.position(s);
                List<ChangeRecord> page;
                do {
                    page = feed.read(consumer.table(), s, after, PAGE);
                    if (!page.isEmpty()) {
                        sink.accept(s, page);
                        after = page.get(page.size() - 1).sequence();
                        read.put(s, after);
                        handed += page.size();
                    }
                } while (page.size() == PAGE && !stopped);
            }
            if (!read.isEmpty()) {
                // A parent read to its end now lets its children be read in the next round.
                consumer.commit(read);
                records.addAndGet(handed - counted);
                counted = handed;
                progress = true;
            }
        }
        return handed;
    }

    /** Follows on a thread of its own until {@link #close}. */
    public FeedFollower start() {
        ExecutorService t = Executors.newSingleThreadExecutor(BackgroundThreads.named(
                "partita-feed-follow-" + consumer.table().metadata().name() + "/" + consumer.name()));
        thread = t;
        t.execute(() -> {
            while (!stopped) {
                try {
                    // Resting after each pass lets records gather into pages: a consumer this close behind (a
                    // millisecond) costs a read and a commit per page rather than per record.
                    poll();
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(IDLE_MICROS));
                } catch (RuntimeException e) {
                    if (stopped) {
                        return;
                    }
                    if (e instanceof io.partita.storage.StorageUnavailableException u && !u.mayHaveBeenWritten()) {
                        // Refused before anything was written (a full disk): the same page again later is safe.
                        log.debug("applying {} waits: {}", consumer.name(), e.getMessage());
                        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                        continue;
                    }
                    if (batchSink != null) {
                        // The failed batch may have reached the log: applying the page again now could apply it
                        // twice once replay brings the first back. After a restart, the log says which it was.
                        log.error("applying {} failed; it stops until a restart", consumer.name(), e);
                        stopped = true;
                        return;
                    }
                    log.warn("following {} failed; trying again in a second", consumer.name(), e);
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                }
            }
        });
        return this;
    }

    /** Records as they come, discarded: what a consumer that keeps up costs, and nothing more. */
    public static Sink discarding() {
        return (shard, page) -> {};
    }

    /** The records of every pass, collected (for tests). */
    public static Sink collecting(List<ChangeRecord> into) {
        return (shard, page) -> into.addAll(new ArrayList<>(page));
    }

    @Override
    public void close() {
        stopped = true;
        ExecutorService t = thread;
        if (t != null) {
            BackgroundThreads.stop(t);
        }
    }
}
