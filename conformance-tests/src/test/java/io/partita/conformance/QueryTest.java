package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static io.partita.conformance.support.ExpressionErrors.assertInvalidContaining;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Loader;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Query (API_Query; Query.KeyConditionExpressions, Query.Pagination, Query.FilterExpression, Query.Count): one
 * partition's items in sort-key order, narrowed by one sort-key condition, paged by Limit and the 1 MB page limit,
 * filtered after reading, counted, and projected.
 *
 * <p>Every table holds the partition under test, {@code pk = "p"}, next to decoy partitions {@code "pp"} (a prefix
 * of the same bytes) and {@code "q"} holding the same sort keys, so a query that leaks outside its partition shows.
 * Every read is strongly consistent, so the same assertions hold against real DynamoDB.
 */
@ExtendWith(PartitaExtension.class)
class QueryTest {
    private static final String P = "p";
    private static final List<String> DECOYS = List.of("pp", "q");

    /** In numeric order: "9" and "100" catch a lexical comparison, "-10" and "-1.5" a sign-blind one. */
    private static final List<String> NUMBERS = List.of("-10", "-1.5", "0", "0.25", "2", "9", "10", "100");

    /**
     * In UTF-8 byte order (API_Query: "sorted by UTF-8 bytes"). U+00E9 is C3 A9, U+FF21 is EF BC A1, U+FFFD is
     * EF BF BD and U+1F600 is F0 9F 98 80, so the emoji sorts last; Java's {@code String.compareTo} compares the
     * UTF-16 surrogate D83D and would put it before U+FF21 and U+FFFD. "B" (0x42) sorts before "a" (0x61).
     */
    private static final List<String> STRINGS =
            List.of("B", "a", "aa", "ab", "b", "\u00E9", "\uFF21", "\uFFFD", "\uD83D\uDE00");

    /** In unsigned byte order, as hex: 0x80 and 0xFF would sort before 0x00 if compared as signed bytes. */
    private static final List<String> BINARIES = List.of("00", "01", "0100", "0102", "7f", "80", "ff", "ff00");

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers

    private static AttributeValue hex(String hex) {
        return AttributeValue.fromB(SdkBytes.fromByteArray(HexFormat.of().parseHex(hex)));
    }

    /** A sort-key value as the tests spell it: N and S as sent, B as lower-case hex. */
    private static String render(AttributeValue v) {
        if (v.n() != null) {
            return v.n();
        }
        if (v.s() != null) {
            return v.s();
        }
        return HexFormat.of().formatHex(v.b().asByteArray());
    }

