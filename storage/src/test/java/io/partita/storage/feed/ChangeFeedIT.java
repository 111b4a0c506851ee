package io.partita.storage.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.partition.MutableClock;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The change feed on real RocksDB: what it records, consumers across a reopen, trimming, table deletion, splits. */
class ChangeFeedIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
    private static final long HOUR = 3_600_000L;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private StorageConfig config(Path dir) {
        return StorageConfig.disk(dir)
                .withCapacity(
                        CapacityConfig.defaults().withMode(ThroughputMode.OFF).withClock(clock))
                .withFeedTrimMillis(0);
    }

    private static TableMetadata table(String name) {
        return TestTables.onDemand(name, SCHEMA);
    }

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk, String v) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("pk", new AttributeValue.S(pk));
        m.put("v", new AttributeValue.S(v));
        return m;
    }

    private static void put(StorageEngine e, Table t, String pk, String v) {
        e.write(t, key(pk), old -> new WriteDecision.Put(item(pk, v)));
    }

    private static void delete(StorageEngine e, Table t, String pk) {
        e.write(t, key(pk), old -> new WriteDecision.Delete());
    }

    private static String v(Map<String, AttributeValue> image) {
        return image == null ? null : ((AttributeValue.S) image.get("v")).value();
    }

    @Test
    void eachCommittedChangeIsRecordedOnceWithItsImagesAndNothingElseIs(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            put(e, t, "before", "x");
            FeedReader reader = new FeedReader(e, e.feed().register(t, "c", null));
            put(e, t, "a", "1");
            put(e, t, "a", "1"); // the same item again: no change
            e.write(t, key("a"), old -> {
                Map<String, AttributeValue> next = new LinkedHashMap<>();
                next.put("v", new AttributeValue.S("1")); // the same attributes in another order
                next.put("pk", new AttributeValue.S("a"));
                return new WriteDecision.Put(next);
            });
            put(e, t, "a", "2");
            ApiException failed =
                    new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");
            assertThatThrownBy(() -> e.write(t, key("a"), old -> new WriteDecision.Reject(failed)))
                    .isSameAs(failed);
            delete(e, t, "absent"); // deletes nothing
            delete(e, t, "a");

            List<ChangeRecord> records = reader.poll();
            assertThat(records)
                    .extracting(ChangeRecord::kind)
                    .containsExactly(ChangeRecord.Kind.INSERT, ChangeRecord.Kind.MODIFY, ChangeRecord.Kind.REMOVE);
            assertThat(records).extracting(r -> v(r.oldImage())).containsExactly(null, "1", "2");
            assertThat(records).extracting(r -> v(r.newImage())).containsExactly("1", "2", null);
            assertThat(records).allSatisfy(r -> {
                assertThat(r.cause()).isEqualTo(ChangeCause.USER);
                assertThat(r.timeMillis()).isEqualTo(clock.millis());
            });
            assertThat(records.get(0).newSize()).isEqualTo(ItemSize.of(item("a", "1")));
            assertThat(records.get(2).oldSize()).isEqualTo(ItemSize.of(item("a", "2")));
            assertThat(records).extracting(ChangeRecord::sequence).isSorted().doesNotHaveDuplicates();
            assertThat(reader.poll()).isEmpty();
        }
    }

    @Test
    void aTableRecordsOnlyWhileItHasAConsumer(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            put(e, t, "a", "1");
            assertThat(t.feed().recording()).isFalse();
            FeedConsumer c = e.feed().register(t, "c", null);
            assertThat(e.feed().register(t, "c", null)).isSameAs(c);
            assertThat(t.feed().recording()).isTrue();
            put(e, t, "a", "2");
            assertThat(new FeedReader(e, c).poll())
                    .extracting(r -> v(r.newImage()))
                    .containsExactly("2");
            e.feed().unregister(t, "c");
            assertThat(t.feed().recording()).isFalse();
            put(e, t, "a", "3");
            FeedConsumer later = e.feed().register(t, "later", null);
            assertThat(new FeedReader(e, later).poll())
                    .as("starts after what was there")
                    .isEmpty();
        }
    }

    @Test
    void consumersResumeFromTheirSavedPositionAfterAReopenAndNumbersKeepRising(@TempDir Path dir) {
        Map<String, Long> lastBefore = new LinkedHashMap<>();
        int committed = 0;
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            FeedConsumer c = e.feed().register(t, "c", Duration.ofHours(24));
            for (int i = 0; i < 10; i++) {
                put(e, t, "k" + i, "v" + i);
            }
            // Read and commit only the first record of each shard.
            for (FeedShard s : e.feed().shards(t)) {
                List<ChangeRecord> first = c.read(s, 1);
                if (!first.isEmpty()) {
                    c.commit(s, first.get(0).sequence());
                    committed++;
                }
                lastBefore.put(s.partitionId(), s.lastAssigned());
            }
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().find("t");
            assertThat(t.feed().recording()).isTrue();
            FeedConsumer c = t.feed().consumer("c");
            assertThat(c.retention()).isEqualTo(Duration.ofHours(24));
            assertThat(new FeedReader(e, c).poll()).hasSize(10 - committed);
            put(e, t, "k0", "again");
            ChangeRecord next = new FeedReader(e, c).poll().get(0);
            assertThat(v(next.oldImage())).isEqualTo("v0");
            assertThat(next.sequence()).isEqualTo(lastBefore.get(next.shard()) + 1);
        }
    }

    @Test
    void theFeedIsTrimmedBehindTheSlowestConsumerAndNumberingSurvivesATrimToNothing(@TempDir Path dir) {
        String shardId;
        long last;
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            FeedConsumer fast = e.feed().register(t, "fast", null);
            FeedConsumer slow = e.feed().register(t, "slow", null);
            for (int i = 0; i < 5; i++) {
                put(e, t, "same", "v" + i);
            }
            FeedShard s = shardOf(e, t, "same");
            shardId = s.partitionId();
            assertThat(new FeedReader(e, fast).poll()).hasSize(5);
            List<ChangeRecord> two = slow.read(s, 2);
            slow.commit(s, two.get(1).sequence());
            e.trimFeed();
            assertThat(s.floor()).isEqualTo(two.get(1).sequence());
            assertThat(e.feed().read(t, s, 0, 100)).hasSize(3);
            assertThat(new FeedReader(e, slow).poll())
                    .extracting(r -> v(r.newImage()))
                    .containsExactly("v2", "v3", "v4");
            e.trimFeed();
            assertThat(e.feed().read(t, s, 0, 100)).isEmpty();
            last = s.lastAssigned();
            assertThat(s.floor()).isEqualTo(last);
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().find("t");
            put(e, t, "same", "after");
            FeedShard s = shardOf(e, t, "same");
            assertThat(s.partitionId()).isEqualTo(shardId);
            List<ChangeRecord> records = new FeedReader(e, t.feed().consumer("slow")).poll();
            assertThat(records)
                    .singleElement()
                    .satisfies(r -> assertThat(r.sequence()).isEqualTo(last + 1));
        }
    }

    @Test
    void aConsumerWithARetentionKeepsRecordsUntilTheyAreOlderThanItWhetherReadOrNot(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            e.feed().register(t, "stream", Duration.ofHours(24));
            put(e, t, "a", "old");
            clock.advance(23 * HOUR);
            put(e, t, "a", "young");
            e.trimFeed();
            FeedShard s = shardOf(e, t, "a");
            assertThat(e.feed().read(t, s, 0, 10)).hasSize(2);
            clock.advance(2 * HOUR);
            e.trimFeed();
            assertThat(e.feed().read(t, s, 0, 10))
                    .extracting(r -> v(r.newImage()))
                    .containsExactly("young");
            assertThat(t.feed().consumer("stream").read(s, 10)).hasSize(1);
        }
    }

    @Test
    void withoutConsumersEverythingIsTrimmed(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            e.feed().register(t, "c", null);
            put(e, t, "a", "1");
            put(e, t, "b", "1");
            e.feed().unregister(t, "c");
            e.trimFeed();
            for (FeedShard s : e.feed().shards(t)) {
                assertThat(e.feed().read(t, s, 0, 10)).isEmpty();
            }
        }
    }

    @Test
    void deletingATableDeletesItsFeed(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            e.feed().register(t, "c", null);
            put(e, t, "a", "1");
            e.tables().delete("t");
            Table again = e.tables().create(table("t"));
            assertThat(again.feed().recording()).isFalse();
            FeedConsumer c = e.feed().register(again, "c", null);
            assertThat(c.position(shardOf(e, again, "a"))).isZero();
            put(e, again, "a", "2");
            assertThat(new FeedReader(e, c).poll()).singleElement().satisfies(r -> {
                assertThat(r.kind()).isEqualTo(ChangeRecord.Kind.INSERT);
                assertThat(r.sequence()).isEqualTo(1);
            });
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            assertThat(e.tables().find("t").feed().consumers())
                    .extracting(FeedConsumer::name)
                    .containsExactly("c");
        }
    }

    @Test
    void aSplitClosesTheParentsShardItsChildrenNameItAndTrimmingForgetsItOnceRead(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            FeedConsumer c = e.feed().register(t, "c", null);
            put(e, t, "a", "1");
            Partition parent = t.partitions().partitionFor(hashOf(t, "a"));
            long at = parent.start() + (parent.end() - parent.start()) / 2;
            t.partitions().split(parent, at, 0, 0, TablePartitions.SplitReason.SIZE);
            put(e, t, "a", "2");
            assertThat(parent.shard().drained()).isTrue();
            FeedShard child = shardOf(e, t, "a");
            assertThat(child.parentId()).isEqualTo(parent.id());
            assertThat(e.feed().shards(t)).startsWith(parent.shard());
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().find("t");
            FeedShard retired = e.feed().shards(t).get(0);
            assertThat(retired.drained())
                    .as("a split partition's shard is kept across a reopen")
                    .isTrue();
            FeedConsumer c = t.feed().consumer("c");
            assertThat(new FeedReader(e, c).poll())
                    .extracting(r -> v(r.newImage()))
                    .containsExactly("1", "2");
            e.trimFeed();
            assertThat(t.partitions().retired()).isEmpty();
            assertThat(e.feed().shards(t)).doesNotContain(retired);
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            assertThat(e.tables().find("t").partitions().retired()).isEmpty();
        }
    }

    @Test
    void aConsumerTheEngineFollowsKeepsUpIsFollowedAgainAfterAReopenAndStopsWhenRemoved(@TempDir Path dir)
            throws InterruptedException {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            FeedConsumer c = e.feed().followDiscarding(t, "tail");
            for (int i = 0; i < 20; i++) {
                put(e, t, "k" + i, "v");
            }
            FeedFollower f = t.feed().follower("tail");
            awaitRecords(f, 20);
            e.trimFeed();
            for (FeedShard s : e.feed().shards(t)) {
                assertThat(e.feed().read(t, s, 0, 100))
                        .as("read by the follower, then trimmed")
                        .isEmpty();
                assertThat(c.position(s)).isEqualTo(s.lastAssigned());
            }
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().find("t");
            FeedFollower f = t.feed().follower("tail");
            assertThat(f).as("followed again after the reopen").isNotNull();
            put(e, t, "k0", "again");
            awaitRecords(f, 1);
            e.feed().unregister(t, "tail");
            assertThat(t.feed().follower("tail")).isNull();
            assertThat(t.feed().recording()).isFalse();
        }
    }

    /** Waits, at most 10 s, for a follower's thread to have handed over {@code n} records. */
    private static void awaitRecords(FeedFollower f, long n) throws InterruptedException {
        for (int i = 0; i < 1000 && f.records() < n; i++) {
            Thread.sleep(10);
        }
        assertThat(f.records()).isEqualTo(n);
    }

    @Test
    void aShardIsReadOnlyOnceEveryAncestorIsFinishedEvenThroughAnEmptyOne(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            FeedReader reader = new FeedReader(e, e.feed().register(t, "c", null));
            put(e, t, "k", "1");
            long h = hashOf(t, "k");
            Partition p = t.partitions().partitionFor(h);
            assertThat(h).isNotEqualTo(p.start()).isNotEqualTo(p.end());
            // A write still in flight in the grandparent: its number is taken, not yet ended.
            long inFlight = p.shard().begin();
            t.partitions().split(p, h + 1, 0, 0, TablePartitions.SplitReason.SIZE);
            Partition c = t.partitions().partitionFor(h);
            t.partitions().split(c, h, 0, 0, TablePartitions.SplitReason.SIZE);
            put(e, t, "k", "2");
            FeedShard grandchild = shardOf(e, t, "k");
            assertThat(grandchild.parentId()).isEqualTo(c.id());
            assertThat(c.parentId()).isEqualTo(p.id());

            assertThat(reader.poll()).extracting(r -> v(r.newImage())).containsExactly("1");
            e.trimFeed();
            assertThat(t.partitions().retired())
                    .as("the empty middle shard stays while its parent does")
                    .contains(c.shard());
            p.shard().end(inFlight);
            assertThat(reader.poll()).extracting(r -> v(r.newImage())).containsExactly("2");
            e.trimFeed();
            e.trimFeed();
            assertThat(t.partitions().retired()).isEmpty();
        }
    }

    @Test
    void aConsumerPlacedAtAFailedWritesNumberIsNotHandedThatNumberAfterARestart(@TempDir Path dir) {
        FeedShard before;
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            e.feed().register(t, "first", null);
            put(e, t, "k", "1");
            before = shardOf(e, t, "k");
            // A write that took the next number and failed before its batch reached the log: a hole at the top.
            before.end(before.begin());
            assertThat(e.feed().register(t, "second", null).position(before)).isEqualTo(2);
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().find("t");
            put(e, t, "k", "2");
            List<ChangeRecord> seen = new FeedReader(e, t.feed().consumer("second")).poll();
            assertThat(seen)
                    .singleElement()
                    .satisfies(r -> assertThat(r.sequence()).isEqualTo(3));
        }
    }

    @Test
    void noConsumerRegistersOnADeletedTable(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            e.tables().delete("t");
            assertThatThrownBy(() -> e.feed().register(t, "late", null))
                    .isInstanceOfSatisfying(
                            ApiException.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.RESOURCE_NOT_FOUND));
        }
    }

    @Test
    void consumerNamesAndRetentionsAreChecked(@TempDir Path dir) {
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            Table t = e.tables().create(table("t"));
            assertThatThrownBy(() -> e.feed().register(t, "no spaces", null)).isInstanceOf(ApiException.class);
            assertThatThrownBy(() -> e.feed().register(t, "c", Duration.ZERO)).isInstanceOf(ApiException.class);
            assertThat(t.feed().recording()).isFalse();
        }
    }

    private static long hashOf(Table t, String pk) {
        return io.partita.storage.key.ItemKeyEncoder.encode(SCHEMA, key(pk)).hash();
    }

    private static FeedShard shardOf(StorageEngine e, Table t, String pk) {
        return t.partitions().partitionFor(hashOf(t, pk)).shard();
    }
}
