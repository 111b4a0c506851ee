package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Throttling errors are retryable, so the SDK's standard retry strategy backs off and tries again, as against AWS
 * ("Error retries and exponential backoff"): a hot key written faster than its partition's ceiling still gets every
 * write through, only slower, and the server counts the throttles the application never saw.
 */
@Tag("partita-only")
class SdkRetryTest {
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

    @Test
    void standardRetriesCarryAHotKeyThroughItsThrottles() {
        String table = partita.tables().hashTable("id", ScalarAttributeType.S);
        // The standard strategy with more attempts than its default three: its jittered backoff can spend three
        // within one refill of the partition's ceiling (a flake seen once in a full run).
        try (DynamoDbClient ddb = partita.retryingClient(10)) {
            // 15 writes of about 98 WCU to one key: half as much again as its partition's 1,000 WCU/s ceiling.
            for (int i = 0; i < 15; i++) {
                Map<String, AttributeValue> item = IsolatedPartita.item("id", "hot", 100_000 - i);
                ddb.putItem(b -> b.tableName(table).item(item));
            }
            assertThat(ddb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("hot"))))
                            .item()
                            .get("v")
                            .s())
                    .hasSize(100_000 - 14);
        }
        JsonNode m = partita.metrics(table);
        assertThat(m.get("writeThrottleEvents").asLong()).isGreaterThan(0);
        assertThat(m.get("consumedWriteCapacityUnits").asDouble()).isBetween(15 * 97.0, 15 * 99.0);
    }
}
