package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** PutItem (API_PutItem): replaces the whole item, returns the old one on request, and reports capacity. */
@ExtendWith(PartitaExtension.class)
class PutItemTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));
    private static final Map<String, AttributeValue> FIRST = Map.of(
            "id", AttributeValue.fromS("k"),
            "a", AttributeValue.fromS("one"),
            "b", AttributeValue.fromN("1"));
    private static final Map<String, AttributeValue> SECOND =
            Map.of("id", AttributeValue.fromS("k"), "c", AttributeValue.fromBool(true));

    private static Map<String, AttributeValue> current(DynamoDbClient ddb, String table) {
        return ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                .item();
    }

    @Test
    void putReplacesTheWholeItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(FIRST));

        ddb.putItem(b -> b.tableName(table).item(SECOND));

        assertThat(current(ddb, table)).isEqualTo(SECOND);
    }

    @Test
    void returnValuesNoneReturnsNoAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(FIRST));

        PutItemResponse r = ddb.putItem(b -> b.tableName(table).item(SECOND).returnValues(ReturnValue.NONE));

        assertThat(r.hasAttributes()).isFalse();
        assertThat(r.consumedCapacity()).isNull();
    }

    @Test
    void returnValuesAllOldReturnsTheReplacedItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(FIRST));

        PutItemResponse r = ddb.putItem(b -> b.tableName(table).item(SECOND).returnValues(ReturnValue.ALL_OLD));

        assertThat(r.attributes()).isEqualTo(FIRST);
        assertThat(current(ddb, table)).isEqualTo(SECOND);
    }

    @Test
    void returnValuesAllOldReturnsNothingForANewItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        PutItemResponse r = ddb.putItem(b -> b.tableName(table).item(FIRST).returnValues(ReturnValue.ALL_OLD));

        assertThat(r.hasAttributes()).isFalse();
        assertThat(current(ddb, table)).isEqualTo(FIRST);
    }

    /** PutItem only supports NONE and ALL_OLD (taoensso/faraday#64 for the message). */
    @ParameterizedTest
    @ValueSource(strings = {"ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"})
    void otherReturnValuesAreRejectedAndChangeNothing(String returnValues, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(FIRST));

        assertValidation(
                "ReturnValues can only be ALL_OLD or NONE",
                () -> ddb.putItem(b -> b.tableName(table).item(SECOND).returnValues(returnValues)));

        assertThat(current(ddb, table)).isEqualTo(FIRST);
    }

    /** A write unit covers 1 KB, rounded up (HowItWorks.ReadWriteCapacityMode): 1.5 KB costs 2. */
    @Test
    void consumedCapacityTotalForA1point5KbItemIsTwoUnits(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        // "id" + "k" + "data" + 1529 bytes = 1536 bytes.
        Map<String, AttributeValue> item =
                Map.of("id", AttributeValue.fromS("k"), "data", AttributeValue.fromS("x".repeat(1529)));

        PutItemResponse r =
                ddb.putItem(b -> b.tableName(table).item(item).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(2.0);
    }

    @Test
    void consumedCapacityTotalForASmallItemIsOneUnit(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        PutItemResponse r =
                ddb.putItem(b -> b.tableName(table).item(FIRST).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(1.0);
    }

    /** Overwriting is charged on the larger of the old and the new item. */
    @Test
    void overwritingALargeItemWithASmallOneChargesTheLargerSize(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table)
                .item(Map.of("id", AttributeValue.fromS("k"), "data", AttributeValue.fromS("x".repeat(2500)))));

        PutItemResponse r =
                ddb.putItem(b -> b.tableName(table).item(SECOND).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(3.0);
    }

    @Test
    void consumedCapacityNoneReturnsNoCapacity(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        PutItemResponse r =
                ddb.putItem(b -> b.tableName(table).item(FIRST).returnConsumedCapacity(ReturnConsumedCapacity.NONE));

        assertThat(r.consumedCapacity()).isNull();
    }

    /** Item operations accept a table ARN wherever a table name goes (API_PutItem, TableName). */
    @Test
    void tableArnIsAcceptedAsTableName(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(table)).table().tableArn();

        ddb.putItem(b -> b.tableName(arn).item(FIRST));

        assertThat(current(ddb, table)).isEqualTo(FIRST);
    }

    @Test
    void itemsWithDifferentSortKeysAreDistinct(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.S);
        Map<String, AttributeValue> a = Map.of(
                "pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromS("a"), "v", AttributeValue.fromN("1"));
        Map<String, AttributeValue> b = Map.of(
                "pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromS("b"), "v", AttributeValue.fromN("2"));

        ddb.putItem(r -> r.tableName(table).item(a));
        ddb.putItem(r -> r.tableName(table).item(b));

        assertThat(ddb.getItem(r -> r.tableName(table)
                                .key(Map.of("pk", a.get("pk"), "sk", a.get("sk")))
                                .consistentRead(true))
                        .item())
                .isEqualTo(a);
        assertThat(ddb.getItem(r -> r.tableName(table)
                                .key(Map.of("pk", b.get("pk"), "sk", b.get("sk")))
                                .consistentRead(true))
                        .item())
                .isEqualTo(b);
    }
}
