package io.partita.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.Transactions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that holds one hash range of a table cut by ranges over several Raft groups refuses every key outside it,
 * before anything is written, and keeps its range across a reopen.
 */
class HashRangeIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
    /** The lower half of the hash space, in unsigned order. */
    private static final HashRange LOWER = new HashRange(0, Long.MAX_VALUE);

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk) {
        return Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S("x"));
    }

    /** The {@code skip}-th key {@code k0}, {@code k1}, ... that is ({@code inside}) or is not in the range. */
    private static String keyIn(boolean inside, int skip) {
        int found = 0;
        for (int i = 0; ; i++) {
            String pk = "k" + i;
            if (LOWER.holds(ItemKeyEncoder.partitionHash(new AttributeValue.S(pk))) == inside && found++ == skip) {
                return pk;
            }
        }
    }

    private static ConditionalWrite put(String pk) {
        return ConditionalWrite.blind(new WriteDecision.Put(item(pk)));
    }

    private static void refused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                .hasMessageContaining("is not in the hash range of the Raft group");
    }

    @Test
    void keysOutsideTheRangeAreRefusedAndNothingIsWritten(@TempDir Path dir) {
        String in = keyIn(true, 0);
        String in2 = keyIn(true, 1);
        String out = keyIn(false, 0);
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA).withHashRange(LOWER));
            e.write(t, key(in), put(in));
            assertThat(e.get(t, key(in))).isEqualTo(item(in));

            refused(() -> e.write(t, key(out), put(out)));
            refused(() -> e.writes()
                    .writeAll(List.of(
                            ItemWrite.user(t, key(in2), put(in2), 0), ItemWrite.user(t, key(out), put(out), 0))));
            refused(() -> e.writes()
                    .transactions()
                    .write(List.of(
                            new Transactions.WriteAction(t, key(in2), put(in2), false),
                            new Transactions.WriteAction(t, key(out), put(out), false))));
            refused(() -> e.writes()
                    .transactions()
                    .read(List.of(new Transactions.ReadAction(t, key(in)), new Transactions.ReadAction(t, key(out)))));
            assertThat(e.get(t, key(in2)))
                    .as("no write of a refused batch or transaction")
                    .isNull();
            assertThat(e.get(t, key(out))).isNull();
            assertThat(t.stats().itemCount()).isEqualTo(1);

            // Inside, a batch and a transaction go ahead.
            e.writes().writeAll(List.of(ItemWrite.user(t, key(in2), put(in2), 0)));
            assertThat(e.writes()
                            .transactions()
                            .read(List.of(new Transactions.ReadAction(t, key(in2))))
                            .items())
                    .containsExactly(item(in2));
        }
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = e.tables().find("t");
            assertThat(t.metadata().hashRange()).as("recorded with the table").isEqualTo(LOWER);
            refused(() -> e.write(t, key(out), put(out)));
            assertThat(t.stats().itemCount()).isEqualTo(2);
        }
    }

    /**
     * A range move's fences: first the writes of the moved hashes are refused (their reads served, the items stored
     * for the move to copy), then the range narrows (their reads refused too); the move's own copies and deletions
     * pass, not charged. A range still receiving a move's items serves no read or write until it is received.
     */
    @Test
    void aMovesFencesRefuseWritesThenReadsOfTheHashesItGivesUp(@TempDir Path dir) {
        HashRange whole = new HashRange(0, -1L);
        String low = keyIn(true, 0);
        String high = keyIn(false, 0);
        String high2 = keyIn(false, 1);
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA).withHashRange(whole));
            e.write(t, key(low), put(low));
            e.write(t, key(high), put(high));

            e.tables().changeRange("t", h -> h.freezingFrom(Long.MIN_VALUE));
            assertThatThrownBy(() -> e.write(t, key(high), put(high)))
                    .isInstanceOfSatisfying(
                            ApiException.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                    .hasMessageContaining("is moving to another Raft group");
            assertThatThrownBy(() -> e.writes()
                            .transactions()
                            .write(List.of(new Transactions.WriteAction(t, key(high), put(high), false))))
                    .isInstanceOf(ApiException.class);
            assertThat(e.writes()
                            .transactions()
                            .read(List.of(new Transactions.ReadAction(t, key(high))))
                            .items())
                    .as("a frozen item is read")
                    .containsExactly(item(high));
            e.write(t, key(low), put(low)); // the rest of the range is written
            assertThat(e.writes().transactionsUnderWay(t, new HashRange(Long.MIN_VALUE, -1L)))
                    .isFalse();

            e.tables().changeRange("t", h -> new HashRange(h.first(), Long.MAX_VALUE));
            assertThat(t.metadata().hashRange()).isEqualTo(LOWER);
            refused(() -> e.write(t, key(high), put(high)));
            refused(() -> e.writes().transactions().read(List.of(new Transactions.ReadAction(t, key(high)))));
            assertThat(e.get(t, key(high)))
                    .as("still stored, for the move to delete")
                    .isEqualTo(item(high));

            // The move's own writes pass the fence, neither admitted nor charged: a copy put and the deletion.
            var written = e.writes()
                    .writeAll(List.of(
                            ItemWrite.move(t, key(high2), put(high2)),
                            ItemWrite.move(t, key(high), ConditionalWrite.blind(new WriteDecision.Delete()))));
            assertThat(written).allSatisfy(w -> assertThat(w.units()).isZero());
            assertThat(e.get(t, key(high))).isNull();
            assertThat(e.get(t, key(high2))).isEqualTo(item(high2));
            assertThatThrownBy(() -> e.writes()
                            .writeAll(List.of(
                                    ItemWrite.ttl(t, key(low), ConditionalWrite.blind(new WriteDecision.Delete())))))
                    .as("a batch holds a user's or a move's writes")
                    .isInstanceOf(IllegalArgumentException.class);

            Table r = e.tables()
                    .create(TestTables.onDemand("r", SCHEMA).withHashRange(new HashRange(0, -1L, null, true)));
            assertThatThrownBy(() -> e.write(r, key(low), put(low)))
                    .isInstanceOf(ApiException.class)
                    .hasMessageContaining("still receiving");
            e.writes().writeAll(List.of(ItemWrite.move(r, key(low), put(low))));
            e.tables().changeRange("r", HashRange::received);
            assertThat(e.get(r, key(low))).isEqualTo(item(low));
            e.write(r, key(low), put(low));
        }
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(e.tables().find("t").metadata().hashRange())
                    .as("the narrowed range recorded")
                    .isEqualTo(LOWER);
            assertThat(e.tables().find("r").metadata().hashRange().receiving()).isFalse();
        }
    }

    @Test
    void aWholeTableHoldsEveryKey() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            assertThat(t.metadata().hashRange()).isNull();
            for (String pk : List.of(keyIn(true, 0), keyIn(false, 0))) {
                e.write(t, key(pk), put(pk));
                assertThat(e.get(t, key(pk))).isEqualTo(item(pk));
            }
        }
    }

    /**
     * A move's start refuses no write: each change of an item of the moved hashes is tracked (its key, once), up to the
     * room given, until the tracking stops; the start is recorded with the table.
     */
    @Test
    void aMovesStartTakesWritesAndTracksTheChangedKeys(@TempDir Path dir) {
        String low = keyIn(true, 0);
        String high = keyIn(false, 0);
        String high2 = keyIn(false, 1);
        String high3 = keyIn(false, 2);
        HashRange moved = new HashRange(Long.MIN_VALUE, -1L);
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA).withHashRange(new HashRange(0, -1L)));
            e.write(t, key(high), put(high));
            e.tables().changeRange("t", h -> h.movingFrom(Long.MIN_VALUE));
            io.partita.storage.write.ChangedKeys changed = e.writes().trackChanges(t, moved, 2);
            // A delete that needs no old image (no condition, no index, no stream) is tracked too.
            e.write(t, key(high), ConditionalWrite.blind(new WriteDecision.Delete()));
            e.write(t, key(low), put(low));
            e.write(t, key(high2), put(high2));
            e.write(t, key(high2), ConditionalWrite.blind(new WriteDecision.Delete()));
            assertThat(changed.keys())
                    .as("the moved items changed, each once")
                    .containsExactlyInAnyOrder(key(high), key(high2));
            assertThat(changed.overflowed()).isFalse();
            e.write(t, key(high3), put(high3));
            assertThat(changed.overflowed())
                    .as("a third key, past the room of two")
                    .isTrue();
            assertThatThrownBy(() -> e.writes().trackChanges(t, moved, 2))
                    .as("one move's tracking at a time")
                    .isInstanceOf(IllegalStateException.class);
            e.writes().stopTracking(changed);
            assertThat(t.metadata().hashRange().movingFrom()).isEqualTo(Long.MIN_VALUE);
            assertThat(t.metadata().hashRange().frozenFrom()).isNull();
        }
        try (StorageEngine e = StorageEngine.open(StorageConfig.disk(dir))) {
            assertThat(e.tables().find("t").metadata().hashRange())
                    .as("recorded with the table")
                    .isEqualTo(new HashRange(0, -1L).movingFrom(Long.MIN_VALUE));
        }
        assertThatThrownBy(() -> new HashRange(5, 9, 7L, false, 8L, null))
                .as("frozen from elsewhere than it moves from")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new HashRange(5, 9).movingFrom(7).freezingFrom(7).movingFrom())
                .isEqualTo(7L);
    }

    @Test
    void theRangeIncludesBothEndsInUnsignedOrder() {
        HashRange upper = new HashRange(Long.MIN_VALUE, -1L);
        assertThat(upper.holds(Long.MIN_VALUE)).isTrue();
        assertThat(upper.holds(-1L)).isTrue();
        assertThat(upper.holds(Long.MAX_VALUE)).isFalse();
        assertThat(LOWER.holds(0)).isTrue();
        assertThat(LOWER.holds(Long.MAX_VALUE)).isTrue();
        assertThat(LOWER.holds(Long.MIN_VALUE)).isFalse();
        assertThatThrownBy(() -> new HashRange(-1L, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HashRange(5, 9, 5L, false))
                .as("frozen from the range's first hash")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HashRange(5, 9, 10L, false)).isInstanceOf(IllegalArgumentException.class);
        HashRange frozen = new HashRange(5, 9).freezingFrom(7);
        assertThat(frozen.frozen(6)).isFalse();
        assertThat(frozen.frozen(7)).isTrue();
        assertThat(frozen.frozen(9)).isTrue();
    }
}
