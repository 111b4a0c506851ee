package io.partita.protocol.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.model.AttributeValue;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AttributeValueCodecTest {
    private static Map<String, AttributeValue> item(String itemJson) {
        String body = "{\"TableName\":\"t\",\"Item\":" + itemJson + "}";
        return DynamoJson.decode(body.getBytes(StandardCharsets.UTF_8), PutItemInput.class)
                .item();
    }

    private static String encode(Map<String, AttributeValue> item) {
        return new String(DynamoJson.encode(Map.of("Item", item)), StandardCharsets.UTF_8);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(
            delimiter = '|',
            value = {
                "YQ | Base64 encoded length is expected a multiple of 4 bytes but found: 2",
                "23456 | Base64 encoded length is expected a multiple of 4 bytes but found: 5",
                "AB== | Invalid last non-pad Base64 character dectected",
                "=+/= | '=+/=' can not be converted to a Blob: Invalid Base64 character",
                "YQ!= | 'YQ!=' can not be converted to a Blob: Invalid Base64 character",
            })
    void onlyCanonicalBase64IsABinary(String text, String message) {
        assertThatThrownBy(() -> item("{\"b\":{\"B\":\"" + text + "\"}}"))
                .isInstanceOfSatisfying(io.partita.protocol.error.ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(io.partita.protocol.error.ErrorCode.SERIALIZATION);
                    assertThat(e.getMessage()).isEqualTo(message);
                });
        assertThat(item("{\"b\":{\"B\":\"YQ==\"}}").get("b")).isInstanceOf(AttributeValue.B.class);
        assertThat(item("{\"b\":{\"B\":\"\"}}").get("b")).isInstanceOf(AttributeValue.B.class);
    }

    @Test
    void aNullAttributeValueIsAnEmptyOne() {
        assertThatThrownBy(() -> item("{\"a\":null}"))
                .hasMessage("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
    }

    @Test
    void roundTripsAllTenTypes() {
        String json = "{\"s\":{\"S\":\"x\"},\"n\":{\"N\":\"1.5\"},\"b\":{\"B\":\"AAE=\"},\"t\":{\"BOOL\":true},"
                + "\"z\":{\"NULL\":true},\"ss\":{\"SS\":[\"a\",\"b\"]},\"ns\":{\"NS\":[\"1\",\"2\"]},"
                + "\"bs\":{\"BS\":[\"AA==\"]},\"l\":{\"L\":[{\"S\":\"\"}]},\"m\":{\"M\":{\"k\":{\"N\":\"-3\"}}}}";
        assertThat(encode(item(json))).isEqualTo("{\"Item\":" + json + "}");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"a\":{}} | Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                "{\"a\":{\"S\":\"x\",\"N\":\"1\"}} | Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
                "{\"a\":{\"SS\":[]}} | One or more parameter values were invalid: An string set  may not be empty",
                "{\"a\":{\"NS\":[]}} | One or more parameter values were invalid: An number set  may not be empty",
                "{\"a\":{\"SS\":[\"x\",\"x\"]}} | One or more parameter values were invalid: Input collection [x, x] contains duplicates.",
                "{\"a\":{\"NS\":[\"1\",\"1.0\"]}} | One or more parameter values were invalid: Input collection [1, 1.0] contains duplicates.",
                "{\"a\":{\"NULL\":false}} | One or more parameter values were invalid: Null attribute value types must have the value of true",
                "{\"a\":{\"N\":\"x\"}} | The parameter cannot be converted to a numeric value: x",
            })
    void rejectsInvalidValuesWithDynamoDbMessages(String json, String message) {
        assertThatThrownBy(() -> item(json))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION))
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"a\":{\"S\":1}} | NUMBER_VALUE cannot be converted to String",
                "{\"a\":{\"S\":{}}} | Start of structure or map found where not expected",
                "{\"a\":{\"SS\":\"x\"}} | STRING_VALUE cannot be converted to List",
                "{\"a\":{\"BOOL\":\"true\"}} | STRING_VALUE cannot be converted to Boolean",
                "{\"a\":[]} | Start of list found where not expected",
            })
    void wrongJsonTypesAreSerializationErrors(String json, String message) {
        assertThatThrownBy(() -> item(json))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERIALIZATION))
                .hasMessage(message);
    }

    private static String nestedMaps(int depth) {
        return "{\"a\":" + "{\"M\":{\"x\":".repeat(depth) + "{\"S\":\"leaf\"}" + "}}".repeat(depth) + "}";
    }

    @Test
    void acceptsThirtyOneNestedMapsAndRejectsThirtyTwo() {
        assertThat(item(nestedMaps(31))).containsKey("a");
        assertThatThrownBy(() -> item(nestedMaps(32)))
                .hasMessage("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels"
                        + " beyond supported limit");
    }

    @Test
    void deepHostileNestingEndsInAnErrorNotAStackOverflow() {
        assertThatThrownBy(() -> item(nestedMaps(5000))).isInstanceOf(ApiException.class);
        String lists = "{\"a\":" + "{\"L\":[".repeat(5000) + "]}".repeat(5000) + "}";
        assertThatThrownBy(() -> item(lists)).isInstanceOf(ApiException.class);
    }
}
