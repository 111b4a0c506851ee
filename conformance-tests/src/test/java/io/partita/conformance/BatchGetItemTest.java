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
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * BatchGetItem (API_BatchGetItem): up to 100 keys across tables in one call; keys with no item are simply left out,
 * Responses are per table in no particular order, and UnprocessedKeys is empty when everything was served.
 *
 * <p>Two tables throughout: a hash-only one ({@code pk} S) and a hash-and-range one ({@code pk} S, {@code sk} N).
 */
@ExtendWith(PartitaExtension.class)
class BatchGetItemTest {
    private static String hashTable(Tables tables) {
        return tables.hashTable("pk", ScalarAttributeType.S);
    }

    private static String rangeTable(Tables tables) {
        return tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
    }

    private static Map<String, AttributeValue> hashItem(int i) {
        return item("pk", s(String.format("a%02d", i)), "v", n(Integer.toString(i)), "w", s("hash-" + i));
    }

    private static Map<String, AttributeValue> hashKey(int i) {
        return Map.of("pk", s(String.format("a%02d", i)));
    }

    private static Map<String, AttributeValue> rangeItem(int p, int k) {
        return item("pk", s("b" + p), "sk", n(Integer.toString(k)), "v", n(Integer.toString(p * 10 + k)));
    }

    private static Map<String, AttributeValue> rangeKey(int p, int k) {
        return Map.of("pk", s("b" + p), "sk", n(Integer.toString(k)));
    }

    private static KeysAndAttributes keys(List<Map<String, AttributeValue>> keys) {
        return KeysAndAttributes.builder().keys(keys).consistentRead(true).build();
    }

    private static List<Map<String, AttributeValue>> hashKeys(int fromInclusive, int toExclusive) {
        return IntStream.range(fromInclusive, toExclusive)
                .mapToObj(BatchGetItemTest::hashKey)
                .toList();
    }

    private static List<Map<String, AttributeValue>> responses(BatchGetItemResponse r, String table) {
        return r.responses().getOrDefault(table, List.of());
    }

    /**
     * 60 keys on the hash table (50 stored) and 40 on the range table (35 stored, several sort keys per partition)
     * make exactly 100, the documented maximum.
     */
    @Test
    void oneHundredKeysAcrossTwoTablesReturnEveryStoredItem(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);
        List<Map<String, AttributeValue>> hashItems =
                IntStream.range(0, 50).mapToObj(BatchGetItemTest::hashItem).toList();
        List<Map<String, AttributeValue>> rangeItems = new ArrayList<>();
        List<Map<String, AttributeValue>> rangeKeys = new ArrayList<>();
        for (int p = 0; p < 8; p++) {
            for (int k = 0; k < 5; k++) {
                rangeKeys.add(rangeKey(p, k));
                if (p < 7) {
                    rangeItems.add(rangeItem(p, k));
                }
            }
        }
        Loader.putAll(ddb, hash, hashItems);
        Loader.putAll(ddb, range, rangeItems);

        BatchGetItemResponse r =
                ddb.batchGetItem(b -> b.requestItems(Map.of(hash, keys(hashKeys(0, 60)), range, keys(rangeKeys))));

