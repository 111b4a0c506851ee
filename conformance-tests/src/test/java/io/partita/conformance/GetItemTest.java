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
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** GetItem (API_GetItem): projections, read consistency and consumed capacity. */
@ExtendWith(PartitaExtension.class)
class GetItemTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));
    private static final Map<String, AttributeValue> ITEM = Map.of(
            "id", AttributeValue.fromS("k"),
            "a", AttributeValue.fromS("A"),
            "b", AttributeValue.fromN("2"),
            "name", AttributeValue.fromS("reserved word"),
            "m", AttributeValue.fromM(Map.of("x", AttributeValue.fromS("X"))));

    private static String tableWithItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(ITEM));
        return table;
    }

    @Test
    void absentItemReturnsNoItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        GetItemResponse r = ddb.getItem(b -> b.tableName(table).key(KEY));

        assertThat(r.hasItem()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void consistentReadTrueAndFalseBothReturnTheItem(boolean consistent, DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(consistent));

        // An eventually consistent read may briefly miss a fresh write on the live service; a strong one never does.
        if (consistent || r.hasItem()) {
            assertThat(r.item()).isEqualTo(ITEM);
        }
    }

    @Test
    void projectionExpressionReturnsOnlyTheNamedTopLevelAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(
                b -> b.tableName(table).key(KEY).consistentRead(true).projectionExpression("a, m"));

        assertThat(r.item()).isEqualTo(Map.of("a", ITEM.get("a"), "m", ITEM.get("m")));
    }

    @Test
    void projectionExpressionSkipsAttributesTheItemLacks(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(
                b -> b.tableName(table).key(KEY).consistentRead(true).projectionExpression("b,absent,id"));

        assertThat(r.item()).isEqualTo(Map.of("b", ITEM.get("b"), "id", ITEM.get("id")));
    }

    /** "name" is a reserved word, so it can only be projected through a placeholder. */
    @Test
    void projectionExpressionResolvesPlaceholders(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(b -> b.tableName(table)
                .key(KEY)
                .consistentRead(true)
                .projectionExpression("#n, #a, b")
                .expressionAttributeNames(Map.of("#n", "name", "#a", "a")));

        assertThat(r.item()).isEqualTo(Map.of("name", ITEM.get("name"), "a", ITEM.get("a"), "b", ITEM.get("b")));
    }

    @Test
    void attributesToGetReturnsOnlyTheNamedAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(
                b -> b.tableName(table).key(KEY).consistentRead(true).attributesToGet(List.of("name", "b")));

        assertThat(r.item()).isEqualTo(Map.of("name", ITEM.get("name"), "b", ITEM.get("b")));
    }

    /** getmoto/moto#5354 quotes this from a real table. */
    @Test
    void projectionExpressionAndAttributesToGetTogetherAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertValidation(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
                () -> ddb.getItem(b ->
                        b.tableName(table).key(KEY).projectionExpression("a").attributesToGet(List.of("a"))));
    }

    @Test
    void unusedExpressionAttributeNamesAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertValidation(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
                () -> ddb.getItem(b -> b.tableName(table)
                        .key(KEY)
                        .projectionExpression("#a")
                        .expressionAttributeNames(Map.of("#a", "a", "#x", "b"))));
    }

    @Test
    void expressionAttributeNamesWithoutAnExpressionAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertValidation(
                "ExpressionAttributeNames can only be specified when using expressions",
                () -> ddb.getItem(b -> b.tableName(table).key(KEY).expressionAttributeNames(Map.of("#a", "a"))));
    }

    /** A read unit covers 4 KB strongly consistent; an eventually consistent read costs half (ReadWriteCapacityMode). */
    @Test
    void consumedCapacityOfASmallItemIsHalfAUnitEventuallyConsistent(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(b ->
                b.tableName(table).key(KEY).consistentRead(false).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(0.5);
    }

    @Test
    void consumedCapacityOfASmallItemIsOneUnitStronglyConsistent(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(b ->
                b.tableName(table).key(KEY).consistentRead(true).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(1.0);
    }

    /** 4 KB + 1 byte needs two 4 KB units: 2.0 strongly consistent. */
    @Test
    void consumedCapacityRoundsUpTo4KbUnits(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        // "id" + "k" + "data" + 4090 bytes = 4097 bytes.
        ddb.putItem(b -> b.tableName(table)
                .item(Map.of("id", AttributeValue.fromS("k"), "data", AttributeValue.fromS("x".repeat(4090)))));

        GetItemResponse r = ddb.getItem(b ->
                b.tableName(table).key(KEY).consistentRead(true).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(2.0);
    }

    @Test
    void readingAnAbsentItemStillConsumesCapacity(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        GetItemResponse r = ddb.getItem(b ->
                b.tableName(table).key(KEY).consistentRead(true).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.hasItem()).isFalse();
        assertThat(r.consumedCapacity().capacityUnits()).isEqualTo(1.0);
    }

    @Test
    void noConsumedCapacityUnlessAsked(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = ddb.getItem(b -> b.tableName(table).key(KEY));

        assertThat(r.consumedCapacity()).isNull();
    }

    @Test
    void tableArnIsAcceptedAsTableName(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        String arn = ddb.describeTable(b -> b.tableName(table)).table().tableArn();

        GetItemResponse r = ddb.getItem(b -> b.tableName(arn).key(KEY).consistentRead(true));

        assertThat(r.item()).isEqualTo(ITEM);
    }
}
