package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * A transaction's changes reach the table's stream and GSIs as every other write's do: one stream record per item
 * it changed, none for a ConditionCheck ("Change data capture for DynamoDB Streams"; "after a transaction completes,
 * its changes propagate to global secondary indexes and streams").
 */
@ExtendWith(PartitaExtension.class)
class TransactionFeedTest {
    @Test
    void aTransactionsChangesReachTheStreamAndTheIndex(Tables tables) {
        DynamoDbClient ddb = Endpoint.client();
        String t = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        CreateTableTest.attr("pk", ScalarAttributeType.S),
                        CreateTableTest.attr("owner", ScalarAttributeType.S))
                .keySchema(CreateTableTest.key("pk", KeyType.HASH))
                .globalSecondaryIndexes(GlobalSecondaryIndexTest.gsi(
                        "by-owner", ProjectionType.ALL, CreateTableTest.key("owner", KeyType.HASH)))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        ddb.putItem(p -> p.tableName(t).item(item("pk", s("old"), "owner", s("ann"), "n", n("1"))));
        ddb.putItem(p -> p.tableName(t).item(item("pk", s("kept"), "owner", s("bob"))));

        var out = ddb.transactWriteItems(r -> r.transactItems(
                        TransactWriteItem.builder()
                                .put(p -> p.tableName(t).item(item("pk", s("new"), "owner", s("ann"))))
                                .build(),
                        TransactWriteItem.builder()
                                .update(u -> u.tableName(t)
                                        .key(Map.of("pk", s("old")))
                                        .updateExpression("SET n = n + :one")
                                        .expressionAttributeValues(Map.of(":one", n("1"))))
                                .build(),
                        TransactWriteItem.builder()
                                .conditionCheck(c -> c.tableName(t)
                                        .key(Map.of("pk", s("kept")))
                                        .conditionExpression("attribute_exists(pk)"))
                                .build())
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
        // The GSI's writes are in the table's ConsumedCapacity, as a single write's are.
        assertThat(out.consumedCapacity().get(0).globalSecondaryIndexes()).containsKey("by-owner");

        List<Record> records = StreamsTest.readAll(Endpoint.streams(), StreamsTest.streamArn(ddb, t));
        // The two puts before, then the transaction's insert and update; nothing for its ConditionCheck.
        List<String> changed = records.stream()
                .map(r -> r.eventName() + " " + r.dynamodb().keys().get("pk").s())
                .sorted()
                .toList();
        assertThat(changed).containsExactly("INSERT kept", "INSERT new", "INSERT old", "MODIFY old");
        Record modify = records.stream()
                .filter(r -> r.dynamodb().keys().get("pk").s().equals("old")
                        && r.eventNameAsString().equals("MODIFY"))
                .findFirst()
                .orElseThrow();
        assertThat(modify.dynamodb().oldImage()).containsEntry("n", n("1"));
        assertThat(modify.dynamodb().newImage()).containsEntry("n", n("2"));

        Indexes.await(ddb, t);
        var ann = ddb.query(q -> q.tableName(t)
                .indexName("by-owner")
                .keyConditionExpression("#o = :o")
                .expressionAttributeNames(Map.of("#o", "owner"))
                .expressionAttributeValues(Map.of(":o", s("ann"))));
        assertThat(ann.items()).extracting(i -> i.get("pk").s()).containsExactlyInAnyOrder("old", "new");
    }
}
