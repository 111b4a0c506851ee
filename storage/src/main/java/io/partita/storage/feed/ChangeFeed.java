package io.partita.storage.feed;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.storage.StorageException;
import io.partita.storage.item.KeyLocks;
import io.partita.storage.key.ByteSink;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.BatchContributor;
import io.partita.storage.write.CommitOutcome;
import io.partita.storage.write.ItemChange;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered, durable feed of committed item changes that GSIs, Streams and event-source mappings read.
 *
 * <ul>
 *   <li><b>Same batch.</b> A table with a consumer {@linkplain TableFeed#recording records}: each of its writes adds
 *       a {@link ChangeRecord} (old and new image, sizes, cause, time) to the batch that commits the change, through
 *       {@link #recorder()}. No acknowledged write is missing from the feed, and no record exists for a write that did
 *       not commit, across a crash at any moment: the batch is in the log whole or not at all (see {@link
 *       CommitOutcome#UNKNOWN} for a commit that fails after reaching it).
 *   <li><b>Numbered per partition.</b> Each partition has its own sequence ({@link FeedShard}), because a partition
 *       is the unit DynamoDB Streams shards follow and that replication will follow (one Raft group per partition,
 *       whose log index orders it). A split closes the parent's sequence and opens the children's.
 *   <li><b>Visible in order.</b> Reads stop at each shard's watermark, below which every numbered write has
 *       finished, so a reader never meets a lower number after reading past it.
 *   <li><b>Trimmed behind its consumers.</b> See {@link FeedTrimmer}.
 * </ul>
 *
 * <p>Keys and values: {@link FeedKeys}, {@link ChangeRecord}.
 */
public final class ChangeFeed {
    private static final Logger log = LoggerFactory.getLogger(ChangeFeed.class);

    /** Consumer names: what a GSI or stream id needs, and nothing that could break a key. */
    private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,255}");

    /** Each thread's buffer for the record it is adding to a batch. */
    private static final ThreadLocal<ByteSink> RECORD = ThreadLocal.withInitial(() -> new ByteSink(4096));

    private final RocksStore store;
    private final ColumnFamilyHandle changelog;
    private final ColumnFamilyHandle meta;
    private final KeyLocks locks;
    private final Clock clock;
    private final BatchContributor recorder = new Recorder();

    /**
     * A consumer's registration, stored as JSON; {@code retentionMillis} -1 for none. {@code discard}: the engine
     * itself follows the consumer and discards its records ({@link #followDiscarding}), again after a restart.
     */
    record Registration(long retentionMillis, boolean discard) {}

    public ChangeFeed(RocksStore store, KeyLocks locks, Clock clock) {
        this.store = store;
        this.changelog = store.family(RocksStore.CHANGELOG);
        this.meta = store.family(RocksStore.FEED);
        this.locks = locks;
        this.clock = clock;
    }

    Clock clock() {
        return clock;
    }

    RocksStore store() {
        return store;
    }

    ColumnFamilyHandle changelog() {
        return changelog;
    }

    ColumnFamilyHandle meta() {
        return meta;
    }

    /** The write path's contributor that numbers each change of a recording table and adds its record. */
    public BatchContributor recorder() {
        return recorder;
    }

    private final class Recorder implements BatchContributor {
        @Override
        public void contribute(WriteBatch batch, ItemChange change) throws RocksDBException {
            Table table = change.table();
            FeedShard shard;
            long n;
            do {
                // A closed shard refuses: its partition has split since the lookup, and the map has its child.
                shard = table.partitions().partitionFor(change.partitionHash()).shard();
                n = shard.begin();
            } while (n < 0);
            change.sequenced(shard, n);
            ByteSink value = ChangeRecord.encode(
                    RECORD.get().clear(),
                    change.cause(),
                    clock.millis(),
                    change.key(),
                    change.oldStored(),
                    change.newStored(),
                    change.oldSize(),
                    change.newSize());
            byte[] key = FeedKeys.record(FeedKeys.shard(table.metadata().id(), shard.number()), n);
            RocksStore.put(batch, changelog, key, value);
        }

        @Override
        public void finished(ItemChange change, CommitOutcome outcome) {
            if (change.shard() == null) {
                return;
            }
            if (outcome == CommitOutcome.UNKNOWN) {
                // Replay may bring the record back, below where consumers would have read past a hole: the shard's
                // watermark stays here until a restart settles it.
                log.error(
                        "a write failed after it may have reached the log; the change feed of {} shard {} stops at {}"
                                + " until a restart",
                        change.table().metadata().name(),
                        change.shard().partitionId(),
                        change.sequence());
                return;
            }
            change.shard().end(change.sequence());
        }
    }

    /**
     * Up to {@code limit} records of {@code shard} numbered above {@code after}, in order, none at or above the
     * shard's watermark; records trimmed away are skipped.
     */
    public List<ChangeRecord> read(Table table, FeedShard shard, long after, int limit) {
        long visible = shard.visible();
        long from = Math.max(after, shard.floor()) + 1;
        List<ChangeRecord> out = new ArrayList<>();
        if (from >= visible || limit <= 0) {
            return out;
        }
        byte[] prefix = FeedKeys.shard(table.metadata().id(), shard.number());
        store.range(changelog, FeedKeys.record(prefix, from), FeedKeys.record(prefix, visible), true, (k, v) -> {
            out.add(ChangeRecord.decode(shard.partitionId(), FeedKeys.sequenceOf(k), v));
            return out.size() < limit;
        });
        return out;
    }

    /** The shards of a table's feed: those of split partitions still kept, oldest first, then the current ones. */
    public List<FeedShard> shards(Table table) {
        return table.partitions().shards();
    }

    /**
     * Registers a consumer of {@code table}'s changes, or returns the one registered under {@code name}. It starts
     * after every record visible now. The table records from the moment this returns: it turns recording on, then
     * waits for every write in flight (which may have read the old setting) to finish ({@link KeyLocks#barrier}), so
     * a change that commits after this returns always has its record. Never call it on an event loop.
     *
     * @param retention how long records are kept for it whether it has read them or not; null: until it has
     */
    public FeedConsumer register(Table table, String name, Duration retention) {
        return register(table, name, retention, false);
    }

    /**
     * Registers a consumer that the engine follows itself, discarding its records as they become visible: a table
     * whose changes are consumed as fast as they come, for benchmarks and for watching a feed's lag. It survives a
     * restart like any consumer, and its following with it.
     */
    public FeedConsumer followDiscarding(Table table, String name) {
        return register(table, name, null, true);
    }

    private FeedConsumer register(Table table, String name, Duration retention, boolean discard) {
        if (name == null || !CONSUMER_NAME.matcher(name).matches()) {
            throw ApiException.validation("Invalid consumer name: " + name);
        }
        if (retention != null && (retention.isNegative() || retention.isZero())) {
            throw ApiException.validation("A consumer's retention must be positive: " + retention);
        }
        TableFeed tf = table.feed();
        synchronized (tf) {
            if (tf.closed()) {
                throw ApiException.resourceNotFound("Requested resource not found: Table: "
                        + table.metadata().name() + " not found");
            }
            FeedConsumer existing = tf.consumer(name);
            if (existing != null) {
                return existing;
            }
            FeedConsumer c = new FeedConsumer(this, table, name, retention);
            String id = table.metadata().id();
            byte[] registration = json(new Registration(retention == null ? -1 : retention.toMillis(), discard));
            List<FeedShard> shards = shards(table);
            long[] starts = new long[shards.size()];
            store.write(batch -> {
                try {
                    batch.put(meta, FeedKeys.consumer(id, name), registration);
                    for (int i = 0; i < shards.size(); i++) {
                        starts[i] = shards.get(i).visible() - 1;
                        batch.put(
                                meta,
                                FeedKeys.position(id, shards.get(i).number(), name),
                                FeedKeys.longValue(starts[i]));
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("consumer registration failed", e);
                }
            });
            for (int i = 0; i < shards.size(); i++) {
                c.positionLoaded(shards.get(i).partitionId(), starts[i]);
            }
            tf.add(c);
            if (!tf.recording()) {
                tf.recording(true);
                locks.barrier();
            }
            if (discard) {
                tf.follow(new FeedFollower(this, c, FeedFollower.discarding()).start());
            }
            return c;
        }
    }

    /**
     * Starts the engine's own follower of consumer {@code name} of {@code table}, applying into {@code sink}; it stops
     * when the consumer is removed or the table's feed closes. Returns the running follower (an existing one if any).
     */
    public FeedFollower follow(Table table, String name, FeedFollower.BatchSink sink) {
        TableFeed tf = table.feed();
        synchronized (tf) {
            FeedConsumer c = tf.consumer(name);
            if (c == null || tf.closed()) {
                throw new IllegalStateException(
                        "no consumer " + name + " of " + table.metadata().name());
            }
            FeedFollower running = tf.follower(name);
            if (running != null) {
                return running;
            }
            FeedFollower f = new FeedFollower(this, c, sink).start();
            tf.follow(f);
            return f;
        }
    }

    /** Removes a consumer and its positions; a table left without consumers stops recording. */
    public void unregister(Table table, String name) {
        TableFeed tf = table.feed();
        synchronized (tf) {
            if (tf.consumer(name) == null) {
                return;
            }
            tf.stopFollowing(name);
            String id = table.metadata().id();
            byte[] positionsPrefix = FeedKeys.meta(FeedKeys.POSITION, id);
            List<byte[]> positionKeys = new ArrayList<>();
            store.range(meta, positionsPrefix, FeedKeys.after(positionsPrefix), true, (k, v) -> {
                if (FeedKeys.suffix(k, positionsPrefix.length + 4).equals(name)) {
                    positionKeys.add(k);
                }
                return true;
            });
            store.write(batch -> {
                try {
                    batch.delete(meta, FeedKeys.consumer(id, name));
                    for (byte[] k : positionKeys) {
                        batch.delete(meta, k);
                    }
                } catch (RocksDBException e) {
                    throw new StorageException("consumer removal failed", e);
                }
            });
            if (tf.remove(name)) {
                tf.recording(false);
            }
        }
    }

    void savePositions(Table table, String name, Map<FeedShard, Long> positions) {
        String id = table.metadata().id();
        store.write(batch -> {
            try {
                for (Map.Entry<FeedShard, Long> p : positions.entrySet()) {
                    batch.put(meta, FeedKeys.position(id, p.getKey().number(), name), FeedKeys.longValue(p.getValue()));
                }
            } catch (RocksDBException e) {
                throw new StorageException("consumer position write failed", e);
            }
        });
    }

    /**
     * Brings a table's feed back after opening: the consumers come back with their saved positions (and with them,
     * recording), and each shard numbers on after the highest number it has stored: its last record, its trim floor,
     * or a consumer's position, which can be a number whose write failed (a consumer registers after what was visible,
     * holes included) and must not be handed out again.
     */
    public void recover(Table table) {
        String id = table.metadata().id();
        TableFeed tf = table.feed();
        List<FeedConsumer> discarding = new ArrayList<>();
        byte[] consumers = FeedKeys.meta(FeedKeys.CONSUMER, id);
        store.range(meta, consumers, FeedKeys.after(consumers), true, (k, v) -> {
            Registration r = registration(v);
            Duration retention = r.retentionMillis() < 0 ? null : Duration.ofMillis(r.retentionMillis());
            FeedConsumer c = new FeedConsumer(this, table, FeedKeys.suffix(k, consumers.length), retention);
            tf.add(c);
            if (r.discard()) {
                discarding.add(c);
            }
            return true;
        });
        Map<String, Long> highestPosition = new java.util.HashMap<>();
        byte[] positions = FeedKeys.meta(FeedKeys.POSITION, id);
        store.range(meta, positions, FeedKeys.after(positions), true, (k, v) -> {
            String shard = Integer.toString(FeedKeys.shardOf(k, positions.length));
            long at = FeedKeys.longOf(v);
            highestPosition.merge(shard, at, Math::max);
            FeedConsumer c = tf.consumer(FeedKeys.suffix(k, positions.length + 4));
            if (c != null) {
                c.positionLoaded(shard, at);
            }
            return true;
        });
        for (FeedShard s : shards(table)) {
            byte[] prefix = FeedKeys.shard(id, s.number());
            long[] last = {highestPosition.getOrDefault(s.partitionId(), 0L)};
            store.range(changelog, prefix, FeedKeys.after(prefix), false, (k, v) -> {
                last[0] = Math.max(last[0], FeedKeys.sequenceOf(k));
                return false;
            });
            byte[] floor = store.get(meta, FeedKeys.floor(id, s.number()));
            s.recover(last[0], floor == null ? 0 : FeedKeys.longOf(floor));
        }
        tf.recording(!tf.consumers().isEmpty());
        for (FeedConsumer c : discarding) {
            tf.follow(new FeedFollower(this, c, FeedFollower.discarding()).start());
        }
    }

    /** Adds the deletion of everything the feed keeps for a table to {@code batch} (the table's own deletion). */
    public void dropTable(WriteBatch batch, String tableId) throws RocksDBException {
        byte[] records = FeedKeys.table(tableId);
        batch.deleteRange(changelog, records, FeedKeys.after(records));
        for (byte kind : new byte[] {FeedKeys.CONSUMER, FeedKeys.POSITION, FeedKeys.FLOOR}) {
            byte[] prefix = FeedKeys.meta(kind, tableId);
            batch.deleteRange(meta, prefix, FeedKeys.after(prefix));
        }
    }

    /**
     * Deletes what the feed keeps for tables that no longer exist: a write or a consumer's commit still in flight when
     * its table was deleted can add a record or a position after the table's own deletion removed the rest.
     */
    public void dropOrphans(Set<String> liveTableIds) {
        Set<String> orphans = new java.util.TreeSet<>(orphans(changelog, new byte[0], liveTableIds));
        for (byte kind : new byte[] {FeedKeys.CONSUMER, FeedKeys.POSITION, FeedKeys.FLOOR}) {
            orphans.addAll(orphans(meta, new byte[] {kind}, liveTableIds));
        }
        if (orphans.isEmpty()) {
            return;
        }
        store.write(batch -> {
            try {
                for (String id : orphans) {
                    dropTable(batch, id);
                }
            } catch (RocksDBException e) {
                throw new StorageException("orphaned feed removal failed", e);
            }
        });
    }

    /** The ids of tables not in {@code live} that have keys under {@code kind} ‖ table in {@code cf}, one seek each. */
    private List<String> orphans(ColumnFamilyHandle cf, byte[] kind, Set<String> live) {
        List<String> found = new ArrayList<>();
        byte[] end = kind.length == 0 ? null : FeedKeys.after(kind);
        byte[] start = kind;
        while (start != null) {
            String[] id = {null};
            store.range(cf, start, end, true, (k, v) -> {
                id[0] = FeedKeys.tableIdOf(java.util.Arrays.copyOfRange(k, kind.length, k.length));
                return false;
            });
            if (id[0] == null) {
                break;
            }
            if (!live.contains(id[0])) {
                found.add(id[0]);
            }
            byte[] prefix = FeedKeys.table(id[0]);
            byte[] next = new byte[kind.length + prefix.length];
            System.arraycopy(kind, 0, next, 0, kind.length);
            System.arraycopy(prefix, 0, next, kind.length, prefix.length);
            start = FeedKeys.after(next);
        }
        return found;
    }

    /**
     * Closes the feeds of {@code tables}, which the engine is closing or deleting: no consumer registers any more, and
     * the engine's followers stop.
     */
    public void close(Iterable<Table> tables) {
        for (Table t : tables) {
            t.feed().close();
        }
    }

    private static byte[] json(Registration r) {
        try {
            return DynamoJson.mapper().writeValueAsBytes(r);
        } catch (IOException e) {
            throw new StorageException("cannot encode a consumer registration", e);
        }
    }

    private static Registration registration(byte[] json) {
        try {
            return DynamoJson.mapper().readValue(json, Registration.class);
        } catch (IOException e) {
            throw new StorageException("corrupt consumer registration", e);
        }
    }
}
