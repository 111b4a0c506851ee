package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Exact capacity units (HowItWorks.ReadWriteCapacityMode, "Item sizes and formats"): a write unit per started KB of the
 * larger of the old and new item, a strongly consistent read unit per started 4 KB (half eventually consistently),
 * at least one unit per request; Query and Scan round once per page over the items read, before any filter;
 * BatchGetItem rounds per item.
 *
 * <p>Items are {@code {"id": <id>, "v": <n characters>}}: 3 bytes of names plus the id plus {@code n}, so
 * {@code n = 1000} is 1 KB or less, {@code 1500} is 2 KB, and so on.
 */
@Tag("partita-only")
class ConsumedCapacityTest {
    private static IsolatedPartita partita;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "Partita-only: own server, reads the admin endpoint");
        partita = IsolatedPartita.start(CapacityConfig.defaults());
    }

    @AfterAll
    static void stop() {
        if (partita != null) {
            partita.close();
        }
    }

    private static DynamoDbClient ddb() {
        return partita.client();
    }

    private static String table() {
        return partita.tables().hashTable("id", ScalarAttributeType.S);
    }

    private static Map<String, AttributeValue> item(String id, int chars) {
        return IsolatedPartita.item("id", id, chars);
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    private static double put(String table, Map<String, AttributeValue> item) {
        return ddb().putItem(b -> b.tableName(table).item(item).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()
                .capacityUnits();
    }

    private static double get(String table, String id, boolean consistent) {
        return ddb().getItem(b -> b.tableName(table)
                        .key(key(id))
                        .consistentRead(consistent)
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()
                .capacityUnits();
    }

    @Test
    void putItemIsChargedPerStartedKilobyteOfTheLargerItem() {
        String table = table();

        assertThat(put(table, item("a", 1000))).isEqualTo(1.0);
        assertThat(put(table, item("b", 1500))).isEqualTo(2.0);
        assertThat(put(table, item("c", 3000))).isEqualTo(3.0);
        // Overwriting a 3 KB item with a 1 KB one costs the old item's size.
        assertThat(put(table, item("c", 1000))).isEqualTo(3.0);
        assertThat(put(table, Map.of("id", AttributeValue.fromS("d")))).isEqualTo(1.0);
    }

    @Test
    void deleteItemIsChargedForTheDeletedItemAndAtLeastOneUnit() {
        String table = table();
        put(table, item("big", 2500));

        ConsumedCapacity deleted = ddb().deleteItem(
                        b -> b.tableName(table).key(key("big")).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity();
        ConsumedCapacity missing = ddb().deleteItem(b ->
                        b.tableName(table).key(key("missing")).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity();

        assertThat(deleted.tableName()).isEqualTo(table);
        assertThat(deleted.capacityUnits()).isEqualTo(3.0);
        assertThat(missing.capacityUnits()).isEqualTo(1.0);
    }

    @Test
    void updateItemIsChargedOnTheLargerOfTheOldAndNewItem() {
        String table = table();
        put(table, item("grow", 1000));
        put(table, item("shrink", 3000));

        double grow = ddb().updateItem(b -> b.tableName(table)
                        .key(key("grow"))
                        .updateExpression("SET v = :v")
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromS("y".repeat(2000))))
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()
                .capacityUnits();
        double shrink = ddb().updateItem(b -> b.tableName(table)
                        .key(key("shrink"))
                        .updateExpression("SET v = :v")
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromS("y")))
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()
                .capacityUnits();
        double create = ddb().updateItem(b -> b.tableName(table)
                        .key(key("new"))
                        .updateExpression("ADD n :one")
                        .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()
                .capacityUnits();

        assertThat(grow).isEqualTo(2.0);
        assertThat(shrink).isEqualTo(3.0);
        assertThat(create).isEqualTo(1.0);
    }

    @Test
    void getItemIsChargedPerStartedFourKilobytesHalvedWhenEventuallyConsistent() {
        String table = table();
        put(table, item("five", 5000));
        put(table, item("small", 10));

        assertThat(get(table, "five", true)).isEqualTo(2.0);
        assertThat(get(table, "five", false)).isEqualTo(1.0);
        assertThat(get(table, "small", true)).isEqualTo(1.0);
        assertThat(get(table, "small", false)).isEqualTo(0.5);
        assertThat(get(table, "missing", true)).isEqualTo(1.0);
        assertThat(get(table, "missing", false)).isEqualTo(0.5);
    }

    /** A write whose condition fails still consumes, on the larger of the stored item and the one offered. */
    @Test
    void aFailedConditionalWriteStillConsumes() {
        String table = table();
        put(table, item("k", 3000));
        double before = partita.metrics(table).get("consumedWriteCapacityUnits").asDouble();

        ConditionalCheckFailedException e = catchThrowableOfType(
                ConditionalCheckFailedException.class,
                () -> ddb().putItem(b -> b.tableName(table)
                        .item(item("k", 1000))
                        .conditionExpression("attribute_not_exists(id)")
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        assertThat(e).isNotNull();
        double afterPut =
                partita.metrics(table).get("consumedWriteCapacityUnits").asDouble();

        catchThrowableOfType(
                ConditionalCheckFailedException.class,
                () -> ddb().deleteItem(b -> b.tableName(table)
                        .key(key("k"))
                        .conditionExpression("v = :no")
                        .expressionAttributeValues(Map.of(":no", AttributeValue.fromS("no")))));
        double afterDelete =
                partita.metrics(table).get("consumedWriteCapacityUnits").asDouble();

        assertThat(before).isEqualTo(3.0);
        assertThat(afterPut - before).isEqualTo(3.0);
        assertThat(afterDelete - afterPut).isEqualTo(3.0);
        assertThat(ddb().getItem(b -> b.tableName(table).key(key("k")).consistentRead(true))
                        .item())
                .isEqualTo(item("k", 3000));
    }

    /** Ten items of about 1,007 bytes: one page reads about 10 KB, that is 3 units, not ten. */
    @Test
    void queryIsChargedOncePerPageOnTheItemsReadBeforeTheFilter() {
        String table = partita.tables().rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        for (int i = 0; i < 10; i++) {
            int n = i;
            ddb().putItem(b -> b.tableName(table)
                    .item(Map.of(
                            "pk", AttributeValue.fromS("p"),
                            "sk", AttributeValue.fromN(Integer.toString(n)),
                            "v", AttributeValue.fromS("x".repeat(1000)))));
        }

        assertThat(query(table, true, null, null).consumedCapacity().capacityUnits())
                .isEqualTo(3.0);
        assertThat(query(table, false, null, null).consumedCapacity().capacityUnits())
                .isEqualTo(1.5);
        QueryResponse filtered = query(table, true, null, "v = :none");
        assertThat(filtered.count()).isZero();
        assertThat(filtered.scannedCount()).isEqualTo(10);
        assertThat(filtered.consumedCapacity().capacityUnits()).isEqualTo(3.0);
        QueryResponse page = query(table, true, 4, null);
        assertThat(page.count()).isEqualTo(4);
        assertThat(page.consumedCapacity().capacityUnits()).isEqualTo(1.0);
        QueryResponse none = ddb().query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("nobody")))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(none.consumedCapacity().capacityUnits()).isEqualTo(0.5);

        ScanResponse scan = ddb().scan(b ->
                b.tableName(table).consistentRead(true).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(scan.count()).isEqualTo(10);
        assertThat(scan.consumedCapacity().capacityUnits()).isEqualTo(3.0);
        ScanResponse filteredScan = ddb().scan(b -> b.tableName(table)
                .filterExpression("v = :none")
                .expressionAttributeValues(Map.of(":none", AttributeValue.fromS("none")))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(filteredScan.count()).isZero();
        assertThat(filteredScan.consumedCapacity().capacityUnits()).isEqualTo(1.5);
    }

    /**
     * A hundred items of exactly 100 bytes: a page rounds the sum of what it read, so 40 of them (4,000 bytes) are one
     * unit and 41 (4,100 bytes) are two, page after page; an eventually consistent page of tiny items is half a unit.
     */
    @Test
    void scanPagesOfTinyItemsRoundTheirSumEachPage() {
        String table = table();
        for (int i = 0; i < 100; i++) {
            // "id" (2) + "i000" (4) + "v" (1) + 93 characters = 100 bytes.
            put(table, item(String.format("i%03d", i), 93));
        }
        assertThat(scanPages(table, 40, true)).containsExactly(1.0, 1.0, 1.0);
        assertThat(scanPages(table, 41, true)).containsExactly(2.0, 2.0, 1.0);
        assertThat(scanPages(table, 41, false)).containsExactly(1.0, 1.0, 0.5);
        assertThat(scanPages(table, 7, false)).hasSize(15).allMatch(units -> units == 0.5);
    }

    private static java.util.List<Double> scanPages(String table, int limit, boolean consistent) {
        java.util.List<Double> units = new java.util.ArrayList<>();
        Map<String, AttributeValue> start = null;
        int items = 0;
        do {
            Map<String, AttributeValue> from = start;
            ScanResponse page = ddb().scan(b -> b.tableName(table)
                    .limit(limit)
                    .consistentRead(consistent)
                    .exclusiveStartKey(from)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
            units.add(page.consumedCapacity().capacityUnits());
            items += page.count();
            start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        assertThat(items).isEqualTo(100);
        return units;
    }

    private static QueryResponse query(String table, boolean consistent, Integer limit, String filter) {
        Map<String, AttributeValue> values = filter == null
                ? Map.of(":p", AttributeValue.fromS("p"))
                : Map.of(":p", AttributeValue.fromS("p"), ":none", AttributeValue.fromS("none"));
        return ddb().query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .filterExpression(filter)
                .expressionAttributeValues(values)
                .consistentRead(consistent)
                .limit(limit)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
    }

    @Test
    void batchGetItemRoundsPerItemAndReportsPerTable() {
        String first = table();
        String second = table();
        for (String id : List.of("a", "b", "c")) {
            put(first, item(id, 90));
        }
        put(second, item("z", 5000));

        BatchGetItemResponse r = ddb().batchGetItem(b -> b.requestItems(Map.of(
                        first,
                        KeysAndAttributes.builder()
                                .keys(List.of(key("a"), key("b"), key("c")))
                                .consistentRead(true)
                                .build(),
                        second,
                        KeysAndAttributes.builder().keys(List.of(key("z"))).build()))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        // Three 100-byte items read strongly: 3 units (a Query page would round once, to 1).
        assertThat(r.consumedCapacity())
                .extracting(ConsumedCapacity::tableName, ConsumedCapacity::capacityUnits)
                .containsExactlyInAnyOrder(tuple(first, 3.0), tuple(second, 1.0));
    }

    @Test
    void batchWriteItemReportsOneEntryPerTable() {
        String first = table();
        String second = table();
        put(second, item("old", 2500));

        BatchWriteItemResponse r = ddb().batchWriteItem(b -> b.requestItems(Map.of(
                        first,
                        List.of(putRequest(item("a", 1000)), putRequest(item("b", 1500))),
                        second,
                        List.of(
                                WriteRequest.builder()
                                        .deleteRequest(DeleteRequest.builder()
                                                .key(key("old"))
                                                .build())
                                        .build(),
                                putRequest(item("new", 10)))))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(r.unprocessedItems()).isEmpty();
        assertThat(r.consumedCapacity())
                .extracting(ConsumedCapacity::tableName, ConsumedCapacity::capacityUnits)
                .containsExactlyInAnyOrder(tuple(first, 3.0), tuple(second, 4.0));
        assertThat(partita.metrics(second).get("consumedWriteCapacityUnits").asDouble())
                .isEqualTo(3.0 + 4.0);
    }

    private static WriteRequest putRequest(Map<String, AttributeValue> item) {
        return WriteRequest.builder()
                .putRequest(PutRequest.builder().item(item).build())
                .build();
    }

    @Test
    void indexesAddsTheTableBreakdownAndTotalDoesNot() {
        String table = table();

        ConsumedCapacity total = ddb().putItem(b ->
                        b.tableName(table).item(item("k", 1500)).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity();
        ConsumedCapacity indexes = ddb().putItem(b ->
                        b.tableName(table).item(item("k", 1500)).returnConsumedCapacity(ReturnConsumedCapacity.INDEXES))
                .consumedCapacity();
        ConsumedCapacity read = ddb().getItem(
                        b -> b.tableName(table).key(key("k")).returnConsumedCapacity(ReturnConsumedCapacity.INDEXES))
                .consumedCapacity();
        ConsumedCapacity none = ddb().putItem(b ->
                        b.tableName(table).item(item("k", 1500)).returnConsumedCapacity(ReturnConsumedCapacity.NONE))
                .consumedCapacity();

        assertThat(total.tableName()).isEqualTo(table);
        assertThat(total.capacityUnits()).isEqualTo(2.0);
        assertThat(total.table()).isNull();
        assertThat(total.hasGlobalSecondaryIndexes()).isFalse();
        assertThat(indexes.tableName()).isEqualTo(table);
        assertThat(indexes.capacityUnits()).isEqualTo(2.0);
        assertThat(indexes.table()).isNotNull();
        assertThat(indexes.table().capacityUnits()).isEqualTo(2.0);
        assertThat(read.capacityUnits()).isEqualTo(0.5);
        assertThat(read.table().capacityUnits()).isEqualTo(0.5);
        assertThat(none).isNull();
    }

    /** The admin metrics add up exactly what the answers reported. */
    @Test
    void metricsAddUpTheReportedUnits() {
        String table = table();
        double writes = put(table, item("a", 1000)) + put(table, item("b", 4000)) + put(table, item("b", 10));
        double reads = get(table, "a", true) + get(table, "b", false) + get(table, "c", false);

        var m = partita.metrics(table);

        assertThat(writes).isEqualTo(1.0 + 4.0 + 4.0);
        assertThat(reads).isEqualTo(1.0 + 0.5 + 0.5);
        assertThat(m.get("consumedWriteCapacityUnits").asDouble()).isEqualTo(writes);
        assertThat(m.get("consumedReadCapacityUnits").asDouble()).isEqualTo(reads);
        assertThat(m.get("writeThrottleEvents").asLong()).isZero();
        assertThat(m.get("readThrottleEvents").asLong()).isZero();
    }
}
