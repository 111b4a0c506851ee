package io.partita.storage.partition;

import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.PartitionThroughput;
import io.partita.storage.capacity.TableThroughput;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.capacity.ThrottleLog;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.capacity.TokenBucket;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.table.HashRange;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A table's physical side: its {@link PartitionMap}, the table budget, and the admission and charging of every
 * request against both (DESIGN.md, "Partitions and capacity").
 *
 * <p>A request is first {@linkplain #admit admitted} on the partition that holds its key, then {@linkplain #charge
 * charged} what it actually consumed. A provisioned partition admits while its ceiling bucket is positive and either
 * its share of the provisioned rate or, with adaptive capacity, the table's unused capacity is positive. An on-demand
 * partition admits while its ceiling, the table's peak-scaling bucket, its {@code OnDemandThroughput} maximum and the
 * account quota are all positive.
 */
public final class TablePartitions {
    /** Receives split requests (run in the background) and new maps to persist. */
    public interface Listener {
        void splitWanted(TablePartitions table, Partition partition, SplitReason reason);

        /** Persists {@code map}, which replaces the current one once this returns; a failure leaves it out. */
        void mapChanged(TablePartitions table, PartitionMap map, int nextId);
    }

    public enum SplitReason {
        SIZE,
        HEAT,
        THROUGHPUT
    }

    /** A split that happened, for the metrics. */
    public record SplitEvent(long atMillis, String parentId, String leftId, String rightId, SplitReason reason) {}

    private final CapacityConfig config;
    private final Listener listener;
    private volatile TableMetadata metadata;
    private volatile TableThroughput table;
    private volatile PartitionMap map;
    private int nextId;
    private final List<SplitEvent> splits = new ArrayList<>();
    /** The first throttle at WARN, then a line a minute (capacity.ThrottleLog). */
    private final ThrottleLog throttleLog;
    /**
     * The hashes of the table's partition key this store holds (its metadata's, or a GSI's table's): null for all.
     * Its partitions' budgets and ceilings are their part of the table's ({@link #heldOf}).
     */
    private volatile HashRange held;
    /** Whether these are a GSI's partitions, which cut the index's hashes, not the table's. */
    private final boolean index;

    /** A table with the partitions DynamoDB would give it, or with {@code persisted} ranges when there are some. */
    public TablePartitions(
            TableMetadata metadata,
            CapacityConfig config,
            Listener listener,
            List<PersistedPartition> persisted,
            List<PersistedPartition> persistedRetired,
            int persistedNextId,
            long tableSizeBytes) {
        this(
                metadata,
                config,
                listener,
                persisted,
                persistedRetired,
                persistedNextId,
                tableSizeBytes,
                metadata.hashRange(),
                false);
    }

    /**
     * A GSI's partitions: {@code persisted} of the index's hashes, with table-shaped metadata {@code view}, in a store
     * that holds {@code held} of its table's hashes (null: all), and so that part of each budget.
     */
    public static TablePartitions ofIndex(
            TableMetadata view,
            HashRange held,
            CapacityConfig config,
            Listener listener,
            List<PersistedPartition> persisted,
            int persistedNextId) {
        return new TablePartitions(view, config, listener, persisted, null, persistedNextId, 0, held, true);
    }