    /** A table with sort keys {@code sortKeys} in partition "p" and in each decoy partition, loaded out of order. */
    private static String load(
            DynamoDbClient ddb, Tables tables, ScalarAttributeType skType, List<AttributeValue> sortKeys) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", skType);
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (String pk : List.of(P, DECOYS.get(0), DECOYS.get(1))) {
            for (int i = 0; i < sortKeys.size(); i++) {
                items.add(item("pk", s(pk), "sk", sortKeys.get(i), "v", n(Integer.toString(i))));
            }
        }
        Collections.shuffle(items, new Random(7));
        Loader.putAll(ddb, table, items);
        return table;
    }

    /** Partition "p" with sort keys 0..count-1 (N) and {@code v} equal to the sort key, plus decoys. */
    private static String numbered(DynamoDbClient ddb, Tables tables, int count) {
        return load(
                ddb,
                tables,
                ScalarAttributeType.N,
                IntStream.range(0, count).mapToObj(i -> n(Integer.toString(i))).toList());
    }

    private static List<String> range(int fromInclusive, int toExclusive) {
        return IntStream.range(fromInclusive, toExclusive)
                .mapToObj(Integer::toString)
                .toList();
    }

    private static List<String> reversed(List<String> list) {
        List<String> copy = new ArrayList<>(list);
        Collections.reverse(copy);
        return copy;
    }

    private static Map<String, AttributeValue> values(Object... namesAndValues) {
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        values.put(":p", s(P));
        values.putAll(item(namesAndValues));
        return values;
    }

    private static List<String> sortKeys(List<Map<String, AttributeValue>> items) {
        return items.stream().map(i -> render(i.get("sk"))).toList();
    }

    /** The LastEvaluatedKey, or null when the response has none (absent or empty both mean "last page"). */
    private static Map<String, AttributeValue> lastKey(QueryResponse r) {
        return r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    }

    /**
     * The sort keys a query returns in order (following LastEvaluatedKey until the end), or the error as
     * "code: message", so one wrong case does not hide the others.
     */
    private static Object outcome(
            DynamoDbClient ddb,
            String table,
            String sortCondition,
            Map<String, AttributeValue> sortValues,
            boolean forward) {
        String condition = sortCondition == null ? "pk = :p" : "pk = :p AND " + sortCondition;
        Map<String, AttributeValue> values = new LinkedHashMap<>(sortValues);
        values.put(":p", s(P));
        try {
            return sortKeys(all(
                    ddb,
                    b -> b.tableName(table)
                            .keyConditionExpression(condition)
                            .expressionAttributeValues(values)
                            .scanIndexForward(forward)
                            .consistentRead(true)));
        } catch (DynamoDbException e) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
    }

    /** Every item of a query, page after page; each page is checked to be no larger than the request's Limit. */
    private static List<Map<String, AttributeValue>> all(DynamoDbClient ddb, Consumer<QueryRequest.Builder> request) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        for (int page = 0; page < 1000; page++) {
            Map<String, AttributeValue> from = start;
            QueryRequest.Builder b = QueryRequest.builder();
            request.accept(b);
            if (from != null) {
                b.exclusiveStartKey(from);
            }
            QueryRequest q = b.build();
            QueryResponse r = ddb.query(q);
            assertThat(r.items()).as("Count matches the items returned").hasSize(r.count());
            if (q.limit() != null) {
                assertThat(r.scannedCount())
                        .as("ScannedCount never exceeds Limit")
                        .isLessThanOrEqualTo(q.limit());
            }
            items.addAll(r.items());
            start = lastKey(r);
            if (start == null) {
                return items;
            }
        }
        throw new AssertionError("query did not end after 1000 pages");
    }

    private static void check(
            SoftAssertions soft,
            DynamoDbClient ddb,
            String table,
            String sortCondition,
            Map<String, AttributeValue> sortValues,
            List<String> expected) {
        soft.assertThat(outcome(ddb, table, sortCondition, sortValues, true))
                .as("pk = :p AND %s with %s", sortCondition, sortValues)
                .isEqualTo(expected);
    }

    private static void check(
            SoftAssertions soft,
            DynamoDbClient ddb,
            String table,
            String sortCondition,
            Map<String, AttributeValue> sortValues,
            String... expected) {
        check(soft, ddb, table, sortCondition, sortValues, List.of(expected));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Key conditions and sort order

    @Test
    void partitionKeyAloneReturnsThatPartitionInNumericSortKeyOrder(DynamoDbClient ddb, Tables tables) {
        String table = load(
                ddb,
                tables,
                ScalarAttributeType.N,
                NUMBERS.stream().map(v -> n(v)).toList());

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .consistentRead(true));

        assertThat(sortKeys(r.items())).containsExactlyElementsOf(NUMBERS);
        assertThat(r.items()).allSatisfy(i -> assertThat(i.get("pk")).isEqualTo(s(P)));
        assertThat(r.count()).isEqualTo(NUMBERS.size());
        assertThat(r.scannedCount()).isEqualTo(NUMBERS.size());
        assertThat(lastKey(r)).isNull();
    }

    @Test
    void queryReturnsWholeItems(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.S);
        Map<String, AttributeValue> stored = item("pk", s(P), "sk", s("a"), "v", n("1"), "w", s("x"));
        ddb.putItem(b -> b.tableName(table).item(stored));

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p AND sk = :a")
                .expressionAttributeValues(values(":a", s("a")))
                .consistentRead(true));

        assertThat(r.items()).containsExactly(stored);
    }

    @Test
    void anUnknownPartitionReturnsNothing(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :x")
                .expressionAttributeValues(Map.of(":x", s("nobody")))
                .consistentRead(true));

        assertThat(r.items()).isEmpty();
        assertThat(r.count()).isZero();
        assertThat(r.scannedCount()).isZero();
        assertThat(lastKey(r)).isNull();
    }

    /** Numbers compare by value: "2.0" equals the stored "2", and "100" sorts after "9". */
    @Test
    void sortKeyOperatorsOnNumbersCompareNumerically(DynamoDbClient ddb, Tables tables) {
        String table = load(
                ddb,
                tables,
                ScalarAttributeType.N,
                NUMBERS.stream().map(v -> n(v)).toList());
        SoftAssertions soft = new SoftAssertions();

        check(soft, ddb, table, null, Map.of(), NUMBERS);
        check(soft, ddb, table, "sk = :a", item(":a", n("0.25")), "0.25");
        check(soft, ddb, table, "sk = :a", item(":a", n("2.0")), "2");
        check(soft, ddb, table, "sk = :a", item(":a", n("3")));
        check(soft, ddb, table, "sk < :a", item(":a", n("0")), "-10", "-1.5");
        check(soft, ddb, table, "sk <= :a", item(":a", n("0")), "-10", "-1.5", "0");
        check(soft, ddb, table, "sk > :a", item(":a", n("2")), "9", "10", "100");
        check(soft, ddb, table, "sk >= :a", item(":a", n("2")), "2", "9", "10", "100");
        check(soft, ddb, table, "sk > :a", item(":a", n("-2")), "-1.5", "0", "0.25", "2", "9", "10", "100");
        check(soft, ddb, table, "sk < :a", item(":a", n("-10")));
        // Value-first comparisons are a valid shape (paritysuite reports ":v >= sk" as an ordering comparison).
        check(soft, ddb, table, ":a > sk", item(":a", n("0")), "-10", "-1.5");
        check(soft, ddb, table, ":a <= sk", item(":a", n("10")), "10", "100");
        check(
                soft,
                ddb,
                table,
                "sk BETWEEN :a AND :b",
                item(":a", n("-1.5"), ":b", n("9")),
                "-1.5",
                "0",
                "0.25",
                "2",
                "9");
        check(soft, ddb, table, "sk BETWEEN :a AND :b", item(":a", n("0.1"), ":b", n("0.3")), "0.25");
        check(soft, ddb, table, "sk BETWEEN :a AND :b", item(":a", n("10"), ":b", n("10")), "10");
        soft.assertAll();
    }

    /** Strings compare by UTF-8 bytes, not by Java's UTF-16 {@code compareTo} (see {@link #STRINGS}). */
    @Test
    void sortKeyOperatorsOnStringsCompareUtf8Bytes(DynamoDbClient ddb, Tables tables) {
        String table = load(
                ddb,
                tables,
                ScalarAttributeType.S,
                STRINGS.stream().map(v -> s(v)).toList());
        String emoji = "\uD83D\uDE00";
        SoftAssertions soft = new SoftAssertions();

        check(soft, ddb, table, null, Map.of(), STRINGS);
        check(soft, ddb, table, "sk = :a", item(":a", s("ab")), "ab");
        check(soft, ddb, table, "sk = :a", item(":a", s("A")));
        check(soft, ddb, table, "sk < :a", item(":a", s("b")), "B", "a", "aa", "ab");
        check(soft, ddb, table, "sk <= :a", item(":a", s("b")), "B", "a", "aa", "ab", "b");
        check(soft, ddb, table, "sk > :a", item(":a", s("\uFFFD")), emoji);
        check(soft, ddb, table, "sk >= :a", item(":a", s("\uFFFD")), "\uFFFD", emoji);
        check(soft, ddb, table, "sk < :a", item(":a", s(emoji)), STRINGS.subList(0, STRINGS.size() - 1));
        check(soft, ddb, table, "sk > :a", item(":a", s("\uFF21")), "\uFFFD", emoji);
        check(soft, ddb, table, "sk BETWEEN :a AND :b", item(":a", s("a"), ":b", s("ab")), "a", "aa", "ab");
        check(
                soft,
                ddb,
                table,
                "sk BETWEEN :a AND :b",
                item(":a", s("\u00E9"), ":b", s(emoji)),
                "\u00E9",
                "\uFF21",
                "\uFFFD",
                emoji);
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", s("a")), "a", "aa", "ab");
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", s("ab")), "ab");
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", s("c")));
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", s(emoji)), emoji);
        soft.assertAll();
    }

    /** Binaries compare as unsigned bytes, and a shorter prefix sorts first. */
    @Test
    void sortKeyOperatorsOnBinariesCompareUnsignedBytes(DynamoDbClient ddb, Tables tables) {
        String table = load(
                ddb,
                tables,
                ScalarAttributeType.B,
                BINARIES.stream().map(QueryTest::hex).toList());
        SoftAssertions soft = new SoftAssertions();

        check(soft, ddb, table, null, Map.of(), BINARIES);
        check(soft, ddb, table, "sk = :a", item(":a", hex("80")), "80");
        check(soft, ddb, table, "sk = :a", item(":a", hex("0101")));
        check(soft, ddb, table, "sk < :a", item(":a", hex("80")), "00", "01", "0100", "0102", "7f");
        check(soft, ddb, table, "sk <= :a", item(":a", hex("80")), "00", "01", "0100", "0102", "7f", "80");
        check(soft, ddb, table, "sk > :a", item(":a", hex("7f")), "80", "ff", "ff00");
        check(soft, ddb, table, "sk >= :a", item(":a", hex("7f")), "7f", "80", "ff", "ff00");
        check(soft, ddb, table, "sk > :a", item(":a", hex("01")), "0100", "0102", "7f", "80", "ff", "ff00");
        check(
                soft,
                ddb,
                table,
                "sk BETWEEN :a AND :b",
                item(":a", hex("01"), ":b", hex("7f")),
                "01",
                "0100",
                "0102",
                "7f");
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", hex("01")), "01", "0100", "0102");
        check(soft, ddb, table, "begins_with(sk, :a)", item(":a", hex("ff")), "ff", "ff00");
        soft.assertAll();
    }

    @Test
    void expressionAttributeNamesMayNameTheKeys(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 5);

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("#k = :p AND #s > :a")
                .expressionAttributeNames(Map.of("#k", "pk", "#s", "sk"))
                .expressionAttributeValues(values(":a", n("2")))
                .consistentRead(true));

        assertThat(sortKeys(r.items())).containsExactly("3", "4");
    }

    @Test
    void scanIndexForwardFalseReturnsDescendingOrder(DynamoDbClient ddb, Tables tables) {
        String numbers = load(
                ddb,
                tables,
                ScalarAttributeType.N,
                NUMBERS.stream().map(v -> n(v)).toList());
        String strings = load(
                ddb,
                tables,
                ScalarAttributeType.S,
                STRINGS.stream().map(v -> s(v)).toList());
        String binaries = load(
                ddb,
                tables,
                ScalarAttributeType.B,
                BINARIES.stream().map(QueryTest::hex).toList());
        SoftAssertions soft = new SoftAssertions();

        soft.assertThat(outcome(ddb, numbers, null, Map.of(), false)).isEqualTo(reversed(NUMBERS));
        soft.assertThat(outcome(ddb, strings, null, Map.of(), false)).isEqualTo(reversed(STRINGS));
        soft.assertThat(outcome(ddb, binaries, null, Map.of(), false)).isEqualTo(reversed(BINARIES));
        soft.assertThat(outcome(ddb, numbers, "sk >= :a", item(":a", n("2")), false))
                .isEqualTo(List.of("100", "10", "9", "2"));
        soft.assertThat(outcome(ddb, strings, "begins_with(sk, :a)", item(":a", s("a")), false))
                .isEqualTo(List.of("ab", "aa", "a"));
        soft.assertAll();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Pagination

    /**
     * Limit caps the items read per page, and LastEvaluatedKey (the key of the last item read) fed back as
     * ExclusiveStartKey resumes right after it (Query.Pagination), so the loop sees every item once, in order.
     */
    @Test
    void limitAndLastEvaluatedKeyPageThroughThePartitionExactlyOnce(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 25);

        QueryResponse first = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .limit(4)
                .consistentRead(true));
        List<Map<String, AttributeValue>> every = all(
                ddb,
                b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .expressionAttributeValues(values())
                        .limit(4)
                        .consistentRead(true));

        assertThat(sortKeys(first.items())).containsExactly("0", "1", "2", "3");
        assertThat(first.count()).isEqualTo(4);
        assertThat(first.scannedCount()).isEqualTo(4);
        assertThat(lastKey(first)).isEqualTo(Map.of("pk", s(P), "sk", n("3")));
        assertThat(sortKeys(every)).containsExactlyElementsOf(range(0, 25));
    }

    @Test
    void paginationWorksDescendingAndWithASortKeyCondition(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 25);

        List<Map<String, AttributeValue>> descending = all(
                ddb,
                b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .expressionAttributeValues(values())
                        .scanIndexForward(false)
                        .limit(3)
                        .consistentRead(true));
        List<Map<String, AttributeValue>> between = all(
                ddb,
                b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND sk BETWEEN :a AND :b")
                        .expressionAttributeValues(values(":a", n("5"), ":b", n("20")))
                        .limit(4)
                        .consistentRead(true));

        assertThat(sortKeys(descending)).containsExactlyElementsOf(reversed(range(0, 25)));
        assertThat(sortKeys(between)).containsExactlyElementsOf(range(5, 21));
    }

    /** ExclusiveStartKey is a position: it need not name an existing item, and that item itself is excluded. */
    @Test
    void exclusiveStartKeyResumesStrictlyAfterTheGivenKey(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 25);

        QueryResponse existing = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .exclusiveStartKey(Map.of("pk", s(P), "sk", n("10")))
                .consistentRead(true));
        QueryResponse between = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .exclusiveStartKey(Map.of("pk", s(P), "sk", n("10.5")))
                .consistentRead(true));
        QueryResponse backwards = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .scanIndexForward(false)
                .exclusiveStartKey(Map.of("pk", s(P), "sk", n("10")))
                .consistentRead(true));

        assertThat(sortKeys(existing.items())).containsExactlyElementsOf(range(11, 25));
        assertThat(sortKeys(between.items())).containsExactlyElementsOf(range(11, 25));
        assertThat(sortKeys(backwards.items())).containsExactlyElementsOf(reversed(range(0, 10)));
    }

    @Test
    void sdkQueryPaginatorCollectsEveryItemOnce(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 25);
        QueryRequest request = QueryRequest.builder()
                .tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .limit(6)
                .consistentRead(true)
                .build();

        List<String> items = ddb.queryPaginator(request).items().stream()
                .map(i -> render(i.get("sk")))
                .toList();
        long pages = ddb.queryPaginator(request).stream().count();

        assertThat(items).containsExactlyElementsOf(range(0, 25));
        assertThat(pages).isBetween(5L, 6L);
    }

    /**
     * One page holds at most 1 MB of items (Query.Pagination). 40 items of about 30,010 bytes each are 1.2 MB, so the
     * first page stops after 33 to 35 of them (1 MB is 34.9 such items) and says where to go on.
     */
    @Test
    void aPageStopsAtOneMegabyte(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        String payload = "x".repeat(30_000);
        Loader.putAll(
                ddb,
                table,
                IntStream.range(0, 40)
                        .mapToObj(i -> item("pk", s(P), "sk", n(Integer.toString(i)), "data", s(payload)))
                        .toList());

        QueryResponse first = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .consistentRead(true));
        List<Map<String, AttributeValue>> every = all(
                ddb,
                b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .expressionAttributeValues(values())
                        .consistentRead(true));

        assertThat(first.count()).isBetween(33, 35);
        assertThat(lastKey(first)).isEqualTo(Map.of("pk", s(P), "sk", n(Integer.toString(first.count() - 1))));
        assertThat(sortKeys(every)).containsExactlyElementsOf(range(0, 40));
        assertThat(every).allSatisfy(i -> assertThat(i.get("data")).isEqualTo(s(payload)));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // FilterExpression, Select, ProjectionExpression, ConsistentRead

    /**
     * A filter runs after the read: Count is what matched, ScannedCount what was read (Query.Count), and the read
     * capacity is the same either way.
     */
    @Test
    void filterExpressionNarrowsCountButNotScannedCount(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 20);

        QueryResponse filtered = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .filterExpression("v >= :ten")
                .expressionAttributeValues(values(":ten", n("10")))
                .consistentRead(true));
        QueryResponse withRange = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p AND sk < :five")
                .filterExpression("v >= :ten")
                .expressionAttributeValues(values(":five", n("5"), ":ten", n("10")))
                .consistentRead(true));

        assertThat(sortKeys(filtered.items())).containsExactlyElementsOf(range(10, 20));
        assertThat(filtered.count()).isEqualTo(10);
        assertThat(filtered.scannedCount()).isEqualTo(20);
        assertThat(withRange.items()).isEmpty();
        assertThat(withRange.count()).isZero();
        assertThat(withRange.scannedCount()).isEqualTo(5);
    }

    /** Limit counts items read, not items matched, so a page may come back empty with a LastEvaluatedKey. */
    @Test
    void limitAppliesBeforeTheFilter(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 20);

        QueryResponse first = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .filterExpression("v >= :ten")
                .expressionAttributeValues(values(":ten", n("10")))
                .limit(5)
                .consistentRead(true));
        List<Map<String, AttributeValue>> every = all(
                ddb,
                b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .filterExpression("v >= :ten")
                        .expressionAttributeValues(values(":ten", n("10")))
                        .limit(5)
                        .consistentRead(true));

        assertThat(first.items()).isEmpty();
        assertThat(first.count()).isZero();
        assertThat(first.scannedCount()).isEqualTo(5);
        assertThat(lastKey(first)).isEqualTo(Map.of("pk", s(P), "sk", n("4")));
        assertThat(sortKeys(every)).containsExactlyElementsOf(range(10, 20));
    }

    @Test
    void selectCountReturnsCountsButNoItems(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 20);

        QueryResponse all = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .select(Select.COUNT)
                .consistentRead(true));
        QueryResponse filtered = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .filterExpression("v < :three")
                .expressionAttributeValues(values(":three", n("3")))
                .select(Select.COUNT)
                .consistentRead(true));

        assertThat(all.hasItems()).as("Items is left out").isFalse();
        assertThat(all.count()).isEqualTo(20);
        assertThat(all.scannedCount()).isEqualTo(20);
        assertThat(filtered.hasItems()).as("Items is left out").isFalse();
        assertThat(filtered.count()).isEqualTo(3);
        assertThat(filtered.scannedCount()).isEqualTo(20);
    }

    @Test
    void projectionExpressionReturnsOnlyTheNamedAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        Loader.putAll(
                ddb,
                table,
                List.of(
                        item("pk", s(P), "sk", n("1"), "v", n("1"), "w", s("one"), "x", s("drop")),
                        item("pk", s(P), "sk", n("2"), "v", n("2"), "x", s("drop"))));

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .projectionExpression("sk, #w")
                .expressionAttributeNames(Map.of("#w", "w"))
                .expressionAttributeValues(values())
                .consistentRead(true));

        assertThat(r.items()).containsExactly(item("sk", n("1"), "w", s("one")), item("sk", n("2")));
    }

    @Test
    void selectSpecificAttributesWithAProjectionIsAccepted(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .select(Select.SPECIFIC_ATTRIBUTES)
                .projectionExpression("v")
                .expressionAttributeValues(values())
                .consistentRead(true));

        assertThat(r.items()).containsExactly(item("v", n("0")), item("v", n("1")), item("v", n("2")));
    }

    @Test
    void consistentReadSeesTheLatestWrite(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);
        ddb.putItem(b -> b.tableName(table).item(item("pk", s(P), "sk", n("1"), "v", n("99"))));

        QueryResponse strong = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p AND sk = :one")
                .expressionAttributeValues(values(":one", n("1")))
                .consistentRead(true));
        QueryResponse eventual = ddb.query(b -> b.tableName(table)
                .keyConditionExpression("pk = :p")
                .expressionAttributeValues(values())
                .consistentRead(false));

        assertThat(strong.items()).containsExactly(item("pk", s(P), "sk", n("1"), "v", n("99")));
        assertThat(eventual.items()).allSatisfy(i -> assertThat(i.get("pk")).isEqualTo(s(P)));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Legacy KeyConditions and QueryFilter (LegacyConditionalParameters.KeyConditions, .QueryFilter)

    private static Condition cond(ComparisonOperator op, AttributeValue... values) {
        return Condition.builder()
                .comparisonOperator(op)
                .attributeValueList(values)
                .build();
    }

    @Test
    void legacyKeyConditionsSelectTheSameItems(DynamoDbClient ddb, Tables tables) {
        String table = load(
                ddb,
                tables,
                ScalarAttributeType.S,
                STRINGS.stream().map(v -> s(v)).toList());

        QueryResponse beginsWith = ddb.query(b -> b.tableName(table)
                .keyConditions(Map.of(
                        "pk", cond(ComparisonOperator.EQ, s(P)),
                        "sk", cond(ComparisonOperator.BEGINS_WITH, s("a"))))
                .consistentRead(true));
        QueryResponse between = ddb.query(b -> b.tableName(table)
                .keyConditions(Map.of(
                        "pk", cond(ComparisonOperator.EQ, s(P)),
                        "sk", cond(ComparisonOperator.BETWEEN, s("a"), s("b"))))
                .consistentRead(true));
        QueryResponse partition = ddb.query(b -> b.tableName(table)
                .keyConditions(Map.of("pk", cond(ComparisonOperator.EQ, s(P))))
                .scanIndexForward(false)
                .consistentRead(true));

        assertThat(sortKeys(beginsWith.items())).containsExactly("a", "aa", "ab");
        assertThat(sortKeys(between.items())).containsExactly("a", "aa", "ab", "b");
        assertThat(sortKeys(partition.items())).containsExactlyElementsOf(reversed(STRINGS));
    }

    @Test
    void legacyQueryFilterNarrowsCountButNotScannedCount(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 20);

        QueryResponse r = ddb.query(b -> b.tableName(table)
                .keyConditions(Map.of("pk", cond(ComparisonOperator.EQ, s(P))))
                .queryFilter(Map.of("v", cond(ComparisonOperator.GE, n("15"))))
                .consistentRead(true));

        assertThat(sortKeys(r.items())).containsExactlyElementsOf(range(15, 20));
        assertThat(r.count()).isEqualTo(5);
        assertThat(r.scannedCount()).isEqualTo(20);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Errors

    /**
     * The partition key must be named with "=" (API_Query, KeyConditionExpression). Message from real DynamoDB via the
     * AWS CLI (a key condition on a non-key attribute only: "Query condition missed key schema element: id"), and
     * moto's key-condition validation.
     */
    @Test
    void aKeyConditionWithoutThePartitionKeyIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Query condition missed key schema element: pk",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("sk = :a")
                        .expressionAttributeValues(Map.of(":a", n("1")))));
        assertInvalid(
                "Query condition missed key schema element: pk",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("v = :a")
                        .expressionAttributeValues(Map.of(":a", n("1")))));
    }

    /**
     * A second condition on a non-key attribute names the sort key DynamoDB expected there (dynalite's tests against
     * DynamoDB: "a = :a and c = :b" gives "...element: b"; ScyllaDB's alternator tests agree).
     */
    @Test
    void aKeyConditionOnANonKeyAttributeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Query condition missed key schema element: sk",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND v = :a")
                        .expressionAttributeValues(values(":a", n("1")))));
    }

    /** dynalite's query tests (written against DynamoDB) give the operator after the colon; the prefix varies. */
    @Test
    void orInAKeyConditionIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalidContaining(
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p OR sk = :a")
                        .expressionAttributeValues(values(":a", n("1")))),
                "Invalid operator used in KeyConditionExpression: OR");
    }

    /**
     * Validation comes before the table is looked up (syntax, then types, then semantics, then table existence): a
     * key condition malformed in itself is refused even on a table that does not exist.
     */
    @Test
    void aMalformedKeyConditionIsRefusedBeforeTheTableIsLookedUp(DynamoDbClient ddb) {
        assertInvalid(
                "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
                () -> ddb.query(b -> b.tableName("no-such-table-" + System.nanoTime())
                        .keyConditionExpression("pk = :a AND pk = :b")
                        .expressionAttributeValues(Map.of(":a", n("1"), ":b", n("2")))));
        assertInvalidContaining(
                () -> ddb.query(b -> b.tableName("no-such-table-" + System.nanoTime())
                        .keyConditionExpression("pk = :a OR pk = :b")
                        .expressionAttributeValues(Map.of(":a", n("1"), ":b", n("2")))),
                "Invalid operator used in KeyConditionExpression: OR");
    }

    /**
     * paritysuite queryKeyConditionOperands pins this exact text for this exact expression (captured from DynamoDB,
     * eu-west-2, 2026); older reports (awslabs/aws-athena-query-federation#1089) show the sentence without the
     * "Invalid KeyConditionExpression: " prefix. The duplicate is reported, not the count of three conditions.
     */
    @Test
    void twoConditionsOnTheSortKeyAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND sk > :a AND sk < :b")
                        .expressionAttributeValues(values(":a", n("1"), ":b", n("5")))));
    }

    /** paritysuite queryKeyConditionOperands (captured from DynamoDB): three distinct attributes on a two-part key. */
    @Test
    void moreConditionsThanKeyAttributesAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND sk > :a AND v = :b")
                        .expressionAttributeValues(values(":a", n("1"), ":b", n("5")))));
    }

    /** Exact text from paritysuite/dynamodb-conformance (captured from real DynamoDB). */
    @Test
    void aKeyValueOfTheWrongTypeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);
        String message =
                "One or more parameter values were invalid: Condition parameter type does not match schema type";

        assertInvalid(
                message,
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :x")
                        .expressionAttributeValues(Map.of(":x", n("1")))));
        assertInvalid(
                message,
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND sk > :a")
                        .expressionAttributeValues(values(":a", s("1")))));
        assertInvalid(
                message,
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND begins_with(sk, :a)")
                        .expressionAttributeValues(values(":a", s("1")))));
    }

    /**
     * An operand no key type could satisfy is an expression error naming the operator, unlike a key type that is
     * merely the wrong one (above). paritysuite queryKeyConditionOperands (captured from real DynamoDB).
     */
    @Test
    void anOperandNoKeyCouldMatchIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                        + "operator or function: begins_with, operand type: N",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND begins_with(sk, :a)")
                        .expressionAttributeValues(values(":a", n("1")))));
        assertInvalid(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                        + "operator or function: <, operand type: BOOL",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p AND sk < :a")
                        .expressionAttributeValues(values(":a", AttributeValue.fromBool(true)))));
    }

    /** dynalite's query tests and user reports of real DynamoDB (the key conditions belong in the key condition). */
    @Test
    void aFilterExpressionOnAKeyAttributeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .filterExpression("sk > :a")
                        .expressionAttributeValues(values(":a", n("1")))));
        assertInvalid(
                "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .filterExpression("v > :a AND pk = :p")
                        .expressionAttributeValues(values(":a", n("1")))));
    }

    /** ExtendDB's captured messages; Query may send it inside the one-error envelope, which assertInvalid allows. */
    @Test
    void selectCountWithAProjectionIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = numbered(ddb, tables, 3);

        assertInvalid(
                "Cannot specify the ProjectionExpression when choosing to get only the Count",
                () -> ddb.query(b -> b.tableName(table)
                        .keyConditionExpression("pk = :p")
                        .select(Select.COUNT)
                        .projectionExpression("v")
                        .expressionAttributeValues(values())));
    }

    /** Item operations on a missing table say only "Requested resource not found" (paritysuite, dynalite). */
    @Test
    void aMissingTableIsResourceNotFound(DynamoDbClient ddb) {
        String missing = Tables.uniqueName("missing");

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.query(b ->
                        b.tableName(missing).keyConditionExpression("pk = :p").expressionAttributeValues(values())));
    }
}
