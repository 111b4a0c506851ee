package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.TestClock;
import io.partita.storage.StorageConfig;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The cancellation reasons of capacity and size: an item whose partition has no write capacity left cancels the
 * transaction with {@code ProvisionedThroughputExceeded} (provisioned) on that item, and one that would grow its item
 * collection past the limit with {@code ItemCollectionSizeLimitExceeded}; nothing is written either time.
 */
@Tag("partita-only")
class TransactionCapacityTest {
    @Test
    void anItemWithoutCapacityCancelsTheTransaction() {
        // 350 KB: 350 units, past the 300-unit burst of a 1-WCU table.
        var reason = cancellationAfterABigItem(
                b -> b.provisionedThroughput(p -> p.readCapacityUnits(1L).writeCapacityUnits(1L)));
        assertThat(reason.code()).isEqualTo("ProvisionedThroughputExceeded");
        assertThat(reason.message())
                .isEqualTo("The level of configured provisioned throughput for the table was exceeded. Consider"
                        + " increasing your provisioning level with the UpdateTable API.");
    }

    /**
     * On demand the reason is {@code ThrottlingError}: here a table whose {@code OnDemandThroughput} allows one write
     * unit a second.
     */
    @Test
    void anOnDemandTableAtItsMaximumCancelsWithThrottlingError() {
        var reason = cancellationAfterABigItem(
                b -> b.billingMode(BillingMode.PAY_PER_REQUEST).onDemandThroughput(o -> o.maxWriteRequestUnits(1L)));
        assertThat(reason.code()).isEqualTo("ThrottlingError");
        assertThat(reason.message()).isNotBlank();
    }

    /**
     * A table of the given capacity spends it on a 350 KB item while the clock stands still (nothing refills); then a
     * one-put transaction is cancelled, and writes nothing. Its one cancellation reason.
     */
    private static CancellationReason cancellationAfterABigItem(Consumer<CreateTableRequest.Builder> capacity) {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (IsolatedPartita partita = IsolatedPartita.start(
                StorageConfig.memory().withCapacity(CapacityConfig.defaults().withClock(clock)))) {
            DynamoDbClient ddb = partita.client();
            CreateTableRequest.Builder table = CreateTableRequest.builder()
                    .attributeDefinitions(CreateTableTest.attr("id", ScalarAttributeType.S))
                    .keySchema(CreateTableTest.key("id", KeyType.HASH));
            capacity.accept(table);
            String t = partita.tables().create(table);
            // Admitted or throttled (a throttle spends nothing): either way the table has no units left after it.
            org.assertj.core.api.Assertions.catchThrowable(() ->
                    ddb.putItem(p -> p.tableName(t).item(item("id", s("big"), "v", s("x".repeat(350_000))))));
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() ->
                    ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                            .put(p -> p.tableName(t).item(item("id", s("a"))))
                            .build())));
            assertThat(thrown).isInstanceOf(TransactionCanceledException.class);
            assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("a"))))
                            .hasItem())
                    .isFalse();
            return ((TransactionCanceledException) thrown).cancellationReasons().get(0);
        }
    }

    @Test
    void aFullItemCollectionCancelsTheTransaction() {
        StorageConfig storage = StorageConfig.memory().withItemCollectionLimitBytes(64 * 1024);
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            String t = LocalSecondaryIndexTest.messages(partita.tables());
            for (int at = 1; at <= 3; at++) {
                var m = LocalSecondaryIndexTest.message("ann", at, at, "z".repeat(20_000));
                ddb.putItem(p -> p.tableName(t).item(m));
            }
            var small = LocalSecondaryIndexTest.message("bob", 1, 1, "b");
            var tooMuch = LocalSecondaryIndexTest.message("ann", 4, 4, "z".repeat(20_000));
            Throwable thrown =
                    org.assertj.core.api.Assertions.catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(
                            TransactWriteItem.builder()
                                    .put(p -> p.tableName(t).item(small))
                                    .build(),
                            TransactWriteItem.builder()
                                    .put(p -> p.tableName(t).item(tooMuch))
                                    .build())));
            assertThat(thrown).isInstanceOf(TransactionCanceledException.class);
            assertThat(TransactWriteItemsTest.codes((TransactionCanceledException) thrown))
                    .containsExactly("None", "ItemCollectionSizeLimitExceeded");
            assertThat(ddb.scan(r -> r.tableName(t)).count()).isEqualTo(3);

            // Two writes that each fit, but not together: the transaction counts its own earlier actions.
            for (int at = 1; at <= 2; at++) {
                var m = LocalSecondaryIndexTest.message("cy", at, at, "z".repeat(20_000));
                ddb.putItem(p -> p.tableName(t).item(m));
            }
            var third = LocalSecondaryIndexTest.message("cy", 3, 3, "z".repeat(20_000));
            var fourth = LocalSecondaryIndexTest.message("cy", 4, 4, "z".repeat(20_000));
            Throwable together =
                    org.assertj.core.api.Assertions.catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(
                            TransactWriteItem.builder()
                                    .put(p -> p.tableName(t).item(third))
                                    .build(),
                            TransactWriteItem.builder()
                                    .put(p -> p.tableName(t).item(fourth))
                                    .build())));
            assertThat(TransactWriteItemsTest.codes((TransactionCanceledException) together))
                    .containsExactly("None", "ItemCollectionSizeLimitExceeded");
            ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                    .put(p -> p.tableName(t).item(third))
                    .build()));
        }
    }
}
