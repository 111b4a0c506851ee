package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.partita.conformance.support.Loader;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * BatchWriteItem (API_BatchWriteItem): up to 25 puts and deletes across tables in one call. Each put replaces the
 * whole item and each delete removes one; a request that fails validation (too many requests, two requests on one
 * item, a bad key, a missing table) writes nothing at all. UnprocessedItems is empty when everything was written.
 *
 * <p>Two tables throughout: a hash-only one ({@code pk} S) and a hash-and-range one ({@code pk} S, {@code sk} N).
 * Results are read back with strongly consistent GetItem.
 */
@ExtendWith(PartitaExtension.class)
class BatchWriteItemTest {
    private static final String TOO_MANY = "Too many items requested for the BatchWriteItem call";
    private static final String DUPLICATES = "Provided list of item keys contains duplicates";
    private static final String KEY_MISMATCH = "The provided key element does not match the schema";

    private static String hashTable(Tables tables) {
        return tables.hashTable("pk", ScalarAttributeType.S);
    }

    private static String rangeTable(Tables tables) {
        return tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
    }

    private static Map<String, AttributeValue> hashKey(int i) {
        return Map.of("pk", s(String.format("a%02d", i)));
    }

    private static Map<String, AttributeValue> hashItem(int i, String version) {
        return item("pk", s(String.format("a%02d", i)), version, n(Integer.toString(i)));
    }

    private static Map<String, AttributeValue> rangeKey(int p, int k) {
        return Map.of("pk", s("b" + p), "sk", n(Integer.toString(k)));
    }

    private static Map<String, AttributeValue> rangeItem(int p, int k) {
        return item("pk", s("b" + p), "sk", n(Integer.toString(k)), "v", n(Integer.toString(p * 10 + k)));
    }

    private static WriteRequest put(Map<String, AttributeValue> item) {
        return WriteRequest.builder()
                .putRequest(PutRequest.builder().item(item).build())
                .build();
    }

    private static WriteRequest delete(Map<String, AttributeValue> key) {
        return WriteRequest.builder()
                .deleteRequest(DeleteRequest.builder().key(key).build())
                .build();
    }

    /** The item under {@code key}, or null when there is none. */
    private static Map<String, AttributeValue> get(DynamoDbClient ddb, String table, Map<String, AttributeValue> key) {
        var r = ddb.getItem(b -> b.tableName(table).key(key).consistentRead(true));
        return r.hasItem() ? r.item() : null;
    }

    private static List<WriteRequest> hashPuts(int fromInclusive, int toExclusive) {
        return IntStream.range(fromInclusive, toExclusive)
                .mapToObj(i -> put(hashItem(i, "v")))
                .toList();
    }

    private static void assertNothingWritten(DynamoDbClient ddb, String table, int fromInclusive, int toExclusive) {
        for (int i = fromInclusive; i < toExclusive; i++) {
            assertThat(get(ddb, table, hashKey(i))).as("item a%02d", i).isNull();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Writes

    /**
     * 25 requests, the documented maximum: on the hash table 5 deletes of stored items, 5 puts replacing stored items
     * and 5 puts of new ones; on the range table 10 puts, two partitions of 5 sort keys.
     */
    @Test
    void twentyFivePutsAndDeletesAcrossTwoTablesAreAllApplied(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);
        Loader.putAll(
                ddb,
                hash,
                IntStream.range(0, 10).mapToObj(i -> hashItem(i, "old")).toList());
        List<WriteRequest> hashRequests = new ArrayList<>();
        IntStream.range(0, 5).forEach(i -> hashRequests.add(delete(hashKey(i))));
        IntStream.range(5, 15).forEach(i -> hashRequests.add(put(hashItem(i, "new"))));
        List<WriteRequest> rangeRequests = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (int k = 0; k < 5; k++) {
                rangeRequests.add(put(rangeItem(p, k)));
            }
        }

        BatchWriteItemResponse r =
                ddb.batchWriteItem(b -> b.requestItems(Map.of(hash, hashRequests, range, rangeRequests)));

        assertThat(r.unprocessedItems()).isEmpty();
        for (int i = 0; i < 5; i++) {
            assertThat(get(ddb, hash, hashKey(i))).as("deleted a%02d", i).isNull();
        }
        for (int i = 5; i < 15; i++) {
            assertThat(get(ddb, hash, hashKey(i))).as("a%02d replaced whole", i).isEqualTo(hashItem(i, "new"));
        }
        for (int p = 0; p < 2; p++) {
            for (int k = 0; k < 5; k++) {
                assertThat(get(ddb, range, rangeKey(p, k))).isEqualTo(rangeItem(p, k));
            }
        }
    }

