package io.partita.storage.index;

import io.partita.storage.feed.FeedFollower;
import io.partita.storage.partition.TablePartitions;
import org.HdrHistogram.SynchronizedHistogram;
import org.rocksdb.ColumnFamilyHandle;

/**
 * One secondary index of a live table: its definition, its rows' column family, and for a GSI its own partitions and
 * throughput (an LSI shares the table's) and the follower that applies it.
 */
public final class LiveIndex {
    private final IndexDefinition definition;
    private final ColumnFamilyHandle family;
    private final TablePartitions partitions;
    private final Runtime runtime;

    /** What outlives a change of definition: the injected lag, the follower, the lag measured. */
    private static final class Runtime {
        /** The delay added before this GSI applies a change, in milliseconds; negative: the engine's default. */
        volatile long lagMillis = -1;

        volatile FeedFollower follower;
        /** How long after its commit each change reached the index, in milliseconds. */
        final SynchronizedHistogram applyDelays = new SynchronizedHistogram(3_600_000L, 2);
        /** Items a backfill has read so far. */
        volatile long backfilled;
        /** Per shard, the last number handed out when the backfill's copy ended (null: no catch-up pending). */
        volatile java.util.Map<String, Long> catchUpTarget;
    }

    public LiveIndex(IndexDefinition definition, ColumnFamilyHandle family, TablePartitions partitions) {
        this(definition, family, partitions, new Runtime());
    }

    private LiveIndex(IndexDefinition definition, ColumnFamilyHandle family, TablePartitions partitions, Runtime r) {
        this.definition = definition;
        this.family = family;
        this.partitions = partitions;
        this.runtime = r;
    }

    public IndexDefinition definition() {
        return definition;
    }

    public String name() {
        return definition.name();
    }

    public boolean global() {
        return definition.global();
    }

    public ColumnFamilyHandle family() {
        return family;
    }

    /** A GSI's own partitions and throughput; null for an LSI, which consumes the table's. */
    public TablePartitions partitions() {
        return partitions;
    }

    /** The delay this GSI adds before applying a change, in milliseconds; negative: the engine's default. */
    public long lagMillis() {
        return runtime.lagMillis;
    }

    /** Sets the delay this GSI adds before applying a change; negative returns to the engine's default. */
    public void lagMillis(long millis) {
        runtime.lagMillis = millis;
    }

    /** The follower applying this GSI, or null (an LSI, or before it starts). */
    public FeedFollower follower() {
        return runtime.follower;
    }

    void follower(FeedFollower f) {
        runtime.follower = f;
    }

    /** How long after its commit each change this GSI applied reached it, in milliseconds. */
    public SynchronizedHistogram applyDelays() {
        return runtime.applyDelays;
    }

    /** How many of the table's items this GSI's backfill has read. */
    public long backfilled() {
        return runtime.backfilled;
    }

    void backfilled(long n) {
        runtime.backfilled = n;
    }

    /**
     * Per shard (partition id), the highest change number handed out when this GSI's backfill finished copying: it
     * looks rows up, and stays CREATING, until it has applied every change up to them. Null once active.
     */
    public java.util.Map<String, Long> catchUpTarget() {
        return runtime.catchUpTarget;
    }

    void catchUpTarget(java.util.Map<String, Long> target) {
        runtime.catchUpTarget = target == null ? null : java.util.Map.copyOf(target);
    }

    /** The same index with a changed definition (status, throughput), keeping its rows, partitions and follower. */
    public LiveIndex with(IndexDefinition next) {
        return new LiveIndex(next, family, partitions, runtime);
    }
}
