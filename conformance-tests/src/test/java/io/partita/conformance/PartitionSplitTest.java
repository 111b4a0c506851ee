package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
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
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Partition splits ("Partitions and data distribution"): a partition that outgrows the size limit splits in two, and
 * so do partitions when UpdateTable provisions more than they can serve. A split moves no data (Partita's partitions
 * are hash ranges over one store), so everything stays readable. The size limit is lowered to 1,000,000 bytes here so
 * a few megabytes are enough.
 */
@Tag("partita-only")
class PartitionSplitTest {
    private static final long SIZE_LIMIT = 1_000_000;

    private static IsolatedPartita partita;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "Partita-only: reads the admin endpoint");
        partita = IsolatedPartita.start(CapacityConfig.defaults().withPartitionSizeLimit(SIZE_LIMIT));
    }

    @AfterAll
    static void stop() {
        if (partita != null) {
            partita.close();
        }
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    /**
     * 44 items of 100 KB (about 4.4 MB) over an on-demand table's 4 partitions: one of them holds at least 11, over
     * 1,000,000 bytes, whatever the hash does.
     */
    @Test
    void aPartitionOverTheSizeLimitSplitsAndItsItemsStayReadable() {
        DynamoDbClient ddb = partita.client();
        String table = partita.tables().hashTable("id", ScalarAttributeType.S);
        JsonNode fresh = partita.metrics(table);
        assertThat(fresh.get("partitionCount").asInt()).isEqualTo(4);
        assertThat(fresh.get("partitionSplits").asInt()).isZero();
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (int i = 0; i < 44; i++) {
            Map<String, AttributeValue> item = IsolatedPartita.item("id", "item-" + i, 100_000);
            items.add(item);
            partita.putPatiently(table, item);
        }

        JsonNode m = partita.awaitMetrics(
                table, Duration.ofSeconds(5), t -> t.get("partitionSplits").asInt() >= 1);

        assertThat(m.get("partitionSplits").asInt()).as("splits in %s", m).isGreaterThanOrEqualTo(1);
        assertThat(m.get("partitionCount").asInt())
                .isEqualTo(4 + m.get("partitionSplits").asInt());
        assertThat(m.get("partitions")).hasSize(m.get("partitionCount").asInt());
        JsonNode split = m.get("splits").get(0);
        assertThat(split.get("reason").asText()).isEqualTo("SIZE");
        assertThat(split.get("leftId").asText())
                .isNotEqualTo(split.get("rightId").asText());
        assertThat(split.get("atMillis").asLong()).isPositive();
        assertHashRangesTile(m);
        long total = 0;
        for (JsonNode p : m.get("partitions")) {
            total += p.get("sizeBytes").asLong();
        }
        assertThat(total).isEqualTo(m.get("tableSizeBytes").asLong());
        assertThat(m.get("itemCount").asLong()).isEqualTo(items.size());

        for (Map<String, AttributeValue> item : items) {
            assertThat(ddb.getItem(b -> b.tableName(table)
                                    .key(key(item.get("id").s()))
                                    .consistentRead(true))
                            .item())
                    .as("item %s after the split", item.get("id").s())
                    .isEqualTo(item);
        }
        int scanned = 0;
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            var page = ddb.scan(b -> b.tableName(table).exclusiveStartKey(from).projectionExpression("id"));
            scanned += page.count();
            start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        assertThat(scanned).isEqualTo(items.size());
    }

    /**
     * 5 RCU + 5 WCU fit one partition; 2,500 WCU need ceil(5 / 3,000 + 2,500 / 1,000) = 3, so UpdateTable splits twice.
     */
    @Test
    void provisioningMoreThanThePartitionsCanServeSplitsThem() {
        DynamoDbClient ddb = partita.client();
        String table = partita.tables()
                .create(CreateTableRequest.builder()
                        .attributeDefinitions(AttributeDefinition.builder()
                                .attributeName("id")
                                .attributeType(ScalarAttributeType.S)
                                .build())
                        .keySchema(KeySchemaElement.builder()
                                .attributeName("id")
                                .keyType(KeyType.HASH)
                                .build())
                        .provisionedThroughput(p -> p.readCapacityUnits(5L).writeCapacityUnits(5L)));
        assertThat(partita.metrics(table).get("partitionCount").asInt()).isEqualTo(1);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = "u-" + i;
            ids.add(id);
            ddb.putItem(b -> b.tableName(table).item(IsolatedPartita.item("id", id, 10)));
        }

        ddb.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.readCapacityUnits(5L).writeCapacityUnits(2500L)));
        ddb.waiter().waitUntilTableExists(b -> b.tableName(table));

        JsonNode m = partita.awaitMetrics(
                table, Duration.ofSeconds(5), t -> t.get("partitionCount").asInt() >= 3);
        assertThat(m.get("partitionCount").asInt()).isEqualTo(3);
        assertThat(m.get("provisionedWriteCapacityUnits").asLong()).isEqualTo(2500);
        assertThat(m.get("splits")).hasSize(2);
        for (JsonNode s : m.get("splits")) {
            assertThat(s.get("reason").asText()).isEqualTo("THROUGHPUT");
        }
        assertHashRangesTile(m);
        for (String id : ids) {
            assertThat(ddb.getItem(b -> b.tableName(table).key(key(id)).consistentRead(true))
                            .item())
                    .isEqualTo(IsolatedPartita.item("id", id, 10));
        }
    }

    @Test
    void prometheusReportsThePartitionCount() {
        String table = partita.tables().hashTable("id", ScalarAttributeType.S);
        partita.client().putItem(b -> b.tableName(table).item(IsolatedPartita.item("id", "a", 10)));

        String text = partita.prometheus();

        assertThat(text).contains("# TYPE partita_partitions gauge");
        assertThat(text.lines().filter(l -> l.startsWith("partita_partitions{table=\"" + table + "\"} ")))
                .singleElement()
                .satisfies(l -> assertThat(Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                        .isEqualTo(4.0));
        assertThat(text).contains("partita_consumed_write_capacity_units_total{table=\"" + table + "\"} 1.0");
        // The partitions have their own family; none of the table's families holds partition series, so a sum()
        // over a family counts each unit once. The partitions' parts add up to the table's total.
        assertThat(text.lines().filter(l -> l.startsWith("partita_consumed") && l.contains("partition=")))
                .isEmpty();
        double parts = text.lines()
                .filter(l -> l.startsWith("partita_partition_consumed_write_capacity_units_total{partition="))
                .filter(l -> l.contains(",table=\"" + table + "\"}"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        assertThat(parts).isEqualTo(1.0);
        assertThat(text).contains("# TYPE partita_partition_consumed_write_capacity_units_total counter");
    }

    /** The partitions' hash ranges cover the whole 64-bit space, in order, without gaps or overlaps. */
    private static void assertHashRangesTile(JsonNode m) {
        List<long[]> ranges = new ArrayList<>();
        for (JsonNode p : m.get("partitions")) {
            ranges.add(new long[] {
                Long.parseUnsignedLong(p.get("hashStart").asText(), 16),
                Long.parseUnsignedLong(p.get("hashEnd").asText(), 16)
            });
        }
        ranges.sort((a, b) -> Long.compareUnsigned(a[0], b[0]));
        assertThat(ranges.get(0)[0]).isZero();
        assertThat(ranges.get(ranges.size() - 1)[1]).isEqualTo(-1L);
        for (int i = 1; i < ranges.size(); i++) {
            assertThat(ranges.get(i)[0])
                    .as("range %d starts after %d ends", i, i - 1)
                    .isEqualTo(ranges.get(i - 1)[1] + 1);
        }
    }
}
