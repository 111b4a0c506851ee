package io.partita.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeySchemaTest {
    private final KeySchema schema = new KeySchema(
            new KeySchema.KeyAttribute("id", ScalarType.S), new KeySchema.KeyAttribute("n", ScalarType.N));

    @Test
    void extractsTheKeyOfAnItem() {
        PrimaryKey key = schema.keyOfItem(Map.of(
                "id", new AttributeValue.S("a"), "n", AttributeValue.N.of("1.0"), "x", new AttributeValue.Bool(true)));
        assertThat(key).isEqualTo(new PrimaryKey(new AttributeValue.S("a"), AttributeValue.N.of("1")));
    }

    @Test
    void itemErrorsNameTheAttribute() {
        assertThatThrownBy(() -> schema.keyOfItem(Map.of("id", new AttributeValue.S("a"))))
                .isInstanceOf(ApiException.class)
                .hasMessage("One or more parameter values were invalid: Missing the key n in the item");
        assertThatThrownBy(
                        () -> schema.keyOfItem(Map.of("id", AttributeValue.N.of("1"), "n", AttributeValue.N.of("1"))))
                .hasMessage(
                        "One or more parameter values were invalid: Type mismatch for key id expected: S actual: N");
        assertThatThrownBy(
                        () -> schema.keyOfItem(Map.of("id", new AttributeValue.S(""), "n", AttributeValue.N.of("1"))))
                .hasMessage("One or more parameter values are not valid. The AttributeValue for a key attribute cannot"
                        + " contain an empty string value. Key: id");
    }

    @Test
    void keyMapsMustMatchTheSchemaExactly() {
        String message = "The provided key element does not match the schema";
        assertThatThrownBy(() -> schema.keyOf(Map.of("id", new AttributeValue.S("a"))))
                .hasMessage(message);
        assertThatThrownBy(() -> schema.keyOf(Map.of(
                        "id", new AttributeValue.S("a"), "n", AttributeValue.N.of("1"), "x", AttributeValue.N.of("1"))))
                .hasMessage(message);
        assertThatThrownBy(() -> schema.keyOf(Map.of("id", new AttributeValue.S("a"), "n", new AttributeValue.S("1"))))
                .hasMessage(message);
    }

    @Test
    void enforcesKeySizeLimits() {
        String big = "x".repeat(2049);
        assertThatThrownBy(
                        () -> schema.keyOfItem(Map.of("id", new AttributeValue.S(big), "n", AttributeValue.N.of("1"))))
                .hasMessage("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size"
                        + " limit of2048 bytes");
        KeySchema stringSort = new KeySchema(
                new KeySchema.KeyAttribute("id", ScalarType.S), new KeySchema.KeyAttribute("s", ScalarType.S));
        assertThat(stringSort.keyOfItem(Map.of(
                        "id", new AttributeValue.S("x".repeat(2048)), "s", new AttributeValue.S("y".repeat(1024)))))
                .isNotNull();
        assertThatThrownBy(() -> stringSort.keyOfItem(
                        Map.of("id", new AttributeValue.S("a"), "s", new AttributeValue.S("y".repeat(1025)))))
                .hasMessage("One or more parameter values were invalid: Aggregated size of all range keys has exceeded"
                        + " the size limit of 1024 bytes");
    }
}
