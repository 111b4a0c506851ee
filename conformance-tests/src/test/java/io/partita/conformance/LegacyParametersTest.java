package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.l;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.ns;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.AttributeValues.sorted;
import static io.partita.conformance.support.AttributeValues.ss;
import static io.partita.conformance.support.ExpressionErrors.assertInvalid;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeAction;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.AttributeValueUpdate;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalOperator;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ExpectedAttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The legacy conditional parameters (LegacyConditionalParameters): Expected with Exists, Value or ComparisonOperator,
 * ConditionalOperator, AttributeUpdates and AttributesToGet, and the rule that they do not mix with expressions.
 */
@ExtendWith(PartitaExtension.class)
class LegacyParametersTest {
    private static final Map<String, AttributeValue> KEY = Map.of("pk", s("k"));
    private static final Map<String, AttributeValue> ITEM = item(
            "pk", s("k"),
            "s", s("hello"),
            "n", n("10"),
            "ss", ss("x", "y"),
            "l", l(s("a"), n("1")));

    private static String tableWithItem(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        ddb.putItem(r -> r.tableName(table).item(ITEM));
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

    private static ExpectedAttributeValue exists(boolean exists) {
        return ExpectedAttributeValue.builder().exists(exists).build();
    }

    private static ExpectedAttributeValue value(AttributeValue value) {
        return ExpectedAttributeValue.builder().value(value).build();
    }

    private static ExpectedAttributeValue op(ComparisonOperator op, AttributeValue... values) {
        ExpectedAttributeValue.Builder b = ExpectedAttributeValue.builder().comparisonOperator(op);
        if (values.length > 0) {
            b.attributeValueList(values);
        }
        return b.build();
    }

    /** "true" when a PutItem of {@link #ITEM} under {@code expected} succeeds, "false" when it fails the check. */
    private static String outcome(
            DynamoDbClient ddb,
            String table,
            Map<String, ExpectedAttributeValue> expected,
            ConditionalOperator conditionalOperator) {
        try {
            ddb.putItem(r -> r.tableName(table).item(ITEM).expected(expected).conditionalOperator(conditionalOperator));
            return "true";
        } catch (ConditionalCheckFailedException e) {
            return "false";
        } catch (DynamoDbException e) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
    }

    private static ConditionalCheckFailedException assertConditionFailed(ThrowingCallable call) {
        return assertError(
                ConditionalCheckFailedException.class,
                "ConditionalCheckFailedException",
                "The conditional request failed",
                call);
    }

    // ---- Expected ----

    @Test
    void existsFalseMakesPutInsertOnly(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        Map<String, AttributeValue> first = item("pk", s("k"), "v", n("1"));

        ddb.putItem(r -> r.tableName(table).item(first).expected(Map.of("pk", exists(false))));

        assertConditionFailed(() -> ddb.putItem(
                r -> r.tableName(table).item(item("pk", s("k"), "v", n("2"))).expected(Map.of("pk", exists(false)))));
        assertThat(current(ddb, table)).isEqualTo(first);
    }

    /** Value alone means Exists=true and equality (Exists defaults to true). */
    @Test
    void valueAndExistsTrueMeanEquality(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        ExpectedAttributeValue existsTrueHello =
                ExpectedAttributeValue.builder().exists(true).value(s("hello")).build();

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(outcome(ddb, table, Map.of("s", value(s("hello"))), null))
                .as("s = hello")
                .isEqualTo("true");
        soft.assertThat(outcome(ddb, table, Map.of("s", value(s("hellp"))), null))
                .as("s = hellp")
                .isEqualTo("false");
        soft.assertThat(outcome(ddb, table, Map.of("n", value(n("10.0"))), null))
                .as("n = 10.0")
                .isEqualTo("true");
        soft.assertThat(outcome(ddb, table, Map.of("n", value(s("10"))), null))
                .as("n = \"10\"")
                .isEqualTo("false");
        soft.assertThat(outcome(ddb, table, Map.of("s", existsTrueHello), null))
                .as("exists and = hello")
                .isEqualTo("true");
        soft.assertThat(outcome(ddb, table, Map.of("missing", value(s("hello"))), null))
                .as("missing = hello")
                .isEqualTo("false");
        soft.assertThat(outcome(ddb, table, Map.of("missing", exists(false), "s", exists(false)), null))
                .as("both absent")
                .isEqualTo("false");
        soft.assertAll();
    }

    @Test
    void comparisonOperators(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        Map<String, Map.Entry<String, ExpectedAttributeValue>> cases = new LinkedHashMap<>();
        cases.put("s EQ hello", Map.entry("s", op(ComparisonOperator.EQ, s("hello"))));
        cases.put("s NE hellp", Map.entry("s", op(ComparisonOperator.NE, s("hellp"))));
        cases.put("n LT 11", Map.entry("n", op(ComparisonOperator.LT, n("11"))));
        cases.put("n GT 9", Map.entry("n", op(ComparisonOperator.GT, n("9"))));
        cases.put("n GE 10", Map.entry("n", op(ComparisonOperator.GE, n("10"))));
        cases.put("n LE 10", Map.entry("n", op(ComparisonOperator.LE, n("10"))));
        cases.put("n BETWEEN 5 10", Map.entry("n", op(ComparisonOperator.BETWEEN, n("5"), n("10"))));
        cases.put("s BETWEEN a i", Map.entry("s", op(ComparisonOperator.BETWEEN, s("a"), s("i"))));
        cases.put("s IN a hello", Map.entry("s", op(ComparisonOperator.IN, s("a"), s("hello"))));
        cases.put("missing NULL", Map.entry("missing", op(ComparisonOperator.NULL)));
        cases.put("s NOT_NULL", Map.entry("s", op(ComparisonOperator.NOT_NULL)));
        cases.put("s CONTAINS ell", Map.entry("s", op(ComparisonOperator.CONTAINS, s("ell"))));
        cases.put("ss CONTAINS x", Map.entry("ss", op(ComparisonOperator.CONTAINS, s("x"))));
        cases.put("l CONTAINS 1", Map.entry("l", op(ComparisonOperator.CONTAINS, n("1"))));
        cases.put("s NOT_CONTAINS q", Map.entry("s", op(ComparisonOperator.NOT_CONTAINS, s("q"))));
        cases.put("s BEGINS_WITH he", Map.entry("s", op(ComparisonOperator.BEGINS_WITH, s("he"))));
        Map<String, Map.Entry<String, ExpectedAttributeValue>> falseCases = new LinkedHashMap<>();
        falseCases.put("s EQ hellp", Map.entry("s", op(ComparisonOperator.EQ, s("hellp"))));
        falseCases.put("s NE hello", Map.entry("s", op(ComparisonOperator.NE, s("hello"))));
        falseCases.put("n LT 9 (numeric, not text)", Map.entry("n", op(ComparisonOperator.LT, n("9"))));
        falseCases.put("n LT 10", Map.entry("n", op(ComparisonOperator.LT, n("10"))));
        falseCases.put("n BETWEEN 11 20", Map.entry("n", op(ComparisonOperator.BETWEEN, n("11"), n("20"))));
        falseCases.put("s IN a", Map.entry("s", op(ComparisonOperator.IN, s("a"))));
        falseCases.put("s NULL", Map.entry("s", op(ComparisonOperator.NULL)));
        falseCases.put("missing NOT_NULL", Map.entry("missing", op(ComparisonOperator.NOT_NULL)));
        falseCases.put("ss CONTAINS q", Map.entry("ss", op(ComparisonOperator.CONTAINS, s("q"))));
        falseCases.put("s NOT_CONTAINS ell", Map.entry("s", op(ComparisonOperator.NOT_CONTAINS, s("ell"))));
        falseCases.put("s BEGINS_WITH lo", Map.entry("s", op(ComparisonOperator.BEGINS_WITH, s("lo"))));
        falseCases.put("missing EQ hello", Map.entry("missing", op(ComparisonOperator.EQ, s("hello"))));

        SoftAssertions soft = new SoftAssertions();
        cases.forEach((name, c) -> soft.assertThat(outcome(ddb, table, Map.of(c.getKey(), c.getValue()), null))
                .as(name)
                .isEqualTo("true"));
        falseCases.forEach((name, c) -> soft.assertThat(outcome(ddb, table, Map.of(c.getKey(), c.getValue()), null))
                .as(name)
                .isEqualTo("false"));
        soft.assertAll();
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    @Test
    void conditionalOperatorOrNeedsOneTrueCondition(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        Map<String, ExpectedAttributeValue> oneTrue =
                Map.of("s", op(ComparisonOperator.EQ, s("hellp")), "n", op(ComparisonOperator.EQ, n("10")));
        Map<String, ExpectedAttributeValue> noneTrue =
                Map.of("s", op(ComparisonOperator.EQ, s("hellp")), "n", op(ComparisonOperator.EQ, n("11")));

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(outcome(ddb, table, oneTrue, ConditionalOperator.OR))
                .as("OR, one true")
                .isEqualTo("true");
        soft.assertThat(outcome(ddb, table, noneTrue, ConditionalOperator.OR))
                .as("OR, none")
                .isEqualTo("false");
        soft.assertThat(outcome(ddb, table, oneTrue, ConditionalOperator.AND))
                .as("AND")
                .isEqualTo("false");
        soft.assertThat(outcome(ddb, table, oneTrue, null)).as("default is AND").isEqualTo("false");
        soft.assertAll();
    }

    @Test
    void expectedOnDeleteAndUpdate(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertConditionFailed(() -> ddb.deleteItem(r ->
                r.tableName(table).key(KEY).expected(Map.of("n", op(ComparisonOperator.GT, n("10"))))));
        assertConditionFailed(() -> ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .attributeUpdates(
                        Map.of("s", AttributeValueUpdate.builder().value(s("x")).build()))
                .expected(Map.of("s", value(s("hellp"))))));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));