        assertThat(r.responses()).containsOnlyKeys(hash, range);
        assertThat(responses(r, hash)).containsExactlyInAnyOrderElementsOf(hashItems);
        assertThat(responses(r, range)).containsExactlyInAnyOrderElementsOf(rangeItems);
        assertThat(r.unprocessedKeys()).isEmpty();
    }

    @Test
    void keysWithoutAnItemAreSimplyLeftOut(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String other = hashTable(tables);
        Loader.putAll(ddb, hash, List.of(hashItem(1), hashItem(3), hashItem(5)));

        BatchGetItemResponse some = ddb.batchGetItem(b -> b.requestItems(Map.of(hash, keys(hashKeys(0, 6)))));
        BatchGetItemResponse none = ddb.batchGetItem(b -> b.requestItems(Map.of(other, keys(hashKeys(0, 3)))));

        assertThat(responses(some, hash)).containsExactlyInAnyOrder(hashItem(1), hashItem(3), hashItem(5));
        assertThat(some.unprocessedKeys()).isEmpty();
        assertThat(responses(none, other)).isEmpty();
        assertThat(none.unprocessedKeys()).isEmpty();
    }

    /** The same key in two different tables names two different items, so it is not a duplicate. */
    @Test
    void theSameKeyInTwoTablesIsNotADuplicate(DynamoDbClient ddb, Tables tables) {
        String first = hashTable(tables);
        String second = hashTable(tables);
        ddb.putItem(b -> b.tableName(first).item(item("pk", s("k"), "v", n("1"))));
        ddb.putItem(b -> b.tableName(second).item(item("pk", s("k"), "v", n("2"))));
        List<Map<String, AttributeValue>> key = List.of(Map.of("pk", s("k")));

        BatchGetItemResponse r = ddb.batchGetItem(b -> b.requestItems(Map.of(first, keys(key), second, keys(key))));

        assertThat(responses(r, first)).containsExactly(item("pk", s("k"), "v", n("1")));
        assertThat(responses(r, second)).containsExactly(item("pk", s("k"), "v", n("2")));
    }

    @Test
    void projectionExpressionAppliesPerTable(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);
        Loader.putAll(ddb, hash, List.of(hashItem(1), hashItem(2)));
        Loader.putAll(ddb, range, List.of(rangeItem(1, 1)));

        BatchGetItemResponse r = ddb.batchGetItem(b -> b.requestItems(Map.of(
                hash,
                KeysAndAttributes.builder()
                        .keys(hashKeys(1, 3))
                        .projectionExpression("w")
                        .consistentRead(true)
                        .build(),
                range,
                KeysAndAttributes.builder()
                        .keys(List.of(rangeKey(1, 1)))
                        .projectionExpression("#s, v, nothere")
                        .expressionAttributeNames(Map.of("#s", "sk"))
                        .consistentRead(true)
                        .build())));

        assertThat(responses(r, hash)).containsExactlyInAnyOrder(item("w", s("hash-1")), item("w", s("hash-2")));
        assertThat(responses(r, range)).containsExactly(item("sk", n("1"), "v", n("11")));
    }

    @Test
    void consistentReadSeesTheLatestWrite(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        ddb.putItem(b -> b.tableName(hash).item(hashItem(1)));
        Map<String, AttributeValue> latest = item("pk", s("a01"), "v", n("99"));
        ddb.putItem(b -> b.tableName(hash).item(latest));

        BatchGetItemResponse r = ddb.batchGetItem(b -> b.requestItems(Map.of(hash, keys(hashKeys(1, 2)))));

        assertThat(responses(r, hash)).containsExactly(latest);
    }

    /** Eventually consistent reads are the default; the request is served either way. */
    @Test
    void eventuallyConsistentReadIsServed(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        ddb.putItem(b -> b.tableName(hash).item(hashItem(1)));

        BatchGetItemResponse r = ddb.batchGetItem(b -> b.requestItems(Map.of(
                hash, KeysAndAttributes.builder().keys(List.of(hashKey(1))).build())));

        assertThat(r.responses()).containsKey(hash);
        assertThat(r.unprocessedKeys()).isEmpty();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Errors

    /**
     * More than 100 keys in total: API_BatchGetItem names the message ("Too many items requested for the BatchGetItem
     * call"); moto's test (75 + 75 keys over two tables) pins it without the trailing period.
     */
    @Test
    void moreThanOneHundredKeysAcrossTablesAreRejected(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String other = hashTable(tables);

        assertInvalid(
                "Too many items requested for the BatchGetItem call",
                () -> ddb.batchGetItem(
                        b -> b.requestItems(Map.of(hash, keys(hashKeys(0, 60)), other, keys(hashKeys(0, 41))))));
    }

    /**
     * More than 100 keys for one table fail the member constraint on that table's Keys; the echo differs by region
     * ("Value at 'RequestItems.<table>.member.Keys'" in paritysuite's 2026 capture, "Value '[...]' at
     * 'requestItems.<table>.member.keys'" in moto), so the table name and the constraint are what is pinned.
     */
    @Test
    void moreThanOneHundredKeysForOneTableAreRejected(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);

        assertInvalidContaining(
                () -> ddb.batchGetItem(b -> b.requestItems(Map.of(hash, keys(hashKeys(0, 101))))),
                hash,
                "failed to satisfy constraint: Member must have length less than or equal to 100");
    }

    /** paritysuite (captured from DynamoDB), moto and dynalite agree on the text. */
    @Test
    void duplicateKeysAreRejected(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);

        assertInvalid(
                "Provided list of item keys contains duplicates",
                () -> ddb.batchGetItem(b ->
                        b.requestItems(Map.of(hash, keys(List.of(hashKey(1), hashKey(2), hashKey(1)))))));
        assertInvalid(
                "Provided list of item keys contains duplicates",
                () -> ddb.batchGetItem(b ->
                        b.requestItems(Map.of(range, keys(List.of(rangeKey(1, 1), rangeKey(1, 2), rangeKey(1, 1)))))));
    }

    /** The key checks of GetItem apply to every key (dynamo-messages §11; paritysuite batchWriteItem). */
    @Test
    void aKeyNotMatchingTheSchemaIsRejected(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String range = rangeTable(tables);

        assertInvalid(
                "The provided key element does not match the schema",
                () -> ddb.batchGetItem(b ->
                        b.requestItems(Map.of(hash, keys(List.of(hashKey(1), Map.of("pk", n("2"))))))));
        assertInvalid(
                "The provided key element does not match the schema",
                () -> ddb.batchGetItem(b -> b.requestItems(Map.of(range, keys(List.of(Map.of("pk", s("b1"))))))));
    }

    /** paritysuite (captured from DynamoDB): item operations on a missing table say only this. */
    @Test
    void aMissingTableIsResourceNotFound(DynamoDbClient ddb, Tables tables) {
        String hash = hashTable(tables);
        String missing = Tables.uniqueName("missing");

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.batchGetItem(b -> b.requestItems(Map.of(missing, keys(hashKeys(0, 1))))));
        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.batchGetItem(
                        b -> b.requestItems(Map.of(hash, keys(hashKeys(0, 1)), missing, keys(hashKeys(0, 1))))));
    }
}
