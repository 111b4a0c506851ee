package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;

/**
 * Split for heat ("Partitions and data distribution"): a partition kept above 80 % of its ceiling for long enough
 * splits next to its hottest key, and the key's items stay whole and readable. The server here splits after 2 s of
 * heat instead of DynamoDB-like minutes.
 */
@Tag("partita-only")
class HeatSplitTest {
    private static IsolatedPartita partita;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "Partita-only: reads the admin endpoint");
        partita = IsolatedPartita.start(CapacityConfig.defaults().withHeatSplit(0.8, 2000));
    }

    @AfterAll
    static void stop() {
        if (partita != null) {
            partita.close();
        }
    }

    @Test
    void aPartitionHotForLongEnoughSplitsNextToItsHottestKey() {
        DynamoDbClient ddb = partita.client();
        String table = partita.tables().hashTable("id", ScalarAttributeType.S);
        JsonNode before = partita.metrics(table);
        assertThat(before.get("partitionCount").asInt()).isEqualTo(4);
        String hotPartition =
                IsolatedPartita.partitionOf(before, "hot").get("partitionId").asText();

        // About 98 WCU a write, as fast as the 1,000 WCU/s ceiling allows, for up to 8 s: well over 80 % of it.
        Map<String, AttributeValue> item = IsolatedPartita.item("id", "hot", 100_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        JsonNode m = before;
        while (System.nanoTime() < deadline && m.get("partitionSplits").asInt() == 0) {
            try {
                ddb.putItem(b -> b.tableName(table).item(item));
            } catch (ProvisionedThroughputExceededException | ThrottlingException e) {
                IsolatedPartita.sleep(20);
            }
            m = partita.metrics(table);
        }

        assertThat(m.get("partitionSplits").asInt()).as("metrics %s", m).isEqualTo(1);
        JsonNode split = m.get("splits").get(0);
        assertThat(split.get("reason").asText()).isEqualTo("HEAT");
        assertThat(split.get("parentId").asText()).isEqualTo(hotPartition);
        assertThat(m.get("partitionCount").asInt()).isEqualTo(5);
        JsonNode now = IsolatedPartita.partitionOf(m, "hot");
        assertThat(now.get("parentId").asText()).isEqualTo(hotPartition);
        assertThat(ddb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("hot"))))
                        .item())
                .isEqualTo(item);
    }
}