    @Test
    void deletingAnItemThatDoesNotExistIsNotAnError(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        ddb.putItem(b -> b.tableName(hash).item(hashItem(1, "v")));

        BatchWriteItemResponse r = ddb.batchWriteItem(b ->
                b.requestItems(Map.of(hash, List.of(delete(hashKey(0)), delete(hashKey(1)), put(hashItem(2, "v"))))));

        assertThat(r.unprocessedItems()).isEmpty();
        assertThat(get(ddb, hash, hashKey(0))).isNull();
        assertThat(get(ddb, hash, hashKey(1))).isNull();
        assertThat(get(ddb, hash, hashKey(2))).isEqualTo(hashItem(2, "v"));
    }

    /** The same key in two different tables names two different items, so it is not a duplicate. */
    @Test
    void theSameKeyInTwoTablesIsNotADuplicate(DynamoDbClient ddb, Tables tables) {
        String first = hashTable(tables);
        String second = hashTable(tables);

        BatchWriteItemResponse r = ddb.batchWriteItem(b -> b.requestItems(
                Map.of(first, List.of(put(hashItem(1, "first"))), second, List.of(put(hashItem(1, "second"))))));

        assertThat(r.unprocessedItems()).isEmpty();
        assertThat(get(ddb, first, hashKey(1))).isEqualTo(hashItem(1, "first"));
        assertThat(get(ddb, second, hashKey(1))).isEqualTo(hashItem(1, "second"));
    }

    /** Items with the same partition key and different sort keys are different items. */
    @Test
    void differentSortKeysInOnePartitionAreNotDuplicates(DynamoDbClient ddb, Tables tables) {
        String range = rangeTable(tables);

        BatchWriteItemResponse r = ddb.batchWriteItem(b -> b.requestItems(
                Map.of(range, List.of(put(rangeItem(1, 1)), put(rangeItem(1, 2)), delete(rangeKey(1, 3))))));

        assertThat(r.unprocessedItems()).isEmpty();
        assertThat(get(ddb, range, rangeKey(1, 1))).isEqualTo(rangeItem(1, 1));
        assertThat(get(ddb, range, rangeKey(1, 2))).isEqualTo(rangeItem(1, 2));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Rejections: nothing is written

    /**
     * 13 + 13 requests: each table's list is within its member constraint, so the total check speaks. Text from
     * API_BatchWriteItem's limit, DynamoDB Local (a 26-request probe), and user reports of the service.
     */
    @Test
    void moreThanTwentyFiveRequestsAcrossTablesAreRejected(DynamoDbClient ddb, Tables tables) {
        String first = hashTable(tables);
        String second = hashTable(tables);

        assertInvalid(
                TOO_MANY,
                () -> ddb.batchWriteItem(
                        b -> b.requestItems(Map.of(first, hashPuts(0, 13), second, hashPuts(13, 26)))));

        assertNothingWritten(ddb, first, 0, 13);
        assertNothingWritten(ddb, second, 13, 26);
    }

    /**
     * 26 requests for one table fail the member constraint on that table's list. paritysuite (captured from
     * DynamoDB, 2026) sees one of two framework messages by region, both ending in "Member must have length less than
     * or equal to 25"; DynamoDB Local says "Too many items requested for the BatchWriteItem call". Any of these.
     */
    @Test
    void moreThanTwentyFiveRequestsForOneTableAreRejected(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);

        Throwable thrown = catchThrowable(() -> ddb.batchWriteItem(b -> b.requestItems(Map.of(hash, hashPuts(0, 26)))));

        assertThat(thrown).isInstanceOf(DynamoDbException.class);
        DynamoDbException e = (DynamoDbException) thrown;
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        assertThat(e.awsErrorDetails().errorMessage())
                .satisfiesAnyOf(
                        m -> assertThat(m).contains("Member must have length less than or equal to 25"),
                        m -> assertThat(m).isEqualTo(TOO_MANY));
        assertNothingWritten(ddb, hash, 0, 26);
    }

