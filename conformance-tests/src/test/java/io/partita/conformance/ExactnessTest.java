package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Edges of the data plane, each pinned to what DynamoDB answers as public test suites run against it record it
 * (dynalite's tests with REMOTE=1, ScyllaDB's alternator tests): Query start keys, arithmetic past 38 digits,
 * removals from an item that is not there.
 */
@ExtendWith(PartitaExtension.class)
class ExactnessTest {
    private final DynamoDbClient ddb = Endpoint.client();

    private String songs(Tables tables) {
        String t = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        for (int i = 0; i < 5; i++) {
            String sk = String.valueOf(i);
            ddb.putItem(p -> p.tableName(t).item(item("pk", s("a"), "sk", n(sk))));
        }
        return t;
    }

    private void query(String t, String kce, Map<String, AttributeValue> values, Map<String, AttributeValue> start) {
        ddb.query(q -> q.tableName(t)
                .keyConditionExpression(kce)
                .expressionAttributeValues(values)
                .exclusiveStartKey(start));
    }

    /** A Scan's start key of the wrong type or shape, and a Query's Limit of 0, refused in DynamoDB's words. */
    @Test
    void aScanStartKeyOfTheWrongShapeAndALimitOfZero(DynamoDbClient ddb, Tables tables) {
        String t = tables.hashTable("pk", ScalarAttributeType.S);
        ApiErrors.assertValidation(
                "The provided starting key is invalid: The provided key element does not match the schema",
                () -> ddb.scan(r -> r.tableName(t).exclusiveStartKey(Map.of("pk", n("1")))));
        ApiErrors.assertValidation(
                "The provided starting key is invalid: The provided key element does not match the schema",
                () -> ddb.scan(r -> r.tableName(t).exclusiveStartKey(Map.of("pk", s("a"), "extra", s("b")))));
        ApiErrors.assertValidation(
                "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have"
                        + " value greater than or equal to 1",
                () -> ddb.query(q -> q.tableName(t)
                        .keyConditionExpression("pk = :p")
                        .expressionAttributeValues(Map.of(":p", s("a")))
                        .limit(0)));
        // Legacy KeyConditions with an operator no key is queried by.
        for (var op : java.util.List.of(
                software.amazon.awssdk.services.dynamodb.model.ComparisonOperator.NE,
                software.amazon.awssdk.services.dynamodb.model.ComparisonOperator.NULL,
                software.amazon.awssdk.services.dynamodb.model.ComparisonOperator.CONTAINS)) {
            var condition = software.amazon.awssdk.services.dynamodb.model.Condition.builder()
                    .comparisonOperator(op);
            if (op != software.amazon.awssdk.services.dynamodb.model.ComparisonOperator.NULL) {
                condition.attributeValueList(s("a"));
            }
            ApiErrors.assertValidation(
                    "Attempted conditional constraint is not an indexable operation",
                    () -> ddb.query(q -> q.tableName(t).keyConditions(Map.of("pk", condition.build()))));
        }
    }

    /** A parallel Scan's start key must come from its own segment (live capture: no final period). */
    @Test
    void aScanStartKeyFromAnotherSegmentIsRefused(DynamoDbClient ddb, Tables tables) {
        String t = tables.hashTable("pk", ScalarAttributeType.S);
        for (int i = 0; i < 40; i++) {
            String key = "k" + i;
            ddb.putItem(b -> b.tableName(t).item(item("pk", s(key))));
        }
        // Segment 1 of 4 holds about 10 of the 40 items: a page of one ends with a key of that segment.
        var page = ddb.scan(b -> b.tableName(t).segment(1).totalSegments(4).limit(1));
        assertThat(page.lastEvaluatedKey()).isNotEmpty();
        Map<String, AttributeValue> start = page.lastEvaluatedKey();
        ApiErrors.assertValidation(
                "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with"
                        + " correct Segment. TotalSegments: 4 Segment: 0",
                () -> ddb.scan(b -> b.tableName(t).segment(0).totalSegments(4).exclusiveStartKey(start)));
    }

