package io.partita.storage.ttl;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.partition.MutableClock;
import io.partita.storage.table.TableCatalog.Table;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reaper against real RocksDB and a clock the test moves: an item is deleted once its expiry has passed (and
 * the added delay, which only a reap-now ignores), not before; a write that moves the expiry moves its entry; the
 * entries survive a restart; items written before TTL was enabled are found by the one-time index.
 */
class TimeToLiveIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("id", ScalarType.S), null);

    private static StorageConfig config(Path dir, MutableClock clock) {
        return StorageConfig.disk(dir)
                .withCapacity(
                        CapacityConfig.defaults().withMode(ThroughputMode.OFF).withClock(clock))
                .withTtlIntervalMillis(0);
    }

    private static void put(StorageEngine e, Table t, String id, long expires) {
        Map<String, AttributeValue> item =
                Map.of("id", new AttributeValue.S(id), "expires", new AttributeValue.N(BigDecimal.valueOf(expires)));
        e.write(t, key(id), ConditionalWrite.blind(new WriteDecision.Put(item)));
    }

    private static PrimaryKey key(String id) {
        return new PrimaryKey(new AttributeValue.S(id), null);
    }

    /**
     * An expired item that a transaction holds (a part prepared in one Raft group of several) stays until the
     * transaction ends: the reaper leaves its entry for a later pass.
     */
    @Test
    void anExpiredItemATransactionHoldsIsReapedOnceItIsReleased(@TempDir Path dir) {
        MutableClock clock =
                new MutableClock(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());
        long now = clock.millis() / 1000;
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().create(TestTables.onDemand("expiring", SCHEMA));
            e.ttl().enable(t, "expires");
            put(e, t, "held", now - 10);
            var prepared = e.writes().prepared();
            var check = new io.partita.storage.write.Transactions.WriteAction(
                    t, key("held"), old -> new WriteDecision.Keep(), true);
            assertThat(prepared.prepare("tx", false, new byte[0], java.util.List.of(check))
                            .reasons())
                    .isNull();
            assertThat(e.ttl().reapNow()).isZero();
            assertThat(e.get(t, key("held"))).isNotNull();
            prepared.abort("tx", false, clock.millis());
            assertThat(e.ttl().reapNow()).isEqualTo(1);
            assertThat(e.get(t, key("held"))).isNull();
        }
    }

    /**
     * A whole pass's worth of expired items that a transaction holds does not stop the reaper short of the items that
     * expired after them: the next pass starts past them.
     */
    @Test
    void expiredItemsATransactionHoldsDoNotStopTheReaperShortOfLaterOnes(@TempDir Path dir) {
        MutableClock clock =
                new MutableClock(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());
        long now = clock.millis() / 1000;
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().create(TestTables.onDemand("expiring", SCHEMA));
            e.ttl().enable(t, "expires");
            java.util.List<io.partita.storage.write.Transactions.WriteAction> checks = new java.util.ArrayList<>();
            for (int i = 0; i < TimeToLive.BATCH; i++) {
                String id = String.format("held%04d", i);
                put(e, t, id, now - 20); // expired first
                checks.add(new io.partita.storage.write.Transactions.WriteAction(
                        t, key(id), old -> new WriteDecision.Keep(), true));
            }
            put(e, t, "later", now - 10);
            var prepared = e.writes().prepared();
            assertThat(prepared.prepare("tx", false, new byte[0], checks).reasons())
                    .isNull();
            assertThat(e.ttl().reapNow()).isEqualTo(1);
            assertThat(e.get(t, key("later"))).isNull();
            // The periodic passes too: the first reads the held entries only, the next goes on past them.
            put(e, t, "again", now - 5);
            assertThat(e.ttl().reap(t, true)).isZero();
            assertThat(e.ttl().reap(t, true)).isEqualTo(1);
            prepared.abort("tx", false, clock.millis());
            assertThat(e.ttl().reapNow()).isEqualTo(TimeToLive.BATCH);
        }
    }

    @Test
    void itemsGoOnceTheyExpireAndTheirEntriesFollowTheirWrites(@TempDir Path dir) {
        MutableClock clock =
                new MutableClock(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());
        long now = clock.millis() / 1000;
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().create(TestTables.onDemand("expiring", SCHEMA));
            put(e, t, "before", now + 10); // written before TTL: found by the index
            e.ttl().enable(t, "expires");
            put(e, t, "soon", now + 10);
            put(e, t, "moved", now + 10);
            put(e, t, "moved", now + 1000); // its entry moves with it
            put(e, t, "late", now + 100);
            assertThat(e.ttl().reapNow()).as("nothing has expired yet").isZero();
        }
        clock.advance(Duration.ofSeconds(20).toMillis());
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().find("expiring");
            e.ttl().delayMillis(60_000);
            assertThat(e.ttl().reap(t, false))
                    .as("the added delay holds them back")
                    .isZero();
            assertThat(e.ttl().reapNow()).isEqualTo(2);
            assertThat(e.get(t, key("before"))).isNull();
            assertThat(e.get(t, key("soon"))).isNull();
            assertThat(e.get(t, key("moved"))).isNotNull();
            assertThat(e.get(t, key("late"))).isNotNull();
            assertThat(e.ttl().deletedCount(t.metadata().id())).isEqualTo(2);
            assertThat(e.ttl().lateness(t.metadata().id()).getMaxValue()).isBetween(9_000L, 11_000L);
            clock.advance(Duration.ofSeconds(200).toMillis());
            assertThat(e.ttl().reap(t, false)).as("past expiry and delay").isEqualTo(1);
            assertThat(e.get(t, key("late"))).isNull();
            // Another table's TTL: disabling this one (or deleting it) must leave the other's entries alone.
            Table other = e.tables().create(TestTables.onDemand("other", SCHEMA));
            Table third = e.tables().create(TestTables.onDemand("third", SCHEMA));
            e.ttl().enable(other, "expires");
            e.ttl().enable(third, "expires");
            long later = clock.millis() / 1000;
            put(e, other, "o", later + 10);
            put(e, third, "x", later + 10);
            e.ttl().disable(t);
            e.tables().delete("third");
            clock.advance(Duration.ofSeconds(2000).toMillis());
            assertThat(e.ttl().reapNow()).as("only the other table's item").isEqualTo(1);
            assertThat(e.get(other, key("o"))).isNull();
            assertThat(e.get(t, key("moved"))).as("TTL off: nothing is reaped").isNotNull();
        }
    }
}
