package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.AttributeValues.b;
import static io.partita.conformance.support.AttributeValues.bool;
import static io.partita.conformance.support.AttributeValues.bs;
import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.l;
import static io.partita.conformance.support.AttributeValues.m;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.ns;
import static io.partita.conformance.support.AttributeValues.nul;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.AttributeValues.sorted;
import static io.partita.conformance.support.AttributeValues.ss;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * ConditionExpression on PutItem, DeleteItem and UpdateItem (Expressions.ConditionExpressions,
 * Expressions.OperatorsAndFunctions): a false condition fails the write with ConditionalCheckFailedException and
 * changes nothing.
 *
 * <p>Most cases run the same condition against one richly typed item ({@link #ITEM}): a PutItem that rewrites the item
 * unchanged succeeds exactly when the condition holds. Cases are grouped per feature, one table per group, so the
 * class stays cheap against real DynamoDB; every case is reported through soft assertions.
 */
@ExtendWith(PartitaExtension.class)
class ConditionExpressionTest {
    private static final String FAILED = "The conditional request failed";
    private static final Map<String, AttributeValue> KEY = Map.of("pk", s("k"));

    /** One attribute of every type, plus nested documents for path cases. */
    private static final Map<String, AttributeValue> ITEM = item(
            "pk", s("k"),
            "s", s("hello"),
            "n", n("10"),
            "b", b(1, 2, 3),
            "t", bool(true),
            "z", nul(),
            "l", l(s("a"), n("1"), s("x")),
            "m", m("b", l(n("0"), m("c", s("deep"))), "name", s("inner")),
            "ss", ss("x", "y"),
            "ns", ns("1", "2", "3"),
            "bs", bs(new int[] {1}, new int[] {2}),
            // U+FF21 is EF BC A1 in UTF-8 but 0xFF21 in UTF-16, so it sorts below an emoji (F0 9F 98 80) by bytes and
            // above it (0xD83D 0xDE00) by Java's String.compareTo.
            "wide", s("\uFF21"));

    /** Every value a case may use; each request sends only the ones its expression names (unused ones are errors). */
    private static final Map<String, AttributeValue> VALUES = Map.ofEntries(
            Map.entry(":k", s("k")),
            Map.entry(":hello", s("hello")),
            Map.entry(":he", s("he")),
            Map.entry(":lo", s("lo")),
            Map.entry(":ell", s("ell")),
            Map.entry(":a", s("a")),
            Map.entry(":i", s("i")),
            Map.entry(":x", s("x")),
            Map.entry(":q", s("q")),
            Map.entry(":hellp", s("hellp")),
            Map.entry(":deep", s("deep")),
            Map.entry(":inner", s("inner")),
            Map.entry(":emoji", s("\uD83D\uDE00")),
            Map.entry(":zero", n("0")),
            Map.entry(":one", n("1")),
            Map.entry(":two", n("2")),
            Map.entry(":three", n("3")),
            Map.entry(":five", n("5")),
            Map.entry(":nine", n("9")),
            Map.entry(":ten", n("10")),
            Map.entry(":tenDot", n("10.0")),
            Map.entry(":eleven", n("11")),
            Map.entry(":strTen", s("10")),
            Map.entry(":b123", b(1, 2, 3)),
            Map.entry(":b12", b(1, 2)),
            Map.entry(":b124", b(1, 2, 4)),
            Map.entry(":b80", b(0x80)),
            Map.entry(":true", bool(true)),
            Map.entry(":tS", s("S")),
            Map.entry(":tN", s("N")),
            Map.entry(":tB", s("B")),
            Map.entry(":tBOOL", s("BOOL")),
            Map.entry(":tNULL", s("NULL")),
            Map.entry(":tL", s("L")),
            Map.entry(":tM", s("M")),
            Map.entry(":tSS", s("SS")),
            Map.entry(":tNS", s("NS")),
            Map.entry(":tBS", s("BS")));

    private static final Pattern VALUE_REF = Pattern.compile(":[A-Za-z0-9_]+");

    private static Map<String, AttributeValue> valuesFor(String expression) {
        Map<String, AttributeValue> used = new LinkedHashMap<>();
        Matcher m = VALUE_REF.matcher(expression);
        while (m.find()) {
            used.put(m.group(), VALUES.get(m.group()));
        }
        return used;
    }

    private static String tableWithItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        ddb.putItem(r -> r.tableName(table).item(ITEM));
        return table;
    }

    private static Map<String, AttributeValue> current(DynamoDbClient ddb, String table) {
        return ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                .item();
    }

    /**
     * "true" when {@code condition} holds for {@link #ITEM} (a PutItem of the same item under it succeeds), "false"
     * when it fails the check, and the error otherwise, so one wrong case does not hide the others.
     */
    private static String outcome(DynamoDbClient ddb, String table, String condition) {
        Map<String, AttributeValue> values = valuesFor(condition);
        try {
            ddb.putItem(r -> {
                r.tableName(table).item(ITEM).conditionExpression(condition);
                if (!values.isEmpty()) {
                    r.expressionAttributeValues(values);
                }
            });
            return "true";
        } catch (ConditionalCheckFailedException e) {
            return "false";
        } catch (DynamoDbException e) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
    }

    /** Checks every {@code condition → expected} pair against {@link #ITEM} and reports all mismatches together. */
    private static void assertConditions(DynamoDbClient ddb, Tables tables, Object... conditionsAndResults) {
        String table = tableWithItem(ddb, tables);
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < conditionsAndResults.length; i += 2) {
            String condition = (String) conditionsAndResults[i];
            boolean expected = (Boolean) conditionsAndResults[i + 1];
            soft.assertThat(outcome(ddb, table, condition)).as(condition).isEqualTo(String.valueOf(expected));
        }
        soft.assertAll();
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    private static ConditionalCheckFailedException assertConditionFailed(ThrowingCallable call) {
        return assertError(ConditionalCheckFailedException.class, "ConditionalCheckFailedException", FAILED, call);
    }

    // ---- insert-only and "nothing changed" on each operation ----

    @Test
    void attributeNotExistsOnTheKeyMakesPutInsertOnly(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        Map<String, AttributeValue> first = item("pk", s("k"), "v", n("1"));
        Map<String, AttributeValue> second = item("pk", s("k"), "v", n("2"));

        ddb.putItem(r -> r.tableName(table).item(first).conditionExpression("attribute_not_exists(pk)"));

        assertConditionFailed(() ->
                ddb.putItem(r -> r.tableName(table).item(second).conditionExpression("attribute_not_exists(pk)")));
        assertThat(current(ddb, table)).isEqualTo(first);
    }

    @Test
    void failedConditionOnDeleteKeepsTheItem(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertConditionFailed(() -> ddb.deleteItem(r -> r.tableName(table)
                .key(KEY)
                .conditionExpression("n > :ten")
                .expressionAttributeValues(valuesFor(":ten"))));

        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    @Test
    void trueConditionOnDeleteDeletes(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ddb.deleteItem(r -> r.tableName(table)
                .key(KEY)
                .conditionExpression("n = :ten")
                .expressionAttributeValues(valuesFor(":ten")));

        assertThat(ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                        .hasItem())
                .isFalse();
    }

    @Test
    void failedConditionOnUpdateChangesNothing(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertConditionFailed(() -> ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .updateExpression("SET s = :x REMOVE n")
                .conditionExpression("s = :hellp")
                .expressionAttributeValues(valuesFor(":x :hellp"))));

        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    @Test
    void trueConditionOnUpdateApplies(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .updateExpression("SET s = :x")
                .conditionExpression("s = :hello")
                .expressionAttributeValues(valuesFor(":x :hello")));

        assertThat(current(ddb, table)).containsEntry("s", s("x"));
    }

    /** A condition that needs the item fails on a missing item, and UpdateItem then does not create it. */
    @Test
    void attributeExistsOnAMissingItemFailsAndCreatesNothing(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        assertConditionFailed(() -> ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .updateExpression("SET v = :one")
                .conditionExpression("attribute_exists(pk)")
                .expressionAttributeValues(valuesFor(":one"))));

        assertThat(ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                        .hasItem())
                .isFalse();
    }

    @Test
    void returnValuesOnConditionCheckFailureAllOldReturnsTheItem(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ConditionalCheckFailedException e = assertConditionFailed(() -> ddb.putItem(r -> r.tableName(table)
                .item(KEY)
                .conditionExpression("attribute_not_exists(pk)")
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));

        assertThat(sorted(e.item())).isEqualTo(sorted(ITEM));
    }

    @Test
    void returnValuesOnConditionCheckFailureAllOldOnUpdateAndDelete(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ConditionalCheckFailedException onUpdate = assertConditionFailed(() -> ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .updateExpression("SET s = :x")
                .conditionExpression("s = :hellp")
                .expressionAttributeValues(valuesFor(":x :hellp"))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
        ConditionalCheckFailedException onDelete = assertConditionFailed(() -> ddb.deleteItem(r -> r.tableName(table)
                .key(KEY)
                .conditionExpression("attribute_not_exists(s)")
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));

        assertThat(sorted(onUpdate.item())).isEqualTo(sorted(ITEM));
        assertThat(sorted(onDelete.item())).isEqualTo(sorted(ITEM));
    }

    @Test
    void withoutReturnValuesOnConditionCheckFailureNoItemIsReturned(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ConditionalCheckFailedException e = assertConditionFailed(() -> ddb.putItem(r -> r.tableName(table)
                .item(KEY)
                .conditionExpression("attribute_not_exists(pk)")
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.NONE)));

        assertThat(e.hasItem()).isFalse();
    }

    // ---- comparisons ----

    @Test
    void numberComparisonsAreNumeric(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "n = :ten",
                true,
                "n = :tenDot",
                true,
                "n <> :ten",
                false,
                "n <> :nine",
                true,
                "n > :nine",
                true, // "10" < "9" as text
                "n >= :ten",
                true,
                "n < :eleven",
                true,
                "n <= :nine",
                false,
                "n < :ten",
                false,
                ":nine < n",
                true);
    }

    @Test
    void stringComparisonsAreByUtf8Bytes(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "s = :hello",
                true,
                "s <> :hello",
                false,
                "s < :hellp",
                true,
                "s > :he",
                true,
                "s >= :hello",
                true,
                "s <= :he",
                false,
                "s > :i",
                false,
                "wide < :emoji",
                true,
                "wide > :emoji",
                false);
    }

    /** Binary compares as unsigned bytes: 0x80 sorts above 0x01. */
    @Test
    void binaryComparisonsAreByUnsignedBytes(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "b = :b123",
                true,
                "b <> :b123",
                false,
                "b > :b12",
                true,
                "b < :b124",
                true,
                "b < :b80",
                true,
                "b >= :b80",
                false);
    }

    /** Operands of different types never compare: every ordering is false and {@code <>} is true, no error. */
    @Test
    void comparingDifferentTypesIsFalseNotAnError(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "n = :strTen",
                false,
                "n < :strTen",
                false,
                "n >= :strTen",
                false,
                "s > :one",
                false,
                "s <= :one",
                false,
                "b = :hello",
                false,
                "n <> :strTen",
                true,
                "absent = :ten",
                false,
                "absent < :ten",
                false);
    }

    @Test
    void betweenIsInclusive(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "n BETWEEN :five AND :ten",
                true,
                "n BETWEEN :ten AND :eleven",
                true,
                "n BETWEEN :five AND :nine",
                false,
                "s BETWEEN :a AND :i",
                true,
                "s BETWEEN :hellp AND :x",
                false,
                "b BETWEEN :b12 AND :b80",
                true,
                "absent BETWEEN :one AND :ten",
                false);
    }

    @Test
    void inMatchesAnyListedValue(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "s IN (:a, :hello)",
                true,
                "s IN (:a)",
                false,
                "n IN (:nine, :tenDot)",
                true,
                "n IN (:nine, :five, :strTen)",
                false,
                "b IN (:b123)",
                true,
                "absent IN (:one, :two)",
                false);
    }

    // ---- AND, OR, NOT ----

    /**
     * NOT binds tighter than AND, and AND tighter than OR (Expressions.OperatorsAndFunctions, "Precedence in
     * conditions"). T is attribute_exists(s), F is attribute_exists(absent).
     */
    @Test
    void notBindsTighterThanAndWhichBindsTighterThanOr(DynamoDbClient ddb, Tables tables) {
        String t = "attribute_exists(s)";
        String f = "attribute_exists(absent)";
        assertConditions(
                ddb,
                tables,
                t + " OR " + t + " AND " + f,
                true, // T OR (T AND F), not (T OR T) AND F
                f + " AND " + f + " OR " + t,
                true, // (F AND F) OR T, not F AND (F OR T)
                "NOT " + f + " AND " + f,
                false, // (NOT F) AND F, not NOT (F AND F)
                "NOT " + t + " OR " + t,
                true, // (NOT T) OR T, not NOT (T OR T)
                t + " AND NOT " + f,
                true,
                "NOT NOT " + t,
                true,
                f + " OR " + f + " OR " + t,
                true,
                t + " AND " + t + " AND " + f,
                false);
    }

    @Test
    void parenthesesOverridePrecedence(DynamoDbClient ddb, Tables tables) {
        String t = "attribute_exists(s)";
        String f = "attribute_exists(absent)";
        assertConditions(
                ddb,
                tables,
                "(" + t + " OR " + t + ") AND " + f,
                false,
                f + " AND (" + f + " OR " + t + ")",
                false,
                "NOT (" + f + " AND " + f + ")",
                true,
                "NOT (" + t + " OR " + t + ")",
                false,
                "(n = :ten) AND (s = :hello)",
                true);
    }

    // ---- functions ----

    @Test
    void attributeExistsAndAttributeNotExists(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "attribute_exists(pk)",
                true,
                "attribute_exists(s)",
                true,
                "attribute_exists(z)",
                true, // a NULL value still exists
                "attribute_exists(absent)",
                false,
                "attribute_not_exists(absent)",
                true,
                "attribute_not_exists(s)",
                false);
    }

    @Test
    void attributeTypeMatchesEachOfTheTenTypes(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "attribute_type(s, :tS)",
                true,
                "attribute_type(n, :tN)",
                true,
                "attribute_type(b, :tB)",
                true,
                "attribute_type(t, :tBOOL)",
                true,
                "attribute_type(z, :tNULL)",
                true,
                "attribute_type(l, :tL)",
                true,
                "attribute_type(m, :tM)",
                true,
                "attribute_type(ss, :tSS)",
                true,
                "attribute_type(ns, :tNS)",
                true,
                "attribute_type(bs, :tBS)",
                true,
                "attribute_type(s, :tN)",
                false,
                "attribute_type(ss, :tS)",
                false,
                "attribute_type(l, :tM)",
                false,
                "attribute_type(absent, :tS)",
                false);
    }

    @Test
    void beginsWithOnStringsAndBinary(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "begins_with(s, :he)",
                true,
                "begins_with(s, :hello)",
                true,
                "begins_with(s, :lo)",
                false,
                "begins_with(s, :hellp)",
                false,
                "begins_with(b, :b12)",
                true,
                "begins_with(b, :b80)",
                false,
                "begins_with(absent, :he)",
                false,
                "begins_with(n, :he)",
                false);
    }

    @Test
    void containsSubstringSetMemberAndListElement(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "contains(s, :ell)",
                true,
                "contains(s, :hello)",
                true,
                "contains(s, :q)",
                false,
                "contains(ss, :x)",
                true,
                "contains(ss, :q)",
                false,
                "contains(ns, :two)",
                true,
                "contains(ns, :five)",
                false,
                "contains(bs, :b80)",
                false,
                "contains(l, :a)",
                true,
                "contains(l, :one)",
                true,
                "contains(l, :q)",
                false,
                "contains(absent, :a)",
                false);
    }

    /** size() is a string's length, a binary's byte count, and a set's, list's or map's element count. */
    @Test
    void sizeInComparisons(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "size(s) = :five",
                true,
                "size(b) = :three",
                true,
                "size(ss) = :two",
                true,
                "size(ns) = :three",
                true,
                "size(bs) = :two",
                true,
                "size(l) = :three",
                true,
                "size(m) = :two",
                true,
                "size(m.b) = :two",
                true,
                "size(s) > :nine",
                false,
                "size(l) BETWEEN :two AND :five",
                true,
                "size(ss) IN (:one, :two)",
                true,
                "size(s) < size(l)",
                false,
                "size(absent) = :zero",
                false);
    }

    // ---- document paths ----

    @Test
    void nestedDocumentPaths(DynamoDbClient ddb, Tables tables) {
        assertConditions(
                ddb,
                tables,
                "m.b[1].c = :deep",
                true,
                "m.b[0] = :zero",
                true,
                "l[0] = :a",
                true,
                "l[1] = :one",
                true,
                "attribute_exists(m.b[1].c)",
                true,
                "attribute_not_exists(m.b[5])",
                true,
                "attribute_not_exists(m.absent.x)",
                true,
                "attribute_not_exists(s.x)",
                true, // through a non-map: simply absent
                "attribute_not_exists(l[0].x)",
                true,
                "attribute_type(m.b, :tL)",
                true,
                "begins_with(m.b[1].c, :he)",
                false);
    }

    /** ExpressionAttributeNames substitutes whole path elements, including reserved words. */
    @Test
    void placeholdersInPaths(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ddb.putItem(r -> r.tableName(table)
                .item(ITEM)
                .conditionExpression("#m.#b[1].#c = :deep AND #size = :hello AND #m.#name = :inner")
                .expressionAttributeNames(Map.of("#m", "m", "#b", "b", "#c", "c", "#size", "s", "#name", "name"))
                .expressionAttributeValues(valuesFor(":deep :hello :inner")));

        assertConditionFailed(() -> ddb.putItem(r -> r.tableName(table)
                .item(ITEM)
                .conditionExpression("#m.#b[1].#c <> :deep")
                .expressionAttributeNames(Map.of("#m", "m", "#b", "b", "#c", "c"))
                .expressionAttributeValues(valuesFor(":deep"))));
    }
    // ---- errors ----

    private static void putUnder(DynamoDbClient ddb, String table, String condition, Map<String, String> names) {
        Map<String, AttributeValue> values = valuesFor(condition);
        ddb.putItem(r -> {
            r.tableName(table).item(ITEM).conditionExpression(condition);
            if (!values.isEmpty()) {
                r.expressionAttributeValues(values);
            }
            if (!names.isEmpty()) {
                r.expressionAttributeNames(names);
            }
        });
    }

    /** A bare path is not a condition: the parser wants a comparator and finds the end (truora/minidyn#21). */
    @Test
    void syntaxErrorAtTheEndNamesEof(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"#h\"",
                () -> putUnder(ddb, table, "attribute_exists(pk) AND NOT #h", Map.of("#h", "h")));
    }

    @Test
    void invalidConditionsAreRejectedAndChangeNothing(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Invalid ConditionExpression: The expression has redundant parentheses;",
                () -> putUnder(ddb, table, "((attribute_exists(s)))", Map.of()));
        assertInvalid(
                "Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS",
                () -> putUnder(ddb, table, "ATTRIBUTE_EXISTS(s)", Map.of()));
        // MISSING is on the reserved-word list (ReservedWords), like NAME, STATUS, SIZE and COUNTER.
        assertInvalid(
                "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: missing",
                () -> putUnder(ddb, table, "attribute_not_exists(missing)", Map.of()));
        assertInvalid(
                "Invalid ConditionExpression: An expression attribute value used in expression is not defined;"
                        + " attribute value: :v",
                () -> ddb.putItem(r -> r.tableName(table).item(ITEM).conditionExpression("s = :v")));
        assertInvalid(
                "Invalid ConditionExpression: The expression can not be empty;",
                () -> ddb.putItem(r -> r.tableName(table).item(ITEM).conditionExpression("")));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }
}
