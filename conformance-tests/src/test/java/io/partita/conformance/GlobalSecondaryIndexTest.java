package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Global secondary indexes, read through Query and Scan once they have caught up ("Using Global Secondary Indexes in
 * DynamoDB"): key order, sparse indexes, an item whose index key changes moving, projections, paging with a start key
 * that carries the table's key, parallel scans of an index, the capacity an index write adds to its table write, and
 * the read rules of GSIs. What a GSI shows before it has caught up is {@link GsiLagTest}'s subject.
 */
@ExtendWith(PartitaExtension.class)
class GlobalSecondaryIndexTest {
    static AttributeDefinition attr(String name, ScalarAttributeType type) {
        return CreateTableTest.attr(name, type);
    }

    static KeySchemaElement key(String name, KeyType type) {
        return CreateTableTest.key(name, type);
    }

    static GlobalSecondaryIndex gsi(String name, ProjectionType projection, KeySchemaElement... keys) {
        Projection.Builder p = Projection.builder().projectionType(projection);
        if (projection == ProjectionType.INCLUDE) {
            p.nonKeyAttributes("color");
        }
        return GlobalSecondaryIndex.builder()
                .indexName(name)
                .keySchema(keys)
                .projection(p.build())
                .build();
    }

    /** pk/sk table with GSIs: by-owner (owner, rank N; ALL), by-owner-keys (owner; KEYS_ONLY), by-size (size; INCLUDE color). */
    static String ordersTable(Tables tables) {
        return tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        attr("pk", ScalarAttributeType.S),
                        attr("sk", ScalarAttributeType.S),
                        attr("owner", ScalarAttributeType.S),
                        attr("rank", ScalarAttributeType.N),
                        attr("size", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(
                        gsi("by-owner", ProjectionType.ALL, key("owner", KeyType.HASH), key("rank", KeyType.RANGE)),
                        gsi("by-owner-keys", ProjectionType.KEYS_ONLY, key("owner", KeyType.HASH)),
                        gsi("by-size", ProjectionType.INCLUDE, key("size", KeyType.HASH))));
    }

    static Map<String, AttributeValue> order(String pk, String sk, String owner, int rank) {
        return Map.of(
                "pk",
                s(pk),
                "sk",
                s(sk),
                "owner",
                s(owner),
                "rank",
                n(Integer.toString(rank)),
                "size",
                s("L"),
                "color",
                s("red"),
                "weight",
                n("3"));
    }

    static QueryResponse byOwner(DynamoDbClient ddb, String table, String owner) {
        return ddb.query(b -> b.tableName(table)
                .indexName("by-owner")
                .keyConditionExpression("#o = :o")
                .expressionAttributeNames(Map.of("#o", "owner"))
                .expressionAttributeValues(Map.of(":o", s(owner))));
    }

    static List<String> sks(List<Map<String, AttributeValue>> items) {
        return items.stream().map(i -> i.get("sk").s()).toList();
    }

    @Test
    void queryReadsInIndexKeyOrderOnceCaughtUp(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        ddb.putItem(b -> b.tableName(t).item(order("a", "1", "ann", 30)));
        ddb.putItem(b -> b.tableName(t).item(order("b", "2", "ann", 10)));
        ddb.putItem(b -> b.tableName(t).item(order("c", "3", "ann", 20)));
        ddb.putItem(b -> b.tableName(t).item(order("d", "4", "bob", 5)));
        Indexes.await(ddb, t);
        assertThat(sks(byOwner(ddb, t, "ann").items())).containsExactly("2", "3", "1");
        QueryResponse back = ddb.query(b -> b.tableName(t)
                .indexName("by-owner")
                .keyConditionExpression("#o = :o AND #r > :r")
                .expressionAttributeNames(Map.of("#o", "owner", "#r", "rank"))
                .expressionAttributeValues(Map.of(":o", s("ann"), ":r", n("10")))
                .scanIndexForward(false));
        assertThat(sks(back.items())).containsExactly("1", "3");
        assertThat(byOwner(ddb, t, "bob").items()).singleElement().isEqualTo(order("d", "4", "bob", 5));
    }

    @Test
    void sparseIndexAndMovesAndDeletes(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        // No owner: not in by-owner or by-owner-keys; it has size, so by-size has it.
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("x"), "sk", s("1"), "size", s("S"))));
        ddb.putItem(b -> b.tableName(t).item(order("y", "1", "ann", 1)));
        Indexes.await(ddb, t);
        assertThat(ddb.scan(b -> b.tableName(t).indexName("by-owner")).count()).isEqualTo(1);
        assertThat(ddb.scan(b -> b.tableName(t).indexName("by-size")).count()).isEqualTo(2);
        // The owner changes: the item leaves ann's partition of the index and joins bob's.
        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("y"), "sk", s("1")))
                .updateExpression("SET #o = :o")
                .expressionAttributeNames(Map.of("#o", "owner"))
                .expressionAttributeValues(Map.of(":o", s("bob"))));
        Indexes.await(ddb, t);
        assertThat(byOwner(ddb, t, "ann").count()).isZero();
        assertThat(byOwner(ddb, t, "bob").count()).isEqualTo(1);
        // Removing the index key takes the item out of the index; deleting it takes it out of all.
        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("y"), "sk", s("1")))
                .updateExpression("REMOVE #o")
                .expressionAttributeNames(Map.of("#o", "owner")));
        ddb.deleteItem(b -> b.tableName(t).key(Map.of("pk", s("x"), "sk", s("1"))));
        Indexes.await(ddb, t);
        assertThat(ddb.scan(b -> b.tableName(t).indexName("by-owner")).count()).isZero();
        assertThat(ddb.scan(b -> b.tableName(t).indexName("by-size")).count()).isEqualTo(1);
        if (!Endpoint.isEmbedded()) {
            return; // DynamoDB refreshes ItemCount and IndexSizeBytes about every six hours; Partita keeps them live.
        }
        var d = ddb.describeTable(b -> b.tableName(t)).table();
        var bySize = d.globalSecondaryIndexes().stream()
                .filter(g -> g.indexName().equals("by-size"))
                .findFirst()
                .orElseThrow();
        assertThat(bySize.itemCount()).isEqualTo(1);
        assertThat(bySize.indexSizeBytes()).isPositive();
    }

    @Test
    void projectionsCopyWhatTheyName(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        ddb.putItem(b -> b.tableName(t).item(order("a", "1", "ann", 1)));
        Indexes.await(ddb, t);
        Map<String, AttributeValue> keysOnly = ddb.query(b -> b.tableName(t)
                        .indexName("by-owner-keys")
                        .keyConditionExpression("#o = :o")
                        .expressionAttributeNames(Map.of("#o", "owner"))
                        .expressionAttributeValues(Map.of(":o", s("ann"))))
                .items()
                .get(0);
        assertThat(keysOnly).isEqualTo(Map.of("pk", s("a"), "sk", s("1"), "owner", s("ann")));
        Map<String, AttributeValue> include = ddb.query(b -> b.tableName(t)
                        .indexName("by-size")
                        .keyConditionExpression("#s = :s")
                        .expressionAttributeNames(Map.of("#s", "size"))
                        .expressionAttributeValues(Map.of(":s", s("L")))
                        .select(Select.ALL_PROJECTED_ATTRIBUTES))
                .items()
                .get(0);
        assertThat(include).isEqualTo(Map.of("pk", s("a"), "sk", s("1"), "size", s("L"), "color", s("red")));
    }

    @Test
    void pagingCarriesTheTableKeyAndTheIndexKey(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        for (int i = 0; i < 7; i++) {
            int rank = i % 3; // equal index keys: the table key orders them and makes them distinct
            String sk = Integer.toString(i);
            ddb.putItem(b -> b.tableName(t).item(order("p" + sk, sk, "ann", rank)));
        }
        Indexes.await(ddb, t);
        List<String> seen = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        int pages = 0;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse r = ddb.query(b -> b.tableName(t)
                    .indexName("by-owner")
                    .keyConditionExpression("#o = :o")
                    .expressionAttributeNames(Map.of("#o", "owner"))
                    .expressionAttributeValues(Map.of(":o", s("ann")))
                    .limit(3)
                    .exclusiveStartKey(from));
            seen.addAll(sks(r.items()));
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
            if (start != null) {
                assertThat(start.keySet()).containsExactlyInAnyOrder("pk", "sk", "owner", "rank");
            }
            pages++;
        } while (start != null);
        assertThat(seen).hasSize(7).doesNotHaveDuplicates();
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void parallelScanOfAnIndexSeesEveryEntryOnce(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        for (int i = 0; i < 40; i++) {
            String id = Integer.toString(i);
            var item = order("p" + id, id, "owner" + (i % 9), i);
            ddb.putItem(b -> b.tableName(t).item(item));
        }
        Indexes.await(ddb, t);
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (int segment = 0; segment < 4; segment++) {
            int seg = segment;
            ScanResponse r = ddb.scan(
                    b -> b.tableName(t).indexName("by-owner").segment(seg).totalSegments(4));
            total += r.count();
            r.items().forEach(i -> seen.add(i.get("pk").s()));
        }
        assertThat(total).isEqualTo(40);
        assertThat(seen).hasSize(40);
    }

    @Test
    void indexWritesAreAddedToTheTableWrite(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        // A new item in all three indexes: one write for the table, one for each index.
        var put = ddb.putItem(b ->
                b.tableName(t).item(order("a", "1", "ann", 1)).returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
        assertThat(put.consumedCapacity().capacityUnits()).isEqualTo(4.0);
        assertThat(put.consumedCapacity().table().capacityUnits()).isEqualTo(1.0);
        assertThat(put.consumedCapacity().globalSecondaryIndexes())
                .containsOnlyKeys("by-owner", "by-owner-keys", "by-size");
        // Changing an attribute only by-owner copies (ALL): only that index is written.
        var update = ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("a"), "sk", s("1")))
                .updateExpression("SET weight = :w")
                .expressionAttributeValues(Map.of(":w", n("4")))
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
        assertThat(update.consumedCapacity().capacityUnits()).isEqualTo(2.0);
        assertThat(update.consumedCapacity().globalSecondaryIndexes()).containsOnlyKeys("by-owner");
        // Changing the index key is a delete and a put in that index.
        var move = ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("a"), "sk", s("1")))
                .updateExpression("SET #s = :s")
                .expressionAttributeNames(Map.of("#s", "size"))
                .expressionAttributeValues(Map.of(":s", s("M")))
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES));
        assertThat(move.consumedCapacity()
                        .globalSecondaryIndexes()
                        .get("by-size")
                        .capacityUnits())
                .isEqualTo(2.0);
    }

    @Test
    void readRulesOfGlobalIndexes(DynamoDbClient ddb, Tables tables) {
        String t = ordersTable(tables);
        ApiErrors.assertValidation(
                "Consistent reads are not supported on global secondary indexes",
                () -> ddb.query(b -> b.tableName(t)
                        .indexName("by-owner")
                        .consistentRead(true)
                        .keyConditionExpression("#o = :o")
                        .expressionAttributeNames(Map.of("#o", "owner"))
                        .expressionAttributeValues(Map.of(":o", s("ann")))));
        ApiErrors.assertValidation(
                "Consistent reads are not supported on global secondary indexes",
                () -> ddb.scan(b -> b.tableName(t).indexName("by-owner").consistentRead(true)));
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global"
                        + " secondary index by-owner-keys because its projection type is not ALL",
                () -> ddb.scan(b -> b.tableName(t).indexName("by-owner-keys").select(Select.ALL_ATTRIBUTES)));
        ApiErrors.assertValidation(
                "The table does not have the specified index: nope",
                () -> ddb.scan(b -> b.tableName(t).indexName("nope")));
        ApiErrors.assertValidation(
                "Query condition missed key schema element: owner",
                () -> ddb.query(b -> b.tableName(t)
                        .indexName("by-owner")
                        .keyConditionExpression("pk = :p")
                        .expressionAttributeValues(Map.of(":p", s("a")))));
        ApiErrors.assertValidation(
                "Filter Expression can only contain non-primary key attributes: Primary key attribute: rank",
                () -> ddb.query(b -> b.tableName(t)
                        .indexName("by-owner")
                        .keyConditionExpression("#o = :o")
                        .filterExpression("#r > :r")
                        .expressionAttributeNames(Map.of("#o", "owner", "#r", "rank"))
                        .expressionAttributeValues(Map.of(":o", s("ann"), ":r", n("1")))));
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: Type mismatch for Index Key rank Expected: N Actual: S"
                        + " IndexName: by-owner",
                () -> ddb.putItem(b ->
                        b.tableName(t).item(Map.of("pk", s("a"), "sk", s("1"), "owner", s("ann"), "rank", s("high")))));
        assertThat(ddb.scan(b -> b.tableName(t)).count())
                .as("the refused write wrote nothing")
                .isZero();
    }

    /** A GSI keyed by two partition and two sort attributes (multi-attribute keys, November 2025). */
    @Test
    void multiAttributeKeysQueryLeftToRight(DynamoDbClient ddb, Tables tables) {
        String t = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        attr("id", ScalarAttributeType.S),
                        attr("tenant", ScalarAttributeType.S),
                        attr("region", ScalarAttributeType.S),
                        attr("day", ScalarAttributeType.S),
                        attr("seq", ScalarAttributeType.N))
                .keySchema(key("id", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(gsi(
                        "by-tenant-region",
                        ProjectionType.ALL,
                        key("tenant", KeyType.HASH),
                        key("region", KeyType.HASH),
                        key("day", KeyType.RANGE),
                        key("seq", KeyType.RANGE))));
        String[][] rows = {
            {"1", "acme", "eu", "2025-11-01", "3"},
            {"2", "acme", "eu", "2025-11-01", "1"},
            {"3", "acme", "eu", "2025-11-02", "2"},
            {"4", "acme", "us", "2025-11-01", "1"},
            {"5", "other", "eu", "2025-11-01", "1"},
            {"6", "acme", "eu", "2025-11-03", "9"}
        };
        for (String[] r : rows) {
            ddb.putItem(b -> b.tableName(t)
                    .item(Map.of("id", s(r[0]), "tenant", s(r[1]), "region", s(r[2]), "day", s(r[3]), "seq", n(r[4]))));
        }
        Indexes.await(ddb, t);
        Map<String, String> names = Map.of("#t", "tenant", "#r", "region", "#d", "day", "#s", "seq");
        // Both partition attributes: the partition, in (day, seq) order.
        assertThat(ids(ddb.query(b -> b.tableName(t)
                        .indexName("by-tenant-region")
                        .keyConditionExpression("#t = :t AND #r = :r")
                        .expressionAttributeNames(Map.of("#t", "tenant", "#r", "region"))
                        .expressionAttributeValues(Map.of(":t", s("acme"), ":r", s("eu"))))))
                .containsExactly("2", "1", "3", "6");
        // The first sort attribute by equality, a range on the second.
        assertThat(ids(ddb.query(b -> b.tableName(t)
                        .indexName("by-tenant-region")
                        .keyConditionExpression("#t = :t AND #r = :r AND #d = :d AND #s >= :s")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(
                                Map.of(":t", s("acme"), ":r", s("eu"), ":d", s("2025-11-01"), ":s", n("2"))))))
                .containsExactly("1");
        // A range on the first sort attribute alone.
        assertThat(ids(ddb.query(b -> b.tableName(t)
                        .indexName("by-tenant-region")
                        .keyConditionExpression("#t = :t AND #r = :r AND #d > :d")
                        .expressionAttributeNames(Map.of("#t", "tenant", "#r", "region", "#d", "day"))
                        .expressionAttributeValues(Map.of(":t", s("acme"), ":r", s("eu"), ":d", s("2025-11-01"))))))
                .containsExactly("3", "6");
        // Every partition attribute is needed.
        ApiErrors.assertValidation(
                "Query condition missed key schema element: region",
                () -> ddb.query(b -> b.tableName(t)
                        .indexName("by-tenant-region")
                        .keyConditionExpression("#t = :t")
                        .expressionAttributeNames(Map.of("#t", "tenant"))
                        .expressionAttributeValues(Map.of(":t", s("acme")))));
    }

    /**
     * WarmThroughput ("Understanding DynamoDB warm throughput"): every GSI reports what it can serve at once, and one
     * created with a higher warm throughput starts able to serve it.
     */
    @Test
    void warmThroughputOfGlobalIndexes(DynamoDbClient ddb, Tables tables) {
        String t = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", ScalarAttributeType.S), attr("g", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(
                        gsi("plain", ProjectionType.KEYS_ONLY, key("g", KeyType.HASH)),
                        gsi("warm", ProjectionType.KEYS_ONLY, key("g", KeyType.HASH)).toBuilder()
                                .warmThroughput(
                                        w -> w.readUnitsPerSecond(30_000L).writeUnitsPerSecond(10_000L))
                                .build()));
        Map<String, software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexWarmThroughputDescription> warm =
                new java.util.HashMap<>();
        ddb.describeTable(b -> b.tableName(t))
                .table()
                .globalSecondaryIndexes()
                .forEach(g -> warm.put(g.indexName(), g.warmThroughput()));
        assertThat(warm.get("plain").readUnitsPerSecond()).isGreaterThanOrEqualTo(12_000L);
        assertThat(warm.get("plain").writeUnitsPerSecond()).isGreaterThanOrEqualTo(4_000L);
        assertThat(warm.get("warm").readUnitsPerSecond()).isGreaterThanOrEqualTo(30_000L);
        assertThat(warm.get("warm").writeUnitsPerSecond()).isGreaterThanOrEqualTo(10_000L);
        assertThat(warm.get("warm").statusAsString()).isEqualTo("ACTIVE");
    }

    private static List<String> ids(QueryResponse r) {
        return r.items().stream().map(i -> i.get("id").s()).toList();
    }
}