    /** paritysuite (captured from DynamoDB) for put + delete; the same text for two puts (DynamoDB Local probe). */
    @Test
    void twoRequestsOnOneItemAreRejectedAndNothingIsWritten(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);
        ddb.putItem(b -> b.tableName(hash).item(hashItem(9, "stored")));

        assertInvalid(
                DUPLICATES,
                () -> ddb.batchWriteItem(b -> b.requestItems(Map.of(
                        hash, List.of(put(hashItem(0, "v")), put(hashItem(1, "v")), put(hashItem(0, "again")))))));
        assertInvalid(
                DUPLICATES,
                () -> ddb.batchWriteItem(b -> b.requestItems(
                        Map.of(hash, List.of(put(hashItem(2, "v")), put(hashItem(9, "v")), delete(hashKey(9)))))));
        assertInvalid(
                DUPLICATES,
                () -> ddb.batchWriteItem(b -> b.requestItems(Map.of(
                        range, List.of(put(rangeItem(1, 1)), delete(rangeKey(1, 1))),
                        hash, List.of(put(hashItem(3, "v")))))));

        assertNothingWritten(ddb, hash, 0, 4);
        assertThat(get(ddb, hash, hashKey(9))).isEqualTo(hashItem(9, "stored"));
        assertThat(get(ddb, range, rangeKey(1, 1))).isNull();
    }

    /**
     * An item without its key (or with a key of the wrong type) fails the whole batch up front. paritysuite captured
     * the text from DynamoDB (us-east-1 and eu-west-2, 2026) for both puts and deletes; note PutItem says "Missing
     * the key ..." instead.
     */
    @Test
    void anInvalidItemRejectsTheWholeBatch(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);

        assertInvalid(
                KEY_MISMATCH,
                () -> ddb.batchWriteItem(b -> b.requestItems(Map.of(
                        hash,
                        List.of(
                                put(hashItem(0, "v")),
                                put(hashItem(1, "v")),
                                put(item("other", s("x"))),
                                put(hashItem(2, "v")))))));
        assertInvalid(
                KEY_MISMATCH,
                () -> ddb.batchWriteItem(b -> b.requestItems(Map.of(
                        hash, List.of(put(hashItem(0, "v"))),
                        range, List.of(put(rangeItem(1, 1)), put(item("pk", s("b2"), "v", n("1")))))))); // no sk
        assertInvalid(
                KEY_MISMATCH,
                () -> ddb.batchWriteItem(b ->
                        b.requestItems(Map.of(hash, List.of(put(hashItem(0, "v")), delete(Map.of("pk", n("1"))))))));

        assertNothingWritten(ddb, hash, 0, 3);
        assertThat(get(ddb, range, rangeKey(1, 1))).isNull();
    }

    /**
     * paritysuite (captured from DynamoDB) for the text; DynamoDB Local's probe for writing nothing to the table that
     * does exist.
     */
    @Test
    void aMissingTableIsResourceNotFoundAndNothingIsWritten(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String missing = Tables.uniqueName("missing");

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.batchWriteItem(b -> b.requestItems(
                        Map.of(hash, List.of(put(hashItem(0, "v"))), missing, List.of(put(hashItem(1, "v")))))));

        assertNothingWritten(ddb, hash, 0, 1);
    }
}
