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
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * UpdateTable (API_UpdateTable): provisioned throughput, billing mode and deletion protection. Changes are read back
 * with DescribeTable once the table is ACTIVE again, as DynamoDB applies them asynchronously.
 */
@ExtendWith(PartitaExtension.class)
class UpdateTableTest {
    private static String provisionedTable(Tables tables, long read, long write) {
        return tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(t -> t.readCapacityUnits(read).writeCapacityUnits(write)));
    }

    private static TableDescription describeWhenActive(DynamoDbClient ddb, String name) {
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        return ddb.describeTable(b -> b.tableName(name)).table();
    }

    /** Turning a stream on is UPDATING, with another change in the same request too (the AWS CLI's examples). */
    @Test
    void aStreamTurnedOnWithAnotherChangeIsUpdating(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);

        TableDescription d = ddb.updateTable(b -> b.tableName(name)
                        .deletionProtectionEnabled(false)
                        .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.KEYS_ONLY)))
                .tableDescription();

        assertThat(d.tableStatus()).isEqualTo(TableStatus.UPDATING);
        assertThat(d.streamSpecification().streamViewType()).isEqualTo(StreamViewType.KEYS_ONLY);
        assertThat(d.latestStreamArn()).isNotNull();
    }

    @Test
    void changesProvisionedThroughput(DynamoDbClient ddb, Tables tables) {
        String name = provisionedTable(tables, 5, 5);

        TableDescription updated = ddb.updateTable(b -> b.tableName(name)
                        .provisionedThroughput(t -> t.readCapacityUnits(10L).writeCapacityUnits(8L)))
                .tableDescription();
        assertThat(updated.tableName()).isEqualTo(name);
        assertThat(updated.tableStatus()).isEqualTo(TableStatus.UPDATING);
        // The answer names the capacity the table still has while UPDATING, with the time of the increase set
        // ("UpdateTable", Examples, in the API reference).
        assertThat(updated.provisionedThroughput().readCapacityUnits()).isEqualTo(5L);
        assertThat(updated.provisionedThroughput().writeCapacityUnits()).isEqualTo(5L);
        assertThat(updated.provisionedThroughput().lastIncreaseDateTime()).isNotNull();

        TableDescription d = describeWhenActive(ddb, name);
        assertThat(d.provisionedThroughput().readCapacityUnits()).isEqualTo(10L);
        assertThat(d.provisionedThroughput().writeCapacityUnits()).isEqualTo(8L);
        assertThat(d.provisionedThroughput().lastIncreaseDateTime()).isNotNull();
    }

    @Test
    void switchesToPayPerRequestAndBack(DynamoDbClient ddb, Tables tables) {
        String name = provisionedTable(tables, 5, 5);

        ddb.updateTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST));
        TableDescription onDemand = describeWhenActive(ddb, name);
        assertThat(onDemand.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(onDemand.billingModeSummary().lastUpdateToPayPerRequestDateTime())
                .isNotNull();
        assertThat(onDemand.provisionedThroughput().readCapacityUnits()).isZero();
        assertThat(onDemand.provisionedThroughput().writeCapacityUnits()).isZero();

        ddb.updateTable(b -> b.tableName(name)
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(t -> t.readCapacityUnits(3L).writeCapacityUnits(4L)));
        TableDescription provisioned = describeWhenActive(ddb, name);
        assertThat(provisioned.billingModeSummary().billingMode()).isEqualTo(BillingMode.PROVISIONED);
        assertThat(provisioned.provisionedThroughput().readCapacityUnits()).isEqualTo(3L);
        assertThat(provisioned.provisionedThroughput().writeCapacityUnits()).isEqualTo(4L);
    }

    @Test
    void togglesDeletionProtection(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);

        TableDescription on = ddb.updateTable(b -> b.tableName(name).deletionProtectionEnabled(true))
                .tableDescription();
        assertThat(on.deletionProtectionEnabled()).isTrue();
        assertThat(describeWhenActive(ddb, name).deletionProtectionEnabled()).isTrue();

        TableDescription off = ddb.updateTable(b -> b.tableName(name).deletionProtectionEnabled(false))
                .tableDescription();
        assertThat(off.deletionProtectionEnabled()).isFalse();
        assertThat(describeWhenActive(ddb, name).deletionProtectionEnabled()).isFalse();
    }

    // cortexproject/cortex#441 (DynamoDB's answer, quoted whole).
    @Test
    void unchangedThroughputRejected(DynamoDbClient ddb, Tables tables) {
        String name = provisionedTable(tables, 5, 6);
        assertValidation(
                "The provisioned throughput for the table will not change. The requested value equals the current"
                        + " value. Current ReadCapacityUnits provisioned for the table: 5. Requested"
                        + " ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 6."
                        + " Requested WriteCapacityUnits: 6. Refer to the Amazon DynamoDB Developer Guide for"
                        + " current limits and how to request higher limits.",
                () -> ddb.updateTable(b -> b.tableName(name)
                        .provisionedThroughput(t -> t.readCapacityUnits(5L).writeCapacityUnits(6L))));
    }

    @Test
    void missingTable(DynamoDbClient ddb) {
        String name = Tables.uniqueName("missing");
        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found: Table: " + name + " not found",
                () -> ddb.updateTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)));
    }

    /** A request that asks for no change is refused for that before the table is looked up. */
    @Test
    void aRequestWithNothingToChangeIsRefusedEvenForAMissingTable(DynamoDbClient ddb, Tables tables) {
        String message = "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled,"
                + " GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required";
        assertValidation(message, () -> ddb.updateTable(b -> b.tableName("no-such-table-" + System.nanoTime())));
        String name = provisionedTable(tables, 1, 1);
        assertValidation(message, () -> ddb.updateTable(b -> b.tableName(name)));
    }
}
