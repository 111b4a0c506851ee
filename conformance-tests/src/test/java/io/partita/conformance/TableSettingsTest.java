package io.partita.conformance;

import static io.partita.conformance.CreateTableTest.attr;
import static io.partita.conformance.CreateTableTest.key;
import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.SSEStatus;
import software.amazon.awssdk.services.dynamodb.model.SSEType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableClass;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TableWarmThroughputDescription;

/**
 * The table settings DynamoDB describes beside the schema: warm throughput ("Understanding DynamoDB warm throughput"),
 * encryption at rest ({@code SSESpecification}, "DynamoDB encryption at rest") and the table class ("Table classes").
 * DynamoDB applies changes to them in the background (warm throughput in minutes): the tests poll DescribeTable for
 * the settled state.
 */
@ExtendWith(PartitaExtension.class)
class TableSettingsTest {
    private static CreateTableRequest.Builder table(BillingMode mode) {
        CreateTableRequest.Builder b = CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(mode);
        return mode == BillingMode.PROVISIONED
                ? b.provisionedThroughput(t -> t.readCapacityUnits(5L).writeCapacityUnits(5L))
                : b;
    }

    /** DescribeTable, polled until {@code settled} holds (DynamoDB takes a while; Partita at once). */
    private static TableDescription describeWhen(DynamoDbClient ddb, String name, Predicate<TableDescription> settled)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
        TableDescription d = ddb.describeTable(b -> b.tableName(name)).table();
        while (!settled.test(d) && System.nanoTime() < deadline) {
            Thread.sleep(2_000);
            d = ddb.describeTable(b -> b.tableName(name)).table();
        }
        return d;
    }

    private static Predicate<TableDescription> warmActive() {
        return d -> d.tableStatus() == TableStatus.ACTIVE
                && d.warmThroughput() != null
                && "ACTIVE".equals(d.warmThroughput().statusAsString());
    }

    private static TableWarmThroughputDescription warm(long read, long write) {
        return TableWarmThroughputDescription.builder()
                .readUnitsPerSecond(read)
                .writeUnitsPerSecond(write)
                .status("ACTIVE")
                .build();
    }

    @Test
    void aNewTableIsWarmForWhatItsModeServes(DynamoDbClient ddb, Tables tables) throws Exception {
        String onDemand = tables.create(table(BillingMode.PAY_PER_REQUEST));
        String provisioned = tables.create(table(BillingMode.PROVISIONED));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(onDemand));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(provisioned));
        assertThat(describeWhen(ddb, onDemand, warmActive()).warmThroughput()).isEqualTo(warm(12000, 4000));
        assertThat(describeWhen(ddb, provisioned, warmActive()).warmThroughput())
                .isEqualTo(warm(5, 5));
    }

    @Test
    void createTableAnswersWarmThroughputOnlyWhenAskedForIt(DynamoDbClient ddb, Tables tables) throws Exception {
        String plainName = Tables.uniqueName("settings");
        TableDescription plain = ddb.createTable(
                        table(BillingMode.PAY_PER_REQUEST).tableName(plainName).build())
                .tableDescription();
        tables.track(plainName);
        assertThat(plain.warmThroughput()).isNull();
        String warmName = Tables.uniqueName("settings");
        TableDescription asked = ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(warmName)
                        .warmThroughput(w -> w.readUnitsPerSecond(13000L))
                        .build())
                .tableDescription();
        tables.track(warmName);
        assertThat(asked.warmThroughput().statusAsString()).isEqualTo("UPDATING");
        ddb.waiter().waitUntilTableExists(b -> b.tableName(warmName));
        assertThat(describeWhen(ddb, warmName, warmActive()).warmThroughput()).isEqualTo(warm(13000, 4000));
    }

    @Test
    void warmThroughputNeverFallsWithTheCapacity(DynamoDbClient ddb, Tables tables) throws Exception {
        String name = tables.create(table(BillingMode.PROVISIONED));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        ddb.updateTable(b -> b.tableName(name)
                .provisionedThroughput(t -> t.readCapacityUnits(8L).writeCapacityUnits(7L)));
        describeWhen(ddb, name, d -> d.tableStatus() == TableStatus.ACTIVE);
        ddb.updateTable(b -> b.tableName(name)
                .provisionedThroughput(t -> t.readCapacityUnits(5L).writeCapacityUnits(5L)));
        TableDescription d = describeWhen(
                ddb,
                name,
                t -> warmActive().test(t) && t.provisionedThroughput().readCapacityUnits() == 5);
        assertThat(d.warmThroughput()).isEqualTo(warm(8, 7));
    }

    @Test
    void updateTableRaisesWarmThroughputAloneAndNeverLowersIt(DynamoDbClient ddb, Tables tables) throws Exception {
        String name = tables.create(table(BillingMode.PAY_PER_REQUEST));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        TableDescription answer = ddb.updateTable(
                        b -> b.tableName(name).warmThroughput(w -> w.readUnitsPerSecond(15000L)))
                .tableDescription();
        assertThat(answer.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        assertThat(answer.warmThroughput().statusAsString()).isEqualTo("UPDATING");
        assertThat(describeWhen(
                                ddb,
                                name,
                                d -> warmActive().test(d) && d.warmThroughput().readUnitsPerSecond() == 15000)
                        .warmThroughput())
                .isEqualTo(warm(15000, 4000));
        assertValidation(
                "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for"
                        + " table is lower than current WarmThroughput, decreasing WarmThroughput is not supported",
                () -> ddb.updateTable(b -> b.tableName(name).warmThroughput(w -> w.readUnitsPerSecond(14000L))));
        assertValidation(
                "One or more parameter values were invalid: WarmThroughput must be the only operation in the request",
                () -> ddb.updateTable(b -> b.tableName(name)
                        .deletionProtectionEnabled(false)
                        .warmThroughput(w -> w.writeUnitsPerSecond(5000L))));
    }

    @Test
    void createTableRefusesWarmThroughputBelowWhatTheTableHas(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for"
                        + " table is lower than initial throughput for OnDemand. See:"
                        + " https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                        + "on-demand-capacity-mode.html#on-demand-capacity-mode-initial",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .warmThroughput(w -> w.readUnitsPerSecond(1L).writeUnitsPerSecond(1L))
                        .build()));
        assertValidation(
                "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for"
                        + " table is lower than ReadCapacityUnits of ProvisionedThroughput",
                () -> ddb.createTable(CreateTableRequest.builder()
                        .tableName(Tables.uniqueName("settings"))
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .provisionedThroughput(t -> t.readCapacityUnits(10L).writeCapacityUnits(10L))
                        .warmThroughput(w -> w.readUnitsPerSecond(5L).writeUnitsPerSecond(5L))
                        .build()));
    }

    @Test
    void aKmsEncryptedTableIsDescribedAndAnAwsOwnedKeyIsNot(DynamoDbClient ddb, Tables tables) throws Exception {
        String owned = tables.create(table(BillingMode.PAY_PER_REQUEST).sseSpecification(s -> s.enabled(false)));
        String kmsName = Tables.uniqueName("settings");
        TableDescription created = ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(kmsName)
                        .sseSpecification(s -> s.enabled(true))
                        .build())
                .tableDescription();
        tables.track(kmsName);
        assertThat(created.sseDescription().status()).isEqualTo(SSEStatus.ENABLED);
        assertThat(created.sseDescription().sseType()).isEqualTo(SSEType.KMS);
        String region = created.tableArn().split(":")[3];
        String account = created.tableArn().split(":")[4];
        assertThat(created.sseDescription().kmsMasterKeyArn())
                .matches("arn:aws:kms:" + region + ":" + account + ":key/[0-9a-f-]{36}");
        ddb.waiter().waitUntilTableExists(b -> b.tableName(kmsName));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(owned));
        assertThat(ddb.describeTable(b -> b.tableName(kmsName)).table().sseDescription())
                .isEqualTo(created.sseDescription());
        assertThat(ddb.describeTable(b -> b.tableName(owned)).table().sseDescription())
                .isNull();
        assertValidation(
                "One or more parameter values were invalid: Table is already encrypted by default",
                () -> ddb.updateTable(b -> b.tableName(owned).sseSpecification(s -> s.enabled(false))));
        assertValidation(
                "One or more parameter values were invalid: Server-Side Encryption modification must be the only"
                        + " operation in the request",
                () -> ddb.updateTable(b ->
                        b.tableName(owned).deletionProtectionEnabled(true).sseSpecification(s -> s.enabled(true))));
        TableDescription enabling = ddb.updateTable(b -> b.tableName(owned).sseSpecification(s -> s.enabled(true)))
                .tableDescription();
        assertThat(enabling.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        TableDescription enabled = describeWhen(
                ddb,
                owned,
                d -> d.sseDescription() != null && d.sseDescription().status() == SSEStatus.ENABLED);
        assertThat(enabled.sseDescription().sseType()).isEqualTo(SSEType.KMS);
    }

    @Test
    void encryptionSettingsAreCheckedAsDynamoDbChecksThem(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "One or more parameter values were invalid: SSEType can not be specified if Enabled is false",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .sseSpecification(s -> s.enabled(false).sseType(SSEType.KMS))
                        .build()));
        assertValidation(
                "One or more parameter values were invalid: KMSMasterKeyId can not be specified if Enabled is false",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .sseSpecification(s -> s.enabled(false).kmsMasterKeyId("alias/mine"))
                        .build()));
        assertValidation(
                "One or more parameter values were invalid: SSEType AES256 is not supported",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .sseSpecification(s -> s.enabled(true).sseType(SSEType.AES256))
                        .build()));
        assertValidation(
                "One or more parameter values were invalid: SSEType KMS is required if KMSMasterKeyId is specified",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .sseSpecification(s -> s.enabled(true).kmsMasterKeyId("alias/mine"))
                        .build()));
    }

    @Test
    void aTableClassChangeIsUpdatingAndTwoAMonthAtMost(DynamoDbClient ddb, Tables tables) throws Exception {
        String name = tables.create(table(BillingMode.PAY_PER_REQUEST));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        assertThat(ddb.describeTable(b -> b.tableName(name)).table().tableClassSummary())
                .isNull();
        TableDescription answer = ddb.updateTable(
                        b -> b.tableName(name).tableClass(TableClass.STANDARD_INFREQUENT_ACCESS))
                .tableDescription();
        assertThat(answer.tableStatus()).isEqualTo(TableStatus.UPDATING);
        assertThat(answer.tableClassSummary()).isNull();
        TableDescription changed = describeWhen(
                ddb,
                name,
                d -> d.tableStatus() == TableStatus.ACTIVE
                        && d.tableClassSummary() != null
                        && d.tableClassSummary().tableClass() == TableClass.STANDARD_INFREQUENT_ACCESS);
        assertThat(changed.tableClassSummary().lastUpdateDateTime()).isNotNull();
        ddb.updateTable(b -> b.tableName(name).tableClass(TableClass.STANDARD));
        describeWhen(
                ddb,
                name,
                d -> d.tableStatus() == TableStatus.ACTIVE
                        && d.tableClassSummary().tableClass() == TableClass.STANDARD);
        assertError(
                LimitExceededException.class,
                "LimitExceededException",
                "Subscriber limit exceeded: Updates to TableClass are limited to 2 times in 30 day(s).",
                () -> ddb.updateTable(b -> b.tableName(name).tableClass(TableClass.STANDARD_INFREQUENT_ACCESS)));
        DynamoDbException combined = assertValidation(
                "One or more parameter values were invalid: TableClass modification must be the only operation in the"
                        + " request",
                () -> ddb.updateTable(b -> b.tableName(name)
                        .deletionProtectionEnabled(true)
                        .tableClass(TableClass.STANDARD_INFREQUENT_ACCESS)));
        assertThat(combined).isNotNull();
    }

    /**
     * OnDemandThroughput ("OnDemandThroughput", API reference): at least 1, and -1 only on UpdateTable, to remove a
     * maximum; a member never set or removed is not described, nor the shape when neither is set.
     */
    @Test
    void onDemandMaximumsAreDescribedOnlyWhileSet(DynamoDbClient ddb, Tables tables) throws Exception {
        assertValidation(
                "One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for"
                        + " table is outside of valid range",
                () -> ddb.createTable(table(BillingMode.PAY_PER_REQUEST)
                        .tableName(Tables.uniqueName("settings"))
                        .onDemandThroughput(o -> o.maxReadRequestUnits(-1L))
                        .build()));
        assertValidation(
                "One or more parameter values were invalid: MaxWriteRequestUnits for OnDemandThroughput cannot be"
                        + " specified when table BillingMode is PROVISIONED.",
                () -> ddb.createTable(table(BillingMode.PROVISIONED)
                        .tableName(Tables.uniqueName("settings"))
                        .onDemandThroughput(o -> o.maxWriteRequestUnits(10L))
                        .build()));
        String name =
                tables.create(table(BillingMode.PAY_PER_REQUEST).onDemandThroughput(o -> o.maxReadRequestUnits(100L)));
        TableDescription d = ddb.describeTable(b -> b.tableName(name)).table();
        assertThat(d.onDemandThroughput().maxReadRequestUnits()).isEqualTo(100L);
        assertThat(d.onDemandThroughput().maxWriteRequestUnits()).isNull();
        assertValidation(
                "One or more parameter values were invalid: OnDemandThroughput can only be combined with BillingMode in"
                        + " an UpdateTable request",
                () -> ddb.updateTable(b -> b.tableName(name)
                        .deletionProtectionEnabled(false)
                        .onDemandThroughput(o -> o.maxWriteRequestUnits(50L))));
        ddb.updateTable(b -> b.tableName(name).onDemandThroughput(o -> o.maxReadRequestUnits(-1L)));
        TableDescription cleared =
                describeWhen(ddb, name, t -> t.tableStatus() == TableStatus.ACTIVE && t.onDemandThroughput() == null);
        assertThat(cleared.onDemandThroughput()).isNull();
    }
}
