package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.l;
import static io.partita.conformance.support.AttributeValues.m;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.ns;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.AttributeValues.sorted;
import static io.partita.conformance.support.AttributeValues.ss;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static io.partita.conformance.support.ExpressionErrors.assertInvalidContaining;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * UpdateItem with an UpdateExpression (Expressions.UpdateExpressions, API_UpdateItem): SET, REMOVE, ADD and DELETE,
 * the values returned, and the validation errors.
 */
@ExtendWith(PartitaExtension.class)
class UpdateExpressionTest {
    private static final Map<String, AttributeValue> KEY = Map.of("pk", s("k"));

    private static String table(Tables tables) {
        return tables.hashTable("pk", ScalarAttributeType.S);
    }

    /** A table holding {@code pk = "k"} plus the given attributes. */
    private static String tableWith(DynamoDbClient ddb, Tables tables, Object... namesAndValues) {
        String table = table(tables);
        Map<String, AttributeValue> item = item(namesAndValues);
        item.put("pk", s("k"));
        ddb.putItem(r -> r.tableName(table).item(item));
        return table;
    }

    private static boolean exists(DynamoDbClient ddb, String table) {
        return ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                .hasItem();
    }

    private static Map<String, AttributeValue> current(DynamoDbClient ddb, String table) {
        return ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                .item();
    }

