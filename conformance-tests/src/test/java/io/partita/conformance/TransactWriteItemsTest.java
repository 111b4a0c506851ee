package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * TransactWriteItems ("Amazon DynamoDB Transactions: How it works", API_TransactWriteItems): up to 100 actions over
 * several tables, all or nothing; a failed condition cancels the whole transaction with one reason per action, in
 * order; errors found in the request refuse it; capacity is two write units per KB of each item.
 */
@ExtendWith(PartitaExtension.class)
class TransactWriteItemsTest {
    private final DynamoDbClient ddb = Endpoint.client();

    static Map<String, AttributeValue> key(String id) {
        return Map.of("id", s(id));
    }

    static TransactWriteItem put(String table, Map<String, AttributeValue> item) {
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table).item(item))
                .build();
    }

    static TransactWriteItem add(String table, String id, int amount) {
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table)
                        .key(key(id))
                        .updateExpression("ADD bal :x")
                        .expressionAttributeValues(Map.of(":x", n(String.valueOf(amount)))))
                .build();
    }

    private Map<String, AttributeValue> get(String table, String id) {
        return ddb.getItem(g -> g.tableName(table).key(key(id)).consistentRead(true))
                .item();
    }

    /** The cancellation reasons' codes, in order. */
    static List<String> codes(TransactionCanceledException e) {
        return e.cancellationReasons().stream().map(CancellationReason::code).toList();
    }

    @Test
    void allFourActionsCommitTogetherOverTwoTables(Tables tables) {
        String accounts = tables.hashTable("id", ScalarAttributeType.S);
        String log = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(p -> p.tableName(accounts).item(item("id", s("a"), "bal", n("100"))));
        ddb.putItem(p -> p.tableName(accounts).item(item("id", s("b"), "bal", n("5"))));
        ddb.putItem(p -> p.tableName(accounts).item(item("id", s("gone"))));
        ddb.putItem(p -> p.tableName(accounts).item(item("id", s("open"))));

        var out = ddb.transactWriteItems(t -> t.transactItems(
                        TransactWriteItem.builder()
                                .update(u -> u.tableName(accounts)
                                        .key(key("a"))
                                        .updateExpression("SET bal = bal - :x")
                                        .conditionExpression("bal >= :x")
                                        .expressionAttributeValues(Map.of(":x", n("30"))))
                                .build(),
                        add(accounts, "b", 30),
                        TransactWriteItem.builder()
                                .delete(d -> d.tableName(accounts).key(key("gone")))
                                .build(),
                        TransactWriteItem.builder()
                                .conditionCheck(c -> c.tableName(accounts)
                                        .key(key("open"))
                                        .conditionExpression("attribute_exists(id)"))
                                .build(),
                        put(log, item("id", s("t1"), "amount", n("30"))))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(get(accounts, "a")).containsEntry("bal", n("70"));
        assertThat(get(accounts, "b")).containsEntry("bal", n("35"));
        assertThat(get(accounts, "gone")).isEmpty();
        assertThat(get(log, "t1")).containsEntry("amount", n("30"));
        // Two write units per KB of each item, the ConditionCheck included ("Capacity management for
        // transactions"); one entry per table, split into write units.
        assertThat(out.consumedCapacity())
                .extracting(
                        ConsumedCapacity::tableName,
                        ConsumedCapacity::capacityUnits,
                        ConsumedCapacity::writeCapacityUnits)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(accounts, 8.0, 8.0),
                        org.assertj.core.groups.Tuple.tuple(log, 2.0, 2.0));
    }

    @Test
    void aFailedConditionCancelsEverythingWithReasonsInOrder(Tables tables) {
        String accounts = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(p -> p.tableName(accounts).item(item("id", s("a"), "bal", n("10"))));

        TransactionCanceledException e = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [None,"
                        + " ConditionalCheckFailed, None]",
                () -> ddb.transactWriteItems(t -> t.transactItems(
                        add(accounts, "b", 30),
                        TransactWriteItem.builder()
                                .update(u -> u.tableName(accounts)
                                        .key(key("a"))
                                        .updateExpression("SET bal = bal - :x")
                                        .conditionExpression("bal >= :x")
                                        .expressionAttributeValues(Map.of(":x", n("30")))
                                        .returnValuesOnConditionCheckFailure(
                                                ReturnValuesOnConditionCheckFailure.ALL_OLD))
                                .build(),
                        put(accounts, item("id", s("c"))))));

        assertThat(codes(e)).containsExactly("None", "ConditionalCheckFailed", "None");
        CancellationReason failed = e.cancellationReasons().get(1);
        assertThat(failed.message()).isEqualTo("The conditional request failed");
        assertThat(failed.item()).isEqualTo(item("id", s("a"), "bal", n("10")));
        assertThat(e.cancellationReasons().get(0).message()).isNull();
        // Nothing was written.
        assertThat(get(accounts, "a")).containsEntry("bal", n("10"));
        assertThat(get(accounts, "b")).isEmpty();
        assertThat(get(accounts, "c")).isEmpty();
    }

    @Test
    void aConditionCheckThatFailsWithoutItemReturnsNoItem(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        TransactionCanceledException e = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed,"
                        + " None]",
                () -> ddb.transactWriteItems(r -> r.transactItems(
                        TransactWriteItem.builder()
                                .conditionCheck(c -> c.tableName(t)
                                        .key(key("nobody"))
                                        .conditionExpression("attribute_exists(id)")
                                        .returnValuesOnConditionCheckFailure(
                                                ReturnValuesOnConditionCheckFailure.ALL_OLD))
                                .build(),
                        put(t, item("id", s("x"))))));
        assertThat(e.cancellationReasons().get(0).hasItem()).isFalse();
        assertThat(get(t, "x")).isEmpty();
    }

    @Test
    void errorsFoundWhileApplyingCancelWithValidationError(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(p -> p.tableName(t).item(item("id", s("a"), "bal", s("not a number"))));
        // ADD of a number to a string: found only against the stored item, so the transaction is cancelled.
        TransactionCanceledException e = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]",
                () -> ddb.transactWriteItems(r -> r.transactItems(put(t, item("id", s("b"))), add(t, "a", 1))));
        assertThat(e.cancellationReasons().get(1).message())
                .isEqualTo("An operand in the update expression has an incorrect data type");
        // A key of the wrong type is a reason too.
        TransactionCanceledException typed = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]",
                () -> ddb.transactWriteItems(r -> r.transactItems(put(t, item("id", n("1"))))));
        assertThat(typed.cancellationReasons().get(0).message())
                .isEqualTo("One or more parameter values were invalid: Type mismatch for key id expected: S actual: N");
        TransactionCanceledException schema = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]",
                () -> ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                        .delete(d -> d.tableName(t).key(Map.of("id", n("1"))))
                        .build())));
        assertThat(schema.cancellationReasons().get(0).message())
                .isEqualTo("The provided key element does not match the schema");
        assertThat(get(t, "b")).isEmpty();
    }

    @Test
    void requestErrorsRefuseTheWholeRequest(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertValidation(
                "Transaction request cannot include multiple operations on one item",
                () -> ddb.transactWriteItems(r -> r.transactItems(
                        put(t, item("id", s("a"))),
                        TransactWriteItem.builder()
                                .conditionCheck(c ->
                                        c.tableName(t).key(key("a")).conditionExpression("attribute_not_exists(id)"))
                                .build())));
        ApiErrors.assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.transactWriteItems(r ->
                        r.transactItems(put(t, item("id", s("a"))), put("no-such-table-here", item("id", s("a"))))));
        ApiErrors.assertValidation(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an"
                        + " empty string value. Key: id",
                () -> ddb.transactWriteItems(r -> r.transactItems(put(t, item("id", s(""))))));
        ApiErrors.assertValidation(
                "1 validation error detected: Value null at 'transactItems.2.member.conditionCheck.conditionExpression'"
                        + " failed to satisfy constraint: Member must not be null",
                () -> ddb.transactWriteItems(r -> r.transactItems(
                        put(t, item("id", s("a"))),
                        TransactWriteItem.builder()
                                .conditionCheck(c -> c.tableName(t).key(key("b")))
                                .build())));
        ApiErrors.assertValidation(
                "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request",
                () -> ddb.transactWriteItems(
                        r -> r.transactItems(TransactWriteItem.builder().build())));
        ApiErrors.assertValidation(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
                () -> ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                        .put(p -> p.tableName(t)
                                .item(item("id", s("a")))
                                .conditionExpression("attribute_not_exists(id)")
                                .expressionAttributeValues(Map.of(":unused", n("1"))))
                        .build())));
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: Cannot update attribute id. This attribute is part of the"
                        + " key",
                () -> ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                        .update(u -> u.tableName(t)
                                .key(key("a"))
                                .updateExpression("SET id = :v")
                                .expressionAttributeValues(Map.of(":v", s("b"))))
                        .build())));
        assertThat(get(t, "a")).isEmpty();
    }

    @Test
    void aHundredActionsAreAllowedAndNotMore(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        List<TransactWriteItem> hundred = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            hundred.add(put(t, item("id", s("i" + i))));
        }
        ddb.transactWriteItems(r -> r.transactItems(hundred));
        assertThat(get(t, "i99")).containsEntry("id", s("i99"));
        List<TransactWriteItem> more = new ArrayList<>(hundred);
        more.add(put(t, item("id", s("i100"))));
        Throwable e = catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(more)));
        assertThat(e).isInstanceOf(DynamoDbException.class);
        // The message shows the whole list, as DynamoDB's Java-style dump of it.
        assertThat(((DynamoDbException) e).awsErrorDetails().errorMessage())
                .startsWith("1 validation error detected: Value '[")
                .endsWith("' at 'transactItems' failed to satisfy constraint: Member must have length less than or"
                        + " equal to 100");
        assertThat(get(t, "i100")).isEmpty();
    }

    @Test
    void theItemsOfATransactionAreLimitedToFourMegabytes(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        String big = "x".repeat(390_000);
        List<TransactWriteItem> puts = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            puts.add(put(t, item("id", s("big" + i), "v", s(big))));
        }
        Throwable e = catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(puts)));
        assertThat(e).isInstanceOf(DynamoDbException.class);
        assertThat(((DynamoDbException) e).awsErrorDetails().errorMessage())
                .startsWith("Transaction payload size cannot exceed 4MB.");
        assertThat(get(t, "big0")).isEmpty();
        // Ten of them fit.
        ddb.transactWriteItems(r -> r.transactItems(puts.subList(0, 10)));
        assertThat(get(t, "big9")).containsKey("v");
    }
}
