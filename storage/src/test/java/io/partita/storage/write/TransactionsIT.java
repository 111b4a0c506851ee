package io.partita.storage.write;

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