    private TablePartitions(
            TableMetadata metadata,
            CapacityConfig config,
            Listener listener,
            List<PersistedPartition> persisted,
            List<PersistedPartition> persistedRetired,
            int persistedNextId,
            long tableSizeBytes,
            HashRange held,
            boolean index) {
        this.config = config;
        this.listener = listener;
        this.metadata = metadata;
        this.held = held;
        this.index = index;
        this.throttleLog = new ThrottleLog(metadata.name());
        this.table = newTableThroughput(metadata);
        long now = config.clock().millis();
        List<Partition> parts = new ArrayList<>();
        if (persisted == null || persisted.isEmpty()) {
            int n = Math.max(initialCount(metadata), (int) Math.min(
                    1024, (tableSizeBytes + config.partitionSizeLimitBytes() - 1) / config.partitionSizeLimitBytes()));
            long[] starts = PartitionMap.evenStarts(n);
            List<long[]> spans = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                spans.add(new long[] {starts[i], i + 1 < n ? starts[i + 1] - 1 : -1L});
            }
            Parts shared = parts(spans);
            for (int i = 0; i < n; i++) {
                long end = spans.get(i)[1];
                parts.add(new Partition(
                        Integer.toString(i), starts[i], end, null, newThroughput(starts[i], end, shared, now), 0));
            }
            nextId = n;
        } else {
            List<long[]> spans = new ArrayList<>(persisted.size());
            for (PersistedPartition p : persisted) {
                spans.add(new long[] {p.start(), p.end()});
            }
            Parts shared = parts(spans);
            for (PersistedPartition p : persisted) {
                parts.add(new Partition(
                        p.id(),
                        p.start(),
                        p.end(),
                        p.parentId(),
                        newThroughput(p.start(), p.end(), shared, now),
                        0,
                        Boolean.TRUE.equals(p.forThroughput())));
            }
            nextId = persistedNextId;
        }
        List<FeedShard> retired = new ArrayList<>();
        if (persistedRetired != null) {
            for (PersistedPartition p : persistedRetired) {
                FeedShard shard = new FeedShard(p.id(), p.start(), p.end(), p.parentId());
                shard.close();
                retired.add(shard);
            }
        }
        // Sizes are not persisted per partition: share the table's size out by hash width (keys hash uniformly), over
        // the hashes the store holds (a range of a table cut over a cluster's groups holds its items alone).
        for (Partition p : parts) {
            p.addSize(Math.round(tableSizeBytes * heldShare(p, metadata.hashRange())));
        }
        this.map = new PartitionMap(parts, retired);
    }

    /**
     * The share of the store's items partition {@code p} holds, keys hashing uniformly: its width over the hash space,
     * or, in a store that holds {@code held} alone, its width within that range over the range's.
     */
    static double heldShare(Partition p, io.partita.storage.table.HashRange held) {
        if (held == null) {
            return p.width();
        }
        double lo = Math.max(unsigned(p.start()), unsigned(held.first()));
        double hi = Math.min(unsigned(p.end()), unsigned(held.last()));
        return hi < lo ? 0 : (hi - lo + 1) / (unsigned(held.last()) - unsigned(held.first()) + 1);
    }

    private static double unsigned(long hash) {
        return HashRange.unsigned(hash);
    }

    /**
     * The part of the ceilings of the partition of hashes {@code start} to {@code end} that this store's copy has:
     * all of them unless the store holds part of the table's hashes alone ({@link #held}, a table cut by ranges over a
     * cluster's groups). Then a table's partition has the part of its hashes the store holds (all of one inside its
     * range, which no other group holds; a part of one a move cut across two groups' ranges, whose parts add up to one
     * partition; all of one outside, which serves nothing here), and a GSI's the store's part of the table's hashes
     * (each item of the range writes to any of the index's partitions, and the groups' parts add up to the index's
     * whole, keys hashing uniformly).
     */
    private double heldOf(long start, long end) {
        HashRange h = held;
        if (h == null) {
            return 1;
        }
        if (index) {
            return h.share();
        }
        double o = overlap(start, end, h);
        return o > 0 ? o : 1;
    }

    /**
     * The part of the hashes {@code start} to {@code end} that range {@code h} holds, 0 to 1: compared exactly as
     * unsigned numbers (as doubles, a range's last hash and the next one round to the same value, and the partition
     * just outside would hold a sliver), the widths then divided as doubles.
     */
    private static double overlap(long start, long end, HashRange h) {
        if (Long.compareUnsigned(end, h.first()) < 0 || Long.compareUnsigned(start, h.last()) > 0) {
            return 0;
        }
        long lo = Long.compareUnsigned(start, h.first()) >= 0 ? start : h.first();
        long hi = Long.compareUnsigned(end, h.last()) <= 0 ? end : h.last();
        return Math.min(1, (unsigned(hi - lo) + 1) / (unsigned(end - start) + 1));
    }

    /**
     * How a map's partitions share the provisioned rate ({@link #share}): how many there are, and the sum of the parts
     * of their hashes this store holds (a table's partitions, in a store holding a range).
     */
    private record Parts(int count, double held) {}

    /** The {@link Parts} of the partitions of hashes {@code spans} ({@code {start, end}} each). */
    private Parts parts(List<long[]> spans) {
        HashRange h = held;
        double sum = 0;
        if (h != null && !index) {
            for (long[] span : spans) {
                sum += overlap(span[0], span[1], h);
            }
        }
        return new Parts(spans.size(), sum);
    }

    /** The {@link Parts} of map {@code m}'s partitions. */
    private Parts parts(PartitionMap m) {
        List<long[]> spans = new ArrayList<>(m.size());
        for (Partition p : m.partitions()) {
            spans.add(new long[] {p.start(), p.end()});
        }
        return parts(spans);
    }

    /**
     * DynamoDB's initial partition count ("Partitions and data distribution"): provisioned tables get enough
     * partitions for their capacity at 3,000 RCU and 1,000 WCU each; on-demand tables start with the capacity of
     * four partitions (12,000 reads and 4,000 writes a second).
     */
    public static int initialCount(TableMetadata m) {
        // Warm for a throughput: enough partitions to serve it at once, each at its ceilings ("Understanding DynamoDB
        // warm throughput": a new on-demand table's 12,000 reads and 4,000 writes a second are its 4 partitions').
        double warm = Math.max(
                orZero(m.warmReadUnits()) / CapacityConfig.PARTITION_READ_CEILING,
                orZero(m.warmWriteUnits()) / CapacityConfig.PARTITION_WRITE_CEILING);
        if (m.onDemand()) {
            return (int) Math.min(1024, Math.max(4, Math.ceil(warm)));
        }
        double need = m.readCapacityUnits() / CapacityConfig.PARTITION_READ_CEILING
                + m.writeCapacityUnits() / CapacityConfig.PARTITION_WRITE_CEILING;
        return (int) Math.max(1, Math.min(1024, Math.ceil(Math.max(need, warm))));
    }

    private TableThroughput newTableThroughput(TableMetadata m) {
        boolean onDemand = m.onDemand();
        double read = onDemand ? orZero(m.maxReadRequestUnits()) : m.readCapacityUnits();
        double write = onDemand ? orZero(m.maxWriteRequestUnits()) : m.writeCapacityUnits();
        TableThroughput t = new TableThroughput(onDemand, read, write, config);
        t.insights(m.contributorInsightsMode() != null);
        return t;
    }

    private static double orZero(Long v) {
        return v == null || v < 0 ? 0 : v;
    }

    /**
     * The budget of a partition of hashes {@code start} to {@code end}, one of {@code parts}, with a full burst
     * allowance, as a new table's.
     */
    private PartitionThroughput newThroughput(long start, long end, Parts parts, long now) {
        double read = share(CapacityKind.READ, start, end, parts);
        double write = share(CapacityKind.WRITE, start, end, parts);
        int burst = config.burstSeconds();
        return new PartitionThroughput(read, write, burst, read * burst, write * burst, heldOf(start, end), now);
    }

    /**
     * The budget of a split child of hashes {@code start} to {@code end}: half of what its parent had saved up, so a
     * split creates no capacity.
     */
    private PartitionThroughput childThroughput(Partition parent, long start, long end, Parts parts, long now) {
        PartitionThroughput pt = parent.throughput();
        return new PartitionThroughput(
                share(CapacityKind.READ, start, end, parts),
                share(CapacityKind.WRITE, start, end, parts),
                config.burstSeconds(),
                pt.share(CapacityKind.READ).tokens(now) / 2,
                pt.share(CapacityKind.WRITE).tokens(now) / 2,
                heldOf(start, end),
                now);
    }

    /**
     * The part of the provisioned rate of the partition of hashes {@code start} to {@code end}, one of {@code parts};
     * on-demand tables have no share. An equal part of the table's on a single node. In a store holding a range of a
     * table cut by ranges, the store's part of the table's (its range's part of the hashes) shared out over its
     * partitions by the part of each one's hashes it holds: the groups' add up to the table's, whatever splits each
     * has made in its own range (a partition outside the range, which serves nothing, an equal part as it was). A
     * GSI's partitions there, each the store's part of an equal part.
     */
    private double share(CapacityKind kind, long start, long end, Parts parts) {
        TableMetadata m = metadata;
        if (m.onDemand()) {
            return 0;
        }
        double units = kind == CapacityKind.READ ? m.readCapacityUnits() : m.writeCapacityUnits();
        HashRange h = held;
        if (h == null) {
            return units / parts.count();
        }
        if (index) {
            return units / parts.count() * h.share();
        }
        double o = overlap(start, end, h);
        return o > 0 && parts.held() > 0 ? units * h.share() * o / parts.held() : units / parts.count();
    }

    public TableMetadata metadata() {
        return metadata;
    }

    public PartitionMap map() {
        return map;
    }

    public TableThroughput throughput() {
        return table;
    }

    public ThroughputMode mode() {
        return config.mode();
    }

    public Partition partitionFor(long hash) {
        return map.partitionFor(hash);
    }

    /**
     * Whether a request of {@code kind} may start on {@code p}: null if it may, else why not. A refusal is counted
     * in the metrics in every mode; only {@code ENFORCE} returns it.
     *
     * @param key the partition key as Contributor Insights shows it, only asked for when insights are on
     */
    public Throttle admit(Partition p, CapacityKind kind, Supplier<String> key) {
        if (config.mode() == ThroughputMode.OFF) {
            return null;
        }
        long now = config.clock().millis();
        TableThroughput t = table;
        PartitionThroughput pt = p.throughput();
        List<String> limits = null;
        if (!pt.ceiling(kind).available(now)) {
            limits = add(limits, Throttle.KEY_RANGE);
        }
        if (t.onDemand()) {
            if (limits == null && !t.table(kind).available(now)) {
                limits = add(limits, Throttle.KEY_RANGE);
            }
            TokenBucket max = t.max(kind);
            if (max != null && !max.available(now)) {
                limits = add(limits, Throttle.MAX_ON_DEMAND);
            }
            if (!t.quota(kind).available(now)) {
                limits = add(limits, Throttle.ACCOUNT_LIMIT);
            }
        } else if (limits == null && !pt.share(kind).available(now)) {
            boolean tableHasCapacity = t.table(kind).available(now);
            if (!(config.adaptiveCapacity() && tableHasCapacity)) {
                limits = add(limits, tableHasCapacity ? Throttle.KEY_RANGE : Throttle.PROVISIONED);
            }
        }
        if (limits == null) {
            return null;
        }
        pt.throttled(kind);
        t.throttled(kind, 1);
        if (t.insights()) {
            t.throttledKeys().record(key.get(), 1);
        }
        boolean enforced = config.mode() == ThroughputMode.ENFORCE;
        throttleLog.record(p.id(), key, kind, limits, now, enforced);
        return enforced ? new Throttle(kind, t.onDemand(), limits) : null;
    }

    /**
     * Whether this GSI can take another index write, before the base-table write that causes it (whose index key is
     * not known yet): null if it can, else why not. The GSI's applier charges its writes after they commit, so a GSI
     * that has fallen behind its capacity is in debt and throttles its table's writes until it has refilled ("If a
     * global secondary index has insufficient write capacity, write operations on the base table are throttled").
     * It looks at the GSI as a whole: its table-level budget, and each partition's ceiling.
     */
    public Throttle admitIndexWrite() {
        if (config.mode() == ThroughputMode.OFF) {
            return null;
        }
        long now = config.clock().millis();
        TableThroughput t = table;
        CapacityKind kind = CapacityKind.WRITE;
        List<String> limits = null;
        if (t.onDemand()) {
            TokenBucket max = t.max(kind);
            if (max != null && !max.available(now)) {
                limits = add(limits, Throttle.MAX_ON_DEMAND);
            }
            if (!t.quota(kind).available(now)) {
                limits = add(limits, Throttle.ACCOUNT_LIMIT);
            }
            if (limits == null && !t.table(kind).available(now)) {
                limits = add(limits, Throttle.KEY_RANGE);
            }
        } else if (!t.table(kind).available(now)) {
            limits = add(limits, Throttle.PROVISIONED);
        }
        if (limits == null) {
            for (Partition p : map.partitions()) {
                if (!p.throughput().ceiling(kind).available(now)) {
                    limits = add(limits, Throttle.KEY_RANGE);
                    break;
                }
            }
        }
        if (limits == null) {
            return null;
        }
        t.throttled(kind, 1);
        return config.mode() == ThroughputMode.ENFORCE ? new Throttle(kind, t.onDemand(), limits) : null;
    }

    private static List<String> add(List<String> limits, String limit) {
        List<String> l = limits == null ? new ArrayList<>(2) : limits;
        l.add(limit);
        return l;
    }

    /** Charges {@code units} of {@code kind} consumed on {@code p}; may queue a split for heat. */
    public void charge(Partition p, CapacityKind kind, double units, long hash, Supplier<String> key) {
        if (config.mode() == ThroughputMode.OFF) {
            return;
        }
        long now = config.clock().millis();
        TableThroughput t = table;
        boolean reportOnly = config.mode() == ThroughputMode.REPORT;
        t.consume(kind, units, now, reportOnly);
        boolean hot = p.throughput()
                .consume(kind, units, hash, now, config.heatSplitFraction(), config.heatSplitMillis(), reportOnly);
        if (t.insights()) {
            t.accessedKeys().record(key.get(), units);
        }
        if (hot && p.splitting.compareAndSet(false, true)) {
            listener.splitWanted(this, p, SplitReason.HEAT);
        }
    }

    /** Records a committed change in the size of the items of the partition holding {@code hash}. */
    public void addSize(long hash, long delta) {
        Partition p = map.partitionFor(hash);
        long size = p.addSize(delta);
        while (Partition.frozen(size)) {
            // A split retired the partition after this writer found it (its size went to the children): the change
            // belongs to the child that holds the key, in the map the split published before it froze the parent.
            p.addSize(-delta);
            p = map.partitionFor(hash);
            size = p.addSize(delta);
        }
        if (delta > 0
                && size > config.partitionSizeLimitBytes()
                && size > p.noSizeSplitBelow
                && p.splitting.compareAndSet(false, true)) {
            listener.splitWanted(this, p, SplitReason.SIZE);
        }
    }

    /**
     * Replaces {@code parent} by two partitions cut at {@code at} (the first hash of the right one), sharing the
     * parent's size in the proportion {@code leftSize : rightSize} (the parent's size as it stands when it is retired,
     * writes racing the split included). Each child starts with half of the parent's unused share.
     */
    public synchronized void split(Partition parent, long at, long leftSize, long rightSize, SplitReason reason) {
        if (!map.partitions().contains(parent)
                || Long.compareUnsigned(at, parent.start()) <= 0
                || Long.compareUnsigned(at, parent.end()) > 0) {
            throw new IllegalArgumentException("cannot split " + parent.id() + " at " + Long.toHexString(at));
        }
        long now = config.clock().millis();
        List<long[]> spans = new ArrayList<>(map.size() + 1);
        for (Partition p : map.partitions()) {
            if (p != parent) {
                spans.add(new long[] {p.start(), p.end()});
            }
        }
        spans.add(new long[] {parent.start(), at - 1});
        spans.add(new long[] {at, parent.end()});
        Parts shared = parts(spans);
        boolean forThroughput = reason == SplitReason.THROUGHPUT;
        Partition left = new Partition(
                Integer.toString(nextId++),
                parent.start(),
                at - 1,
                parent.id(),
                childThroughput(parent, parent.start(), at - 1, shared, now),
                0,
                forThroughput);
        Partition right = new Partition(
                Integer.toString(nextId++),
                at,
                parent.end(),
                parent.id(),
                childThroughput(parent, at, parent.end(), shared, now),
                0,
                forThroughput);
        PartitionMap next = map.replace(parent, left, right);
        // Saved before anyone can use it: a write that found a child commits records under the child's number, which
        // must still be the child's after a crash, and the next split must not hand the children's ids out again.
        listener.mapChanged(this, next, nextId);
        reshare(next, now);
        map = next;
        // Frozen after the new map is out: an addition the parent refuses from now on finds its child.
        long total = parent.freeze();
        long share =
                leftSize + rightSize <= 0 ? total / 2 : Math.round((double) total * leftSize / (leftSize + rightSize));
        left.addSize(share);
        right.addSize(total - share);
        // After the new map: a write whose numbering the closed shard refuses finds its child (FeedShard).
        parent.shard().close();
        splits.add(new SplitEvent(now, parent.id(), left.id(), right.id(), reason));
        if (splits.size() > 100) {
            splits.remove(0);
        }
    }

    /** Called when a split was wanted but did not happen: lets a later one be queued. */
    public void splitAbandoned(Partition p, boolean forSize) {
        if (forSize) {
            p.noSizeSplitBelow = p.sizeBytes() * 2;
        } else {
            p.throughput().coolDown();
        }
        p.splitting.set(false);
    }

    private void reshare(PartitionMap m, long now) {
        boolean onDemand = metadata.onDemand();
        Parts shared = parts(m);
        for (Partition p : m.partitions()) {
            p.throughput().hold(heldOf(p.start(), p.end()), now);
            if (!onDemand) {
                p.throughput()
                        .reshare(
                                share(CapacityKind.READ, p.start(), p.end(), shared),
                                share(CapacityKind.WRITE, p.start(), p.end(), shared),
                                config.burstSeconds(),
                                now);
            }
        }
    }

    /**
     * A GSI's partitions in a store that now holds {@code next} of its table's hashes (a range move narrowed them):
     * each partition's budget and ceilings that part of its own.
     */
    public synchronized void holding(HashRange next) {
        if (java.util.Objects.equals(held, next)) {
            return;
        }
        held = next;
        reshare(map, config.clock().millis());
    }

    /**
     * Charges the table's own budget (the table as a whole: not its partitions') with {@code readUnits} and {@code
     * writeUnits} that other stores holding the rest of its hashes consumed (a table cut by ranges over a cluster's
     * groups, each of which has the whole table's budget and is charged every group's consumption: docs/CLUSTER.md).
     * Not counted as this store's consumption. With {@code from} (the store's name; null: none), the one-second peaks
     * of its own consumption it has seen, which an on-demand table's rate follows ({@link
     * TableThroughput#peakElsewhere}).
     */
    public void chargeElsewhere(double readUnits, double writeUnits, String from, double readPeak, double writePeak) {
        if (config.mode() == ThroughputMode.OFF) {
            return;
        }
        long now = config.clock().millis();
        TableThroughput t = table;
        boolean reportOnly = config.mode() == ThroughputMode.REPORT;
        t.chargeElsewhere(CapacityKind.READ, readUnits, now, reportOnly);
        t.chargeElsewhere(CapacityKind.WRITE, writeUnits, now, reportOnly);
        if (from != null) {
            t.peakElsewhere(from, readPeak, writePeak, now);
        }
    }

    /**
     * Applies new table settings. A change of billing mode starts a new budget; more provisioned capacity than the
     * partitions can serve splits them (DynamoDB never merges partitions back).
     */
    public synchronized void reconfigure(TableMetadata next) {
        TableMetadata old = metadata;
        metadata = next;
        long now = config.clock().millis();
        if (!index) {
            held = next.hashRange(); // a GSI's view names no range: holding gives it its table's
        }
        boolean modeChanged = !old.billingMode().equals(next.billingMode())
                || !java.util.Objects.equals(old.maxReadRequestUnits(), next.maxReadRequestUnits())
                || !java.util.Objects.equals(old.maxWriteRequestUnits(), next.maxWriteRequestUnits());
        if (modeChanged) {
            TableThroughput t = newTableThroughput(next);
            t.insights(table.insights());
            table = t;
        } else {
            table.reprovision(next.readCapacityUnits(), next.writeCapacityUnits(), config.burstSeconds(), now);
            table.insights(next.contributorInsightsMode() != null);
        }
        while (map.size() < initialCount(next)) {
            Partition widest = map.partitions().stream()
                    .filter(p -> p.start() != p.end())
                    .max(java.util.Comparator.comparingDouble(Partition::width))
                    .orElseThrow();
            long at = PartitionMap.midpoint(widest.start(), widest.end());
            long half = widest.sizeBytes() / 2;
            split(widest, at, half, widest.sizeBytes() - half, SplitReason.THROUGHPUT);
        }
        reshare(map, now);
    }

    /** The id the next new partition will get. */
    public synchronized int nextId() {
        return nextId;
    }

    public synchronized List<SplitEvent> splits() {
        return List.copyOf(splits);
    }

    /** The map and the splits that made it, read together: a split changes both under this object's monitor. */
    public record View(PartitionMap map, List<SplitEvent> splits) {}

    public synchronized View view() {
        return new View(map, List.copyOf(splits));
    }

    /** The shards of split partitions the change feed still keeps, oldest first. */
    public List<FeedShard> retired() {
        return map.retired();
    }

    /** Every shard of the change feed, from one read of the map: the retired ones, oldest first, then the rest. */
    public List<FeedShard> shards() {
        return map.shards();
    }

    /**
     * Forgets a retired shard that the feed has emptied and no write can add to; the map is persisted again. Its
     * children keep naming it as their parent, which a consumer treats as a parent read to the end.
     */
    public synchronized void forgetRetired(FeedShard shard) {
        if (map.retired().contains(shard)) {
            PartitionMap next = map.forget(shard);
            listener.mapChanged(this, next, nextId);
            map = next;
        }
    }

    /** A partition's range as stored in the {@code stats} column family. */
    /**
     * A partition as its table's map is stored: {@code forThroughput} true for one a raise of the table's throughput
     * split off (absent, null, otherwise and in maps stored before it was kept).
     */
    public record PersistedPartition(String id, long start, long end, String parentId, Boolean forThroughput) {
        public PersistedPartition(String id, long start, long end, String parentId) {
            this(id, start, end, parentId, null);
        }
    }

    /** Sums up this table's throttles since its last log line, once a minute has passed ({@link ThrottleLog#flush}). */
    public void flushThrottleLog(long nowMillis) {
        throttleLog.flush(nowMillis);
    }
}
