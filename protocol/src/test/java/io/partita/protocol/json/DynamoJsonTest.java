package io.partita.protocol.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.ListTablesInput;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DynamoJsonTest {
    private static <T> T decode(String json, Class<T> type) {
        return DynamoJson.decode(json.getBytes(StandardCharsets.UTF_8), type);
    }

    @Test
    void readsPascalCaseMembersAndIgnoresUnknownOnes() {
        ListTablesInput in =
                decode("{\"Limit\":5,\"ExclusiveStartTableName\":\"abc\",\"Other\":[1]}", ListTablesInput.class);
        assertThat(in.limit()).isEqualTo(5L);
        assertThat(in.exclusiveStartTableName()).isEqualTo("abc");
    }

    @Test
    void emptyBodyReadsAsEmptyObject() {
        assertThat(DynamoJson.decode(new byte[0], ListTablesInput.class).limit())
                .isNull();
    }

    @Test
    void doesNotCoerceScalars() {
        assertThatThrownBy(() -> decode("{\"ExclusiveStartTableName\":5}", ListTablesInput.class))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERIALIZATION))
                .hasMessage("NUMBER_VALUE cannot be converted to String");
        assertThatThrownBy(() -> decode("{\"Limit\":\"5\"}", ListTablesInput.class))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERIALIZATION));
        assertThatThrownBy(() -> decode("{\"ReadCapacityUnits\":{}}", ProvisionedThroughput.class))
                .hasMessage("Start of structure or map found where not expected");
    }

    @Test
    void invalidJsonIsASerializationError() {
        for (String bad : new String[] {"{", "not json", "{\"Limit\":1}}", "[]", "null"}) {
            assertThatThrownBy(() -> decode(bad, ListTablesInput.class))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERIALIZATION));
        }
    }

    @Test
    void writeOutputsEncodeAsTheSerializerWould() throws Exception {
        WriteItemOutput empty = new WriteItemOutput(null, null, null);
        assertThat(new String(DynamoJson.encode(empty), StandardCharsets.UTF_8)).isEqualTo("{}");
        assertThat(DynamoJson.encode(empty)).isEqualTo(DynamoJson.mapper().writeValueAsBytes(empty));
        WriteItemOutput withCapacity = new WriteItemOutput(null, new ConsumedCapacity("t", 1.0, null), null);
        assertThat(new String(DynamoJson.encode(withCapacity), StandardCharsets.UTF_8))
                .isEqualTo("{\"ConsumedCapacity\":{\"TableName\":\"t\",\"CapacityUnits\":1.0}}");
        WriteItemOutput withItem = new WriteItemOutput(Map.of("a", new AttributeValue.S("x")), null, null);
        assertThat(new String(DynamoJson.encode(withItem), StandardCharsets.UTF_8))
                .isEqualTo("{\"Attributes\":{\"a\":{\"S\":\"x\"}}}");
    }
}
