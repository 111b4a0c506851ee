package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Local secondary indexes ("Local secondary indexes"): written in the same operation as their table, so a strongly
 * consistent Query sees a write at once; the same partition key, another sort key; attributes the index does not
 * copy fetched from the table, at the cost of reading the whole item.
 */
@ExtendWith(PartitaExtension.class)
class LocalSecondaryIndexTest {
    /** Messages of a user (pk) by time (sk), with an LSI by priority keeping only the keys. */
    static String messages(Tables tables) {
        return tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        GlobalSecondaryIndexTest.attr("user", ScalarAttributeType.S),
                        GlobalSecondaryIndexTest.attr("at", ScalarAttributeType.N),
                        GlobalSecondaryIndexTest.attr("priority", ScalarAttributeType.N))
                .keySchema(
                        GlobalSecondaryIndexTest.key("user", KeyType.HASH),
                        GlobalSecondaryIndexTest.key("at", KeyType.RANGE))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .localSecondaryIndexes(LocalSecondaryIndex.builder()
                        .indexName("by-priority")
                        .keySchema(
                                GlobalSecondaryIndexTest.key("user", KeyType.HASH),
                                GlobalSecondaryIndexTest.key("priority", KeyType.RANGE))
                        .projection(p -> p.projectionType(ProjectionType.KEYS_ONLY))
                        .build()));
    }

    static Map<String, AttributeValue> message(String user, int at, Integer priority, String body) {
        return priority == null
                ? Map.of("user", s(user), "at", n(Integer.toString(at)), "body", s(body))
                : Map.of(
                        "user",
                        s(user),
                        "at",
                        n(Integer.toString(at)),
                        "priority",
                        n(priority.toString()),
                        "body",
                        s(body));
    }

    static QueryResponse byPriority(DynamoDbClient ddb, String t, String user, Select select) {
        return ddb.query(b -> b.tableName(t)
                .indexName("by-priority")
                .consistentRead(true)
                .select(select)
                .keyConditionExpression("#u = :u")
                .expressionAttributeNames(Map.of("#u", "user"))
                .expressionAttributeValues(Map.of(":u", s(user)))
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
    }

    @Test
    void aConsistentQuerySeesEveryWriteAtOnceInIndexOrder(DynamoDbClient ddb, Tables tables) {
        String t = messages(tables);
        ddb.putItem(b -> b.tableName(t).item(message("ann", 1, 3, "hello")));
        ddb.putItem(b -> b.tableName(t).item(message("ann", 2, 1, "urgent")));
        ddb.putItem(b -> b.tableName(t).item(message("ann", 3, null, "no priority: not in the index")));
        ddb.putItem(b -> b.tableName(t).item(message("bob", 1, 2, "other user")));
        QueryResponse r = byPriority(ddb, t, "ann", null);
        assertThat(r.items())
                .containsExactly(
                        Map.of("user", s("ann"), "at", n("2"), "priority", n("1")),
                        Map.of("user", s("ann"), "at", n("1"), "priority", n("3")));
        // The priority changes and the other message is deleted: the index follows in the same write.
        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("user", s("ann"), "at", n("1")))
                .updateExpression("SET priority = :p")
                .expressionAttributeValues(Map.of(":p", n("0"))));
        ddb.deleteItem(b -> b.tableName(t).key(Map.of("user", s("ann"), "at", n("2"))));
        assertThat(byPriority(ddb, t, "ann", null).items())
                .containsExactly(Map.of("user", s("ann"), "at", n("1"), "priority", n("0")));
        if (Endpoint.isEmbedded()) {
            // DynamoDB refreshes ItemCount about every six hours; Partita keeps it live.
            var lsi = ddb.describeTable(b -> b.tableName(t))
                    .table()
                    .localSecondaryIndexes()
                    .get(0);
            assertThat(lsi.itemCount()).isEqualTo(2);
            assertThat(lsi.indexSizeBytes()).isPositive();
        }
    }

    @Test
    void attributesTheIndexDoesNotCopyAreFetchedFromTheTable(DynamoDbClient ddb, Tables tables) {
        String t = messages(tables);
        ddb.putItem(b -> b.tableName(t).item(message("ann", 1, 3, "x".repeat(5000))));
        QueryResponse projected = byPriority(ddb, t, "ann", Select.ALL_PROJECTED_ATTRIBUTES);
        assertThat(projected.items().get(0)).doesNotContainKey("body");
        // One consistent read unit: the index entry is small.
        assertThat(projected.consumedCapacity().capacityUnits()).isEqualTo(1.0);
        assertThat(projected.consumedCapacity().localSecondaryIndexes()).containsOnlyKeys("by-priority");

        QueryResponse all = byPriority(ddb, t, "ann", Select.ALL_ATTRIBUTES);
        assertThat(all.items().get(0).get("body").s()).hasSize(5000);
        // The fetch reads the whole 5 KB item too: two 4 KB units in all.
        assertThat(all.consumedCapacity().capacityUnits()).isEqualTo(2.0);

        QueryResponse named = ddb.query(b -> b.tableName(t)
                .indexName("by-priority")
                .keyConditionExpression("#u = :u")
                .projectionExpression("body, priority")
                .expressionAttributeNames(Map.of("#u", "user"))
                .expressionAttributeValues(Map.of(":u", s("ann"))));
        assertThat(named.items().get(0).keySet()).containsExactlyInAnyOrder("body", "priority");
    }

    @Test
    void writesWithABadIndexKeyAreRefused(DynamoDbClient ddb, Tables tables) {
        String t = messages(tables);
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: Type mismatch for Index Key priority Expected: N Actual: S"
                        + " IndexName: by-priority",
                () -> ddb.putItem(
                        b -> b.tableName(t).item(Map.of("user", s("ann"), "at", n("1"), "priority", s("high")))));
        assertThat(byPriority(ddb, t, "ann", null).count()).isZero();
        assertThat(ddb.scan(b -> b.tableName(t)).count()).isZero();
    }

    @Test
    void aScanOfTheIndexReadsItsEntries(DynamoDbClient ddb, Tables tables) {
        String t = messages(tables);
        for (int i = 0; i < 5; i++) {
            int at = i;
            ddb.putItem(b -> b.tableName(t).item(message("u" + (at % 2), at, 10 - at, "b")));
        }
        List<Map<String, AttributeValue>> items = ddb.scan(
                        b -> b.tableName(t).indexName("by-priority").consistentRead(true))
                .items();
        assertThat(items).hasSize(5).allSatisfy(i -> assertThat(i).containsOnlyKeys("user", "at", "priority"));
    }
}
