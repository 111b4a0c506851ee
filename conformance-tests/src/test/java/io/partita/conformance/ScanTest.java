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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.ConditionalOperator;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Scan (API_Scan; Scan.Pagination, Scan.Count, Scan.ParallelScan): every item of a table exactly once, in pages of
 * at most Limit items and 1 MB, filtered after reading, counted, and split into disjoint segments.
 *
 * <p>The data is 30 partitions of 5 items each ({@code pk = "p00".."p29"}, {@code sk = 0..4}, {@code v} = a running
 * number 0..149), so segments and pages cut both across and inside partitions. Scan order is unspecified, so items
 * are compared as sets, and every list is also checked for duplicates. Every read is strongly consistent.
 */
@ExtendWith(PartitaExtension.class)
class ScanTest {
    private static final int PARTITIONS = 30;
    private static final int PER_PARTITION = 5;
    private static final int TOTAL = PARTITIONS * PER_PARTITION;

    private static List<Map<String, AttributeValue>> items() {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int k = 0; k < PER_PARTITION; k++) {
                items.add(item(
                        "pk", s(String.format("p%02d", p)),
                        "sk", n(Integer.toString(k)),
                        "v", n(Integer.toString(p * PER_PARTITION + k))));
            }
        }
        return items;
    }

    private static String loaded(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        Loader.putAll(ddb, table, items());
        return table;
    }

    /** "pk/sk" of each item, in the order returned. */
    private static List<String> keys(List<Map<String, AttributeValue>> items) {
        return items.stream().map(i -> i.get("pk").s() + "/" + i.get("sk").n()).toList();
    }

    private static Map<String, AttributeValue> lastKey(ScanResponse r) {
        return r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    }

    /** Every page of a scan, following LastEvaluatedKey; each page is checked against the request's Limit. */
    private static List<ScanResponse> pages(DynamoDbClient ddb, Consumer<ScanRequest.Builder> request) {
        List<ScanResponse> pages = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        for (int page = 0; page < 1000; page++) {
            ScanRequest.Builder b = ScanRequest.builder();
            request.accept(b);
            if (start != null) {
                b.exclusiveStartKey(start);
            }
            ScanRequest q = b.build();
            ScanResponse r = ddb.scan(q);
            if (r.hasItems()) {
                assertThat(r.items()).as("Count matches the items returned").hasSize(r.count());
            }
            if (q.limit() != null) {
                assertThat(r.scannedCount())
                        .as("ScannedCount never exceeds Limit")
                        .isLessThanOrEqualTo(q.limit());
            }
            pages.add(r);
            start = lastKey(r);
            if (start == null) {
                return pages;
            }
        }
        throw new AssertionError("scan did not end after 1000 pages");
    }

    private static List<Map<String, AttributeValue>> all(DynamoDbClient ddb, Consumer<ScanRequest.Builder> request) {
        return pages(ddb, request).stream().flatMap(r -> r.items().stream()).toList();
    }

    private static List<String> allKeys() {
        return keys(items());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Whole-table scans and pagination

    @Test
    void scanReturnsEveryItemExactlyOnce(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<Map<String, AttributeValue>> every =
                all(ddb, b -> b.tableName(table).consistentRead(true));

        assertThat(keys(every)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allKeys());
        assertThat(every).containsExactlyInAnyOrderElementsOf(items());
    }

    @Test
    void anEmptyTableScansToNothing(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        ScanResponse r = ddb.scan(b -> b.tableName(table).consistentRead(true));

        assertThat(r.items()).isEmpty();
        assertThat(r.count()).isZero();
        assertThat(r.scannedCount()).isZero();
        assertThat(lastKey(r)).isNull();
    }

    /** Items of one partition come back in sort-key order, wherever the partition falls in the scan. */
    @Test
    void itemsOfOnePartitionComeBackInSortKeyOrder(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<Map<String, AttributeValue>> every =
                all(ddb, b -> b.tableName(table).consistentRead(true));

        for (int p = 0; p < PARTITIONS; p++) {
            String pk = String.format("p%02d", p);
            assertThat(every.stream()
                            .filter(i -> i.get("pk").s().equals(pk))
                            .map(i -> i.get("sk").n())
                            .toList())
                    .as(pk)
                    .containsExactly("0", "1", "2", "3", "4");
        }
    }

    /**
     * Limit caps the items read per page; LastEvaluatedKey is the key of the last item returned and resumes after it
     * (Scan.Pagination), so the loop sees every item once.
     */
    @Test
    void limitPagesThroughEveryItemExactlyOnce(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<ScanResponse> pages = pages(ddb, b -> b.tableName(table).limit(7).consistentRead(true));
        List<Map<String, AttributeValue>> every =
                pages.stream().flatMap(r -> r.items().stream()).toList();

        assertThat(keys(every)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allKeys());
        assertThat(pages.size()).isBetween(22, 23);
        ScanResponse first = pages.get(0);
        assertThat(first.count()).isEqualTo(7);
        assertThat(first.scannedCount()).isEqualTo(7);
        Map<String, AttributeValue> last = first.items().get(6);
        assertThat(lastKey(first)).isEqualTo(Map.of("pk", last.get("pk"), "sk", last.get("sk")));
    }

    @Test
    void sdkScanPaginatorCollectsEveryItemOnce(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);
        ScanRequest request = ScanRequest.builder()
                .tableName(table)
                .limit(40)
                .consistentRead(true)
                .build();

        List<Map<String, AttributeValue>> every =
                ddb.scanPaginator(request).items().stream().toList();

        assertThat(keys(every)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allKeys());
    }

    /** One page holds at most 1 MB (Scan): 40 items of about 30 KB are 1.2 MB, so the first page stops early. */
    @Test
    void aPageStopsAtOneMegabyte(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        String payload = "x".repeat(30_000);
        Loader.putAll(
                ddb,
                table,
                IntStream.range(0, 40)
                        .mapToObj(i -> item("pk", s(String.format("k%02d", i)), "data", s(payload)))
                        .toList());

        List<ScanResponse> pages = pages(ddb, b -> b.tableName(table).consistentRead(true));

        assertThat(pages.size()).isGreaterThan(1);
        assertThat(pages.get(0).count()).isBetween(33, 35);
        assertThat(pages.stream()
                        .flatMap(r -> r.items().stream())
                        .map(i -> i.get("pk").s())
                        .toList())
                .doesNotHaveDuplicates()
                .hasSize(40);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // FilterExpression, Select, ProjectionExpression, legacy ScanFilter

    /** Count is what matched the filter, ScannedCount what was read (Scan.Count). */
    @Test
    void filterExpressionNarrowsCountButNotScannedCount(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<ScanResponse> pages = pages(
                ddb,
                b -> b.tableName(table)
                        .filterExpression("v < :ten OR sk = :four")
                        .expressionAttributeValues(Map.of(":ten", n("10"), ":four", n("4")))
                        .consistentRead(true));
        List<Map<String, AttributeValue>> every =
                pages.stream().flatMap(r -> r.items().stream()).toList();

        // v 0..9 are p00 and p01 entirely; sk = 4 adds one item in each of the other 28 partitions.
        assertThat(every).hasSize(38);
        assertThat(every)
                .allSatisfy(i -> assertThat(Integer.parseInt(i.get("v").n()) < 10
                                || i.get("sk").n().equals("4"))
                        .isTrue());
        assertThat(pages.stream().mapToInt(ScanResponse::count).sum()).isEqualTo(38);
        assertThat(pages.stream().mapToInt(ScanResponse::scannedCount).sum()).isEqualTo(TOTAL);
    }

    /** Limit counts items read before the filter, so pages may be short or empty. */
    @Test
    void limitAppliesBeforeTheFilter(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<ScanResponse> pages = pages(
                ddb,
                b -> b.tableName(table)
                        .filterExpression("sk = :zero")
                        .expressionAttributeValues(Map.of(":zero", n("0")))
                        .limit(10)
                        .consistentRead(true));

        assertThat(pages.get(0).scannedCount()).isEqualTo(10);
        assertThat(pages.stream().mapToInt(ScanResponse::scannedCount).sum()).isEqualTo(TOTAL);
        assertThat(pages.stream()
                        .flatMap(r -> r.items().stream())
                        .map(i -> i.get("pk").s()))
                .doesNotHaveDuplicates()
                .hasSize(PARTITIONS);
    }

    @Test
    void selectCountReturnsCountsButNoItems(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        ScanResponse all = ddb.scan(b -> b.tableName(table).select(Select.COUNT).consistentRead(true));
        ScanResponse filtered = ddb.scan(b -> b.tableName(table)
                .select(Select.COUNT)
                .filterExpression("sk = :zero")
                .expressionAttributeValues(Map.of(":zero", n("0")))
                .consistentRead(true));

        assertThat(all.hasItems()).as("Items is left out").isFalse();
        assertThat(all.count()).isEqualTo(TOTAL);
        assertThat(all.scannedCount()).isEqualTo(TOTAL);
        assertThat(filtered.hasItems()).as("Items is left out").isFalse();
        assertThat(filtered.count()).isEqualTo(PARTITIONS);
        assertThat(filtered.scannedCount()).isEqualTo(TOTAL);
    }

    @Test
    void projectionExpressionReturnsOnlyTheNamedAttributes(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        List<Map<String, AttributeValue>> every = all(
                ddb,
                b -> b.tableName(table)
                        .projectionExpression("#v")
                        .expressionAttributeNames(Map.of("#v", "v"))
                        .consistentRead(true));

        assertThat(every).allSatisfy(i -> assertThat(i.keySet()).containsExactly("v"));
        assertThat(every.stream().map(i -> Integer.parseInt(i.get("v").n())))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, TOTAL).boxed().toList());
    }

    private static Condition cond(ComparisonOperator op, AttributeValue... values) {
        return Condition.builder()
                .comparisonOperator(op)
                .attributeValueList(values)
                .build();
    }

    /** LegacyConditionalParameters.ScanFilter: conditions are ANDed unless ConditionalOperator says OR. */
    @Test
    void legacyScanFilterNarrowsCountButNotScannedCount(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);
        Map<String, Condition> filter = Map.of(
                "v", cond(ComparisonOperator.LT, n("10")),
                "sk", cond(ComparisonOperator.EQ, n("4")));

        List<ScanResponse> and =
                pages(ddb, b -> b.tableName(table).scanFilter(filter).consistentRead(true));
        List<ScanResponse> or = pages(
                ddb,
                b -> b.tableName(table)
                        .scanFilter(filter)
                        .conditionalOperator(ConditionalOperator.OR)
                        .consistentRead(true));

        assertThat(keys(and.stream().flatMap(r -> r.items().stream()).toList()))
                .containsExactlyInAnyOrder("p00/4", "p01/4");
        assertThat(and.stream().mapToInt(ScanResponse::scannedCount).sum()).isEqualTo(TOTAL);
        assertThat(or.stream().mapToInt(ScanResponse::count).sum()).isEqualTo(38);
        assertThat(or.stream().mapToInt(ScanResponse::scannedCount).sum()).isEqualTo(TOTAL);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Parallel scan (Scan.ParallelScan)

    /**
     * For each TotalSegments, every segment is scanned to its end (in pages of 10, LastEvaluatedKey going back with
     * the same Segment); the segments must not share an item and together must hold every item.
     */
    @Test
    void parallelScanSegmentsAreDisjointAndCoverTheTable(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);
        SoftAssertions soft = new SoftAssertions();

        for (int totalSegments : new int[] {1, 2, 3, 7, 16}) {
            List<String> union = new ArrayList<>();
            Set<String> distinct = new HashSet<>();
            for (int segment = 0; segment < totalSegments; segment++) {
                int seg = segment;
                List<String> keys = keys(all(
                        ddb,
                        b -> b.tableName(table)
                                .segment(seg)
                                .totalSegments(totalSegments)
                                .limit(10)
                                .consistentRead(true)));
                union.addAll(keys);
                distinct.addAll(keys);
            }
            soft.assertThat(union)
                    .as("TotalSegments %d: no item in two segments", totalSegments)
                    .hasSameSizeAs(distinct);
            soft.assertThat(distinct)
                    .as("TotalSegments %d: segments cover the table", totalSegments)
                    .containsExactlyInAnyOrderElementsOf(allKeys());
        }
        soft.assertAll();
    }

    /** A parallel scan honours the filter in every segment, and its counts add up like a plain scan's. */
    @Test
    void parallelScanWithAFilterCountsLikeAPlainScan(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);
        int count = 0;
        int scanned = 0;

        for (int segment = 0; segment < 4; segment++) {
            int seg = segment;
            for (ScanResponse r : pages(
                    ddb,
                    b -> b.tableName(table)
                            .segment(seg)
                            .totalSegments(4)
                            .filterExpression("sk = :zero")
                            .expressionAttributeValues(Map.of(":zero", n("0")))
                            .consistentRead(true))) {
                count += r.count();
                scanned += r.scannedCount();
            }
        }

        assertThat(count).isEqualTo(PARTITIONS);
        assertThat(scanned).isEqualTo(TOTAL);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Errors. Exact texts from paritysuite/dynamodb-conformance tier3 error-messages/scan (captured from DynamoDB).

    @Test
    void segmentWithoutTotalSegmentsIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertInvalid(
                "The TotalSegments parameter is required but was not present in the request when Segment parameter "
                        + "is present",
                () -> ddb.scan(b -> b.tableName(table).segment(0)));
    }

    @Test
    void totalSegmentsWithoutSegmentIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertInvalid(
                "The Segment parameter is required but was not present in the request when parameter TotalSegments "
                        + "is present",
                () -> ddb.scan(b -> b.tableName(table).totalSegments(4)));
    }

    @Test
    void segmentNotBelowTotalSegmentsIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertInvalid(
                "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 5 is not "
                        + "less than TotalSegments: 5",
                () -> ddb.scan(b -> b.tableName(table).segment(5).totalSegments(5)));
        assertInvalid(
                "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 9 is not "
                        + "less than TotalSegments: 3",
                () -> ddb.scan(b -> b.tableName(table).segment(9).totalSegments(3)));
    }

    /**
     * TotalSegments must lie in 1..1000000 (API_Scan). These are member constraints of the validation framework,
     * whose wording is not pinned here ("Value '0' at 'totalSegments' failed to satisfy constraint: Member must
     * have value greater than or equal to 1" by analogy with paritysuite's Limit 0 capture); only its parts are.
     */
    @Test
    void totalSegmentsOutOfRangeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertInvalidContaining(
                () -> ddb.scan(b -> b.tableName(table).segment(0).totalSegments(0)),
                "totalSegments",
                "Member must have value greater than or equal to 1");
        assertInvalidContaining(
                () -> ddb.scan(b -> b.tableName(table).segment(0).totalSegments(1_000_001)),
                "totalSegments",
                "Member must have value less than or equal to 1000000");
    }

    @Test
    void theLargestTotalSegmentsIsAccepted(DynamoDbClient ddb, Tables tables) {
        String table = loaded(ddb, tables);

        ScanResponse r = ddb.scan(b ->
                b.tableName(table).segment(999_999).totalSegments(1_000_000).consistentRead(true));

        assertThat(r.count()).isLessThanOrEqualTo(TOTAL);
    }

    /** ExtendDB's captured messages: Scan sends it bare, which assertInvalid accepts. */
    @Test
    void selectCountWithAProjectionIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertInvalid(
                "Cannot specify the ProjectionExpression when choosing to get only the Count",
                () -> ddb.scan(b -> b.tableName(table).select(Select.COUNT).projectionExpression("v")));
    }

    @Test
    void aMissingTableIsResourceNotFound(DynamoDbClient ddb) {
        String missing = Tables.uniqueName("missing");

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.scan(b -> b.tableName(missing)));
    }
}
