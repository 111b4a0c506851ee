package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ContributorInsightsAction;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingReason;

/**
 * The multi-tenant "sessions" scenario: one hot tenant saturates its partition's hard ceiling of 1,000 WCU/s while the
 * table as a whole is far below its provisioned 1,500 WCU. DynamoDB throttles the hot key range only
 * ({@code TableWriteKeyRangeThroughputExceeded}), tenants on the other partition are unaffected, and Contributor
 * Insights names the hot tenant ("Troubleshooting throttling", "Partitions and data distribution").
 */
@Tag("partita-only")
class ThrottlingScenarioTest {
    static final String PROVISIONED_MESSAGE = "The level of configured provisioned throughput for the table was"
            + " exceeded. Consider increasing your provisioning level with the UpdateTable API.";
    private static final String HOT = "tenant-hot";

    private static IsolatedPartita partita;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "Partita-only: reads the admin endpoint");
        partita = IsolatedPartita.start(CapacityConfig.defaults());
    }

    @AfterAll
    static void stop() {
        if (partita != null) {
            partita.close();
        }
    }

    private static String sessionsTable() {
        return partita.tables()
                .create(CreateTableRequest.builder()
                        .attributeDefinitions(
                                AttributeDefinition.builder()
                                        .attributeName("tenant")
                                        .attributeType(ScalarAttributeType.S)
                                        .build(),
                                AttributeDefinition.builder()
                                        .attributeName("session")
                                        .attributeType(ScalarAttributeType.S)
                                        .build())
                        .keySchema(
                                KeySchemaElement.builder()
                                        .attributeName("tenant")
                                        .keyType(KeyType.HASH)
                                        .build(),
                                KeySchemaElement.builder()
                                        .attributeName("session")
                                        .keyType(KeyType.RANGE)
                                        .build())
                        .provisionedThroughput(p -> p.readCapacityUnits(1500L).writeCapacityUnits(1500L)));
    }

    private static Map<String, AttributeValue> session(String tenant, int n, int payloadChars) {
        return Map.of(
                "tenant", AttributeValue.fromS(tenant),
                "session", AttributeValue.fromS("s-" + n),
                "data", AttributeValue.fromS("x".repeat(payloadChars)));
    }

    @Test
    void aHotTenantIsThrottledOnItsKeyRangeWhileColdTenantsWriteOn() {
        DynamoDbClient ddb = partita.client();
        String table = sessionsTable();
        String arn = partita.arn(table);
        ddb.updateContributorInsights(
                b -> b.tableName(table).contributorInsightsAction(ContributorInsightsAction.ENABLE));

        // 1,500 RCU / 3,000 + 1,500 WCU / 1,000 = 2 partitions, each with a 750 WCU/s share.
        JsonNode before = partita.metrics(table);
        assertThat(before.get("partitionCount").asInt()).isEqualTo(2);
        JsonNode hotPartition = IsolatedPartita.partitionOf(before, HOT);
        List<String> cold = new ArrayList<>();
        for (int i = 0; cold.size() < 5; i++) {
            String tenant = "tenant-" + i;
            if (!IsolatedPartita.partitionOf(before, tenant)
                    .get("partitionId")
                    .equals(hotPartition.get("partitionId"))) {
                cold.add(tenant);
            }
        }

        // 100,000 characters + names ≈ 98 WCU: the 1,000 WCU ceiling is spent after about ten writes.
        long started = System.nanoTime();
        ProvisionedThroughputExceededException throttled = null;
        int written = 0;
        while (throttled == null && written < 30) {
            Map<String, AttributeValue> item = session(HOT, written, 100_000);
            try {
                ddb.putItem(b -> b.tableName(table).item(item));
                written++;
            } catch (ProvisionedThroughputExceededException e) {
                throttled = e;
            }
        }
        assertThat(throttled).as("hot tenant throttled within 30 writes").isNotNull();
        assertThat(written).isGreaterThanOrEqualTo(10);
        assertThat(throttled.statusCode()).isEqualTo(400);
        assertThat(throttled.awsErrorDetails().errorCode()).isEqualTo("ProvisionedThroughputExceededException");
        assertThat(throttled.awsErrorDetails().errorMessage()).isEqualTo(PROVISIONED_MESSAGE);
        assertThat(throttled.throttlingReasons())
                .extracting(ThrottlingReason::reason, ThrottlingReason::resource)
                .containsExactly(tuple("TableWriteKeyRangeThroughputExceeded", arn));

        // The other partition has its own ceiling: its tenants are not affected (about 930 bytes: 1 WCU each).
        for (String tenant : cold) {
            ddb.putItem(b -> b.tableName(table).item(session(tenant, 0, 900)));
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        JsonNode after = partita.metrics(table);
        assertThat(after.get("partitionCount").asInt()).isEqualTo(2);
        assertThat(after.get("consumedWriteCapacityUnits").asDouble())
                .as("well below the provisioned 1,500 WCU/s over %.2f s", seconds)
                .isGreaterThanOrEqualTo(written * 98.0)
                .isLessThan(1500 * Math.max(1, seconds));
        assertThat(after.get("writeThrottleEvents").asLong()).isEqualTo(1);
        assertThat(after.get("throttledRequests").asLong()).isEqualTo(1);
        JsonNode hot = IsolatedPartita.partitionOf(after, HOT);
        assertThat(hot.get("writeThrottleEvents").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(hot.get("consumedWriteCapacityUnits").asDouble()).isGreaterThanOrEqualTo(1000);
        JsonNode coldPartition = IsolatedPartita.partitionOf(after, cold.get(0));
        assertThat(coldPartition.get("writeThrottleEvents").asLong()).isZero();
        assertThat(coldPartition.get("readThrottleEvents").asLong()).isZero();
        assertThat(coldPartition.get("consumedWriteCapacityUnits").asDouble()).isEqualTo(cold.size());

        JsonNode insights = partita.contributorInsights(table);
        assertThat(insights.get("contributorInsightsStatus").asText()).isEqualTo("ENABLED");
        assertThat(insights.get("mostThrottledKeys")).isNotEmpty();
        assertThat(insights.get("mostThrottledKeys").get(0).get("key").asText()).isEqualTo(HOT);
        assertThat(insights.get("mostAccessedKeys").get(0).get("key").asText()).isEqualTo(HOT);
    }

    @Test
    void throttledWritesChangeNothing() {
        DynamoDbClient ddb = partita.client();
        String table = sessionsTable();
        int written = 0;
        boolean throttled = false;
        while (!throttled && written < 30) {
            Map<String, AttributeValue> item = session(HOT, written, 100_000);
            try {
                ddb.putItem(b -> b.tableName(table).item(item));
                written++;
            } catch (ProvisionedThroughputExceededException e) {
                throttled = true;
            }
        }
        assertThat(throttled).isTrue();
        int refused = written;
        Map<String, AttributeValue> key =
                Map.of("tenant", AttributeValue.fromS(HOT), "session", AttributeValue.fromS("s-" + refused));

        assertThat(ddb.getItem(b -> b.tableName(table).key(key).consistentRead(true))
                        .hasItem())
                .isFalse();
        assertThat(partita.metrics(table).get("itemCount").asLong()).isEqualTo(written);
    }
}
