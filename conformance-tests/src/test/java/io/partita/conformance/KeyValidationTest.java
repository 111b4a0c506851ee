package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Items and keys must match the table's key schema. PutItem names the offending attribute
 * (aws-samples/aws-serverless-workshops#31, awslabs/dynamodb-document-js-sdk#17); GetItem and DeleteItem only say
 * "The provided key element does not match the schema" (nubo-db/dynoxide#97, captured from the live service).
 */
@ExtendWith(PartitaExtension.class)
class KeyValidationTest {
    private static final String KEY_MISMATCH = "The provided key element does not match the schema";

    @Test
    void putItemWithoutPartitionKeyIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        assertValidation(
                "One or more parameter values were invalid: Missing the key id in the item",
                () -> ddb.putItem(b -> b.tableName(table).item(Map.of("other", AttributeValue.fromS("x")))));
    }

    @Test
    void putItemWithoutSortKeyIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);

        assertValidation(
                "One or more parameter values were invalid: Missing the key sk in the item",
                () -> ddb.putItem(b -> b.tableName(table)
                        .item(Map.of("pk", AttributeValue.fromS("p"), "other", AttributeValue.fromS("x")))));
    }

    static Stream<Arguments> wrongKeyTypes() {
        return Stream.of(
                Arguments.of(AttributeValue.fromN("1"), "N"),
                Arguments.of(AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {1})), "B"),
                Arguments.of(AttributeValue.fromM(Map.of("a", AttributeValue.fromS("x"))), "M"));
    }

    @ParameterizedTest(name = "actual {1}")
    @MethodSource("wrongKeyTypes")
    void putItemWithWrongKeyTypeIsRejected(AttributeValue id, String actual, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        assertValidation(
                "One or more parameter values were invalid: Type mismatch for key id expected: S actual: " + actual,
                () -> ddb.putItem(b -> b.tableName(table).item(Map.of("id", id))));
    }

    @Test
    void putItemWithWrongSortKeyTypeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);

        assertValidation(
                "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S",
                () -> ddb.putItem(b -> b.tableName(table)
                        .item(Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromS("1")))));
    }

    static Stream<Arguments> badKeys() {
        AttributeValue p = AttributeValue.fromS("p");
        AttributeValue one = AttributeValue.fromN("1");
        return Stream.of(
                Arguments.of("missing sort key", Map.of("pk", p)),
                Arguments.of("missing partition key", Map.of("sk", one)),
                Arguments.of("empty key", Map.of()),
                Arguments.of("extra attribute", Map.of("pk", p, "sk", one, "extra", AttributeValue.fromS("x"))),
                Arguments.of("wrong partition key type", Map.of("pk", AttributeValue.fromN("1"), "sk", one)),
                Arguments.of("wrong sort key type", Map.of("pk", p, "sk", AttributeValue.fromS("1"))),
                Arguments.of("misnamed attribute", Map.of("pk", p, "SK", one)));
    }

    @ParameterizedTest(name = "GetItem, {0}")
    @MethodSource("badKeys")
    void getItemWithBadKeyIsRejected(String why, Map<String, AttributeValue> key, DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);

        assertValidation(KEY_MISMATCH, () -> ddb.getItem(b -> b.tableName(table).key(key)));
    }

    @ParameterizedTest(name = "DeleteItem, {0}")
    @MethodSource("badKeys")
    void deleteItemWithBadKeyIsRejected(
            String why, Map<String, AttributeValue> key, DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        Map<String, AttributeValue> item = Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("1"));
        ddb.putItem(b -> b.tableName(table).item(item));

        assertValidation(
                KEY_MISMATCH, () -> ddb.deleteItem(b -> b.tableName(table).key(key)));

        assertThat(ddb.getItem(b -> b.tableName(table).key(item).consistentRead(true))
                        .item())
                .isEqualTo(item);
    }

    /** A full item is not a key: GetItem with every attribute of the item is refused. */
    @Test
    void getItemWithWholeItemAsKeyIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> item = Map.of("id", AttributeValue.fromS("k"), "v", AttributeValue.fromS("x"));
        ddb.putItem(b -> b.tableName(table).item(item));

        assertValidation(KEY_MISMATCH, () -> ddb.getItem(b -> b.tableName(table).key(item)));
    }

    /** Item operations on a missing table (hashicorp-education/learn-terraform-aft-account-request#4, boto3#4101). */
    @ParameterizedTest
    @ValueSource(strings = {"PutItem", "GetItem", "DeleteItem"})
    void operationsOnMissingTableAreResourceNotFound(String operation, DynamoDbClient ddb) {
        String table = Tables.uniqueName("missing");
        Map<String, AttributeValue> key = Map.of("id", AttributeValue.fromS("k"));

        assertError(
                ResourceNotFoundException.class, "ResourceNotFoundException", "Requested resource not found", () -> {
                    switch (operation) {
                        case "PutItem" -> ddb.putItem(b -> b.tableName(table).item(key));
                        case "GetItem" -> ddb.getItem(b -> b.tableName(table).key(key));
                        default -> ddb.deleteItem(b -> b.tableName(table).key(key));
                    }
                });
    }

    /** The table's existence is checked before the key against a schema that is not there. */
    @Test
    void missingTableWinsOverMalformedKey(DynamoDbClient ddb) {
        String table = Tables.uniqueName("missing");

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.getItem(b -> b.tableName(table).key(Map.of("a", AttributeValue.fromL(List.of())))));
    }
}
