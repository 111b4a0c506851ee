package io.partita.conformance;

import static io.partita.conformance.CreateTableTest.attr;
import static io.partita.conformance.CreateTableTest.key;
import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/** DeleteTable (API_DeleteTable) and deletion protection ("Using deletion protection"). */
@ExtendWith(PartitaExtension.class)
class DeleteTableTest {
    @Test
    void answersDescriptionInStatusDeleting(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);

        TableDescription d = ddb.deleteTable(b -> b.tableName(name)).tableDescription();

        assertThat(d.tableName()).isEqualTo(name);
        assertThat(d.tableStatus()).isEqualTo(TableStatus.DELETING);
    }

    /**
     * DeleteTable's description leaves out the table's schema and its indexes, even when the table has them (the AWS
     * CLI's delete-table example; answers captured from DynamoDB, e.g. architect/dynalite#60), and keeps its identity,
     * size, capacity and billing.
     */
    @Test
    void answersWithoutTheSchemaOrTheIndexes(DynamoDbClient ddb, Tables tables) {
        String name = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", ScalarAttributeType.S), attr("g", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                        .indexName("byG")
                        .keySchema(key("g", KeyType.HASH))
                        .projection(Projection.builder()
                                .projectionType(ProjectionType.KEYS_ONLY)
                                .build())
                        .build()));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        TableDescription described = ddb.describeTable(b -> b.tableName(name)).table();

        TableDescription d = ddb.deleteTable(b -> b.tableName(name)).tableDescription();

        assertThat(d.tableStatus()).isEqualTo(TableStatus.DELETING);
        assertThat(d.hasAttributeDefinitions()).isFalse();
        assertThat(d.hasKeySchema()).isFalse();
        assertThat(d.creationDateTime()).isNull();
        assertThat(d.hasGlobalSecondaryIndexes()).isFalse();
        assertThat(d.hasLocalSecondaryIndexes()).isFalse();
        assertThat(d.tableArn()).isEqualTo(described.tableArn());
        assertThat(d.tableId()).isEqualTo(described.tableId());
        assertThat(d.itemCount()).isZero();
        assertThat(d.tableSizeBytes()).isZero();
        assertThat(d.provisionedThroughput().readCapacityUnits()).isZero();
        assertThat(d.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(d.deletionProtectionEnabled()).isFalse();
    }

    @Test
    void tableIsGoneAfterwards(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);

        ddb.deleteTable(b -> b.tableName(name));
        ddb.waiter().waitUntilTableNotExists(b -> b.tableName(name));

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found: Table: " + name + " not found",
                () -> ddb.describeTable(b -> b.tableName(name)));
        // Listing from just before the name would show it first if it still existed.
        String before = name.substring(0, name.length() - 1);
        assertThat(ddb.listTables(b -> b.exclusiveStartTableName(before).limit(1))
                        .tableNames())
                .doesNotContain(name);
    }

    // nubo-db/dynoxide#46 quotes DynamoDB's message.
    @Test
    void deletionProtectionRefusesDelete(DynamoDbClient ddb, Tables tables) {
        String name = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .deletionProtectionEnabled(true));

        assertValidation(
                "Resource cannot be deleted as it is currently protected against deletion. Disable deletion"
                        + " protection first.",
                () -> ddb.deleteTable(b -> b.tableName(name)));
        assertThat(ddb.describeTable(b -> b.tableName(name)).table().tableStatus())
                .isEqualTo(TableStatus.ACTIVE);
    }

    @Test
    void missingTable(DynamoDbClient ddb) {
        String name = Tables.uniqueName("missing");
        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found: Table: " + name + " not found",
                () -> ddb.deleteTable(b -> b.tableName(name)));
    }
}
