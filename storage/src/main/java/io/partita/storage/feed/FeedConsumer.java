package io.partita.storage.feed;

import io.partita.storage.table.TableCatalog.Table;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A registered reader of one table's change feed (a GSI's applier, a stream, an event-source mapping). It keeps,
 * durably, how far it has read each shard; the feed is trimmed only behind the slowest consumer's position, and, for
 * a consumer with a retention, also behind records older than it (a stream keeps its records 24 hours, whether read
 * or not). To see each item's changes in order across splits, read a shard only when {@link #mayRead} says so: once
 * its ancestors are {@linkplain #finished finished}.
 *
 * <p>A consumer starts after the records that were visible when it registered; shards created later (by splits) are
 * read from their beginning. Positions are saved with {@link #commit}: after a restart the consumer resumes from the
 * last saved one, so it sees every record at least once (exactly once if it commits its own effects in the same
 * batch, as the GSI applier will).
 */
public final class FeedConsumer {
    private final ChangeFeed feed;
    private final Table table;
    private final String name;
    private final Duration retention;
    /** Saved positions by partition id: the number of the last record read. */
    private final Map<String, Long> positions = new ConcurrentHashMap<>();

    FeedConsumer(ChangeFeed feed, Table table, String name, Duration retention) {
        this.feed = feed;
        this.table = table;
        this.name = name;
        this.retention = retention;
    }

    public String name() {
        return name;
    }

    public Table table() {
        return table;
    }

    /** How long the feed keeps records for this consumer whether it has read them or not; null: until it has. */
    public Duration retention() {
        return retention;
    }

    /** The number of the last record of {@code shard} this consumer has committed; 0 for none. */
    public long position(FeedShard shard) {
        return positions.getOrDefault(shard.partitionId(), 0L);
    }

    void positionLoaded(String partitionId, long sequence) {
        positions.put(partitionId, sequence);
    }

    /** Up to {@code limit} records of {@code shard} after this consumer's position, in order. */
    public List<ChangeRecord> read(FeedShard shard, int limit) {
        return feed.read(table, shard, position(shard), limit);
    }

    /**
     * Saves that this consumer has read {@code shard} up to and including {@code sequence}; a lower position than the
     * saved one is ignored.
     */
    public synchronized void commit(FeedShard shard, long sequence) {
        if (sequence <= position(shard)) {
            return;
        }
        feed.savePositions(table, name, Map.of(shard, sequence));
        positions.put(shard.partitionId(), sequence);
    }

    /** As {@link #commit(FeedShard, long)} for several shards at once, in one batch; lower positions are ignored. */
    public synchronized void commit(Map<FeedShard, Long> read) {
        Map<FeedShard, Long> forward = new java.util.HashMap<>();
        read.forEach((shard, sequence) -> {
            if (sequence > position(shard)) {
                forward.put(shard, sequence);
            }
        });
        if (forward.isEmpty()) {
            return;
        }
        feed.savePositions(table, name, forward);
        forward.forEach((shard, sequence) -> positions.put(shard.partitionId(), sequence));
    }

    /**
     * Adds this consumer's position {@code sequence} in {@code shard} to {@code batch}, for a sink that commits its own
     * effects in the same batch (exactly once); call {@link #positionSaved} once the batch has committed.
     */
    void savePosition(org.rocksdb.WriteBatch batch, FeedShard shard, long sequence)
            throws org.rocksdb.RocksDBException {
        batch.put(
                feed.meta(),
                FeedKeys.position(table.metadata().id(), shard.number(), name),
                FeedKeys.longValue(sequence));
    }

    void positionSaved(FeedShard shard, long sequence) {
        positions.merge(shard.partitionId(), sequence, Math::max);
    }

    /**
     * Whether this consumer may read {@code shard} without meeting an item's change before an earlier one: every
     * ancestor of it still in {@code shards} (the feed's shards, read once) is finished. An ancestor that split again
     * before it had a record is finished at once, so its own parent must be checked too.
     */
    public boolean mayRead(FeedShard shard, List<FeedShard> shards) {
        Map<String, FeedShard> byId = new java.util.HashMap<>();
        for (FeedShard s : shards) {
            byId.put(s.partitionId(), s);
        }
        for (FeedShard a = byId.get(shard.parentId()); a != null; a = byId.get(a.parentId())) {
            if (!finished(a)) {
                return false;
            }
        }
        return true;
    }

    /** Whether this consumer has read every record {@code shard} will ever have (the shard is closed and drained). */
    public boolean finished(FeedShard shard) {
        return shard.drained() && read(shard, 1).isEmpty();
    }

    void forget(String partitionId) {
        positions.remove(partitionId);
    }
}
