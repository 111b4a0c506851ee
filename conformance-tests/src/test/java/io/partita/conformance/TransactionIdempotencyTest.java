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
