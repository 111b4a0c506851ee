package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import io.partita.storage.StorageConfig;
import io.partita.storage.write.ConflictInjection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * Transactions are serializable against each other and against single-item writes, and conflicts are reported as
 * DynamoDB reports them ("Transaction conflict handling in DynamoDB"): a transaction that meets another is cancelled
 * with {@code TransactionConflict}, a single-item write to an item a transaction holds fails with {@code
 * TransactionConflictException}.
 */
@ExtendWith(PartitaExtension.class)
class TransactionConflictTest {
    private static final int ACCOUNTS = 50;
    private static final int START_BALANCE = 1000;

    /** With the conflict rate at 1, every transaction is cancelled with a conflict on one of its items. */
    @Test
    @Tag("partita-only")
    void injectedConflictsCancelTransactions() {
        StorageConfig storage = StorageConfig.memory().withTransactionConflicts(new ConflictInjection(1, 42));
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            Throwable thrown =
                    org.assertj.core.api.Assertions.catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(
                            TransactWriteItemsTest.put(t, item("id", s("a"))),
                            TransactWriteItemsTest.put(t, item("id", s("b"))))));
            assertThat(thrown).isInstanceOf(TransactionCanceledException.class);
            TransactionCanceledException e = (TransactionCanceledException) thrown;
            assertThat(e.awsErrorDetails().errorMessage())
                    .isIn(
                            "Transaction cancelled, please refer cancellation reasons for specific reasons"
                                    + " [TransactionConflict, None]",
                            "Transaction cancelled, please refer cancellation reasons for specific reasons [None,"
                                    + " TransactionConflict]");
            assertThat(TransactWriteItemsTest.codes(e))
                    .containsOnly("None", "TransactionConflict")
                    .contains("TransactionConflict");
            assertThat(e.cancellationReasons().stream()
                            .filter(r -> r.code().equals("TransactionConflict"))
                            .map(r -> r.message()))
                    .containsExactly("Transaction is ongoing for the item");
            assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("a"))))
                            .hasItem())
                    .isFalse();
            // Reads meet them too; single-item writes do not.
            assertThat(org.assertj.core.api.Assertions.catchThrowable(
                            () -> ddb.transactGetItems(r -> r.transactItems(TransactGetItemsTest.get(t, "a")))))
                    .isInstanceOf(TransactionCanceledException.class);
            ddb.putItem(p -> p.tableName(t).item(item("id", s("a"))));
        }
    }

    /**
     * The bank-transfer invariant: 16 clients move money between 50 accounts with TransactWriteItems while others
     * read every balance with TransactGetItems and single-item writes touch the same items; the total is the same in
     * every read and at the end. Conflicts are retried, and every failure is one DynamoDB reports. On Partita a share
     * of transactions meets an injected conflict as well, so that conflicts certainly occur.
     */
    @Test
    void transfersKeepTheTotal(Tables shared) throws Exception {
        IsolatedPartita partita = Endpoint.isEmbedded()
                ? IsolatedPartita.start(StorageConfig.memory().withTransactionConflicts(new ConflictInjection(0.05, 7)))
                : null;
        try {
            Tables tables = partita != null ? partita.tables() : shared;
            DynamoDbClient ddb = partita != null ? partita.client() : Endpoint.client();
            String t = tables.hashTable("id", ScalarAttributeType.S);
            for (int i = 0; i < ACCOUNTS; i++) {
                String id = "acct" + i;
                ddb.putItem(p -> p.tableName(t).item(item("id", s(id), "bal", n(String.valueOf(START_BALANCE)))));
            }
            int transferrers = 16;
            int transfersEach = 60;
            AtomicInteger cancelledByConflict = new AtomicInteger();
            AtomicInteger writeConflicts = new AtomicInteger();
            AtomicInteger insufficient = new AtomicInteger();
            AtomicInteger reads = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(transferrers + 3);
            List<Future<?>> work = new ArrayList<>();
            try {
                for (int w = 0; w < transferrers; w++) {
                    int seed = w;
                    work.add(pool.submit(() -> {
                        Random random = new Random(seed);
                        for (int i = 0; i < transfersEach; i++) {
                            int from = random.nextInt(ACCOUNTS);
                            int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            int amount = 1 + random.nextInt(50);
                            transfer(ddb, t, from, to, amount, cancelledByConflict, insufficient);
                        }
                        return null;
                    }));
                }
                java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
                List<Future<?>> readers = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    readers.add(pool.submit(() -> {
                        while (!done.get()) {
                            Integer total = total(ddb, t, cancelledByConflict);
                            if (total != null) {
                                assertThat(total).isEqualTo(ACCOUNTS * START_BALANCE);
                                reads.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                readers.add(pool.submit(() -> {
                    Random random = new Random(99);
                    int touches = 0;
                    while (!done.get()) {
                        String id = "acct" + random.nextInt(ACCOUNTS);
                        try {
                            ddb.updateItem(u -> u.tableName(t)
                                    .key(Map.of("id", s(id)))
                                    .updateExpression("ADD touched :one")
                                    .expressionAttributeValues(Map.of(":one", n("1"))));
                            touches++;
                        } catch (TransactionConflictException e) {
                            assertThat(e.awsErrorDetails().errorMessage())
                                    .isEqualTo("Transaction is ongoing for the item");
                            writeConflicts.incrementAndGet();
                        }
                    }
                    return touches;
                }));
                for (Future<?> f : work) {
                    f.get(5, TimeUnit.MINUTES);
                }
                done.set(true);
                for (Future<?> f : readers) {
                    f.get(1, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            Integer end = null;
            while (end == null) {
                end = total(ddb, t, cancelledByConflict);
            }
            assertThat(end).isEqualTo(ACCOUNTS * START_BALANCE);
            assertThat(reads.get()).isPositive();
            if (partita != null) {
                assertThat(cancelledByConflict.get()).isPositive();
            }
            System.out.printf(
                    "bank: %d reads, %d transactions cancelled by conflicts, %d single writes refused, %d refused for"
                            + " funds%n",
                    reads.get(), cancelledByConflict.get(), writeConflicts.get(), insufficient.get());
        } finally {
            if (partita != null) {
                partita.close();
            }
        }
    }

    /**
     * Conflicts nobody injected: transactions on two hot items meet each other (TransactionCanceledException with
     * reason TransactionConflict) and single-item writes meet them (TransactionConflictException, "Transaction is
     * ongoing for the item"), and every acknowledged increment is applied exactly once. The client does not retry,
     * so that it sees every conflict; each thread stops once both kinds have been seen, or after its share of calls.
     */
    @Test
    void realConflictsAreReported(Tables tables) throws Exception {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        try (DynamoDbClient ddb = Endpoint.clientWithoutRetries()) {
            String[] ids = {"hot-a", "hot-b"};
            for (String id : ids) {
                ddb.putItem(p -> p.tableName(t).item(item("id", s(id), "n", n("0"))));
            }
            Map<String, AttributeValue> one = Map.of(":one", n("1"));
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger cancelled = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger[] singles = {new AtomicInteger(), new AtomicInteger()};
            java.util.function.BooleanSupplier seenBoth = () -> cancelled.get() > 0 && refused.get() > 0;
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> work = new ArrayList<>();
            try {
                for (int w = 0; w < 6; w++) {
                    work.add(pool.submit(() -> {
                        for (int i = 0; i < 3000 && !seenBoth.getAsBoolean(); i++) {
                            try {
                                ddb.transactWriteItems(r -> r.transactItems(
                                        TransactWriteItem.builder()
                                                .update(u -> u.tableName(t)
                                                        .key(Map.of("id", s(ids[0])))
                                                        .updateExpression("ADD n :one")
                                                        .expressionAttributeValues(one))
                                                .build(),
                                        TransactWriteItem.builder()
                                                .update(u -> u.tableName(t)
                                                        .key(Map.of("id", s(ids[1])))
                                                        .updateExpression("ADD n :one")
                                                        .expressionAttributeValues(one))
                                                .build()));
                                committed.incrementAndGet();
                            } catch (TransactionCanceledException e) {
                                assertThat(TransactWriteItemsTest.codes(e))
                                        .contains("TransactionConflict")
                                        .containsOnly("TransactionConflict", "None");
                                cancelled.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (int w = 0; w < 2; w++) {
                    int which = w;
                    work.add(pool.submit(() -> {
                        for (int i = 0; i < 6000 && !seenBoth.getAsBoolean(); i++) {
                            try {
                                ddb.updateItem(u -> u.tableName(t)
                                        .key(Map.of("id", s(ids[which])))
                                        .updateExpression("ADD n :one")
                                        .expressionAttributeValues(one));
                                singles[which].incrementAndGet();
                            } catch (TransactionConflictException e) {
                                assertThat(e.awsErrorDetails().errorMessage())
                                        .isEqualTo("Transaction is ongoing for the item");
                                refused.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : work) {
                    f.get(5, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(cancelled.get()).as("transactions cancelled by another").isPositive();
            assertThat(refused.get())
                    .as("single writes refused by a transaction")
                    .isPositive();
            for (int i = 0; i < ids.length; i++) {
                String id = ids[i];
                var stored = ddb.getItem(
                                g -> g.tableName(t).key(Map.of("id", s(id))).consistentRead(true))
                        .item();
                assertThat(Integer.parseInt(stored.get("n").n())).as(id).isEqualTo(committed.get() + singles[i].get());
            }
        }
    }

    /** Moves {@code amount} unless {@code from} lacks it; retries conflicts. */
    private static void transfer(
            DynamoDbClient ddb,
            String t,
            int from,
            int to,
            int amount,
            AtomicInteger conflicts,
            AtomicInteger insufficient) {
        Map<String, AttributeValue> x = Map.of(":x", n(String.valueOf(amount)));
        while (true) {
            try {
                ddb.transactWriteItems(r -> r.transactItems(
                        TransactWriteItem.builder()
                                .update(u -> u.tableName(t)
                                        .key(Map.of("id", s("acct" + from)))
                                        .updateExpression("SET bal = bal - :x")
                                        .conditionExpression("bal >= :x")
                                        .expressionAttributeValues(x))
                                .build(),
                        TransactWriteItem.builder()
                                .update(u -> u.tableName(t)
                                        .key(Map.of("id", s("acct" + to)))
                                        .updateExpression("SET bal = bal + :x")
                                        .expressionAttributeValues(x))
                                .build()));
                return;
            } catch (TransactionCanceledException e) {
                List<String> codes = TransactWriteItemsTest.codes(e);
                if (codes.contains("ConditionalCheckFailed")) {
                    assertThat(codes).containsExactly("ConditionalCheckFailed", "None");
                    insufficient.incrementAndGet();
                    return;
                }
                assertThat(codes).contains("TransactionConflict").containsOnly("TransactionConflict", "None");
                conflicts.incrementAndGet();
            }
        }
    }

    /** The sum of every balance in one TransactGetItems, or null if it met a conflict. */
    private static Integer total(DynamoDbClient ddb, String t, AtomicInteger conflicts) {
        List<TransactGetItem> gets = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            gets.add(TransactGetItemsTest.get(t, "acct" + i));
        }
        try {
            return ddb.transactGetItems(r -> r.transactItems(gets)).responses().stream()
                    .map(ItemResponse::item)
                    .mapToInt(item -> Integer.parseInt(item.get("bal").n()))
                    .sum();
        } catch (TransactionCanceledException e) {
            assertThat(TransactWriteItemsTest.codes(e)).containsOnly("TransactionConflict", "None");
            conflicts.incrementAndGet();
            return null;
        }
    }
}