    @Test
    void aQueryStartKeyMustLieWhereTheQueryReads(Tables tables) {
        String t = songs(tables);
        Map<String, AttributeValue> a = Map.of(":p", s("a"));
        ApiErrors.assertValidation(
                "The provided starting key is invalid", () -> query(t, "pk = :p", a, Map.of("pk", s("a"))));
        ApiErrors.assertValidation(
                "The provided starting key is invalid",
                () -> query(t, "pk = :p", a, Map.of("pk", s("a"), "sk", n("1"), "x", s("1"))));
        ApiErrors.assertValidation(
                "The provided key element does not match the schema",
                () -> query(t, "pk = :p", a, Map.of("pk", s("a"), "sk", s("1"))));
        ApiErrors.assertValidation(
                "The provided starting key is outside query boundaries based on provided conditions",
                () -> query(t, "pk = :p", a, Map.of("pk", s("b"), "sk", n("1"))));
        ApiErrors.assertValidation(
                "The provided starting key does not match the range key predicate",
                () -> query(
                        t,
                        "pk = :p AND sk > :s",
                        Map.of(":p", s("a"), ":s", n("2")),
                        Map.of("pk", s("a"), "sk", n("1"))));
        ApiErrors.assertValidation(
                "The query can return at most one row and cannot be restarted",
                () -> query(
                        t,
                        "pk = :p AND sk = :s",
                        Map.of(":p", s("a"), ":s", n("2")),
                        Map.of("pk", s("a"), "sk", n("2"))));
        // A start key of the wrong shape is refused before a key condition that misses the schema.
        ApiErrors.assertValidation(
                "The provided starting key is invalid", () -> query(t, "z = :p", a, Map.of("nope", s("a"))));
        // Inside the range, the query resumes after the key.
        var rest = ddb.query(q -> q.tableName(t)
                .keyConditionExpression("pk = :p AND sk > :s")
                .expressionAttributeValues(Map.of(":p", s("a"), ":s", n("0")))
                .exclusiveStartKey(Map.of("pk", s("a"), "sk", n("2"))));
        assertThat(rest.items()).extracting(i -> i.get("sk").n()).containsExactly("3", "4");
    }

    /** Key conditions DynamoDB accepts written either way round, and the forms it refuses, in its words. */
    @Test
    void keyConditionForms(Tables tables) {
        String t = songs(tables);
        Map<String, AttributeValue> v = Map.of(":p", s("a"), ":s", n("2"));
        var reversed = ddb.query(q ->
                q.tableName(t).keyConditionExpression(":p = pk AND :s < sk").expressionAttributeValues(v));
        assertThat(reversed.items()).extracting(i -> i.get("sk").n()).containsExactly("3", "4");
        var parenthesised = ddb.query(q ->
                q.tableName(t).keyConditionExpression("(pk = :p) AND (sk > :s)").expressionAttributeValues(v));
        assertThat(parenthesised.count()).isEqualTo(2);
        Map<String, String> refused = Map.of(
                "pk = :p AND sk > size(sk)", "KeyConditionExpressions cannot contain nested operations",
                "pk = :p AND sk > pk",
                        "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
                ":p = :s AND pk = :p", "Invalid condition in KeyConditionExpression: No key attribute specified",
                "pk = :p AND :s BETWEEN sk AND :s",
                        "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as"
                                + " its first operand",
                "pk = :p AND v = :s", "Query condition missed key schema element: sk",
                "pk = :p OR sk > :s",
                        "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR",
                "pk = :p AND sk <> :s",
                        "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: <>",
                "pk <> :p", "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: <>");
        refused.forEach((kce, message) -> ApiErrors.assertValidation(
                message,
                () -> ddb.query(
                        q -> q.tableName(t).keyConditionExpression(kce).expressionAttributeValues(used(v, kce)))));
        // An operator DynamoDB refuses is refused before the table is looked up.
        ApiErrors.assertValidation(
                "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: <>",
                () -> ddb.query(q -> q.tableName("no-such-table-here")
                        .keyConditionExpression("pk <> :p")
                        .expressionAttributeValues(Map.of(":p", s("a")))));
    }

    /** The values {@code expression} names: DynamoDB refuses unused ones first. */
    private static Map<String, AttributeValue> used(Map<String, AttributeValue> values, String expression) {
        Map<String, AttributeValue> out = new java.util.HashMap<>();
        values.forEach((k, x) -> {
            if (expression.contains(k)) {
                out.put(k, x);
            }
        });
        return out;
    }

