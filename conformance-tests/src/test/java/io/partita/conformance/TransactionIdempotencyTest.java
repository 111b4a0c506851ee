package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import io.partita.conformance.support.TestClock;
import io.partita.storage.StorageConfig;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * ClientRequestToken ("Amazon DynamoDB Transactions: How it works", Idempotency): a repeat within 10 minutes succeeds
 * without writing again and is charged as a read of the items; the same token with other parameters is refused.
 */
@ExtendWith(PartitaExtension.class)
class TransactionIdempotencyTest {
    private static long counter(DynamoDbClient ddb, String table) {
        return Long.parseLong(ddb.getItem(
                        g -> g.tableName(table).key(Map.of("id", s("c"))).consistentRead(true))
                .item()
                .get("bal")
                .n());
    }

    private static void increment(DynamoDbClient ddb, String table, String token, ReturnConsumedCapacity mode) {
        ddb.transactWriteItems(t -> t.transactItems(TransactWriteItemsTest.add(table, "c", 1))
                .clientRequestToken(token)
                .returnConsumedCapacity(mode));
    }

    @Test
    void aRepeatWritesNothingAgain(Tables tables) {
        DynamoDbClient ddb = Endpoint.client();
        String t = tables.hashTable("id", ScalarAttributeType.S);
        String token = UUID.randomUUID().toString();
        var first = ddb.transactWriteItems(r -> r.transactItems(TransactWriteItemsTest.add(t, "c", 1))
                .clientRequestToken(token)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(first.consumedCapacity().get(0).writeCapacityUnits()).isEqualTo(2.0);
        // The repeat asks for capacity in another mode: not a parameter it must match, and it answers in its own.
        var repeat = ddb.transactWriteItems(r -> r.transactItems(TransactWriteItemsTest.add(t, "c", 1))
                .clientRequestToken(token)
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
        assertThat(counter(ddb, t)).isEqualTo(1);
        var repeated = repeat.consumedCapacity().get(0);
        assertThat(repeated.readCapacityUnits()).isEqualTo(2.0);
        assertThat(repeated.writeCapacityUnits()).isNull();
        assertThat(repeated.table().readCapacityUnits()).isEqualTo(2.0);

        ApiErrors.assertError(
                IdempotentParameterMismatchException.class,
                "IdempotentParameterMismatchException",
                "DynamoDB rejected the request because you retried a request with a different payload but with an"
                        + " idempotent token that was already used.",
                () -> ddb.transactWriteItems(r ->
                        r.transactItems(TransactWriteItemsTest.add(t, "c", 2)).clientRequestToken(token)));
        assertThat(counter(ddb, t)).isEqualTo(1);
        // Another token is another transaction.
        increment(ddb, t, UUID.randomUUID().toString(), ReturnConsumedCapacity.NONE);
        assertThat(counter(ddb, t)).isEqualTo(2);
    }

    @Test
    void aFailedTransactionLeavesItsTokenFree(Tables tables) {
        DynamoDbClient ddb = Endpoint.client();
        String t = tables.hashTable("id", ScalarAttributeType.S);
        String token = UUID.randomUUID().toString();
        var guarded = software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder()
                .put(p -> p.tableName(t).item(item("id", s("g"))).conditionExpression("attribute_exists(id)"))
                .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        ddb.transactWriteItems(r -> r.transactItems(guarded).clientRequestToken(token)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class);
        ddb.putItem(p -> p.tableName(t).item(item("id", s("g"), "v", n("1"))));
        // The same request runs anew, and now its condition holds.
        ddb.transactWriteItems(r -> r.transactItems(guarded).clientRequestToken(token));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("g")))).item())
                .isEqualTo(item("id", s("g")));
    }

    /**
     * The same token sent again while its transaction still runs is TransactionInProgressException; whichever
     * requests succeed, the transaction is applied once. Rounds of eight concurrent copies of a 100-item
     * transaction, each round with a new token, until one copy has met another still running.
     */
    @Test
    void aTokenStillRunningIsInProgress(Tables tables) throws Exception {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        java.util.List<software.amazon.awssdk.services.dynamodb.model.TransactWriteItem> actions =
                new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            actions.add(TransactWriteItemsTest.add(t, "c" + i, 1));
        }
        try (DynamoDbClient ddb = Endpoint.clientWithoutRetries()) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            int inProgress = 0;
            int rounds = 0;
            try {
                while (inProgress == 0 && rounds < 50) {
                    rounds++;
                    String token = UUID.randomUUID().toString();
                    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                    java.util.List<java.util.concurrent.Future<Boolean>> copies = new java.util.ArrayList<>();
                    for (int c = 0; c < 8; c++) {
                        copies.add(pool.submit(() -> {
                            start.await();
                            try {
                                ddb.transactWriteItems(
                                        r -> r.transactItems(actions).clientRequestToken(token));
                                return false;
                            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException e) {
                                assertThat(e.awsErrorDetails().errorMessage())
                                        .isEqualTo("Transaction from previous request is still in progress");
                                return true;
                            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException e) {
                                // A copy may also meet the first one's items before its token is known.
                                assertThat(TransactWriteItemsTest.codes(e)).containsOnly("TransactionConflict", "None");
                                return false;
                            }
                        }));
                    }
                    start.countDown();
                    for (var f : copies) {
                        if (f.get(1, java.util.concurrent.TimeUnit.MINUTES)) {
                            inProgress++;
                        }
                    }
                    int round = rounds;
                    for (String id : java.util.List.of("c0", "c99")) {
                        // Read with retries: after a round of eight 100-item transactions a read may be throttled a
                        // moment (CI met it once), as DynamoDB may throttle one; the SDK's retries absorb it.
                        var stored = Endpoint.patientClient()
                                .getItem(g ->
                                        g.tableName(t).key(Map.of("id", s(id))).consistentRead(true))
                                .item();
                        assertThat(stored.get("bal").n())
                                .as("round %d, %s", round, id)
                                .isEqualTo(String.valueOf(round));
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(inProgress)
                    .as("copies refused as in progress in %d rounds", rounds)
                    .isPositive();
        }
    }

    /** Ten minutes after the first request completed, its token is new again: the repeat writes. */
    @Test
    @Tag("partita-only")
    void aTokenExpiresAfterTenMinutes() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (IsolatedPartita partita = IsolatedPartita.start(
                StorageConfig.memory().withCapacity(CapacityConfig.defaults().withClock(clock)))) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            increment(ddb, t, "token-1", ReturnConsumedCapacity.NONE);
            clock.advance(Duration.ofMinutes(9));
            increment(ddb, t, "token-1", ReturnConsumedCapacity.NONE);
            assertThat(counter(ddb, t)).isEqualTo(1);
            clock.advance(Duration.ofMinutes(1));
            increment(ddb, t, "token-1", ReturnConsumedCapacity.NONE);
            assertThat(counter(ddb, t)).isEqualTo(2);
        }
    }
}