    /** The stored item, sets sorted, compared with {@code pk = "k"} plus the given attributes. */
    private static void assertItem(DynamoDbClient ddb, String table, Object... namesAndValues) {
        Map<String, AttributeValue> expected = item(namesAndValues);
        expected.put("pk", s("k"));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(expected));
    }

    private static UpdateItemResponse update(
            DynamoDbClient ddb, String table, String expression, Object... valuesAndMore) {
        return ddb.updateItem(request(table, expression, valuesAndMore).build());
    }

    /** An UpdateItem request on {@link #KEY}; {@code values} alternate ":name", value. */
    private static UpdateItemRequest.Builder request(String table, String expression, Object... values) {
        UpdateItemRequest.Builder r =
                UpdateItemRequest.builder().tableName(table).key(KEY).updateExpression(expression);
        if (values.length > 0) {
            r.expressionAttributeValues(item(values));
        }
        return r;
    }

    // ---- creation ----

    @Test
    void updateCreatesTheItemWhenAbsent(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        update(ddb, table, "SET a = :one", ":one", n("1"));

        assertItem(ddb, table, "a", n("1"));
    }

    @Test
    void addCreatesTheItemWhenAbsent(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        update(ddb, table, "ADD c :five, tags :t", ":five", n("5"), ":t", ss("x"));

        assertItem(ddb, table, "c", n("5"), "tags", ss("x"));
    }

    // ---- SET ----

    @Test
    void setSeveralAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("old"), "keep", s("k"));

        ddb.updateItem(
                request(table, "SET a = :a, b = :b, #c = :c", ":a", s("new"), ":b", l(n("1")), ":c", m("x", s("y")))
                        .expressionAttributeNames(Map.of("#c", "name"))
                        .build());

        assertItem(ddb, table, "a", s("new"), "keep", s("k"), "b", l(n("1")), "name", m("x", s("y")));
    }

    @Test
    void setANestedMapPath(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "m", m("x", s("1"), "kid", m("y", s("2"))));

        update(ddb, table, "SET m.x = :a, m.kid.z = :b, m.added = :c", ":a", s("A"), ":b", s("B"), ":c", s("C"));

        assertItem(ddb, table, "m", m("x", s("A"), "kid", m("y", s("2"), "z", s("B")), "added", s("C")));
    }

    @Test
    void setAListElementReplacesIt(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("a"), s("b"), s("c")), "m", m("l", l(m("x", n("1")))));

        update(ddb, table, "SET l[1] = :v, m.l[0].x = :two", ":v", s("B"), ":two", n("2"));

        assertItem(ddb, table, "l", l(s("a"), s("B"), s("c")), "m", m("l", l(m("x", n("2")))));
    }

    /** "If the element doesn't already exist, SET appends the new element to the end of the list" (no padding). */
    @Test
    void setPastTheEndOfAListAppends(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("a"), s("b"), s("c")));

        update(ddb, table, "SET l[10] = :x", ":x", s("x"));

        assertItem(ddb, table, "l", l(s("a"), s("b"), s("c"), s("x")));
    }

    /** Several new elements in one SET are appended in order of their indexes, not of the actions. */
    @Test
    void setPastTheEndTwiceAppendsInIndexOrder(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("a")));

        update(ddb, table, "SET l[9] = :late, l[5] = :early", ":late", s("late"), ":early", s("early"));

        assertItem(ddb, table, "l", l(s("a"), s("early"), s("late")));
    }

    @Test
    void setArithmetic(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", n("10"), "b", n("3"));

        update(ddb, table, "SET a = a + :v, c = :v - b, d = a - b", ":v", n("2.5"));

        assertItem(ddb, table, "a", n("12.5"), "b", n("3"), "c", n("-0.5"), "d", n("7"));
    }

    /** Every action reads the item as it was before the update, so two SETs can swap attributes. */
    @Test
    void actionsReadTheItemAsItWasBeforeTheUpdate(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"), "b", s("B"));

        update(ddb, table, "SET a = b, b = a");

        assertItem(ddb, table, "a", s("B"), "b", s("A"));
    }

    @Test
    void ifNotExistsKeepsAnExistingValueAndFillsAMissingOne(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", n("1"));

        update(
                ddb,
                table,
                "SET a = if_not_exists(a, :v), b = if_not_exists(b, :v), c = if_not_exists(a, :v) + :v",
                ":v",
                n("7"));

        assertItem(ddb, table, "a", n("1"), "b", n("7"), "c", n("8"));
    }

    @Test
    void listAppendInBothOrders(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("b")), "r", l(s("b")));

        update(ddb, table, "SET l = list_append(l, :more), r = list_append(:more, r)", ":more", l(s("c"), n("1")));

        assertItem(ddb, table, "l", l(s("b"), s("c"), n("1")), "r", l(s("c"), n("1"), s("b")));
    }

    @Test
    void listAppendWithIfNotExistsStartsANewList(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        update(ddb, table, "SET l = list_append(if_not_exists(l, :empty), :one)", ":empty", l(), ":one", l(s("x")));

        assertItem(ddb, table, "l", l(s("x")));
    }

    // ---- REMOVE ----

    @Test
    void removeAttributesAndNestedPaths(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"), "b", s("B"), "m", m("x", s("1"), "y", s("2")));

        update(ddb, table, "REMOVE a, m.x, absent, m.absent");

        assertItem(ddb, table, "b", s("B"), "m", m("y", s("2")));
    }

    /** Removing list elements shifts the rest down; all indexes refer to the list before the update. */
    @Test
    void removeListElementsShiftsTheRest(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("a"), s("b"), s("c"), s("d")));

        update(ddb, table, "REMOVE l[0], l[2]");

        assertItem(ddb, table, "l", l(s("b"), s("d")));
    }

    @Test
    void setAndRemoveInOneExpression(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"), "b", s("B"));

        update(ddb, table, "REMOVE a SET c = :c", ":c", s("C"));

        assertItem(ddb, table, "b", s("B"), "c", s("C"));
    }

    // ---- ADD and DELETE ----

    @Test
    void addIncrementsANumber(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "c", n("5"));

        update(ddb, table, "ADD c :v", ":v", n("-7.5"));

        assertItem(ddb, table, "c", n("-2.5"));
    }

    @Test
    void addCreatesAMissingAttribute(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"));

        update(ddb, table, "ADD c :v, nums :ns", ":v", n("3"), ":ns", ns("1", "2"));

        assertItem(ddb, table, "a", s("A"), "c", n("3"), "nums", ns("1", "2"));
    }

    @Test
    void addToASetIsAUnion(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "tags", ss("a", "b"), "nums", ns("1", "2"));

        update(ddb, table, "ADD tags :t, nums :n", ":t", ss("b", "c"), ":n", ns("2", "3"));

        assertItem(ddb, table, "tags", ss("a", "b", "c"), "nums", ns("1", "2", "3"));
    }

    @Test
    void deleteFromASetIsADifference(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "tags", ss("a", "b", "c"), "nums", ns("1", "2"));

        update(ddb, table, "DELETE tags :t, nums :n", ":t", ss("a", "c", "zzz"), ":n", ns("3"));

        assertItem(ddb, table, "tags", ss("b"), "nums", ns("1", "2"));
    }

    /** An empty set cannot be stored: deleting every element removes the attribute. */
    @Test
    void deletingEveryElementRemovesTheAttribute(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "tags", ss("a", "b"), "a", s("A"));

        update(ddb, table, "DELETE tags :t", ":t", ss("a", "b"));

        assertItem(ddb, table, "a", s("A"));
    }

    @Test
    void allFourClausesTogether(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"), "c", n("1"), "tags", ss("x", "y"));

        update(
                ddb,
                table,
                "DELETE tags :x ADD c :one REMOVE a SET b = :b",
                ":x",
                ss("x"),
                ":one",
                n("1"),
                ":b",
                s("B"));

        assertItem(ddb, table, "b", s("B"), "c", n("2"), "tags", ss("y"));
    }

    // ---- ReturnValues ----

    private static final String RV_UPDATE = "SET a = :two, d = :d REMOVE b";

    private static UpdateItemResponse updateReturning(DynamoDbClient ddb, Tables tables, ReturnValue rv) {
        String table = tableWith(ddb, tables, "a", n("1"), "b", s("x"), "c", s("keep"));
        return ddb.updateItem(request(table, RV_UPDATE, ":two", n("2"), ":d", s("new"))
                .returnValues(rv)
                .build());
    }

    @Test
    void returnValuesNone(DynamoDbClient ddb, Tables tables) {
        assertThat(updateReturning(ddb, tables, ReturnValue.NONE).hasAttributes())
                .isFalse();
    }

    @Test
    void returnValuesAllOld(DynamoDbClient ddb, Tables tables) {
        assertThat(updateReturning(ddb, tables, ReturnValue.ALL_OLD).attributes())
                .isEqualTo(item("pk", s("k"), "a", n("1"), "b", s("x"), "c", s("keep")));
    }

    /** Only the attributes the update touched, as they were; {@code d} did not exist, so it is absent. */
    @Test
    void returnValuesUpdatedOld(DynamoDbClient ddb, Tables tables) {
        assertThat(updateReturning(ddb, tables, ReturnValue.UPDATED_OLD).attributes())
                .isEqualTo(item("a", n("1"), "b", s("x")));
    }

    @Test
    void returnValuesAllNew(DynamoDbClient ddb, Tables tables) {
        assertThat(updateReturning(ddb, tables, ReturnValue.ALL_NEW).attributes())
                .isEqualTo(item("pk", s("k"), "a", n("2"), "c", s("keep"), "d", s("new")));
    }

    /** Only the attributes the update touched, as they are now; the removed {@code b} is absent. */
    @Test
    void returnValuesUpdatedNew(DynamoDbClient ddb, Tables tables) {
        assertThat(updateReturning(ddb, tables, ReturnValue.UPDATED_NEW).attributes())
                .isEqualTo(item("a", n("2"), "d", s("new")));
    }

    @Test
    void returnValuesAllOldOnANewItemReturnsNothing(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        UpdateItemResponse r = ddb.updateItem(request(table, "SET a = :v", ":v", s("A"))
                .returnValues(ReturnValue.ALL_OLD)
                .build());

        assertThat(r.hasAttributes()).isFalse();
    }

    /** For a nested update, UPDATED_OLD/UPDATED_NEW return just the updated part of the document. */
    @Test
    void returnValuesUpdatedOnANestedPathReturnOnlyThatPath(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "m", m("x", s("1"), "y", s("2")), "other", s("o"));

        UpdateItemResponse oldValues = ddb.updateItem(request(table, "SET m.x = :v", ":v", s("A"))
                .returnValues(ReturnValue.UPDATED_OLD)
                .build());
        UpdateItemResponse newValues = ddb.updateItem(request(table, "SET m.x = :v", ":v", s("B"))
                .returnValues(ReturnValue.UPDATED_NEW)
                .build());

        assertThat(oldValues.attributes()).isEqualTo(item("m", m("x", s("1"))));
        assertThat(newValues.attributes()).isEqualTo(item("m", m("x", s("B"))));
    }

    @Test
    void returnValuesUpdatedNewAfterAdd(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "c", n("41"));

        UpdateItemResponse r = ddb.updateItem(request(table, "ADD c :one", ":one", n("1"))
                .returnValues(ReturnValue.UPDATED_NEW)
                .build());

        assertThat(r.attributes()).isEqualTo(item("c", n("42")));
    }

    // ---- errors: nothing is written ----

    @Test
    void updatingAKeyAttributeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"));

        assertInvalid(
                "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
                () -> update(ddb, table, "SET pk = :v", ":v", s("other")));
        assertInvalid(
                "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
                () -> update(ddb, table, "REMOVE pk"));
        assertItem(ddb, table, "a", s("A"));
    }

    @Test
    void updatingTheSortKeyIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tables.rangeTable("pk", ScalarAttributeType.S, "sk", ScalarAttributeType.N);
        Map<String, AttributeValue> key = Map.of("pk", s("k"), "sk", n("1"));

        assertInvalid(
                "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(key)
                        .updateExpression("ADD sk :one")
                        .expressionAttributeValues(Map.of(":one", n("1")))));
    }

    /** Paths are printed with the placeholders substituted, in the order they appear. */
    @Test
    void overlappingPathsAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of"
                        + " these paths; path one: [a], path two: [a, b]",
                () -> update(ddb, table, "SET a = :v, a.b = :w", ":v", m(), ":w", s("W")));
        assertInvalid(
                "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of"
                        + " these paths; path one: [a], path two: [a]",
                () -> ddb.updateItem(request(table, "SET #a = :v, a = :w", ":v", s("V"), ":w", s("W"))
                        .expressionAttributeNames(Map.of("#a", "a"))
                        .build()));
        assertInvalid(
                "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of"
                        + " these paths; path one: [m, x], path two: [m]",
                () -> update(ddb, table, "SET m.x = :v REMOVE m", ":v", s("V")));
        assertThat(exists(ddb, table)).isFalse();
    }

    /** A list index and a map key at the same level cannot both apply. */
    @Test
    void conflictingPathsAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of"
                        + " these paths; path one: [a, c], path two: [a, [1]]",
                () -> update(ddb, table, "REMOVE a.c SET a[1] = :v", ":v", s("V")));
    }

    @Test
    void addWithAStringValueIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"));

        assertInvalid(
                "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type:"
                        + " STRING",
                () -> update(ddb, table, "ADD a :v", ":v", s("x")));
        assertInvalid(
                "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand"
                        + " type: NUMBER",
                () -> update(ddb, table, "DELETE a :v", ":v", n("1")));
        assertItem(ddb, table, "a", s("A"));
    }

    /** A valid number ADDed to a stored string fails only once the item is read. */
    @Test
    void addToAStoredStringIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", s("A"), "tags", ss("x"));

        assertInvalid(
                "An operand in the update expression has an incorrect data type",
                () -> update(ddb, table, "ADD a :v", ":v", n("1")));
        assertInvalid(
                "An operand in the update expression has an incorrect data type",
                () -> update(ddb, table, "ADD tags :v", ":v", ns("1")));
        assertInvalid(
                "An operand in the update expression has an incorrect data type",
                () -> update(ddb, table, "SET b = a + :v", ":v", n("1")));
        assertItem(ddb, table, "a", s("A"), "tags", ss("x"));
    }

    @Test
    void listAppendWithANonListIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "l", l(s("a")), "str", s("x"));

        assertInvalid(
                "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function:"
                        + " list_append, operand type: M",
                () -> update(ddb, table, "SET l = list_append(l, :v)", ":v", m("x", s("y"))));
        assertInvalid(
                "An operand in the update expression has an incorrect data type",
                () -> update(ddb, table, "SET l = list_append(l, str)"));
        assertItem(ddb, table, "l", l(s("a")), "str", s("x"));
    }

    @Test
    void arithmeticWithAWrongTypeLiteralIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", n("1"));

        assertInvalid(
                "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +,"
                        + " operand type: S",
                () -> update(ddb, table, "SET a = a + :v", ":v", s("1")));
    }

    @Test
    void arithmeticOnAMissingAttributeIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", n("1"));

        assertInvalid(
                "The provided expression refers to an attribute that does not exist in the item",
                () -> update(ddb, table, "SET a = absent + :one", ":one", n("1")));
        assertInvalid(
                "The provided expression refers to an attribute that does not exist in the item",
                () -> update(ddb, table, "SET b = absent"));
        assertItem(ddb, table, "a", n("1"));
    }

    @Test
    void setThroughAMissingParentIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "a", n("1"));

        assertInvalid(
                "The document path provided in the update expression is invalid for update",
                () -> update(ddb, table, "SET absent.x = :v", ":v", s("V")));
        assertInvalid(
                "The document path provided in the update expression is invalid for update",
                () -> update(ddb, table, "SET a.x = :v", ":v", s("V")));
        assertItem(ddb, table, "a", n("1"));
    }

    @Test
    void aSectionUsedTwiceIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;",
                () -> update(ddb, table, "SET a = :v SET b = :v", ":v", s("V")));
        assertInvalid(
                "Invalid UpdateExpression: The \"REMOVE\" section can only be used once in an update expression;",
                () -> update(ddb, table, "REMOVE a SET b = :v REMOVE c", ":v", s("V")));
    }

    @Test
    void syntaxErrorsNameTheTokenAndWhatIsNearIt(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\"",
                () -> update(ddb, table, "INVALID SYNTAX HERE"));
        assertInvalid(
                "Invalid UpdateExpression: Syntax error; token: \":\", near: \"hits : incr\"",
                () -> update(ddb, table, "ADD hits : incr"));
    }

    @Test
    void undefinedPlaceholdersAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute"
                        + " value: :v",
                () -> update(ddb, table, "SET a = :v"));
        assertInvalid(
                "Invalid UpdateExpression: An expression attribute name used in the document path is not defined;"
                        + " attribute name: #n",
                () -> update(ddb, table, "SET #n = :v", ":v", s("V")));
    }

    @Test
    void unusedPlaceholdersAreRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
                () -> update(ddb, table, "SET a = :v", ":v", s("V"), ":unused", s("U")));
        assertInvalid(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
                () -> ddb.updateItem(request(table, "SET #a = :v", ":v", s("V"))
                        .expressionAttributeNames(Map.of("#a", "a", "#unused", "u"))
                        .build()));
        assertThat(exists(ddb, table)).isFalse();
    }

    @Test
    void reservedWordsNeedPlaceholders(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid(
                "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Status",
                () -> update(ddb, table, "SET Status = :v", ":v", s("V")));
    }

    @Test
    void arithmeticOverflowIsRejected(DynamoDbClient ddb, Tables tables) {
        // 9E+125 + 9E+125 = 1.8E+126: two significant digits, past the largest magnitude (below 1E+126).
        String table = tableWith(ddb, tables, "big", n("9E+125"));
        Map<String, AttributeValue> before = current(ddb, table);

        assertInvalid(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
                () -> update(ddb, table, "SET big = big + :v", ":v", n("9E+125")));
        assertInvalid(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
                () -> update(ddb, table, "ADD big :v", ":v", n("9E+125")));
        assertThat(current(ddb, table)).isEqualTo(before);
    }

    @Test
    void emptyUpdateExpressionIsRejected(DynamoDbClient ddb, Tables tables) {
        String table = table(tables);

        assertInvalid("Invalid UpdateExpression: The expression can not be empty;", () -> update(ddb, table, ""));
    }

    @Test
    void conditionFunctionsAreNotFunctionsOfUpdates(DynamoDbClient ddb, Tables tables) {
        String table = tableWith(ddb, tables, "s", s("abc"));

        assertInvalidContaining(
                () -> update(ddb, table, "SET a = size(s)"), "Invalid UpdateExpression: ", "function: size");
    }
}
