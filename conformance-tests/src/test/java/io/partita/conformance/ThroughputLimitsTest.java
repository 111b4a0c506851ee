package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.Tables;
import io.partita.storage.capacity.CapacityConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingReason;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The limits of DynamoDB's throughput model, one at a time: burst capacity of a new provisioned table, adaptive
 * capacity, an on-demand table's maximum, the account's per-table quota, and how batches hand back what was throttled.
 *
 * <p>Sizes: {@code item(id, 102_600)} is about 102,610 bytes, 101 WCU (a little over 100, so that after three writes the
 * 300-unit burst is below zero rather than at a refill's hair above it); {@code item(id, 350_000)} is 86 RCU read
 * strongly; {@code item(id, 1000)} is 1 WCU.
 */
@Tag("partita-only")
class ThroughputLimitsTest {
    private static final int WCU_101 = 102_600;

    private static IsolatedPartita partita;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "Partita-only: needs servers with their own settings");
        partita = IsolatedPartita.start(CapacityConfig.defaults());
    }

    @AfterAll
    static void stop() {
        if (partita != null) {
            partita.close();
        }
    }

    private static String provisioned(Tables tables, long rcu, long wcu) {
        return tables.create(
                hashKey().provisionedThroughput(p -> p.readCapacityUnits(rcu).writeCapacityUnits(wcu)));
    }

    private static CreateTableRequest.Builder hashKey() {
        return CreateTableRequest.builder()
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName("id")
                        .attributeType(ScalarAttributeType.S)
                        .build())
                .keySchema(KeySchemaElement.builder()
                        .attributeName("id")
                        .keyType(KeyType.HASH)
                        .build());
    }

    private static Map<String, AttributeValue> item(String id, int chars) {
        return IsolatedPartita.item("id", id, chars);
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    /**
     * Writes items {@code ids(0)}, {@code ids(1)}, … until the first throttle (at most {@code max} writes); returns how
     * many were written and the error.
     */
    private static <T extends DynamoDbException> Attempts<T> writeUntilThrottled(
            DynamoDbClient ddb, String table, IntFunction<String> ids, int chars, int max, Class<T> type) {
        int written = 0;
        while (written < max) {
            Map<String, AttributeValue> item = item(ids.apply(written), chars);
            try {
                ddb.putItem(b -> b.tableName(table).item(item));
                written++;
            } catch (DynamoDbException e) {
                assertThat(e).isInstanceOf(type);
                return new Attempts<>(written, type.cast(e));
            }
        }
        throw new AssertionError(max + " writes of " + chars + " characters were not throttled");
    }

    private record Attempts<T>(int written, T error) {}

    @Test
    void aNewTableSpendsItsBurstAtOnceThenIsThrottledOnTheTable() {
        DynamoDbClient ddb = partita.client();
        String table = provisioned(partita.tables(), 1, 1);
        String arn = partita.arn(table);

        // A new table starts with 300 s of unused capacity: 300 WCU at once on a 1 WCU table.
        Attempts<ProvisionedThroughputExceededException> a = writeUntilThrottled(
                ddb, table, i -> "k-" + i, WCU_101, 10, ProvisionedThroughputExceededException.class);

        assertThat(a.written()).isEqualTo(3);
        assertThat(a.error().awsErrorDetails().errorMessage()).isEqualTo(ThrottlingScenarioTest.PROVISIONED_MESSAGE);
        assertThat(a.error().throttlingReasons())
                .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                .containsExactly(tuple("TableWriteProvisionedThroughputExceeded", arn));
        var m = partita.metrics(table);
        assertThat(m.get("consumedWriteCapacityUnits").asDouble()).isEqualTo(303.0);
        assertThat(m.get("writeThrottleEvents").asLong()).isEqualTo(1);
        assertThat(m.get("readThrottleEvents").asLong()).isZero();
        // Reads have their own budget.
        assertThat(ddb.getItem(b -> b.tableName(table).key(key("k-0"))).hasItem())
                .isTrue();
    }

    /**
     * 3,000 RCU + 2 WCU make two partitions, each with a 1 WCU/s share and 300 WCU of burst; the table has 600. With
     * adaptive capacity a hot partition whose share is spent borrows the table's unused capacity: six 101 WCU writes
     * of one key pass, then the table itself is out.
     */
    @Test
    void adaptiveCapacityLendsAHotPartitionTheTablesUnusedCapacity() {
        DynamoDbClient ddb = partita.client();
        String table = provisioned(partita.tables(), 3000, 2);
        assertThat(partita.metrics(table).get("partitionCount").asInt()).isEqualTo(2);

        Attempts<ProvisionedThroughputExceededException> a =
                writeUntilThrottled(ddb, table, i -> "hot", WCU_101, 20, ProvisionedThroughputExceededException.class);

        assertThat(a.written()).isEqualTo(6);
        assertThat(a.error().throttlingReasons())
                .extracting(ThrottlingReason::reason)
                .containsExactly("TableWriteProvisionedThroughputExceeded");
        var m = partita.metrics(table);
        assertThat(IsolatedPartita.partitionOf(m, "hot")
                        .get("consumedWriteCapacityUnits")
                        .asDouble())
                .isEqualTo(606.0);
        assertThat(m.get("consumedWriteCapacityUnits").asDouble()).isEqualTo(606.0);
    }

    /** Without adaptive capacity the same hot partition stops at its own share while the table still has capacity. */
    @Test
    void withoutAdaptiveCapacityAHotPartitionStopsAtItsShare() {
        try (IsolatedPartita strict =
                IsolatedPartita.start(CapacityConfig.defaults().withAdaptiveCapacity(false))) {
            DynamoDbClient ddb = strict.client();
            String table = provisioned(strict.tables(), 3000, 2);
            String arn = strict.arn(table);

            Attempts<ProvisionedThroughputExceededException> a = writeUntilThrottled(
                    ddb, table, i -> "hot", WCU_101, 20, ProvisionedThroughputExceededException.class);

            assertThat(a.written()).isEqualTo(3);
            assertThat(a.error().throttlingReasons())
                    .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                    .containsExactly(tuple("TableWriteKeyRangeThroughputExceeded", arn));
        }
    }

    private static String onDemandTableWithMaxWrites(long units) {
        return partita.tables()
                .create(hashKey()
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .onDemandThroughput(o -> o.maxWriteRequestUnits(units)));
    }

    @Test
    void onDemandMaximumThrottlesWithThrottlingException() {
        DynamoDbClient ddb = partita.client();
        String table = onDemandTableWithMaxWrites(5);

        // 5 units a second, one second deep: five or six 1 WCU writes, depending on the refill between them.
        Attempts<ThrottlingException> a =
                writeUntilThrottled(ddb, table, i -> "k-" + i, 1000, 30, ThrottlingException.class);

        assertThat(a.written()).isBetween(5, 15);
        assertThat(a.error().statusCode()).isEqualTo(400);
        assertThat(a.error().awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
        assertThat(partita.metrics(table).get("writeThrottleEvents").asLong()).isEqualTo(1);
        // No read maximum (-1): reads go on.
        assertThat(ddb.getItem(b -> b.tableName(table).key(key("k-0"))).hasItem())
                .isTrue();
    }

    /**
     * The SDK reads a ThrottlingException's reasons from {@code throttlingReasons} (lower case: the shape's member is
     * so named in DynamoDB's service model, like its {@code message}), unlike ProvisionedThroughputExceededException
     * and RequestLimitExceeded, whose member is {@code ThrottlingReasons}.
     */
    @Test
    void onDemandThrottlingExceptionCarriesItsReasons() {
        DynamoDbClient ddb = partita.client();
        String table = onDemandTableWithMaxWrites(5);
        String arn = partita.arn(table);

        Attempts<ThrottlingException> a =
                writeUntilThrottled(ddb, table, i -> "k-" + i, 1000, 30, ThrottlingException.class);

        assertThat(a.error().throttlingReasons())
                .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                .containsExactly(tuple("TableWriteMaxOnDemandThroughputExceeded", arn));
    }

    @Test
    void theAccountsPerTableQuotaAnswersRequestLimitExceeded() {
        try (IsolatedPartita quota =
                IsolatedPartita.start(CapacityConfig.defaults().withTableQuotas(10, 10))) {
            DynamoDbClient ddb = quota.client();
            String table = quota.tables().create(hashKey().billingMode(BillingMode.PAY_PER_REQUEST));
            String arn = quota.arn(table);

            Attempts<RequestLimitExceededException> a =
                    writeUntilThrottled(ddb, table, i -> "k-" + i, 1000, 40, RequestLimitExceededException.class);

            assertThat(a.written()).isBetween(10, 30);
            assertThat(a.error().awsErrorDetails().errorCode()).isEqualTo("RequestLimitExceeded");
            assertThat(a.error().throttlingReasons())
                    .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                    .containsExactly(tuple("TableWriteAccountLimitExceeded", arn));
        }
    }

    @Test
    void batchWriteItemReturnsThrottledWritesAsUnprocessedItems() {
        DynamoDbClient ddb = partita.client();
        String table = provisioned(partita.tables(), 1, 1);
        List<WriteRequest> writes = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            writes.add(WriteRequest.builder()
                    .putRequest(
                            PutRequest.builder().item(item("b-" + i, WCU_101)).build())
                    .build());
        }

        BatchWriteItemResponse r = ddb.batchWriteItem(
                b -> b.requestItems(Map.of(table, writes)).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        // The 300 WCU burst covers three 101 WCU writes; the other 22 come back.
        assertThat(r.unprocessedItems()).containsOnlyKeys(table);
        assertThat(r.unprocessedItems().get(table)).hasSize(22);
        assertThat(r.consumedCapacity()).hasSize(1);
        assertThat(r.consumedCapacity().get(0).tableName()).isEqualTo(table);
        assertThat(r.consumedCapacity().get(0).capacityUnits()).isEqualTo(303.0);
        assertThat(ddb.scan(b -> b.tableName(table).select(Select.COUNT)).count())
                .isEqualTo(3);

        // Retrying at once: nothing can be processed, so the whole call fails.
        List<WriteRequest> rest = r.unprocessedItems().get(table);
        ProvisionedThroughputExceededException e = catchThrowableOfType(
                ProvisionedThroughputExceededException.class,
                () -> ddb.batchWriteItem(b -> b.requestItems(Map.of(table, rest))));
        assertThat(e).isNotNull();
        assertThat(e.awsErrorDetails().errorMessage()).isEqualTo(ThrottlingScenarioTest.PROVISIONED_MESSAGE);
        assertThat(e.throttlingReasons())
                .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                .containsExactly(tuple("TableWriteProvisionedThroughputExceeded", partita.arn(table)));
    }

    @Test
    void batchGetItemReturnsThrottledReadsAsUnprocessedKeys() {
        DynamoDbClient ddb = partita.client();
        // 1 RCU / 3,000 + 999 WCU / 1,000 < 1: one partition, so the table's and the partition's 300 RCU burst agree.
        String table = provisioned(partita.tables(), 1, 999);
        assertThat(partita.metrics(table).get("partitionCount").asInt()).isEqualTo(1);
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            partita.putPatiently(table, item("g-" + i, 350_000));
            keys.add(key("g-" + i));
        }

        BatchGetItemResponse r = ddb.batchGetItem(b -> b.requestItems(Map.of(
                        table,
                        KeysAndAttributes.builder()
                                .keys(keys)
                                .consistentRead(true)
                                .build()))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        // 86 RCU each: three leave 42 of the 300 burst, the fourth is admitted and takes the balance below zero.
        assertThat(r.responses().get(table)).hasSize(4);
        assertThat(r.unprocessedKeys()).containsOnlyKeys(table);
        assertThat(r.unprocessedKeys().get(table).keys()).hasSize(1);
        assertThat(r.unprocessedKeys().get(table).consistentRead()).isTrue();
        assertThat(r.consumedCapacity()).hasSize(1);
        assertThat(r.consumedCapacity().get(0).capacityUnits()).isEqualTo(344.0);

        KeysAndAttributes rest = r.unprocessedKeys().get(table);
        ProvisionedThroughputExceededException e = catchThrowableOfType(
                ProvisionedThroughputExceededException.class,
                () -> ddb.batchGetItem(b -> b.requestItems(Map.of(table, rest))));
        assertThat(e).isNotNull();
        assertThat(e.throttlingReasons())
                .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                .containsExactly(tuple("TableReadProvisionedThroughputExceeded", partita.arn(table)));
    }
}
