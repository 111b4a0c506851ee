package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import io.partita.conformance.support.TestClock;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingReason;

/**
 * A GSI is an eventually consistent copy ("Using Global Secondary Indexes": a query of a GSI right after a write may
 * not see it). Partita's controls make that testable: an injected lag holds an index's changes back, and the await
 * call applies them at once; a GSI without the write capacity to keep up throttles its table's writes, naming the
 * index.
 */
@Tag("partita-only")
@ExtendWith(PartitaExtension.class)
class GsiLagTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String table(Tables tables) {
        return tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        GlobalSecondaryIndexTest.attr("pk", ScalarAttributeType.S),
                        GlobalSecondaryIndexTest.attr("status", ScalarAttributeType.S))
                .keySchema(GlobalSecondaryIndexTest.key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(GlobalSecondaryIndexTest.gsi(
                        "by-status", ProjectionType.ALL, GlobalSecondaryIndexTest.key("status", KeyType.HASH))));
    }

    static int countWithStatus(DynamoDbClient ddb, String table, String status) {
        return ddb.query(b -> b.tableName(table)
                        .indexName("by-status")
                        .keyConditionExpression("#s = :s")
                        .expressionAttributeNames(Map.of("#s", "status"))
                        .expressionAttributeValues(Map.of(":s", s(status))))
                .count();
    }

    @Test
    void aLaggingIndexShowsTheOldStateUntilAwaited(DynamoDbClient ddb, Tables tables) throws Exception {
        String t = table(tables);
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("order-1"), "status", s("NEW"))));
        Indexes.await(ddb, t);
        Indexes.adminPost(Endpoint.uri(), "/admin/indexes/lag?table=" + t + "&index=by-status&millis=3600000");

        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("order-1")))
                .updateExpression("SET #s = :s")
                .expressionAttributeNames(Map.of("#s", "status"))
                .expressionAttributeValues(Map.of(":s", s("SHIPPED"))));
        // The table has the write; the index does not, and says how far behind it is.
        assertThat(ddb.getItem(b ->
                                b.tableName(t).key(Map.of("pk", s("order-1"))).consistentRead(true))
                        .item()
                        .get("status")
                        .s())
                .isEqualTo("SHIPPED");
        assertThat(countWithStatus(ddb, t, "NEW")).isEqualTo(1);
        assertThat(countWithStatus(ddb, t, "SHIPPED")).isZero();
        JsonNode lag = JSON.readTree(Indexes.adminGet(Endpoint.uri(), "/admin/indexes?table=" + t))
                .get("tables")
                .get(0)
                .get("globalSecondaryIndexes")
                .get(0);
        assertThat(lag.get("backlog").asLong()).isEqualTo(1);
        assertThat(lag.get("injectedLagMillis").asLong()).isEqualTo(3_600_000);

        Indexes.await(ddb, t);
        assertThat(countWithStatus(ddb, t, "NEW")).isZero();
        assertThat(countWithStatus(ddb, t, "SHIPPED")).isEqualTo(1);
        Indexes.adminPost(Endpoint.uri(), "/admin/indexes/lag?table=" + t + "&index=by-status&millis=-1");
    }

    /**
     * A GSI with 5 WCU cannot keep up with a table that has plenty ("Provisioned throughput considerations for
     * global secondary indexes": a GSI without enough write capacity throttles its table's writes). The clock moves a
     * second per 400 writes, which the table's four partitions serve easily; the index has its burst allowance
     * (300 s × 5 WCU) and 5 units a second, so it runs out, and from then on the table's writes are refused naming
     * the index, until its capacity refills.
     */
    @Test
    void aGlobalIndexWithoutCapacityThrottlesItsTable() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (IsolatedPartita partita =
                IsolatedPartita.start(CapacityConfig.defaults().withClock(clock))) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables()
                    .create(CreateTableRequest.builder()
                            .attributeDefinitions(
                                    GlobalSecondaryIndexTest.attr("pk", ScalarAttributeType.S),
                                    GlobalSecondaryIndexTest.attr("g", ScalarAttributeType.S))
                            .keySchema(GlobalSecondaryIndexTest.key("pk", KeyType.HASH))
                            .billingMode(BillingMode.PROVISIONED)
                            .provisionedThroughput(
                                    p -> p.readCapacityUnits(4000L).writeCapacityUnits(4000L))
                            .globalSecondaryIndexes(GlobalSecondaryIndexTest.gsi(
                                            "thin",
                                            ProjectionType.KEYS_ONLY,
                                            GlobalSecondaryIndexTest.key("g", KeyType.HASH))
                                    .toBuilder()
                                    .provisionedThroughput(
                                            p -> p.readCapacityUnits(5L).writeCapacityUnits(5L))
                                    .build()));
            int written = 0;
            ProvisionedThroughputExceededException first = null;
            int refused = 0;
            for (int batch = 0; batch < 5; batch++) {
                for (int i = 0; i < 400; i++) {
                    var item = Map.of("pk", s("item-" + batch + "-" + i), "g", s("G" + (i % 7)));
                    try {
                        ddb.putItem(b -> b.tableName(t).item(item));
                        written++;
                    } catch (ProvisionedThroughputExceededException e) {
                        first = first == null ? e : first;
                        refused++;
                    }
                }
                partita.server().awaitIndexes();
                clock.advance(Duration.ofSeconds(1));
            }
            assertThat(first)
                    .as("a table write refused because of its lagging GSI")
                    .isNotNull();
            assertThat(first.throttlingReasons())
                    .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                    .containsExactly(tuple("IndexWriteProvisionedThroughputExceeded", partita.arn(t) + "/index/thin"));
            // 1,500 units of burst and 5 a second for 4 seconds; a few writes more may pass before the applier
            // has charged what it applied.
            assertThat(written).isBetween(1500, 1600);
            assertThat(refused).isEqualTo(2000 - written);
            GlobalSecondaryIndexDescription thin = ddb.describeTable(b -> b.tableName(t))
                    .table()
                    .globalSecondaryIndexes()
                    .get(0);
            assertThat(thin.itemCount()).isEqualTo(written);
        }
    }
}
