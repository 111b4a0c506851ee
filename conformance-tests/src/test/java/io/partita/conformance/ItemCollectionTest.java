package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.StorageConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ItemCollectionSizeLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ReturnItemCollectionMetrics;

/**
 * Item collections of a table with LSIs ("Item collections in Local Secondary Indexes"): every write can report its
 * collection's size estimate, and a write that would grow a collection past the limit (DynamoDB's 10 GB, here a
 * server with 64 KB) is refused with ItemCollectionSizeLimitExceededException and changes nothing, while other
 * collections and shrinking writes go on.
 */
@Tag("partita-only")
class ItemCollectionTest {
    @Test
    void collectionsAreMeasuredAndLimited() {
        StorageConfig storage = StorageConfig.memory().withItemCollectionLimitBytes(64 * 1024);
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            String t = LocalSecondaryIndexTest.messages(partita.tables());
            var first = ddb.putItem(b -> b.tableName(t)
                    .item(LocalSecondaryIndexTest.message("ann", 1, 1, "x".repeat(1000)))
                    .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
            assertThat(first.itemCollectionMetrics().itemCollectionKey()).isEqualTo(Map.of("user", s("ann")));
            assertThat(first.itemCollectionMetrics().sizeEstimateRangeGB()).isEqualTo(List.of(0.0, 1.0));
            // Without the parameter, no metrics.
            assertThat(ddb.putItem(b -> b.tableName(t).item(LocalSecondaryIndexTest.message("ann", 2, 2, "y")))
                            .itemCollectionMetrics())
                    .isNull();
            // 20 KB items: the fourth would pass 64 KB.
            for (int at = 3; at < 6; at++) {
                var item = LocalSecondaryIndexTest.message("ann", at, at, "z".repeat(20_000));
                ddb.putItem(b -> b.tableName(t).item(item));
            }
            var tooMuch = LocalSecondaryIndexTest.message("ann", 6, 6, "z".repeat(20_000));
            ApiErrors.assertError(
                    ItemCollectionSizeLimitExceededException.class,
                    "ItemCollectionSizeLimitExceededException",
                    "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.",
                    () -> ddb.putItem(b -> b.tableName(t).item(tooMuch)));
            assertThat(ddb.getItem(b -> b.tableName(t).key(Map.of("user", s("ann"), "at", n("6"))))
                            .hasItem())
                    .isFalse();
            // Another collection has room; shrinking this one is allowed, and then it has room again.
            ddb.putItem(b -> b.tableName(t)
                    .item(tooMuch.entrySet().stream()
                            .collect(java.util.stream.Collectors.toMap(
                                    Map.Entry::getKey, e -> e.getKey().equals("user") ? s("bob") : e.getValue()))));
            ddb.deleteItem(b -> b.tableName(t).key(Map.of("user", s("ann"), "at", n("3"))));
            ddb.putItem(b -> b.tableName(t).item(tooMuch));
            var batch = ddb.batchWriteItem(b -> b.requestItems(Map.of(
                            t,
                            List.of(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                    .putRequest(p -> p.item(LocalSecondaryIndexTest.message("cy", 1, 1, "c")))
                                    .build())))
                    .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
            assertThat(batch.itemCollectionMetrics().get(t))
                    .singleElement()
                    .satisfies(m -> assertThat(m.itemCollectionKey()).isEqualTo(Map.of("user", s("cy"))));
        }
    }

    /**
     * A BatchWriteItem whose items are committed in several parts (each here holds about 1 MB of images, one item)
     * counts each item once against its collection's limit: three items of 340 KB fit a 1.2 MB limit together.
     */
    @Test
    void aBatchCommittedInPartsCountsEachItemOnceAgainstItsCollection() {
        StorageConfig storage = StorageConfig.memory().withItemCollectionLimitBytes(1_200_000);
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            String t = LocalSecondaryIndexTest.messages(partita.tables());
            List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> puts = new java.util.ArrayList<>();
            for (int at = 1; at <= 3; at++) {
                var item = LocalSecondaryIndexTest.message("ann", at, at, "z".repeat(340_000));
                puts.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                        .putRequest(p -> p.item(item))
                        .build());
            }
            assertThat(ddb.batchWriteItem(b -> b.requestItems(Map.of(t, puts))).unprocessedItems())
                    .isEmpty();
            for (int at = 1; at <= 3; at++) {
                String key = Integer.toString(at);
                assertThat(ddb.getItem(b -> b.tableName(t).key(Map.of("user", s("ann"), "at", n(key))))
                                .hasItem())
                        .as("item %s", key)
                        .isTrue();
            }
            // A fourth would pass the limit.
            var fourth = LocalSecondaryIndexTest.message("ann", 4, 4, "z".repeat(340_000));
            ApiErrors.assertError(
                    ItemCollectionSizeLimitExceededException.class,
                    "ItemCollectionSizeLimitExceededException",
                    "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.",
                    () -> ddb.putItem(b -> b.tableName(t).item(fourth)));
        }
    }
}
