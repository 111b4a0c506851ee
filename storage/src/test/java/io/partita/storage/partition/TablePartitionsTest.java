package io.partita.storage.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.Throttle;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Admission, charging, splits and the partition map, with time moved by hand. */
class TablePartitionsTest {
    private static final String ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/t";

    private final MutableClock clock = new MutableClock(1_000_000);
    private final List<String> events = new ArrayList<>();
    private final TablePartitions.Listener listener = new TablePartitions.Listener() {
        @Override
        public void splitWanted(TablePartitions table, Partition partition, TablePartitions.SplitReason reason) {
            events.add("split " + partition.id() + " " + reason);
        }

        @Override
        public void mapChanged(TablePartitions table, PartitionMap map, int nextId) {
            // Saved before it takes effect: a write that used it must find it again after a crash.
            events.add("map " + map.size() + (table.map() == map ? " (already in use)" : ""));
        }
    };

    private static TableMetadata provisioned(long rcu, long wcu) {
        return TableMetadata.create(
                "t",
                "id",
                new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null),
                List.of(new AttributeDefinition("pk", "S")),
                TableMetadata.PROVISIONED,
                rcu,
                wcu,
                0,
                null,
                false,
                Map.of());
    }

    private static TableMetadata onDemand() {
        return TableMetadata.create(
                "t",
                "id",
                new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null),
                List.of(new AttributeDefinition("pk", "S")),
                TableMetadata.PAY_PER_REQUEST,
                0,
                0,
                0,
                null,
                false,
                Map.of());
    }

    private TablePartitions table(TableMetadata m, CapacityConfig config) {
        return new TablePartitions(m, config.withClock(clock), listener, null, null, 0, 0);
    }

    private static CapacityConfig config() {
        return CapacityConfig.defaults();
    }

    /** Writes {@code units} to {@code p} until refused; returns the refusal and how many writes got in. */
    private static Object[] writeUntilThrottled(TablePartitions t, Partition p, double units, int max) {
        for (int i = 0; i < max; i++) {
            Throttle throttle = t.admit(p, CapacityKind.WRITE, () -> "k");
            if (throttle != null) {
                return new Object[] {throttle, i};
            }
            t.charge(p, CapacityKind.WRITE, units, p.start(), () -> "k");
        }
        return new Object[] {null, max};
    }

    @Test
    void partitionCountsFollowDynamoDbsFormula() {
        assertThat(TablePartitions.initialCount(provisioned(5, 5))).isEqualTo(1);
        assertThat(TablePartitions.initialCount(provisioned(1500, 1500))).isEqualTo(2);
        assertThat(TablePartitions.initialCount(provisioned(6000, 2000))).isEqualTo(4);
        assertThat(TablePartitions.initialCount(onDemand())).isEqualTo(4);
        TablePartitions t = table(provisioned(1500, 1500), config());
        assertThat(t.map().size()).isEqualTo(2);
        assertThat(t.map().partitions().get(1).start()).isEqualTo(0x8000_0000_0000_0000L);
    }

    /** Warm for a throughput: enough partitions to serve it at once, each at 3,000 reads and 1,000 writes a second. */
    @Test
    void aTableWarmForMoreGetsThePartitionsToServeIt() {
        assertThat(TablePartitions.initialCount(onDemand().withWarmThroughput(12000L, 4000L)))
                .isEqualTo(4);
        assertThat(TablePartitions.initialCount(onDemand().withWarmThroughput(13000L, null)))
                .isEqualTo(5);
        assertThat(TablePartitions.initialCount(provisioned(5, 5).withWarmThroughput(5L, 9000L)))
                .isEqualTo(9);
        TablePartitions t = table(onDemand(), config());
        assertThat(t.map().size()).isEqualTo(4);
        t.reconfigure(onDemand().withWarmThroughput(30000L, null));
        assertThat(t.map().size()).isEqualTo(10);
    }

    @Test
    void partitionForFindsTheRangeHoldingTheHash() {
        TablePartitions t = table(onDemand(), config());
        PartitionMap m = t.map();
        assertThat(m.partitionFor(0).id()).isEqualTo("0");
        assertThat(m.partitionFor(0x3fff_ffff_ffff_ffffL).id()).isEqualTo("0");
        assertThat(m.partitionFor(0x4000_0000_0000_0000L).id()).isEqualTo("1");
        assertThat(m.partitionFor(-1L).id()).isEqualTo("3");
        for (Partition p : m.partitions()) {
            assertThat(m.partitionFor(p.start())).isSameAs(p);
            assertThat(m.partitionFor(p.end())).isSameAs(p);
        }
    }

    @Test
    void aHotPartitionHitsItsCeilingWhileTheTableHasCapacity() {
        TablePartitions t = table(provisioned(1500, 1500), config());
        Partition hot = t.map().partitions().get(0);
        Object[] r = writeUntilThrottled(t, hot, 100, 100);
        Throttle throttle = (Throttle) r[0];
        assertThat(r[1]).isEqualTo(10);
        assertThat(throttle.reasons()).containsExactly("TableWriteKeyRangeThroughputExceeded");
        ApiException e = throttle.toException(ARN);
        assertThat(e.code()).isEqualTo(ErrorCode.PROVISIONED_THROUGHPUT_EXCEEDED);
        assertThat(e.extraFields().get("ThrottlingReasons"))
                .isEqualTo(List.of(Map.of("reason", "TableWriteKeyRangeThroughputExceeded", "resource", ARN)));
        // The other partition is unaffected, and the ceiling refills at 1,000 units a second.
        Partition cold = t.map().partitions().get(1);
        assertThat(t.admit(cold, CapacityKind.WRITE, () -> "c")).isNull();
        clock.advance(100);
        assertThat(t.admit(hot, CapacityKind.WRITE, () -> "k")).isNull();
        assertThat(hot.throughput().consumption().writeThrottleEvents()).isEqualTo(1);
        assertThat(t.throughput().consumption().consumedWriteUnits()).isEqualTo(1000);
    }

    @Test
    void burstLetsANewTableTakeThreeHundredSecondsOfItsRateThenTheTableThrottles() {
        TablePartitions t = table(provisioned(1, 1), config());
        Partition p = t.map().partitions().get(0);
        Object[] r = writeUntilThrottled(t, p, 1, 1000);
        assertThat(r[1]).isEqualTo(300);
        assertThat(((Throttle) r[0]).reasons()).containsExactly("TableWriteProvisionedThroughputExceeded");
        clock.advance(2_001);
        assertThat(writeUntilThrottled(t, p, 1, 1000)[1]).isEqualTo(3);
    }

    @Test
    void adaptiveCapacityLetsAPartitionBorrowTheTablesUnusedCapacity() {
        TableMetadata m = provisioned(1500, 1500);
        TablePartitions adaptive = table(m, config());
        TablePartitions strict = table(m, config().withAdaptiveCapacity(false));
        // Drain the saved burst so only the rates matter.
        clock.advance(0);
        Partition a = adaptive.map().partitions().get(0);
        Partition s = strict.map().partitions().get(0);
        for (TablePartitions t : List.of(adaptive, strict)) {
            Partition p = t.map().partitions().get(0);
            p.throughput().share(CapacityKind.WRITE).consume(750 * 300, clock.millis());
            t.throughput().table(CapacityKind.WRITE).consume(750 * 300, clock.millis());
        }
        clock.advance(1000);
        // Adaptive: the partition's 750/s share plus the other partition's unused 750/s, up to the 1,000 ceiling.
        assertThat(writeUntilThrottled(adaptive, a, 10, 1000)[1]).isEqualTo(100);
        Object[] r = writeUntilThrottled(strict, s, 10, 1000);
        assertThat(r[1]).isEqualTo(75);
        assertThat(((Throttle) r[0]).reasons()).containsExactly("TableWriteKeyRangeThroughputExceeded");
    }

    @Test
    void onDemandMaximumAndAccountQuotaHaveTheirOwnReasons() {
        TablePartitions max = table(onDemand().withOnDemandMaximums(-1L, 5L), config());
        Partition p = max.map().partitions().get(0);
        Object[] r = writeUntilThrottled(max, p, 1, 100);
        assertThat(r[1]).isEqualTo(5);
        Throttle t = (Throttle) r[0];
        assertThat(t.reasons()).containsExactly("TableWriteMaxOnDemandThroughputExceeded");
        assertThat(t.toException(ARN).code()).isEqualTo(ErrorCode.THROTTLING);

        TablePartitions quota = table(onDemand(), config().withTableQuotas(40_000, 7));
        Object[] q = writeUntilThrottled(quota, quota.map().partitions().get(0), 1, 100);
        assertThat(q[1]).isEqualTo(7);
        assertThat(((Throttle) q[0]).toException(ARN).code()).isEqualTo(ErrorCode.REQUEST_LIMIT_EXCEEDED);
    }

    @Test
    void reportModeCountsButAdmitsAndOffModeDoesNothing() {
        TablePartitions report = table(provisioned(1, 1), config().withMode(ThroughputMode.REPORT));
        Partition p = report.map().partitions().get(0);
        assertThat(writeUntilThrottled(report, p, 100, 10)[1]).isEqualTo(10);
        assertThat(report.throughput().consumption().writeThrottleEvents()).isEqualTo(7);
        assertThat(report.throughput().consumption().consumedWriteUnits()).isEqualTo(1000);
        // What would have been refused runs up no debt: a second later one write's worth is reported as fine again.
        clock.advance(1000);
        assertThat(report.admit(p, CapacityKind.WRITE, () -> "k")).isNull();
        assertThat(report.throughput().consumption().writeThrottleEvents()).isEqualTo(7);
        TablePartitions off = table(provisioned(1, 1), config().withMode(ThroughputMode.OFF));
        Partition o = off.map().partitions().get(0);
        assertThat(writeUntilThrottled(off, o, 100, 10)[1]).isEqualTo(10);
        assertThat(off.throughput().consumption().consumedWriteUnits()).isZero();
    }

    @Test
    void sizeOverTheLimitAsksForASplitOnce() {
        TablePartitions t = table(onDemand(), config().withPartitionSizeLimit(1000));
        Partition p = t.map().partitions().get(2);
        t.addSize(p.start(), 600);
        t.addSize(p.start(), 600);
        t.addSize(p.start(), 600);
        assertThat(events).containsExactly("split 2 SIZE");
    }

    /** Writes racing a split: every byte lands in the partitions of the new map, none is lost with the parent. */
    @Test
    void sizesAddedWhileSplittingAreNotLost() throws Exception {
        TablePartitions t = table(provisioned(0, 1000), config());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong added = new java.util.concurrent.atomic.AtomicLong();
        Thread writer = new Thread(() -> {
            java.util.SplittableRandom r = new java.util.SplittableRandom(7);
            while (!stop.get()) {
                t.addSize(r.nextLong(), 1);
                added.incrementAndGet();
            }
        });
        writer.start();
        for (int i = 0; i < 50; i++) {
            List<Partition> ps = t.map().partitions();
            Partition widest = ps.get(0);
            for (Partition p : ps) {
                if (Long.compareUnsigned(p.end() - p.start(), widest.end() - widest.start()) > 0) {
                    widest = p;
                }
            }
            long mid = widest.start() + ((widest.end() - widest.start()) >>> 1) + 1;
            t.split(widest, mid, 1, 1, TablePartitions.SplitReason.SIZE);
        }
        stop.set(true);
        writer.join();
        long total = 0;
        for (Partition p : t.map().partitions()) {
            total += p.sizeBytes();
        }
        assertThat(total).isEqualTo(added.get());
    }

    @Test
    void splitReplacesTheParentWithTwoChildrenAndResharesTheRate() {
        TablePartitions t = table(provisioned(0, 1000), config());
        Partition parent = t.map().partitions().get(0);
        t.addSize(parent.start(), 30);
        t.split(parent, 0x1000L, 10, 20, TablePartitions.SplitReason.SIZE);
        List<Partition> ps = t.map().partitions();
        assertThat(ps).hasSize(2);
        assertThat(ps.get(0).end()).isEqualTo(0xfffL);
        assertThat(ps.get(1).start()).isEqualTo(0x1000L);
        assertThat(ps.get(0).parentId()).isEqualTo("0");
        // The parent's 30 bytes, shared 10 : 20.
        assertThat(ps.get(0).sizeBytes()).isEqualTo(10);
        assertThat(ps.get(1).sizeBytes()).isEqualTo(20);
        // A writer that found the parent before the split adds to the child that holds its key.
        t.addSize(0x1000L, 5);
        assertThat(ps.get(1).sizeBytes()).isEqualTo(25);
        assertThat(parent.sizeBytes()).isZero();
        assertThat(ps.get(0).throughput().share(CapacityKind.WRITE).ratePerSecond())
                .isEqualTo(500);
        assertThat(t.splits()).hasSize(1);
        assertThat(events).containsExactly("map 2");
        assertThatThrownBy(() -> t.split(parent, 5, 0, 0, TablePartitions.SplitReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSplitsCutShowsWhileItsHalvesAreBothPartitions() {
        TablePartitions t = table(provisioned(0, 2000), config());
        long middle = t.map().partitions().get(1).start();
        // A table's first partitions were cut by no split.
        assertThat(t.map().splitCuts(0, -1L)).isEmpty();
        t.split(t.map().partitions().get(0), 0x1000L, 0, 0, TablePartitions.SplitReason.SIZE);
        assertThat(t.map().splitCuts(0, -1L)).containsExactly(0x1000L);
        // Only cuts after a range's first hash and up to its last count.
        assertThat(t.map().splitCuts(0x1000L, -1L)).isEmpty();
        assertThat(t.map().splitCuts(0, 0xfffL)).isEmpty();
        assertThat(t.map().splitCuts(0xfffL, 0x1000L)).containsExactly(0x1000L);
        assertThat(t.map().splitCuts(middle, -1L)).isEmpty();
        // Its right half split again: that cut shows, the first one no longer does.
        t.split(t.map().partitions().get(1), 0x2000L, 0, 0, TablePartitions.SplitReason.HEAT);
        assertThat(t.map().splitCuts(0, -1L)).containsExactly(0x2000L);
        // The cut between two of the first partitions never shows, even next to a split's half.
        t.split(t.map().partitions().get(3), middle + 5, 0, 0, TablePartitions.SplitReason.SIZE);
        assertThat(t.map().splitCuts(0, -1L)).containsExactly(0x2000L, middle + 5);
    }

    @Test
    void aStoreHoldingOneRangeSharesItsSizeOverThatRangeOnly() {
        long middle = PartitionMap.evenStarts(2)[1];
        // Two partitions, the store holding the first half of the hash space's first half: all its 1,000 bytes are
        // the first partition's, as they are after a restart (the size is shared out as the table loads).
        TablePartitions t = new TablePartitions(
                provisioned(0, 2000).withHashRange(new io.partita.storage.table.HashRange(0, (middle >>> 1) - 1)),
                config().withClock(clock),
                listener,
                null,
                null,
                0,
                1_000);
        assertThat(t.map().partitions().get(0).sizeBytes()).isEqualTo(1_000);
        assertThat(t.map().partitions().get(1).sizeBytes()).isZero();
        // Straddling the two: shared by the part of the range in each.
        TablePartitions across = new TablePartitions(
                provisioned(0, 2000)
                        .withHashRange(new io.partita.storage.table.HashRange(middle >>> 1, middle + (middle >>> 1))),
                config().withClock(clock),
                listener,
                null,
                null,
                0,
                1_000);
        assertThat(across.map().partitions().get(0).sizeBytes()).isEqualTo(500);
        assertThat(across.map().partitions().get(1).sizeBytes()).isEqualTo(500);
        // A whole table's, by hash width.
        TablePartitions whole =
                new TablePartitions(provisioned(0, 2000), config().withClock(clock), listener, null, null, 0, 1_000);
        assertThat(whole.map().partitions().get(1).sizeBytes()).isEqualTo(500);
    }

    @Test
    void moreProvisionedCapacityThanThePartitionsCanServeSplitsThem() {
        TablePartitions t = table(provisioned(5, 5), config());
        t.reconfigure(provisioned(5, 3500));
        assertThat(t.map().size()).isEqualTo(4);
        assertThat(t.splits()).allMatch(s -> s.reason() == TablePartitions.SplitReason.THROUGHPUT);
        // Made for throughput, kept so in the stored map: no range of a cluster moves for them (splitCuts).
        assertThat(t.map().partitions()).allMatch(Partition::forThroughput);
        assertThat(t.map().splitCuts(0, -1L)).isEmpty();
        TablePartitions loaded = new TablePartitions(
                provisioned(5, 3500),
                config().withClock(clock),
                listener,
                t.map().persistable(),
                null,
                7,
                0);
        assertThat(loaded.map().partitions()).allMatch(Partition::forThroughput);
    }

    @Test
    void aPartitionHotForLongEnoughAsksForAHeatSplitNearItsHottestKey() {
        TablePartitions t = table(onDemand(), config().withHeatSplit(0.8, 3000));
        Partition p = t.map().partitions().get(0);
        long hotKey = p.start() + 12345;
        for (int second = 0; second < 6; second++) {
            for (int i = 0; i < 9; i++) {
                t.charge(p, CapacityKind.WRITE, 100, hotKey, () -> "hot");
            }
            clock.advance(1000);
        }
        assertThat(events).containsExactly("split 0 HEAT");
        assertThat(p.throughput().hottestHash()).isEqualTo(hotKey);
    }

    /** The first half of the hashes, as one of two groups of a table cut by ranges holds. */
    private static final io.partita.storage.table.HashRange FIRST_HALF =
            new io.partita.storage.table.HashRange(0, Long.MAX_VALUE);

    /** The first quarter, which that group holds once a move took the second quarter elsewhere. */
    private static final io.partita.storage.table.HashRange FIRST_QUARTER =
            new io.partita.storage.table.HashRange(0, 0x3FFF_FFFF_FFFF_FFFFL);

    private static double rate(io.partita.storage.capacity.TokenBucket b) {
        return b.ratePerSecond();
    }

    /**
     * A store holding half a table's hashes (one of two groups of a table cut by ranges): a partition cut across both
     * groups has half its ceilings and budget here, one inside the range all of its own; the table's own budget is
     * whole, charged what the other group reports it consumed.
     */
    @Test
    void aStoreHoldingHalfTheHashesHasItsPartOfEachPartition() {
        TablePartitions whole = table(provisioned(100, 100), config());
        TablePartitions half = table(provisioned(100, 100).withHashRange(FIRST_HALF), config());
        assertThat(rate(half.throughput().table(CapacityKind.WRITE))).isEqualTo(100.0);
        Partition p = half.map().partitions().get(0);
        assertThat(rate(p.throughput().ceiling(CapacityKind.WRITE))).isEqualTo(500.0);
        assertThat(rate(p.throughput().ceiling(CapacityKind.READ))).isEqualTo(1500.0);
        assertThat(rate(p.throughput().share(CapacityKind.WRITE))).isEqualTo(50.0);
        // The ceiling refuses the 501st one-unit write at once, where the whole table's takes 1,000.
        assertThat(writeUntilThrottled(half, p, 1, 2000)[1]).isEqualTo(500);
        assertThat(writeUntilThrottled(whole, whole.map().partitions().get(0), 1, 2000)[1])
                .isEqualTo(1000);

        // Four partitions, two of them the range's: each of those whole.
        TablePartitions four = table(provisioned(6000, 2000).withHashRange(FIRST_HALF), config());
        assertThat(four.map().size()).isEqualTo(4);
        Partition inside = four.map().partitions().get(1);
        assertThat(rate(inside.throughput().ceiling(CapacityKind.WRITE))).isEqualTo(1000.0);
        assertThat(rate(inside.throughput().share(CapacityKind.WRITE))).isEqualTo(500.0);
        // The partition just past the range's last hash (2^63 - 1) serves nothing here: its own ceilings, whole, where
        // hashes compared as doubles (2^63 either side) would have left it a sliver of them.
        Partition outside = four.map().partitions().get(2);
        assertThat(outside.start()).isEqualTo(Long.MIN_VALUE);
        assertThat(rate(outside.throughput().ceiling(CapacityKind.WRITE))).isEqualTo(1000.0);
        assertThat(rate(outside.throughput().share(CapacityKind.WRITE))).isEqualTo(500.0);
        TablePartitions upper = table(
                provisioned(6000, 2000).withHashRange(new io.partita.storage.table.HashRange(Long.MIN_VALUE, -1L)),
                config());
        assertThat(rate(upper.map().partitions().get(1).throughput().ceiling(CapacityKind.WRITE)))
                .as("the partition just before the range's first hash")
                .isEqualTo(1000.0);
    }

    /**
     * The other groups' consumption, charged to the table's own budget: with adaptive capacity a partition whose share
     * is spent borrows from it, so what they consumed is no longer there to borrow; it is not this store's
     * consumption.
     */
    @Test
    void consumptionElsewhereDrainsTheTablesBudget() {
        TablePartitions t = table(provisioned(6000, 10).withHashRange(FIRST_HALF), config().withAdaptiveCapacity(true));
        Partition p = t.map().partitions().get(0); // 3 partitions: each 10/3 WCU, 1,000 saved; the table 3,000
        assertThat(writeUntilThrottled(t, p, 1, 5000)[1]).isEqualTo(1000); // its ceiling, the table having enough
        clock.advance(1000);
        t.chargeElsewhere(0, 2000, null, 0, 0); // the other group's writes: 2,000 - 10 refilled
        Object[] got = writeUntilThrottled(t, p, 1, 5000);
        assertThat((Integer) got[1]).isBetween(1, 10);
        assertThat(((Throttle) got[0]).limitTypes()).contains(Throttle.PROVISIONED);
        assertThat(t.throughput().consumption().consumedWriteUnits()).isEqualTo(1000 + (Integer) got[1]);

        TablePartitions od = table(onDemand().withOnDemandMaximums(null, 100L).withHashRange(FIRST_HALF), config());
        od.chargeElsewhere(0, 60, null, 0, 0);
        Object[] left = writeUntilThrottled(od, od.map().partitions().get(0), 1, 200);
        assertThat(left[1]).isEqualTo(40);
        assertThat(((Throttle) left[0]).limitTypes()).contains(Throttle.MAX_ON_DEMAND);
        od.chargeElsewhere(70_000, 0, null, 0, 0); // past the account's per-table quota (40,000): reads refused
        assertThat(od.admit(od.map().partitions().get(0), CapacityKind.READ, () -> "k")
                        .limitTypes())
                .contains(Throttle.ACCOUNT_LIMIT);
    }

    /** A move narrowing the range a store holds narrows its partitions' budgets and ceilings with it. */
    @Test
    void aNarrowerRangeNarrowsThePartitions() {
        TablePartitions t = table(provisioned(100, 100).withHashRange(FIRST_HALF), config());
        t.reconfigure(t.metadata().withHashRange(FIRST_QUARTER));
        Partition p = t.map().partitions().get(0);
        assertThat(rate(p.throughput().ceiling(CapacityKind.WRITE))).isEqualTo(250.0);
        assertThat(rate(p.throughput().share(CapacityKind.WRITE))).isEqualTo(25.0);
        // A raise of capacity afterwards is the partition's part of it too; the table's own budget is whole.
        t.reconfigure(t.metadata().withThroughput(TableMetadata.PROVISIONED, 100, 400, null, null, 0, null));
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(400.0);
        assertThat(rate(t.map().partitions().get(0).throughput().share(CapacityKind.WRITE)))
                .isEqualTo(100.0);
    }

    /**
     * A GSI's partitions cut the index's hashes, each fed by every group's items: in a store holding half the table's
     * hashes, each of them has half its budget and ceilings, and a quarter once the range narrows.
     */
    @Test
    void anIndexInAStoreHoldingHalfTheHashesHasHalfOfEveryPartition() {
        TableMetadata view = provisioned(6000, 2000);
        List<TablePartitions.PersistedPartition> even = new ArrayList<>();
        long[] starts = PartitionMap.evenStarts(4);
        for (int i = 0; i < 4; i++) {
            even.add(new TablePartitions.PersistedPartition(
                    Integer.toString(i), starts[i], i < 3 ? starts[i + 1] - 1 : -1L, null));
        }
        TablePartitions index = TablePartitions.ofIndex(view, FIRST_HALF, config().withClock(clock), listener, even, 4);
        assertThat(rate(index.throughput().table(CapacityKind.WRITE))).isEqualTo(2000.0);
        for (Partition p : index.map().partitions()) {
            assertThat(rate(p.throughput().ceiling(CapacityKind.WRITE))).isEqualTo(500.0);
            assertThat(rate(p.throughput().share(CapacityKind.WRITE))).isEqualTo(250.0);
        }
        // A change of the index's own settings (its view names no range) keeps the store's part.
        index.reconfigure(view);
        assertThat(rate(index.map().partitions().get(2).throughput().ceiling(CapacityKind.WRITE)))
                .isEqualTo(500.0);
        index.holding(FIRST_QUARTER);
        assertThat(rate(index.map().partitions().get(3).throughput().ceiling(CapacityKind.WRITE)))
                .isEqualTo(250.0);
        assertThat(rate(index.map().partitions().get(3).throughput().share(CapacityKind.WRITE)))
                .isEqualTo(125.0);
        TablePartitions whole = TablePartitions.ofIndex(view, null, config().withClock(clock), listener, even, 4);
        assertThat(rate(whole.map().partitions().get(0).throughput().ceiling(CapacityKind.WRITE)))
                .isEqualTo(1000.0);
    }

    /**
     * Splits in one range (for heat, say) share its part of the provisioned rate out anew: the range's partitions
     * together keep its part, as a single node's keep the table's, where an equal part of the store's count each would
     * give the range more.
     */
    @Test
    void splitsInOneRangeKeepItsPartOfTheTablesRate() {
        TablePartitions t = table(provisioned(100, 100).withHashRange(FIRST_HALF), config());
        Partition p = t.map().partitions().get(0); // the table's one partition, half of it here: 50 units
        t.split(p, 0x4000_0000_0000_0000L, 0, 0, TablePartitions.SplitReason.HEAT);
        List<Partition> children = t.map().partitions();
        assertThat(children).hasSize(2);
        // The first child inside the range, a third of the second's hashes in it.
        assertThat(rate(children.get(0).throughput().share(CapacityKind.WRITE)))
                .isCloseTo(37.5, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(rate(children.get(1).throughput().share(CapacityKind.WRITE)))
                .isCloseTo(12.5, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(children.get(1).throughput().held())
                .isCloseTo(1 / 3.0, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(rate(children.get(1).throughput().ceiling(CapacityKind.WRITE)))
                .isCloseTo(1000 / 3.0, org.assertj.core.api.Assertions.within(1e-6));
    }

    /**
     * An on-demand table's rate follows the peaks of every store holding part of its hashes, summed, as they report
     * them (never falling); the units they report consumed make no peak (they come late, several seconds' at once).
     */
    @Test
    void anOnDemandTablesRateFollowsEveryStoresPeak() {
        TablePartitions t = table(onDemand().withHashRange(FIRST_HALF), config());
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(4000.0);
        t.chargeElsewhere(0, 50_000, null, 0, 0);
        clock.advance(2000);
        t.chargeElsewhere(0, 1, null, 0, 0);
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(4000.0);
        t.chargeElsewhere(0, 10, "b", 0, 3000);
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(6000.0);
        t.chargeElsewhere(0, 10, "b", 0, 2500); // a peak never falls
        t.chargeElsewhere(0, 10, "c", 100, 1000);
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(8000.0);
        // This store's own peak: 2,000 units in one second, counted once the second is over.
        Partition p = t.map().partitions().get(0);
        t.charge(p, CapacityKind.WRITE, 2000, p.start(), () -> "k");
        clock.advance(1000);
        t.charge(p, CapacityKind.WRITE, 1, p.start(), () -> "k");
        assertThat(t.throughput().peaks()[1]).isEqualTo(2000.0);
        assertThat(rate(t.throughput().table(CapacityKind.WRITE))).isEqualTo(12000.0);
        assertThat(rate(t.throughput().table(CapacityKind.READ))).isEqualTo(12000.0); // 100 peak: the initial
    }
}
