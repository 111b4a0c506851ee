package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.IndexStatus;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * UpdateTable's GlobalSecondaryIndexUpdates ("Adding a global secondary index to an existing table"): a GSI created
 * on a table with data is CREATING while it backfills and ACTIVE once it has every item, including writes made
 * meanwhile; a deleted one is DELETING, then gone; a provisioned one's throughput changes in place.
 */
@ExtendWith(PartitaExtension.class)
class GsiBackfillTest {
    static final int ITEMS = 10_000;

    static String table(Tables tables, BillingMode billing) {
        CreateTableRequest.Builder b = CreateTableRequest.builder()
                .attributeDefinitions(GlobalSecondaryIndexTest.attr("pk", ScalarAttributeType.S))
                .keySchema(GlobalSecondaryIndexTest.key("pk", KeyType.HASH))
                .billingMode(billing);
        if (billing == BillingMode.PROVISIONED) {
            b.provisionedThroughput(p -> p.readCapacityUnits(4000L).writeCapacityUnits(4000L));
        }
        return tables.create(b);
    }

    static void fill(DynamoDbClient ddb, String t, int items) {
        List<WriteRequest> batch = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            batch.add(WriteRequest.builder()
                    .putRequest(PutRequest.builder()
                            .item(Map.of("pk", s("item-" + i), "bucket", n(Integer.toString(i % 100)), "v", s("x")))
                            .build())
                    .build());
            if (batch.size() == 25 || i == items - 1) {
                // 10,000 writes at full speed outrun a new table's partitions: send back what was not processed,
                // as every BatchWriteItem caller must.
                Map<String, List<WriteRequest>> send = Map.of(t, List.copyOf(batch));
                for (int attempt = 0; !send.isEmpty(); attempt++) {
                    assertThat(attempt).as("attempts at one batch").isLessThan(1000);
                    Map<String, List<WriteRequest>> request = send;
                    send = ddb.batchWriteItem(b -> b.requestItems(request)).unprocessedItems();
                }
                batch.clear();
            }
        }
    }

    static GlobalSecondaryIndexDescription index(DynamoDbClient ddb, String t, String name) {
        TableDescription d = ddb.describeTable(b -> b.tableName(t)).table();
        return d.globalSecondaryIndexes().stream()
                .filter(g -> g.indexName().equals(name))
                .findFirst()
                .orElse(null);
    }

    static int countInBucket(DynamoDbClient ddb, String t, int bucket) {
        return ddb.query(b -> b.tableName(t)
                        .indexName("by-bucket")
                        .keyConditionExpression("#b = :b")
                        .expressionAttributeNames(Map.of("#b", "bucket"))
                        .expressionAttributeValues(Map.of(":b", n(Integer.toString(bucket)))))
                .count();
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<GlobalSecondaryIndexUpdate.Builder>
    void anIndexCreatedOnATableWithDataBackfills(DynamoDbClient ddb, Tables tables) {
        String t = table(tables, BillingMode.PAY_PER_REQUEST);
        fill(ddb, t, ITEMS);
        TableDescription updating = ddb.updateTable(b -> b.tableName(t)
                        .attributeDefinitions(GlobalSecondaryIndexTest.attr("bucket", ScalarAttributeType.N))
                        .globalSecondaryIndexUpdates(u -> u.create(c -> c.indexName("by-bucket")
                                .keySchema(GlobalSecondaryIndexTest.key("bucket", KeyType.HASH))
                                .projection(p -> p.projectionType(ProjectionType.KEYS_ONLY)))))
                .tableDescription();
        GlobalSecondaryIndexDescription creating =
                updating.globalSecondaryIndexes().get(0);
        assertThat(creating.indexStatus()).isEqualTo(IndexStatus.CREATING);
        // The answer comes before the copy starts (the AWS CLI's update-table example shows false).
        assertThat(creating.backfilling()).isFalse();
        assertThat(updating.tableStatus()).isEqualTo(TableStatus.UPDATING);
        assertThat(updating.attributeDefinitions())
                .extracting(a -> a.attributeName())
                .containsExactlyInAnyOrder("pk", "bucket");
        // Writes during the backfill: a new item, a changed bucket, a deleted item.
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("late"), "bucket", n("7"))));
        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("item-8")))
                .updateExpression("SET #b = :b")
                .expressionAttributeNames(Map.of("#b", "bucket"))
                .expressionAttributeValues(Map.of(":b", n("7"))));
        ddb.deleteItem(b -> b.tableName(t).key(Map.of("pk", s("item-107"))));

        Indexes.await(ddb, t);
        GlobalSecondaryIndexDescription active = index(ddb, t, "by-bucket");
        assertThat(active.indexStatus()).isEqualTo(IndexStatus.ACTIVE);
        // Bucket 7 had 100 items; item-107 is gone, item-8 and "late" joined.
        assertThat(countInBucket(ddb, t, 7)).isEqualTo(101);
        assertThat(countInBucket(ddb, t, 8)).isEqualTo(99);
        if (Endpoint.isEmbedded()) {
            assertThat(active.itemCount()).isEqualTo(ITEMS);
        }
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<GlobalSecondaryIndexUpdate.Builder>
    void anIndexIsDeletedAndItsThroughputChanges(DynamoDbClient ddb, Tables tables) {
        String t = table(tables, BillingMode.PROVISIONED);
        fill(ddb, t, 50);
        ddb.updateTable(b -> b.tableName(t)
                .attributeDefinitions(GlobalSecondaryIndexTest.attr("bucket", ScalarAttributeType.N))
                .globalSecondaryIndexUpdates(u -> u.create(c -> c.indexName("by-bucket")
                        .keySchema(GlobalSecondaryIndexTest.key("bucket", KeyType.HASH))
                        .projection(p -> p.projectionType(ProjectionType.ALL))
                        .provisionedThroughput(p -> p.readCapacityUnits(5L).writeCapacityUnits(5L)))));
        Indexes.await(ddb, t);
        ddb.updateTable(b -> b.tableName(t)
                .globalSecondaryIndexUpdates(u -> u.update(c -> c.indexName("by-bucket")
                        .provisionedThroughput(p -> p.readCapacityUnits(7L).writeCapacityUnits(9L)))));
        Indexes.await(ddb, t);
        GlobalSecondaryIndexDescription changed = index(ddb, t, "by-bucket");
        assertThat(changed.provisionedThroughput().readCapacityUnits()).isEqualTo(7L);
        assertThat(changed.provisionedThroughput().writeCapacityUnits()).isEqualTo(9L);
        assertThat(countInBucket(ddb, t, 3)).isEqualTo(1);

        TableDescription deleting = ddb.updateTable(
                        b -> b.tableName(t).globalSecondaryIndexUpdates(u -> u.delete(d -> d.indexName("by-bucket"))))
                .tableDescription();
        assertThat(deleting.globalSecondaryIndexes().get(0).indexStatus()).isEqualTo(IndexStatus.DELETING);
        Indexes.await(ddb, t);
        TableDescription gone = ddb.describeTable(b -> b.tableName(t)).table();
        assertThat(gone.hasGlobalSecondaryIndexes()).isFalse();
        // The definition only the index used goes with it.
        assertThat(gone.attributeDefinitions())
                .extracting(a -> a.attributeName())
                .containsExactly("pk");
        ApiErrors.assertValidation(
                "The table does not have the specified index: by-bucket", () -> countInBucket(ddb, t, 3));
    }
}
