package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Malformed attribute values are refused with DynamoDB's ValidationException, and a refused write changes nothing.
 * Messages are the service's own (see the comments on each case for where they were captured).
 */
@ExtendWith(PartitaExtension.class)
class AttributeValueValidationTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));
    private static final Map<String, AttributeValue> ORIGINAL =
            Map.of("id", AttributeValue.fromS("k"), "v", AttributeValue.fromS("original"));
    private static final String NESTING = "Nesting Levels have exceeded supported limits: Attributes in the item have"
            + " nested levels beyond supported limit";

    /** The error details of a call that must fail with a DynamoDB service error. */
    private static AwsErrorDetails errorOf(ThrowingCallable call) {
        DynamoDbException e = catchThrowableOfType(DynamoDbException.class, call);
        assertThat(e).as("expected the call to fail with a DynamoDB error").isNotNull();
        return e.awsErrorDetails();
    }

    private static String tableWithOriginal(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(b -> b.tableName(table).item(ORIGINAL));
        return table;
    }

    private static void putV(DynamoDbClient ddb, String table, AttributeValue v) {
        ddb.putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromS("k"), "v", v)));
    }

    private static void assertUnchanged(DynamoDbClient ddb, String table) {
        assertThat(ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                        .item())
                .isEqualTo(ORIGINAL);
    }

    static Stream<Arguments> emptySets() {
        return Stream.of(
                Arguments.of(AttributeValue.fromSs(List.of()), "string"),
                Arguments.of(AttributeValue.fromNs(List.of()), "number"),
                Arguments.of(AttributeValue.fromBs(List.of()), "binary"));
    }

    /** Note DynamoDB's "An string set  may not be empty", with a double space (ministackorg/ministack#1038). */
    @ParameterizedTest(name = "empty {1} set")
    @MethodSource("emptySets")
    void emptySetsAreRejected(AttributeValue value, String kind, DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "One or more parameter values were invalid: An " + kind + " set  may not be empty",
                () -> putV(ddb, table, value));
        assertUnchanged(ddb, table);
    }

    static Stream<Arguments> duplicateSets() {
        SdkBytes one = SdkBytes.fromByteArray(new byte[] {1});
        return Stream.of(
                Arguments.of(AttributeValue.fromSs(List.of("a", "b", "a"))),
                Arguments.of(AttributeValue.fromNs(List.of("1", "2", "1"))),
                Arguments.of(AttributeValue.fromBs(List.of(one, one))));
    }

    /**
     * The wording varies between reports ("Input collection [a, a] contains duplicates." in truora/minidyn#50, no list
     * in ExtendDB/extenddb#100), so only the stable part is checked.
     */
    @ParameterizedTest
    @MethodSource("duplicateSets")
    void setsWithDuplicatesAreRejected(AttributeValue value, DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        AwsErrorDetails error = errorOf(() -> putV(ddb, table, value));

        assertThat(error.errorCode()).isEqualTo("ValidationException");
        assertThat(error.errorMessage())
                .startsWith("One or more parameter values were invalid: Input collection")
                .contains("contains duplicates");
        assertUnchanged(ddb, table);
    }

    @Test
    void attributeValueWithNoTypeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                () -> putV(ddb, table, AttributeValue.builder().build()));
        assertUnchanged(ddb, table);
    }

    @Test
    void nestedAttributeValueWithNoTypeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                () -> putV(
                        ddb,
                        table,
                        AttributeValue.fromM(Map.of(
                                "x",
                                AttributeValue.fromL(
                                        List.of(AttributeValue.builder().build()))))));
        assertUnchanged(ddb, table);
    }

    @Test
    void attributeValueWithTwoTypesIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported"
                        + " datatypes",
                () -> putV(ddb, table, AttributeValue.builder().s("x").n("1").build()));
        assertUnchanged(ddb, table);
    }

    @Test
    void keyAttributeValueWithTwoTypesIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported"
                        + " datatypes",
                () -> ddb.getItem(b -> b.tableName(table)
                        .key(Map.of(
                                "id", AttributeValue.builder().s("k").bool(true).build()))));
    }

    /**
     * Sources disagree on whether the live service still refuses {@code NULL: false} (nubo-db/dynoxide#62 and #151),
     * so this pins Partita's choice, the historical DynamoDB answer, and does not run against AWS.
     */
    @Test
    @Tag("partita-only")
    void nullFalseIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(
                "One or more parameter values were invalid: Null attribute value types must have the value of true",
                () -> putV(ddb, table, AttributeValue.builder().nul(false).build()));
        assertUnchanged(ddb, table);
    }

    /** {@code depth} nested maps or lists, the innermost holding a string. */
    private static AttributeValue nested(String kind, int depth) {
        AttributeValue v = AttributeValue.fromS("leaf");
        for (int i = 0; i < depth; i++) {
            v = kind.equals("map") ? AttributeValue.fromM(Map.of("m", v)) : AttributeValue.fromL(List.of(v));
        }
        return v;
    }

    /**
     * "DynamoDB supports nested attributes up to 32 levels deep" (ServiceQuotas), the top-level attribute counting as
     * one: 31 map wraps are accepted and 32 refused on the live service (nubo-db/dynoxide#110).
     */
    @ParameterizedTest
    @ValueSource(strings = {"map", "list"})
    void thirtyOneNestedLevelsAreAccepted(String kind, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        AttributeValue deep = nested(kind, 31);

        putV(ddb, table, deep);

        assertThat(ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                        .item()
                        .get("v"))
                .isEqualTo(deep);
    }

    @ParameterizedTest
    @ValueSource(strings = {"map", "list"})
    void thirtyTwoNestedLevelsAreRejected(String kind, DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(NESTING, () -> putV(ddb, table, nested(kind, 32)));
        assertUnchanged(ddb, table);
    }

    @Test
    void deeplyNestedValuesAreRejectedNotCrashing(DynamoDbClient ddb, Tables tables) {
        String table = tableWithOriginal(ddb, tables);

        assertValidation(NESTING, () -> putV(ddb, table, nested("map", 100)));
        assertUnchanged(ddb, table);
    }
}