    @Test
    void arithmeticPast38DigitsIsAnOverflow(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertValidation(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
                () -> ddb.updateItem(u -> u.tableName(t)
                        .key(Map.of("id", s("x")))
                        .updateExpression("SET n = :a - :b")
                        .expressionAttributeValues(Map.of(":a", n("1e50"), ":b", n("1")))));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("x")))).hasItem())
                .isFalse();
    }

    @Test
    void removalsFromAnAbsentItemCreateNothing(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ddb.updateItem(u -> u.tableName(t).key(Map.of("id", s("gone"))).updateExpression("REMOVE a.b, c[0], d"));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("gone")))).hasItem())
                .isFalse();
        // An update with no action at all creates the item, key only.
        ddb.updateItem(u -> u.tableName(t).key(Map.of("id", s("key-only"))));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("key-only"))))
                        .item())
                .isEqualTo(item("id", s("key-only")));
        // Setting a nested path of an absent item is an error, and creates nothing.
        ApiErrors.assertValidation(
                "The document path provided in the update expression is invalid for update",
                () -> ddb.updateItem(u -> u.tableName(t)
                        .key(Map.of("id", s("none")))
                        .updateExpression("SET a.b = :v")
                        .expressionAttributeValues(Map.of(":v", s("x")))));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("none")))).hasItem())
                .isFalse();
        // On an item that exists, removing a path through a missing map is an error.
        ApiErrors.assertValidation(
                "The document path provided in the update expression is invalid for update",
                () -> ddb.updateItem(
                        u -> u.tableName(t).key(Map.of("id", s("key-only"))).updateExpression("REMOVE a.b")));
    }

    /**
     * A function's arguments are operands, so arithmetic inside one is a syntax error on the "+", while arithmetic
     * over two functions is allowed; list_append parses inside list_append but is refused (observed answers).
     */
    @Test
    void functionArgumentsAreOperands(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> numbers = Map.of(":a", n("2"), ":b", n("3"));
        ApiErrors.assertValidation(
                "Invalid UpdateExpression: Syntax error; token: \"+\", near: \":a+:b\"",
                () -> ddb.updateItem(u -> u.tableName(t)
                        .key(Map.of("id", s("x")))
                        .updateExpression("SET c = if_not_exists(c, :a+:b)")
                        .expressionAttributeValues(numbers)));
        ddb.updateItem(u -> u.tableName(t)
                .key(Map.of("id", s("x")))
                .updateExpression("SET c = if_not_exists(c, :a)+:b")
                .expressionAttributeValues(numbers));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("x")))).item())
                .containsEntry("c", n("5"));

        Map<String, AttributeValue> lists = Map.of(
                ":a", AttributeValue.fromL(java.util.List.of(s("a"))),
                ":b", AttributeValue.fromL(java.util.List.of(s("b"))),
                ":c", AttributeValue.fromL(java.util.List.of(s("c"))));
        ApiErrors.assertValidation(
                "Invalid UpdateExpression: The function is not allowed to be used this way in an expression;"
                        + " function: list_append",
                () -> ddb.updateItem(u -> u.tableName(t)
                        .key(Map.of("id", s("x")))
                        .updateExpression("SET l = list_append(list_append(:a, :b), :c)")
                        .expressionAttributeValues(lists)));
        ddb.updateItem(u -> u.tableName(t)
                .key(Map.of("id", s("x")))
                .updateExpression("SET l = list_append(if_not_exists(l, :a), :b)")
                .expressionAttributeValues(Map.of(":a", lists.get(":a"), ":b", lists.get(":b"))));
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("id", s("x")))).item())
                .containsEntry("l", AttributeValue.fromL(java.util.List.of(s("a"), s("b"))));
    }

    /** Semantic errors in a filter, a projection or a condition are found before anything is read or matched. */
    @Test
    void semanticErrorsOnAnEmptyTable(Tables tables) {
        String t = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        ApiErrors.assertValidation(
                "Invalid FilterExpression: Invalid attribute type name found; type: XX, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
                () -> ddb.scan(r -> r.tableName(t)
                        .filterExpression("attribute_type(a, :t)")
                        .expressionAttributeValues(Map.of(":t", s("XX")))));
        ApiErrors.assertValidation(
                "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one"
                        + " of these paths; path one: [a], path two: [a, b]",
                () -> ddb.scan(r -> r.tableName(t).projectionExpression("a, a.b")));
        ApiErrors.assertValidation(
                "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
                () -> ddb.query(q -> q.tableName(t)
                        .keyConditionExpression("pk = :p")
                        .filterExpression("sk > :n")
                        .expressionAttributeValues(Map.of(":p", s("nobody"), ":n", n("1")))));
        ApiErrors.assertValidation(
                "Invalid FilterExpression: Incorrect number of operands for operator or function; operator or"
                        + " function: begins_with, number of operands: 1",
                () -> ddb.query(q -> q.tableName(t)
                        .keyConditionExpression("pk = :p")
                        .filterExpression("begins_with(a)")
                        .expressionAttributeValues(Map.of(":p", s("nobody")))));
        ApiErrors.assertValidation(
                "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal"
                        + " to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand:"
                        + " AttributeValue: {N:1}",
                () -> ddb.deleteItem(d -> d.tableName(t)
                        .key(Map.of("pk", s("nobody"), "sk", n("1")))
                        .conditionExpression("a BETWEEN :hi AND :lo")
                        .expressionAttributeValues(Map.of(":hi", n("5"), ":lo", n("1")))));
    }

    /** The fields a table description carries, by name, leaving out those the SDK left unset. */
    private static java.util.Set<String> fields(software.amazon.awssdk.services.dynamodb.model.TableDescription d) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (software.amazon.awssdk.core.SdkField<?> f : d.sdkFields()) {
            Object v = f.getValueOrDefault(d);
            if (v != null && !(v instanceof software.amazon.awssdk.core.util.SdkAutoConstructList<?>)) {
                names.add(f.memberName());
            }
        }
        return names;
    }

    /**
     * Exactly the fields of the CLI reference's create-table, update-table and delete-table examples (plus
     * DeletionProtectionEnabled, which DynamoDB has answered since 2023): no index, stream or SSE fields on a table
     * that has none, the billing mode summary only on an on-demand table, and the old throughput while UPDATING.
     */
    @Test
    @SuppressWarnings("unchecked")
    void tableDescriptionsCarryExactlyDynamoDbsFields() {
        String name = "exact-" + java.util.UUID.randomUUID();
        var created = ddb.createTable(c -> c.tableName(name)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                        .provisionedThroughput(p -> p.readCapacityUnits(5L).writeCapacityUnits(5L)))
                .tableDescription();
        java.util.Set<String> base = java.util.Set.of(
                "AttributeDefinitions",
                "TableName",
                "KeySchema",
                "TableStatus",
                "CreationDateTime",
                "ProvisionedThroughput",
                "TableSizeBytes",
                "ItemCount",
                "TableArn",
                "TableId",
                "DeletionProtectionEnabled");
        assertThat(fields(created)).containsExactlyInAnyOrderElementsOf(base);
        assertThat(created.tableStatusAsString()).isEqualTo("CREATING");
        ddb.waiter().waitUntilTableExists(w -> w.tableName(name));

        var updated = ddb.updateTable(u -> u.tableName(name)
                        .provisionedThroughput(p -> p.readCapacityUnits(6L).writeCapacityUnits(5L)))
                .tableDescription();
        assertThat(updated.tableStatusAsString()).isEqualTo("UPDATING");
        assertThat(updated.provisionedThroughput().readCapacityUnits()).isEqualTo(5L);
        assertThat(fields(updated))
                .containsAll(base)
                .doesNotContain(
                        "BillingModeSummary",
                        "StreamSpecification",
                        "GlobalSecondaryIndexes",
                        "LocalSecondaryIndexes",
                        "SSEDescription",
                        "TableClassSummary");
        ddb.waiter().waitUntilTableExists(w -> w.tableName(name));

        var deleted = ddb.deleteTable(d -> d.tableName(name)).tableDescription();
        assertThat(deleted.tableStatusAsString()).isEqualTo("DELETING");
        assertThat(fields(deleted))
                .contains("TableName", "TableStatus", "TableArn", "TableId", "ItemCount")
                .doesNotContain("AttributeDefinitions", "KeySchema", "BillingModeSummary");

        String onDemand = "exact-" + java.util.UUID.randomUUID();
        var free = ddb.createTable(c -> c.tableName(onDemand)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                        .billingMode("PAY_PER_REQUEST"))
                .tableDescription();
        java.util.Set<String> withBilling = new java.util.HashSet<>(base);
        withBilling.add("BillingModeSummary");
        assertThat(fields(free)).containsExactlyInAnyOrderElementsOf(withBilling);
        assertThat(free.provisionedThroughput().readCapacityUnits()).isZero();
        ddb.waiter().waitUntilTableExists(w -> w.tableName(onDemand));
        ddb.deleteTable(d -> d.tableName(onDemand));
    }
}
