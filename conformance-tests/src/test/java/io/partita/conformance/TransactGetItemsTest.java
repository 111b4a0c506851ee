package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

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
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * TransactGetItems (API_TransactGetItems): up to 100 items read together, one response per Get in order (an empty one
 * for an absent item), each projected on its own, at two read units per 4 KB of each item (an absent one too).
 */
@ExtendWith(PartitaExtension.class)
class TransactGetItemsTest {
    private final DynamoDbClient ddb = Endpoint.client();

    static TransactGetItem get(String table, String id) {
        return TransactGetItem.builder()
                .get(g -> g.tableName(table).key(Map.of("id", s(id))))
                .build();
    }

    @Test
    void readsEveryItemInOrder(Tables tables) {
        String a = tables.hashTable("id", ScalarAttributeType.S);
        String b = tables.hashTable("id", ScalarAttributeType.S);
        ddb.putItem(p -> p.tableName(a).item(item("id", s("x"), "v", n("1"), "w", s("big".repeat(2000)))));
        ddb.putItem(p -> p.tableName(b).item(item("id", s("y"), "v", n("2"))));

        var out = ddb.transactGetItems(t -> t.transactItems(
                        get(b, "y"),
                        get(a, "missing"),
                        TransactGetItem.builder()
                                .get(g -> g.tableName(a)
                                        .key(Map.of("id", s("x")))
                                        .projectionExpression("#v")
                                        .expressionAttributeNames(Map.of("#v", "v")))
                                .build())
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        List<Map<String, AttributeValue>> items =
                out.responses().stream().map(ItemResponse::item).toList();
        assertThat(items.get(0)).isEqualTo(item("id", s("y"), "v", n("2")));
        assertThat(out.responses().get(1).hasItem()).isFalse();
        assertThat(items.get(2)).isEqualTo(item("v", n("1")));
        // Two units per 4 KB, an absent item included: table a read 2 (missing) + 4 (a 6 KB item).
        Map<String, Double> units = new java.util.HashMap<>();
        out.consumedCapacity().forEach(c -> {
            assertThat(c.readCapacityUnits()).isEqualTo(c.capacityUnits());
            units.put(c.tableName(), c.capacityUnits());
        });
        assertThat(units).isEqualTo(Map.of(a, 6.0, b, 2.0));
    }

    /**
     * "The aggregate size of the items in the transaction cannot exceed 4 MB": a TransactGetItems of eleven items of
     * 390 KB is refused whole; ten are read.
     */
    @Test
    void itemsOfMoreThanFourMegabytesAreRefused(Tables tables) {
        DynamoDbClient ddb = Endpoint.client();
        String t = tables.hashTable("id", ScalarAttributeType.S);
        String filler = "x".repeat(390 * 1024);
        List<TransactGetItem> gets = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            String id = "big" + i;
            // 4,290 write units in all: more than one partition takes in four seconds, so the setup waits its turn.
            Endpoint.patientClient().putItem(p -> p.tableName(t).item(item("id", s(id), "f", s(filler))));
            gets.add(get(t, id));
        }
        var refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                () -> ddb.transactGetItems(r -> r.transactItems(gets)));
        assertThat(refused.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        assertThat(refused.awsErrorDetails().errorMessage()).startsWith("Transaction payload size cannot exceed 4MB");
        assertThat(ddb.transactGetItems(r -> r.transactItems(gets.subList(0, 10)))
                        .responses())
                .hasSize(10)
                .allSatisfy(response -> assertThat(response.item().get("f").s()).hasSize(filler.length()));
    }

    @Test
    void requestErrors(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertValidation(
                "Transaction request cannot include multiple operations on one item",
                () -> ddb.transactGetItems(r -> r.transactItems(get(t, "a"), get(t, "a"))));
        ApiErrors.assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> ddb.transactGetItems(r -> r.transactItems(get("no-such-table-here", "a"))));
        // An empty key cancels the read, as DynamoDB answers it.
        TransactionCanceledException e = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]",
                () -> ddb.transactGetItems(r -> r.transactItems(
                        get(t, "a"),
                        TransactGetItem.builder()
                                .get(g -> g.tableName(t).key(Map.of()))
                                .build())));
        assertThat(e.cancellationReasons().get(1).message())
                .isEqualTo("The provided key element does not match the schema");
        List<TransactGetItem> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add(get(t, "k" + i));
        }
        Throwable tooMany =
                org.assertj.core.api.Assertions.catchThrowable(() -> ddb.transactGetItems(r -> r.transactItems(many)));
        assertThat(((software.amazon.awssdk.services.dynamodb.model.DynamoDbException) tooMany)
                        .awsErrorDetails()
                        .errorMessage())
                .endsWith("at 'transactItems' failed to satisfy constraint: Member must have length less than or equal"
                        + " to 100");
        // A hundred are fine.
        assertThat(ddb.transactGetItems(r -> r.transactItems(many.subList(0, 100)))
                        .responses())
                .hasSize(100);
    }
}
