package io.partita.conformance;

import static io.partita.conformance.CreateTableTest.attr;
import static io.partita.conformance.CreateTableTest.key;
import static io.partita.conformance.support.ApiErrors.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/** DescribeTable (API_DescribeTable). */
@ExtendWith(PartitaExtension.class)
class DescribeTableTest {
    @Test
    void describesActiveTable(DynamoDbClient ddb, Tables tables) {
        String name = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);

        TableDescription d = ddb.describeTable(b -> b.tableName(name)).table();

        assertThat(d.tableName()).isEqualTo(name);
        assertThat(d.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        assertThat(d.tableArn()).matches(CreateTableTest.tableArn(name));
        assertThat(d.tableId()).matches(CreateTableTest.TABLE_ID);
        assertThat(d.creationDateTime()).isBefore(Instant.now().plus(Duration.ofMinutes(5)));
        assertThat(d.keySchema()).containsExactly(key("pk", KeyType.HASH), key("sk", KeyType.RANGE));
        assertThat(d.attributeDefinitions())
                .containsExactlyInAnyOrder(attr("pk", ScalarAttributeType.S), attr("sk", ScalarAttributeType.N));
        assertThat(d.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(d.provisionedThroughput().readCapacityUnits()).isZero();
        assertThat(d.provisionedThroughput().writeCapacityUnits()).isZero();
        assertThat(d.itemCount()).isZero();
        assertThat(d.tableSizeBytes()).isZero();
        assertThat(d.deletionProtectionEnabled()).isFalse();
    }

    // Every TableName member accepts the table's ARN as well (API_DescribeTable: "You can also provide the Amazon
    // Resource Name (ARN) of the table in this parameter").
    @Test
    void tableArnAcceptedAsTableName(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();

        TableDescription d = ddb.describeTable(b -> b.tableName(arn)).table();

        assertThat(d.tableName()).isEqualTo(name);
        assertThat(d.tableArn()).isEqualTo(arn);
    }

    // localstack/localstack#9030 (AWS CLI against DynamoDB).
    @Test
    void missingTable(DynamoDbClient ddb) {
        String name = Tables.uniqueName("missing");
        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found: Table: " + name + " not found",
                () -> ddb.describeTable(b -> b.tableName(name)));
    }

    // DynamoDB refreshes ItemCount and TableSizeBytes only about every six hours (API_TableDescription), so only
    // Partita can be held to exact live values. Sizes follow "Item sizes and formats": names plus UTF-8 values.
    @Test
    @Tag("partita-only")
    void itemCountAndSizeFollowWrites(DynamoDbClient ddb, Tables tables) {
        assumeThat(Endpoint.isEmbedded()).as("Partita-only check").isTrue();
        String name = tables.hashTable("id", ScalarAttributeType.S);
        for (int i = 1; i <= 3; i++) {
            // "id" (2) + "item-i" (6) + "v" (1) + "abc" (3) = 12 bytes.
            Map<String, AttributeValue> item =
                    Map.of("id", AttributeValue.fromS("item-" + i), "v", AttributeValue.fromS("abc"));
            ddb.putItem(b -> b.tableName(name).item(item));
        }
        ddb.putItem(b ->
                b.tableName(name).item(Map.of("id", AttributeValue.fromS("item-1"), "v", AttributeValue.fromS("abc"))));

        TableDescription d = ddb.describeTable(b -> b.tableName(name)).table();
        assertThat(d.itemCount()).isEqualTo(3L);
        assertThat(d.tableSizeBytes()).isEqualTo(36L);

        ddb.deleteItem(b -> b.tableName(name).key(Map.of("id", AttributeValue.fromS("item-2"))));
        TableDescription after = ddb.describeTable(b -> b.tableName(name)).table();
        assertThat(after.itemCount()).isEqualTo(2L);
        assertThat(after.tableSizeBytes()).isEqualTo(24L);
    }
}