        ddb.deleteItem(r -> r.tableName(table).key(KEY).expected(Map.of("n", op(ComparisonOperator.LE, n("10")))));
        assertThat(exists(ddb, table)).isFalse();
    }

    // ---- AttributeUpdates ----

    @Test
    void attributeUpdatesPutAddDelete(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        ddb.putItem(r -> r.tableName(table)
                .item(item(
                        "pk", s("k"),
                        "a", s("A"),
                        "c", n("1"),
                        "tags", ss("x", "y"),
                        "nums", ns("1"),
                        "gone", s("G"))));

        ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .attributeUpdates(Map.of(
                        "a", update(AttributeAction.PUT, s("B")),
                        "c", update(AttributeAction.ADD, n("5")),
                        "tags", update(AttributeAction.DELETE, ss("x")),
                        "nums", update(AttributeAction.ADD, ns("2")),
                        "gone",
                                AttributeValueUpdate.builder()
                                        .action(AttributeAction.DELETE)
                                        .build(),
                        "fresh", update(AttributeAction.ADD, n("3")),
                        "implicit",
                                AttributeValueUpdate.builder().value(s("put")).build())));

        assertThat(sorted(current(ddb, table)))
                .isEqualTo(sorted(item(
                        "pk", s("k"),
                        "a", s("B"),
                        "c", n("6"),
                        "tags", ss("y"),
                        "nums", ns("1", "2"),
                        "fresh", n("3"),
                        "implicit", s("put"))));
    }

    @Test
    void attributeUpdatesCreateTheItemAndReturnValues(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("pk", ScalarAttributeType.S);

        UpdateItemResponse r = ddb.updateItem(b -> b.tableName(table)
                .key(KEY)
                .attributeUpdates(
                        Map.of("c", update(AttributeAction.ADD, n("2")), "t", update(AttributeAction.ADD, ss("z"))))
                .returnValues(ReturnValue.ALL_NEW));

        assertThat(r.attributes()).isEqualTo(item("pk", s("k"), "c", n("2"), "t", ss("z")));
        assertThat(current(ddb, table)).isEqualTo(r.attributes());
    }

    @Test
    void deletingEveryElementOfASetRemovesIt(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        ddb.updateItem(r -> r.tableName(table)
                .key(KEY)
                .attributeUpdates(Map.of("ss", update(AttributeAction.DELETE, ss("x", "y")))));

        assertThat(current(ddb, table)).doesNotContainKey("ss");
    }

    @Test
    void attributeUpdatesErrors(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of("pk", update(AttributeAction.PUT, s("other"))))));
        assertInvalid(
                "One or more parameter values were invalid: ADD action is not supported for the type S",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of("s", update(AttributeAction.ADD, s("x"))))));
        assertInvalid(
                "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is"
                        + " specified",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of(
                                "s",
                                AttributeValueUpdate.builder()
                                        .action(AttributeAction.PUT)
                                        .build()))));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    /** A valid ADD whose type clashes with the stored attribute fails only once the item is read. */
    @Test
    void attributeUpdatesTypeMismatchWithTheStoredValue(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Type mismatch for attribute to update",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of("ss", update(AttributeAction.ADD, ns("1"))))));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    private static AttributeValueUpdate update(AttributeAction action, AttributeValue value) {
        return AttributeValueUpdate.builder().action(action).value(value).build();
    }

    // ---- AttributesToGet ----

    @Test
    void attributesToGetReturnsOnlyThoseAttributes(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        Map<String, AttributeValue> got = ddb.getItem(r ->
                        r.tableName(table).key(KEY).consistentRead(true).attributesToGet(List.of("s", "missing", "n")))
                .item();

        assertThat(got).isEqualTo(item("s", s("hello"), "n", n("10")));
    }

    // ---- validation ----

    @Test
    void expectedValidation(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: s",
                () -> ddb.putItem(r -> r.tableName(table).item(ITEM).expected(Map.of("s", exists(true)))));
        assertInvalid(
                "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: s",
                () -> ddb.putItem(r -> r.tableName(table)
                        .item(ITEM)
                        .expected(Map.of(
                                "s",
                                ExpectedAttributeValue.builder()
                                        .exists(false)
                                        .value(s("hello"))
                                        .build()))));
        assertInvalid(
                "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN"
                        + " ComparisonOperator",
                () -> ddb.putItem(r ->
                        r.tableName(table).item(ITEM).expected(Map.of("n", op(ComparisonOperator.BETWEEN, n("1"))))));
        assertInvalid(
                "ConditionalOperator can only be used when Filter or Expected has two or more elements",
                () -> ddb.putItem(r -> r.tableName(table)
                        .item(ITEM)
                        .expected(Map.of("s", value(s("hello"))))
                        .conditionalOperator(ConditionalOperator.OR)));
    }

    /**
     * Each ComparisonOperator's argument types ("Condition", API reference): the ordering operators, CONTAINS,
     * NOT_CONTAINS and IN take S, N or B; BEGINS_WITH S or B; EQ and NE any type. A stored value of another type is
     * simply not a match.
     */
    @Test
    void argumentTypesPerOperator(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);
        Map<String, Map.Entry<ComparisonOperator, AttributeValue>> refused = new LinkedHashMap<>();
        refused.put("BOOL", Map.entry(ComparisonOperator.CONTAINS, AttributeValue.fromBool(true)));
        refused.put("NULL", Map.entry(ComparisonOperator.IN, AttributeValue.fromNul(true)));
        refused.put("SS", Map.entry(ComparisonOperator.NOT_CONTAINS, AttributeValue.fromSs(List.of("x"))));
        refused.put("L", Map.entry(ComparisonOperator.LT, AttributeValue.fromL(List.of(n("1")))));
        refused.put("N", Map.entry(ComparisonOperator.BEGINS_WITH, n("1")));
        refused.put("M", Map.entry(ComparisonOperator.GE, AttributeValue.fromM(Map.of("a", n("1")))));
        refused.forEach((type, c) -> assertInvalid(
                "One or more parameter values were invalid: ComparisonOperator " + c.getKey() + " is not valid for "
                        + type + " AttributeValue type",
                () -> ddb.putItem(r ->
                        r.tableName(table).item(ITEM).expected(Map.of("s", op(c.getKey(), c.getValue()))))));
        // EQ takes any type; a list or a map equals only the same list or map.
        assertThat(outcome(ddb, table, Map.of("l", op(ComparisonOperator.EQ, ITEM.get("l"))), null))
                .isEqualTo("true");
        assertThat(outcome(ddb, table, Map.of("s", op(ComparisonOperator.EQ, AttributeValue.fromBool(true))), null))
                .isEqualTo("false");
        // A stored value of another type is not an error: the condition is false.
        assertThat(outcome(ddb, table, Map.of("ss", op(ComparisonOperator.GT, s("a"))), null))
                .isEqualTo("false");
        assertInvalid(
                "The BETWEEN condition was provided a range where the lower bound is bigger than the upper bound",
                () -> ddb.putItem(r -> r.tableName(table)
                        .item(ITEM)
                        .expected(Map.of("n", op(ComparisonOperator.BETWEEN, n("9"), n("1"))))));
    }

    @Test
    void expectedAndConditionExpressionDoNotMix(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {Expected} Expression parameters: {ConditionExpression}",
                () -> ddb.putItem(r -> r.tableName(table)
                        .item(ITEM)
                        .expected(Map.of("s", value(s("hello"))))
                        .conditionExpression("attribute_exists(s)")));
        assertInvalid(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {Expected} Expression parameters: {ConditionExpression}",
                () -> ddb.deleteItem(r -> r.tableName(table)
                        .key(KEY)
                        .expected(Map.of("s", value(s("hello"))))
                        .conditionExpression("attribute_exists(s)")));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    @Test
    void attributeUpdatesAndUpdateExpressionDoNotMix(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of("a", update(AttributeAction.PUT, s("x"))))
                        .updateExpression("REMOVE s")));
        assertInvalid(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression,"
                        + " ConditionExpression}",
                () -> ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .attributeUpdates(Map.of("a", update(AttributeAction.PUT, s("x"))))
                        .expected(Map.of("s", value(s("hello"))))
                        .updateExpression("REMOVE s")
                        .conditionExpression("attribute_exists(s)")));
        assertThat(sorted(current(ddb, table))).isEqualTo(sorted(ITEM));
    }

    @Test
    void attributesToGetAndProjectionExpressionDoNotMix(DynamoDbClient ddb, Tables tables) {
        String table = tableWithItem(ddb, tables);

        assertInvalid(
                "Can not use both expression and non-expression parameters in the same request: Non-expression"
                        + " parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
                () -> ddb.getItem(
                        r -> r.tableName(table).key(KEY).attributesToGet("s").projectionExpression("n")));
    }
}
