package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.l;
import static io.partita.conformance.support.AttributeValues.m;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * GetItem with a ProjectionExpression (Expressions.ProjectionExpressions): top-level and nested document paths,
 * list elements, placeholders and reserved words.
 */
@ExtendWith(PartitaExtension.class)
class ProjectionExpressionTest {
    private static final Map<String, AttributeValue> KEY = Map.of("pk", s("k"));
    private static final Map<String, AttributeValue> ITEM = item(
            "pk", s("k"),
            "top", s("t"),
            "a", m("b", s("x"), "c", n("1"), "d", m("e", s("deep"))),
            "l", l(m("b", s("first"), "z", n("1")), s("second"), s("third")),
            "name", s("n"),
            "status", s("st"),
            "size", n("3"));

    private static String tableWithItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        ddb.putItem(r -> r.tableName(table).item(ITEM));
        return table;
    }

    private static GetItemResponse get(DynamoDbClient ddb, String table, String projection) {
        return ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true).projectionExpression(projection));
    }

    private static GetItemResponse get(DynamoDbClient ddb, String table, String projection, Map<String, String> names) {
        return ddb.getItem(r -> r.tableName(table)
                .key(KEY)
                .consistentRead(true)
                .projectionExpression(projection)
                .expressionAttributeNames(names));
    }

    @Test
    void topLevelAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "top, pk").item()).isEqualTo(item("top", s("t"), "pk", s("k")));
    }

    @Test
    void nestedMapPath(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "a.b").item()).isEqualTo(item("a", m("b", s("x"))));
        assertThat(get(ddb, table, "a.d.e").item()).isEqualTo(item("a", m("d", m("e", s("deep")))));
    }

    /** Two paths into the same map are merged into one projected map. */
    @Test
    void siblingPathsAreMerged(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "a.b, a.c, top").item())
                .isEqualTo(item("a", m("b", s("x"), "c", n("1")), "top", s("t")));
    }

    /** A list element comes back inside a list holding only the projected elements, in list order. */
    @Test
    void listElementsComeBackInAShorterList(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "l[1]").item()).isEqualTo(item("l", l(s("second"))));
        assertThat(get(ddb, table, "l[2], l[1]").item()).isEqualTo(item("l", l(s("second"), s("third"))));
    }

    @Test
    void pathThroughAListElement(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "l[0].b").item()).isEqualTo(item("l", l(m("b", s("first")))));
        assertThat(get(ddb, table, "l[0]").item()).isEqualTo(item("l", l(m("b", s("first"), "z", n("1")))));
        assertThat(get(ddb, table, "l[0].b, l[2]").item()).isEqualTo(item("l", l(m("b", s("first")), s("third"))));
    }

    @Test
    void placeholdersInNestedPaths(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "#n.#m", Map.of("#n", "a", "#m", "b")).item())
                .isEqualTo(item("a", m("b", s("x"))));
        assertThat(get(ddb, table, "#l[0].#b", Map.of("#l", "l", "#b", "b")).item())
                .isEqualTo(item("l", l(m("b", s("first")))));
    }

    /** A placeholder names one whole attribute, dots included: "#d" for "a.b" is a top-level name. */
    @Test
    void aPlaceholderIsOneNameEvenWithADot(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        ddb.putItem(r -> r.tableName(table).item(item("pk", s("k"), "a.b", s("dotted"), "a", m("b", s("nested")))));

        assertThat(get(ddb, table, "#d", Map.of("#d", "a.b")).item()).isEqualTo(item("a.b", s("dotted")));
    }

    @Test
    void missingPathsAreOmitted(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "top, nothere, a.absent, a.b.c, l[9]").item())
                .isEqualTo(item("top", s("t")));
    }

    /** A path that indexes a map or descends into a scalar matches nothing; it is not an error. */
    @Test
    void pathsThroughTheWrongTypeAreOmitted(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertThat(get(ddb, table, "pk, top.x, a[0], l.b").item()).isEqualTo(item("pk", s("k")));
    }

    /** The item exists but none of the projected paths do: an empty Item, not a missing one. */
    @Test
    void projectingOnlyMissingPathsReturnsAnEmptyItem(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r = get(ddb, table, "nothere, l[9]");

        assertThat(r.item()).isEmpty();
    }

    @Test
    void projectionOnAMissingItemReturnsNoItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertThat(get(ddb, table, "a.b").hasItem()).isFalse();
    }

    @Test
    void overlappingPathsAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one"
                        + " of these paths; path one: [a], path two: [a, b]",
                () -> get(ddb, table, "a, a.b"));
        assertInvalid(
                "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one"
                        + " of these paths; path one: [top], path two: [top]",
                () -> get(ddb, table, "top, #t", Map.of("#t", "top")));
    }

    @Test
    void listIndexAndMapKeyAtTheSameLevelConflict(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one"
                        + " of these paths; path one: [a, b], path two: [a, [1]]",
                () -> get(ddb, table, "a.b, a[1]"));
    }

    /** Reserved words (ReservedWords page) are rejected bare, with the case used in the request. */
    @ParameterizedTest
    @ValueSource(strings = {"name", "status", "size", "Name", "COUNT"})
    void reservedWordsUsedBareAreRejected(String word, DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: " + word,
                () -> get(ddb, table, "top, " + word));
    }

    @Test
    void reservedWordsInsideAPathAreRejectedToo(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status",
                () -> get(ddb, table, "a.status"));
    }

    @Test
    void reservedWordsWorkThroughPlaceholders(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        GetItemResponse r =
                get(ddb, table, "#name, #status, #size", Map.of("#name", "name", "#status", "status", "#size", "size"));

        assertThat(r.item()).isEqualTo(item("name", s("n"), "status", s("st"), "size", n("3")));
    }

    @Test
    void undefinedAndUnusedNamesAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined;"
                        + " attribute name: #x",
                () -> get(ddb, table, "top, #x"));
        assertInvalid(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
                () -> get(ddb, table, "top", Map.of("#unused", "u")));
    }

    @Test
    void syntaxErrorIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\"",
                () -> get(ddb, table, "top,"));
    }

    /** An index too large to parse is its own error (scylladb/scylladb#25951, from real DynamoDB). */
    @Test
    void hugeListIndexIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ProjectionExpression: List index is not within the allowable range; index: [99999999999999]",
                () -> get(ddb, table, "l[99999999999999]"));
    }
}
