package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** DeleteItem (API_DeleteItem): idempotent, returns the old item on request, and reports capacity. */
@ExtendWith(PartitaExtension.class)
class DeleteItemTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));
    private static final Map<String, AttributeValue> ITEM = Map.of(
            "id", AttributeValue.fromS("k"),
            "a", AttributeValue.fromS("A"),
            "s", AttributeValue.fromSs(List.of("x", "y")));

    private static String tableWithItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(ITEM));
        return table;
    }

    private static boolean exists(DynamoDbClient ddb, String table) {
        return ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                .hasItem();
    }

    @Test
    void deleteRemovesTheItem(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        DeleteItemResponse r = ddb.deleteItem(b -> b.tableName(table).key(KEY));

        assertThat(r.hasAttributes()).isFalse();
        assertThat(exists(ddb, table)).isFalse();
    }

    @Test
    void deletingAnAbsentItemSucceeds(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        DeleteItemResponse r = ddb.deleteItem(b -> b.tableName(table).key(KEY));

        assertThat(r.hasAttributes()).isFalse();
        assertThat(exists(ddb, table)).isFalse();
    }

    @Test
    void deletingTwiceSucceeds(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ddb.deleteItem(b -> b.tableName(table).key(KEY));
        ddb.deleteItem(b -> b.tableName(table).key(KEY));

        assertThat(exists(ddb, table)).isFalse();
    }

    @Test
    void deleteOnlyRemovesTheItemWithThatKey(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        Map<String, AttributeValue> one = Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("1"));
        Map<String, AttributeValue> two = Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("2"));
        ddb.putItem(b -> b.tableName(table).item(one));
        ddb.putItem(b -> b.tableName(table).item(two));

        ddb.deleteItem(b -> b.tableName(table).key(one));

        assertThat(ddb.getItem(b -> b.tableName(table).key(one).consistentRead(true))
                        .hasItem())
                .isFalse();
        assertThat(ddb.getItem(b -> b.tableName(table).key(two).consistentRead(true))
                        .item())
                .isEqualTo(two);
    }

    @Test
    void returnValuesAllOldReturnsTheDeletedItem(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        DeleteItemResponse r = ddb.deleteItem(b -> b.tableName(table).key(KEY).returnValues(ReturnValue.ALL_OLD));

        assertThat(r.attributes()).containsOnlyKeys("id", "a", "s");
        assertThat(r.attributes().get("a")).isEqualTo(ITEM.get("a"));
        assertThat(r.attributes().get("s").ss()).containsExactlyInAnyOrder("x", "y");
        assertThat(exists(ddb, table)).isFalse();
    }

    @Test
    void returnValuesAllOldReturnsNothingWhenAbsent(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        DeleteItemResponse r = ddb.deleteItem(b -> b.tableName(table).key(KEY).returnValues(ReturnValue.ALL_OLD));

        assertThat(r.hasAttributes()).isFalse();
    }

    @Test
    void returnValuesNoneReturnsNothing(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        DeleteItemResponse r = ddb.deleteItem(b -> b.tableName(table).key(KEY).returnValues(ReturnValue.NONE));

        assertThat(r.hasAttributes()).isFalse();
        assertThat(exists(ddb, table)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"})
    void otherReturnValuesAreRejectedAndDeleteNothing(String returnValues, DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertValidation(
                "ReturnValues can only be ALL_OLD or NONE",
                () -> ddb.deleteItem(b -> b.tableName(table).key(KEY).returnValues(returnValues)));

        assertThat(exists(ddb, table)).isTrue();
    }

    /** Every write costs at least one unit, even one that finds nothing to delete. */
    @Test
    void deletingAnAbsentItemConsumesOneUnit(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        DeleteItemResponse r =
                ddb.deleteItem(b -> b.tableName(table).key(KEY).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(1.0);
    }

    /** Deleting is charged on the size of the deleted item: 1.5 KB costs 2 units. */
    @Test
    void deletingA1point5KbItemConsumesTwoUnits(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        // "id" + "k" + "data" + 1529 bytes = 1536 bytes.
        ddb.putItem(b -> b.tableName(table)
                .item(Map.of("id", AttributeValue.fromS("k"), "data", AttributeValue.fromS("x".repeat(1529)))));

        DeleteItemResponse r =
                ddb.deleteItem(b -> b.tableName(table).key(KEY).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(2.0);
    }

    @Test
    void tableArnIsAcceptedAsTableName(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        String arn = ddb.describeTable(b -> b.tableName(table)).table().tableArn();

        ddb.deleteItem(b -> b.tableName(arn).key(KEY));

        assertThat(exists(ddb, table)).isFalse();
    }
}
