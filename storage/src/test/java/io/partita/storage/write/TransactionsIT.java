package io.partita.storage.write;

import static io.partita.storage.write.Transactions.HoldOutcome.BROKEN;
import static io.partita.storage.write.Transactions.HoldOutcome.INTACT;
import static io.partita.storage.write.Transactions.HoldOutcome.UNKNOWN;
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
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Transactions against each other and against single-item writes, with a transaction held open on purpose: a
 * condition that waits for the test, run while the transaction holds its items.
 */
class TransactionsIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk, String v) {
        return Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S(v));
    }

    private static Transactions.WriteAction put(Table t, String pk, String v) {
        return new Transactions.WriteAction(t, key(pk), old -> new WriteDecision.Put(item(pk, v)), false);
    }

    /** A write of {@code item} that stops, holding its item, until {@code release} opens. */
    private static ConditionalWrite waiting(
            CountDownLatch holding, CountDownLatch release, Map<String, AttributeValue> item) {
        return old -> {
            holding.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
            return new WriteDecision.Put(item);
        };
    }

    /** A transaction on {@code a} and {@code b} that stops, holding both, until {@code release} opens. */
    private static CompletableFuture<Transactions.WriteResult> heldOpen(
            StorageEngine e, Table t, CountDownLatch holding, CountDownLatch release) {
        ConditionalWrite waits = waiting(holding, release, item("a", "tx"));
        return CompletableFuture.supplyAsync(() -> e.writes()
                .transactions()
                .write(List.of(new Transactions.WriteAction(t, key("a"), waits, false), put(t, "b", "tx"))));
    }

    @Test
    void aWriteToAHeldItemConflictsAndOthersGoOn() throws Exception {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            var tx = heldOpen(e, t, holding, release);
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(
                            () -> e.write(t, key("b"), ConditionalWrite.blind(new WriteDecision.Put(item("b", "1")))))
                    .isInstanceOfSatisfying(ApiException.class, x -> {
                        assertThat(x.code()).isEqualTo(ErrorCode.TRANSACTION_CONFLICT);
                        assertThat(x.getMessage()).isEqualTo("Transaction is ongoing for the item");
                    });
            // Another transaction that meets a held item is cancelled on it, and holds nothing afterwards.
            var second = e.writes().transactions().write(List.of(put(t, "c", "2"), put(t, "a", "2")));
            assertThat(second.committed()).isFalse();
            assertThat(second.reasons())
                    .extracting(Transactions.Reason::code)
                    .containsExactly("None", "TransactionConflict");
            // So does a read transaction.
            var read = e.writes().transactions().read(List.of(new Transactions.ReadAction(t, key("b"))));
            assertThat(read.read()).isFalse();
            // Items nobody holds are written at once.
            e.write(t, key("c"), ConditionalWrite.blind(new WriteDecision.Put(item("c", "3"))));

            release.countDown();
            assertThat(tx.get(10, TimeUnit.SECONDS).committed()).isTrue();
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "tx"));
            assertThat(e.get(t, key("b"))).isEqualTo(item("b", "tx"));
            assertThat(e.get(t, key("c"))).isEqualTo(item("c", "3"));
            // Released: single writes and transactions reach the items again.
            e.write(t, key("b"), ConditionalWrite.blind(new WriteDecision.Put(item("b", "after"))));
            assertThat(e.writes()
                            .transactions()
                            .write(List.of(put(t, "a", "after")))
                            .committed())
                    .isTrue();
        }
    }

    /**
     * A read held over several Raft groups' reads (ReadHolds): released intact when none of its items changed, broken
     * by any commit of one (a single write, a transaction's, a write of an item the read found absent) and by its
     * table's deletion, unknown in another term and once released; a write is never refused for it.
     */
    @Test
    void aHeldReadIsBrokenByACommitOfItsItemsAndUnknownInAnotherTerm() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            Transactions tx = e.writes().transactions();
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "1"))));
            List<Transactions.ReadAction> ab =
                    List.of(new Transactions.ReadAction(t, key("a")), new Transactions.ReadAction(t, key("b")));

            var read = tx.holdRead("r1", 7, ab);
            assertThat(read.read()).isTrue();
            assertThat(read.items()).containsExactly(item("a", "1"), null);
            e.write(t, key("c"), ConditionalWrite.blind(new WriteDecision.Put(item("c", "1"))));
            assertThat(tx.release("r1", 7)).isEqualTo(INTACT);
            assertThat(tx.release("r1", 7)).isEqualTo(UNKNOWN); // released once

            assertThat(tx.holdRead("r2", 7, ab).read()).isTrue();
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "2"))));
            assertThat(tx.release("r2", 7)).isEqualTo(BROKEN);

            assertThat(tx.holdRead("r3", 7, ab).read()).isTrue();
            assertThat(tx.write(List.of(put(t, "b", "new"))).committed()).isTrue(); // an item the read found absent
            assertThat(tx.release("r3", 7)).isEqualTo(BROKEN);

            assertThat(tx.holdRead("r4", 7, ab).read()).isTrue();
            assertThat(tx.release("r4", 8)).isEqualTo(UNKNOWN); // another leader may have taken writes it never saw

            // Two reads hold one item: a write breaks both; one released leaves the other's hold in place.
            assertThat(tx.holdRead("r5", 7, ab).read()).isTrue();
            assertThat(tx.holdRead("r6", 7, List.of(new Transactions.ReadAction(t, key("a"))))
                            .read())
                    .isTrue();
            assertThat(tx.release("r5", 7)).isEqualTo(INTACT);
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "3"))));
            assertThat(tx.release("r6", 7)).isEqualTo(BROKEN);
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "3"));
            assertThat(tx.release("never", 7)).isEqualTo(UNKNOWN);

            assertThat(tx.holdRead("r7", 7, ab).read()).isTrue();
            e.tables().delete("t");
            assertThat(tx.release("r7", 7)).isEqualTo(BROKEN);
        }
    }

    /**
     * The hold is made before the read takes its items' locks: a commit that holds the lock while the read waits for
     * it breaks the hold (made after the read, it would find nothing changed since, and miss that the read came after
     * a write other groups' reads may not have seen).
     */
    @Test
    void aCommitThatHoldsTheLockWhileTheReadWaitsBreaksItsHold() throws Exception {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            CountDownLatch writing = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            var write =
                    CompletableFuture.runAsync(() -> e.write(t, key("a"), waiting(writing, release, item("a", "w"))));
            assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue(); // the write holds a's lock
            var read = CompletableFuture.supplyAsync(() ->
                    e.writes().transactions().holdRead("r", 1, List.of(new Transactions.ReadAction(t, key("a")))));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (e.writes().readHolds().size() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // the read registers its hold, then waits for the lock
            }
            assertThat(read).isNotDone();
            release.countDown();
            write.get(10, TimeUnit.SECONDS);
            assertThat(read.get(10, TimeUnit.SECONDS).items()).containsExactly(item("a", "w"));
            assertThat(e.writes().transactions().release("r", 1)).isEqualTo(BROKEN);
        }
    }

    /**
     * A commit whose outcome is unknown (its entry proposed, not confirmed) may be applied later under no lock, and
     * break no hold: a read made meanwhile first has an entry of its own applied, and a read held across such a commit
     * is unknown. The store replicates through a stand-in that holds back one entry as a group that did not answer
     * in time would, and applies it later.
     */
    @Test
    void aReadAfterACommitOfUnknownOutcomeSeesItAppliedFirst() {
        try (io.partita.storage.rocks.RocksStore store =
                        io.partita.storage.rocks.RocksStore.open(StorageConfig.memory());
                StorageEngine e = StorageEngine.openOn(store, StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "1"))));
            LateReplication group = new LateReplication(store);
            store.replicateThrough(group);
            Transactions tx = e.writes().transactions();
            List<Transactions.ReadAction> a = List.of(new Transactions.ReadAction(t, key("a")));
            assertThat(tx.holdRead("before", 1, a).read()).isTrue();
            group.holdBackNext();
            assertThatThrownBy(
                            () -> e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "2")))))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThat(tx.release("before", 1)).isEqualTo(BROKEN); // its item: broken before the commit

            // The next read has the held-back entry applied first, and reads what it wrote.
            var after = tx.holdRead("after", 1, a);
            assertThat(group.holding()).isFalse();
            assertThat(after.items()).containsExactly(item("a", "2"));
            assertThat(tx.release("after", 1)).isEqualTo(INTACT);

            // A read held across a commit of unknown outcome, of another item, is unknown.
            assertThat(tx.holdRead("across", 1, a).read()).isTrue();
            group.holdBackNext();
            assertThatThrownBy(
                            () -> e.write(t, key("z"), ConditionalWrite.blind(new WriteDecision.Put(item("z", "1")))))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThat(tx.release("across", 1)).isEqualTo(UNKNOWN);
        }
    }

    /**
     * A held read that its reader never releases is dropped after 30 s (looked for once a second); the holds watch at
     * most 100,000 items.
     */
    @Test
    void aHoldNeverReleasedExpiresAndHoldsAreBounded() {
        long[] now = {0};
        ReadHolds holds = new ReadHolds(() -> now[0]);
        holds.hold("r", 1, List.of(new TransactionHolds.Item(1, new byte[] {1})), List.of());
        now[0] += ReadHolds.EXPIRY_NANOS - 1;
        holds.hold("s", 1, List.of(new TransactionHolds.Item(1, new byte[] {2})), List.of());
        assertThat(holds.size()).isEqualTo(2);
        now[0] += TimeUnit.SECONDS.toNanos(1); // expired holds are looked for once a second at most
        holds.hold("u", 1, List.of(new TransactionHolds.Item(1, new byte[] {3})), List.of()); // expires r
        assertThat(holds.size()).isEqualTo(2);
        assertThat(holds.release("r", 1)).isEqualTo(UNKNOWN);
        now[0] += ReadHolds.EXPIRY_NANOS;
        // Too late: a write after its expiry would not have broken it.
        assertThat(holds.release("s", 1)).isEqualTo(UNKNOWN);
        assertThat(holds.size()).isZero(); // u expired on the way

        java.util.List<TransactionHolds.Item> many = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(new TransactionHolds.Item(2, new byte[] {(byte) i}));
        }
        for (int r = 0; r < ReadHolds.MAX_ITEMS / 100; r++) {
            holds.hold("m" + r, 1, many, List.of());
        }
        assertThatThrownBy(() -> holds.hold("one-more", 1, many.subList(0, 1), List.of()))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
        holds.drop("m0");
        holds.hold("one-more", 1, many.subList(0, 1), List.of());
        assertThat(holds.size()).isEqualTo(ReadHolds.MAX_ITEMS / 100);
        // An id held already is refused, and the hold it names stays as it was.
        assertThatThrownBy(() -> holds.hold("one-more", 1, many.subList(1, 2), List.of()))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.getMessage()).isEqualTo("Hold one-more is held already"));
        holds.changing(2, new byte[] {1});
        assertThat(holds.release("one-more", 1)).isEqualTo(INTACT);
    }

    @Test
    void aCancelledTransactionWritesNothingAndChargesNothing() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", "old"))));
            var result = e.writes()
                    .transactions()
                    .write(List.of(
                            put(t, "a", "new"),
                            put(t, "b", "new"),
                            new Transactions.WriteAction(
                                    t,
                                    key("c"),
                                    old -> new WriteDecision.Reject(new ApiException(
                                            ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed")),
                                    true)));
            assertThat(result.reasons())
                    .extracting(Transactions.Reason::code)
                    .containsExactly("None", "None", "ConditionalCheckFailed");
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "old"));
            assertThat(e.get(t, key("b"))).isNull();
            assertThat(t.stats().itemCount()).isEqualTo(1);
        }
    }

    @Test
    void aCommittedTransactionDoublesItsUnits() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            Map<String, AttributeValue> big =
                    Map.of("pk", new AttributeValue.S("a"), "v", new AttributeValue.S("x".repeat(1500)));
            var result = e.writes()
                    .transactions()
                    .write(List.of(
                            new Transactions.WriteAction(t, key("a"), old -> new WriteDecision.Put(big), false),
                            new Transactions.WriteAction(t, key("b"), old -> new WriteDecision.Keep(), true)));
            assertThat(result.written()).extracting(Written::units).containsExactly(4.0, 2.0);
            var read = e.writes()
                    .transactions()
                    .read(List.of(new Transactions.ReadAction(t, key("a")), new Transactions.ReadAction(t, key("b"))));
            assertThat(read.units()).containsExactly(2.0, 2.0);
            assertThat(read.items().get(0)).isEqualTo(big);
            assertThat(read.items().get(1)).isNull();
        }
    }

    /**
     * A table deleted while a transaction holds items of it: DeleteTable waits for the transaction's locks, the
     * transaction finds the table gone and writes nothing anywhere, and the table's families are dropped after.
     */
    @Test
    void aTableDeletedDuringATransactionFailsItWhole() throws Exception {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table a = e.tables().create(TestTables.onDemand("a", SCHEMA));
            Table b = e.tables().create(TestTables.onDemand("b", SCHEMA));
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ConditionalWrite waits = waiting(holding, release, item("x", "tx"));
            var tx = CompletableFuture.supplyAsync(() -> e.writes()
                    .transactions()
                    .write(List.of(new Transactions.WriteAction(a, key("x"), waits, false), put(b, "y", "tx"))));
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            var deleting = CompletableFuture.runAsync(() -> e.tables().delete("b"));
            // DeleteTable marks the table, then waits for the transaction's locks.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!b.deleted() && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertThat(b.deleted()).isTrue();
            assertThat(deleting).isNotDone();
            release.countDown();
            assertThatThrownBy(() -> tx.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ApiException.class)
                    .cause()
                    .satisfies(x -> assertThat(((ApiException) x).code()).isEqualTo(ErrorCode.RESOURCE_NOT_FOUND));
            deleting.get(10, TimeUnit.SECONDS);
            assertThat(e.get(a, key("x"))).isNull();
            assertThat(a.stats().itemCount()).isZero();
            assertThat(e.tables().names()).containsExactly("a");
        }
    }
}
