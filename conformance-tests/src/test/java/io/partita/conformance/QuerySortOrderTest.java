package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Random sort keys (seeded, so a failure can be replayed) come back from Query in DynamoDB's order: numbers by value
 * over the whole range, strings by UTF-8 bytes, binary as unsigned bytes — paging with a small Limit, forwards and
 * backwards ("Query" in the Developer Guide: results are sorted by sort key value).
 */
@ExtendWith(PartitaExtension.class)
class QuerySortOrderTest {
    private static final int KEYS = 120;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomNumbersSortNumerically(long seed, DynamoDbClient ddb, Tables tables) {
        Random random = new Random(seed);
        Set<BigDecimal> values = new LinkedHashSet<>();
        while (values.size() < KEYS) {
            values.add(randomNumber(random));
        }
        List<AttributeValue> keys =
                values.stream().map(v -> AttributeValue.fromN(v.toString())).toList();
        Comparator<AttributeValue> order = Comparator.comparing(a -> new BigDecimal(a.n()));
        check(ddb, tables, ScalarAttributeType.N, keys, order);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomStringsSortByUtf8Bytes(long seed, DynamoDbClient ddb, Tables tables) {
        Random random = new Random(seed);
        Set<String> values = new LinkedHashSet<>();
        int[] alphabet = {'a', 'b', 'Z', '0', 0xE9, 0x4E2D, 0xFFFD, 0x1F600, 0x10348, 0x7F, ' '};
        while (values.size() < KEYS) {
            StringBuilder s = new StringBuilder();
            for (int i = 1 + random.nextInt(6); i > 0; i--) {
                s.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
            }
            values.add(s.toString());
        }
        List<AttributeValue> keys = values.stream().map(AttributeValue::fromS).toList();
        Comparator<AttributeValue> order = (a, b) -> Arrays.compareUnsigned(utf8(a.s()), utf8(b.s()));
        check(ddb, tables, ScalarAttributeType.S, keys, order);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void randomBinarySortsAsUnsignedBytes(long seed, DynamoDbClient ddb, Tables tables) {
        Random random = new Random(seed);
        Set<SdkBytes> values = new LinkedHashSet<>();
        while (values.size() < KEYS) {
            byte[] b = new byte[1 + random.nextInt(5)];
            random.nextBytes(b);
            values.add(SdkBytes.fromByteArray(b));
        }
        List<AttributeValue> keys = values.stream().map(AttributeValue::fromB).toList();
        Comparator<AttributeValue> order = (a, b) -> Arrays.compareUnsigned(a.b().asByteArray(), b.b().asByteArray());
        check(ddb, tables, ScalarAttributeType.B, keys, order);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Mixed signs, up to 38 digits, exponents across DynamoDB's whole range. */
    private static BigDecimal randomNumber(Random random) {
        int digits = 1 + random.nextInt(38);
        StringBuilder unscaled = new StringBuilder();
        unscaled.append((char) ('1' + random.nextInt(9)));
        for (int i = 1; i < digits; i++) {
            unscaled.append((char) ('0' + random.nextInt(10)));
        }
        int exponent = random.nextInt(5) == 0 ? -129 + random.nextInt(254) : -5 + random.nextInt(10);
        int scale = digits - exponent;
        BigDecimal v = new BigDecimal(new java.math.BigInteger(unscaled.toString()), scale);
        return (random.nextBoolean() ? v : v.negate()).stripTrailingZeros();
    }

    private static void check(
            DynamoDbClient ddb,
            Tables tables,
            ScalarAttributeType type,
            List<AttributeValue> keys,
            Comparator<AttributeValue> order) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", type);
        for (AttributeValue k : keys) {
            ddb.putItem(b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS("p"), "sk", k)));
        }
        List<AttributeValue> expected = new ArrayList<>(keys);
        expected.sort(order);
        // Numbers are compared by value: DynamoDB prints them in its own normal form, not as they were sent.
        Function<AttributeValue, String> show = a -> a.n() != null
                ? new BigDecimal(a.n()).stripTrailingZeros().toPlainString()
                : a.s() != null ? a.s() : a.b().toString();
        assertThat(queryAll(ddb, table, true).stream().map(show).toList())
                .isEqualTo(expected.stream().map(show).toList());
        List<AttributeValue> reversed = new ArrayList<>(expected);
        java.util.Collections.reverse(reversed);
        assertThat(queryAll(ddb, table, false).stream().map(show).toList())
                .isEqualTo(reversed.stream().map(show).toList());
    }

    private static List<AttributeValue> queryAll(DynamoDbClient ddb, String table, boolean forward) {
        List<AttributeValue> out = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            QueryRequest.Builder q = QueryRequest.builder()
                    .tableName(table)
                    .keyConditionExpression("pk = :p")
                    .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("p")))
                    .scanIndexForward(forward)
                    .consistentRead(true)
                    .limit(17);
            if (start != null) {
                q.exclusiveStartKey(start);
            }
            var page = ddb.query(q.build());
            page.items().forEach(i -> out.add(i.get("sk")));
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return out;
    }
}
