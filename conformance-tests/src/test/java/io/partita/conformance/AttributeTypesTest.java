package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Every DynamoDB data type survives PutItem then GetItem ("Data types", HowItWorks.NamingRulesDataTypes). Sets are
 * unordered, so they are compared as sets; lists keep their order.
 */
@ExtendWith(PartitaExtension.class)
class AttributeTypesTest {
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("k"));

    private static Map<String, AttributeValue> roundTrip(
            DynamoDbClient ddb, Tables tables, Map<String, AttributeValue> attributes) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> item = new LinkedHashMap<>(KEY);
        item.putAll(attributes);
        ddb.putItem(b -> b.tableName(table).item(item));
        var got = ddb.getItem(b -> b.tableName(table).key(KEY).consistentRead(true));
        assertThat(got.hasItem()).isTrue();
        return got.item();
    }

    private static SdkBytes bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return SdkBytes.fromByteArray(b);
    }

    @Test
    void scalarTypesRoundTrip(DynamoDbClient ddb, Tables tables) {
        Map<String, AttributeValue> attributes = Map.of(
                "s", AttributeValue.fromS("héllo ✓ 𝄞"),
                "n", AttributeValue.fromN("-12.5"),
                "b", AttributeValue.fromB(bytes(0, 1, 0x7f, 0x80, 0xff)),
                "t", AttributeValue.fromBool(true),
                "f", AttributeValue.fromBool(false),
                "z", AttributeValue.fromNul(true));

        Map<String, AttributeValue> got = roundTrip(ddb, tables, attributes);

        assertThat(got).containsAllEntriesOf(attributes).hasSize(attributes.size() + 1);
        assertThat(got.get("id")).isEqualTo(AttributeValue.fromS("k"));
    }

    @Test
    void setTypesRoundTripAsSets(DynamoDbClient ddb, Tables tables) {
        Map<String, AttributeValue> got = roundTrip(
                ddb,
                tables,
                Map.of(
                        "ss", AttributeValue.fromSs(List.of("c", "a", "b", "")),
                        "ns", AttributeValue.fromNs(List.of("3", "-1", "2.5", "0")),
                        "bs", AttributeValue.fromBs(List.of(bytes(3), bytes(1, 2), bytes(0xff)))));

        assertThat(got.get("ss").ss()).containsExactlyInAnyOrder("a", "b", "c", "");
        assertThat(got.get("ns").ns()).containsExactlyInAnyOrder("-1", "0", "2.5", "3");
        assertThat(got.get("bs").bs()).containsExactlyInAnyOrder(bytes(3), bytes(1, 2), bytes(0xff));
        assertThat(got.get("ss").ns()).isEmpty();
    }

    @Test
    void nestedMapsAndListsRoundTripWithListOrderKept(DynamoDbClient ddb, Tables tables) {
        AttributeValue inner = AttributeValue.fromM(Map.of(
                "s", AttributeValue.fromS("x"),
                "n", AttributeValue.fromN("7"),
                "b", AttributeValue.fromB(bytes(9)),
                "bool", AttributeValue.fromBool(true),
                "null", AttributeValue.fromNul(true),
                "list", AttributeValue.fromL(List.of(AttributeValue.fromN("3"), AttributeValue.fromN("1")))));
        AttributeValue list = AttributeValue.fromL(List.of(
                AttributeValue.fromS("first"),
                inner,
                AttributeValue.fromL(List.of(AttributeValue.fromS("deep"))),
                AttributeValue.fromS("first")));
        AttributeValue doc = AttributeValue.fromM(Map.of("inner", inner, "list", list));

        Map<String, AttributeValue> got = roundTrip(ddb, tables, Map.of("doc", doc, "list", list));

        assertThat(got.get("doc")).isEqualTo(doc);
        assertThat(got.get("list")).isEqualTo(list);
        assertThat(got.get("list").l())
                .extracting(v -> v.s())
                .startsWith("first")
                .endsWith("first");
    }

    @Test
    void setsInsideMapsAndListsRoundTrip(DynamoDbClient ddb, Tables tables) {
        Map<String, AttributeValue> got = roundTrip(
                ddb,
                tables,
                Map.of(
                        "m",
                        AttributeValue.fromM(Map.of("ss", AttributeValue.fromSs(List.of("y", "x")))),
                        "l",
                        AttributeValue.fromL(List.of(AttributeValue.fromNs(List.of("2", "1"))))));

        assertThat(got.get("m").m().get("ss").ss()).containsExactlyInAnyOrder("x", "y");
        assertThat(got.get("l").l().get(0).ns()).containsExactlyInAnyOrder("1", "2");
    }

    /** Since 2020 non-key strings and binaries may be empty (AWS What's New, 2020-05-18). */
    @Test
    void emptyStringAndBinaryAllowedInNonKeyAttributes(DynamoDbClient ddb, Tables tables) {
        Map<String, AttributeValue> attributes = Map.of(
                "s",
                AttributeValue.fromS(""),
                "b",
                AttributeValue.fromB(SdkBytes.fromByteArray(new byte[0])),
                "m",
                AttributeValue.fromM(Map.of(
                        "s", AttributeValue.fromS(""), "b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[0])))),
                "l",
                AttributeValue.fromL(List.of(AttributeValue.fromS(""))));

        Map<String, AttributeValue> got = roundTrip(ddb, tables, attributes);

        assertThat(got).containsAllEntriesOf(attributes);
        assertThat(got.get("s").s()).isEmpty();
        assertThat(got.get("b").b().asByteArray()).isEmpty();
    }

    @Test
    void emptyMapAndEmptyListAreAllowed(DynamoDbClient ddb, Tables tables) {
        Map<String, AttributeValue> attributes = Map.of(
                "m", AttributeValue.fromM(Map.of()),
                "l", AttributeValue.fromL(List.of()));

        Map<String, AttributeValue> got = roundTrip(ddb, tables, attributes);

        assertThat(got.get("m").hasM()).isTrue();
        assertThat(got.get("m").m()).isEmpty();
        assertThat(got.get("l").hasL()).isTrue();
        assertThat(got.get("l").l()).isEmpty();
    }

    @Test
    void attributeNamesAndStringsKeepTheirUnicode(DynamoDbClient ddb, Tables tables) {
        String text = "日本語 — emoji 😀, quote \" and tab\t";
        Map<String, AttributeValue> attributes = Map.of(
                "名前", AttributeValue.fromS(text),
                "with space.and.dots", AttributeValue.fromB(SdkBytes.fromString(text, StandardCharsets.UTF_8)));

        Map<String, AttributeValue> got = roundTrip(ddb, tables, attributes);

        assertThat(got).containsAllEntriesOf(attributes);
    }
}
