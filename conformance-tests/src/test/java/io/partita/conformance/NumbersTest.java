package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * DynamoDB numbers ("Data types", HowItWorks.NamingRulesDataTypes): up to 38 significant digits, magnitudes from
 * 1E-130 to 9.9999999999999999999999999999999999999E+125, leading and trailing zeros trimmed. Normalised output was
 * checked against the real service in ExtendDB/extenddb#7 ("00042" → "42", "-0" → "0", "1.5E2" → "150").
 */
@ExtendWith(PartitaExtension.class)
class NumbersTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));
    private static final String PRECISION = "Attempting to store more than 38 significant digits in a Number";
    private static final String OVERFLOW =
            "Number overflow. Attempting to store a number with magnitude larger than supported range";
    private static final String UNDERFLOW =
            "Number underflow. Attempting to store a number with magnitude smaller than supported range";
    private static final String LARGEST = "9.9999999999999999999999999999999999999E+125";

    private static AttributeValue putAndGet(DynamoDbClient ddb, String table, AttributeValue value) {
        ddb.putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromS("k"), "v", value)));
        return ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                .item()
                .get("v");
    }

    @ParameterizedTest(name = "{0} is returned as {1}")
    @CsvSource({
        "1.50, 1.5",
        "0100, 100",
        "1E2, 100",
        "1.5E2, 150",
        "00042, 42",
        "-0, 0",
        "0.000, 0",
        "-1.0, -1",
        "0.0100, 0.01",
        "1e-2, 0.01",
        "12345678901234567890123456789012345678, 12345678901234567890123456789012345678",
        "-0.12345678901234567890123456789012345678, -0.12345678901234567890123456789012345678",
        "1234567891234560000000000000000000000000, 1234567891234560000000000000000000000000"
    })
    void numbersAreNormalisedOnOutput(String input, String expected, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        assertThat(putAndGet(ddb, table, AttributeValue.fromN(input)).n()).isEqualTo(expected);
    }

    @Test
    void numberSetElementsAreNormalised(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        AttributeValue got = putAndGet(ddb, table, AttributeValue.fromNs(List.of("1.50", "0100", "-0")));

        assertThat(got.ns()).containsExactlyInAnyOrder("1.5", "100", "0");
    }

    @Test
    void numbersInsideMapsAndListsAreNormalised(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        AttributeValue got = putAndGet(
                ddb,
                table,
                AttributeValue.fromM(Map.of("l", AttributeValue.fromL(List.of(AttributeValue.fromN("2.500"))))));

        assertThat(got.m().get("l").l().get(0).n()).isEqualTo("2.5");
    }

    /** The documented extremes are stored; compared by value since only the value is specified. */
    @ParameterizedTest
    @ValueSource(strings = {"1E-130", "-1E-130", LARGEST, "-" + LARGEST, "1.2345678901234567890123456789012345678E-93"})
    void extremeMagnitudesAreAccepted(String input, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        String got = putAndGet(ddb, table, AttributeValue.fromN(input)).n();

        assertThat(new BigDecimal(got)).isEqualByComparingTo(new BigDecimal(input));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "123456789012345678901234567890123456789 | " + PRECISION,
                "1.00000000000000000000000000000000000001 | " + PRECISION,
                "-0.000123456789012345678901234567890123456789 | " + PRECISION,
                "1E+126 | " + OVERFLOW,
                "-1E+126 | " + OVERFLOW,
                "1E+1000 | " + OVERFLOW,
                "1E-131 | " + UNDERFLOW,
                "-1E-131 | " + UNDERFLOW,
                "abc | The parameter cannot be converted to a numeric value: abc",
                "NaN | The parameter cannot be converted to a numeric value: NaN",
                "1..2 | The parameter cannot be converted to a numeric value: 1..2"
            })
    void invalidNumbersAreRejectedAndChangeNothing(String input, String message, DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> original = Map.of("id", AttributeValue.fromS("k"), "v", AttributeValue.fromN("1"));
        ddb.putItem(b -> b.tableName(table).item(original));

        assertValidation(
                message,
                () -> ddb.putItem(b -> b.tableName(table)
                        .item(Map.of("id", AttributeValue.fromS("k"), "v", AttributeValue.fromN(input)))));

        assertThat(ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                        .item())
                .isEqualTo(original);
    }

    @Test
    void invalidNumbersInSetsAndNestedValuesAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);

        assertValidation(
                OVERFLOW,
                () -> ddb.putItem(b -> b.tableName(table)
                        .item(Map.of(
                                "id", AttributeValue.fromS("k"), "v", AttributeValue.fromNs(List.of("1", "1E+126"))))));
        assertValidation(
                "The parameter cannot be converted to a numeric value: abc",
                () -> ddb.putItem(b -> b.tableName(table)
                        .item(Map.of(
                                "id",
                                AttributeValue.fromS("k"),
                                "v",
                                AttributeValue.fromM(Map.of("x", AttributeValue.fromN("abc")))))));
        assertThat(ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true))
                        .hasItem())
                .isFalse();
    }

    /** Number keys compare by value: "1.0" and "1" name the same item. */
    @Test
    void numericKeysAreEqualByValue(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        ddb.putItem(b -> b.tableName(table)
                .item(Map.of(
                        "pk",
                        AttributeValue.fromS("p"),
                        "sk",
                        AttributeValue.fromN("1.0"),
                        "v",
                        AttributeValue.fromS("a"))));

        var got = ddb.getItem(b -> b.tableName(table)
                .key(Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("1")))
                .consistentRead(true));
        assertThat(got.hasItem()).isTrue();
        assertThat(got.item().get("sk").n()).isEqualTo("1");
        assertThat(got.item().get("v").s()).isEqualTo("a");

        var old = ddb.putItem(b -> b.tableName(table)
                .item(Map.of(
                        "pk",
                        AttributeValue.fromS("p"),
                        "sk",
                        AttributeValue.fromN("10E-1"),
                        "v",
                        AttributeValue.fromS("b")))
                .returnValues("ALL_OLD"));
        assertThat(old.attributes().get("v").s()).isEqualTo("a");

        ddb.deleteItem(b ->
                b.tableName(table).key(Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("1.000"))));
        assertThat(ddb.getItem(b -> b.tableName(table)
                                .key(Map.of("pk", AttributeValue.fromS("p"), "sk", AttributeValue.fromN("1")))
                                .consistentRead(true))
                        .hasItem())
                .isFalse();
    }

    @Test
    void numericPartitionKeyIsEqualByValue(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.N);
        ddb.putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromN("0.50"))));

        var got = ddb.getItem(b -> b.tableName(table)
                .key(Map.of("id", AttributeValue.fromN("5E-1")))
                .consistentRead(true));

        assertThat(got.item()).isEqualTo(Map.of("id", AttributeValue.fromN("0.5")));
    }
}
