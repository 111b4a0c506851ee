package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.server.embedded.EmbeddedPartita;
import io.partita.server.fault.FaultRule;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Faults injected on purpose, through the real SDK and its retries: an error fault changes nothing and the SDK retries
 * it as it would DynamoDB's; unprocessed batch items are returned and not written; conflicts cancel transactions with
 * DynamoDB's reasons; the admin API adds, lists and removes rules, and /metrics counts each.
 */
class FaultInjectionIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static EmbeddedPartita partita;
    private static final AtomicInteger attempts = new AtomicInteger();

    @BeforeAll
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    static void start() {
        partita = EmbeddedPartita.start();
        try (DynamoDbClient ddb = client(1)) {
            for (String t : List.of("orders", "users")) {
                ddb.createTable(b -> b.tableName(t)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType("S"))
                        .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                        .billingMode("PAY_PER_REQUEST"));
            }
        }
    }

    @AfterAll
    static void stop() {
        partita.close();
    }

    @AfterEach
    void clearFaults() {
        partita.faults().clear(1);
        attempts.set(0);
    }

    private static DynamoDbClient client(int maxAttempts) {
        return CountingClient.of(partita.endpoint(), maxAttempts, attempts);
    }

    private static Map<String, AttributeValue> item(String pk) {
        return Map.of("pk", AttributeValue.fromS(pk));
    }

    @Test
    void aThrottleTwiceIsRetriedByTheSdkAndTheThirdAttemptWrites() {
        partita.faults().add(FaultRule.Spec.parse("fault=throttle,table=orders,operation=PutItem,count=2"));
        try (DynamoDbClient ddb = client(3)) {
            ddb.putItem(b -> b.tableName("orders").item(item("retried")));
            assertThat(attempts.get()).isEqualTo(3);
            assertThat(ddb.getItem(b -> b.tableName("orders").key(item("retried")))
                            .hasItem())
                    .isTrue();
            // Another table and another operation are untouched.
            ddb.putItem(b -> b.tableName("users").item(item("u")));
        }
        assertThat(partita.faults().rules().get(0).injected()).isEqualTo(2);
    }

    @Test
    void eachErrorFaultIsDynamoDbsAndChangesNothing() {
        try (DynamoDbClient ddb = client(1)) {
            partita.faults().add(FaultRule.Spec.parse("fault=throttle,operation=PutItem"));
            assertThatThrownBy(() -> ddb.putItem(b -> b.tableName("orders").item(item("never"))))
                    .isInstanceOf(ProvisionedThroughputExceededException.class);
            partita.faults().clear(1);
            partita.faults().add(FaultRule.Spec.parse("fault=internal,operation=PutItem"));
            assertThatThrownBy(() -> ddb.putItem(b -> b.tableName("orders").item(item("never"))))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(500);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalServerError");
                    });
            partita.faults().clear(1);
            partita.faults().add(FaultRule.Spec.parse("fault=unavailable,operation=PutItem"));
            assertThatThrownBy(() -> ddb.putItem(b -> b.tableName("orders").item(item("never"))))
                    .isInstanceOfSatisfying(
                            DynamoDbException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(503));
            partita.faults().clear(1);
            partita.faults().add(FaultRule.Spec.parse("fault=throttling,operation=PutItem"));
            assertThatThrownBy(() -> ddb.putItem(b -> b.tableName("orders").item(item("never"))))
                    .isInstanceOfSatisfying(
                            DynamoDbException.class,
                            e -> assertThat(e.isThrottlingException()).isTrue());
            partita.faults().clear(1);
            assertThat(ddb.getItem(b -> b.tableName("orders").key(item("never")))
                            .hasItem())
                    .isFalse();
        }
    }

    @Test
    void unprocessedItemsAreReturnedUnwrittenAndARetryLoopWritesThemAll() {
        partita.faults().add(FaultRule.Spec.parse("fault=unprocessed,table=orders,rate=0.5,seed=3"));
        try (DynamoDbClient ddb = client(1)) {
            Map<String, List<WriteRequest>> pending = new HashMap<>();
            List<WriteRequest> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String pk = "b" + i;
                writes.add(
                        WriteRequest.builder().putRequest(p -> p.item(item(pk))).build());
            }
            pending.put("orders", writes);
            BatchWriteItemResponse first = ddb.batchWriteItem(b -> b.requestItems(pending));
            List<WriteRequest> left = first.unprocessedItems().get("orders");
            assertThat(left).isNotEmpty().hasSizeLessThan(20);
            for (WriteRequest w : left) {
                assertThat(ddb.getItem(b ->
                                        b.tableName("orders").key(w.putRequest().item()))
                                .hasItem())
                        .as("an unprocessed item is not written")
                        .isFalse();
            }
            Map<String, List<WriteRequest>> again = first.unprocessedItems();
            for (int round = 0; round < 50 && !again.isEmpty(); round++) {
                Map<String, List<WriteRequest>> next = again;
                try {
                    again = ddb.batchWriteItem(b -> b.requestItems(next)).unprocessedItems();
                } catch (ProvisionedThroughputExceededException none) {
                    // Every item withheld this round: DynamoDB's answer to a batch it processed none of.
                }
            }
            assertThat(again).isEmpty();
            for (WriteRequest w : writes) {
                assertThat(ddb.getItem(b ->
                                        b.tableName("orders").key(w.putRequest().item()))
                                .hasItem())
                        .isTrue();
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    void aConflictCancelsATransactionWithDynamoDbsReasons() {
        partita.faults().add(FaultRule.Spec.parse("fault=conflict,table=orders"));
        try (DynamoDbClient ddb = client(1)) {
            assertThatThrownBy(() -> ddb.transactWriteItems(b -> b.transactItems(
                            t -> t.put(p -> p.tableName("orders").item(item("t1"))),
                            t -> t.put(p -> p.tableName("users").item(item("t2"))))))
                    .isInstanceOfSatisfying(
                            TransactionCanceledException.class,
                            e -> assertThat(e.cancellationReasons())
                                    .extracting(r -> r.code())
                                    .containsExactly("TransactionConflict", "None"));
            assertThatThrownBy(() -> ddb.putItem(b -> b.tableName("orders").item(item("t3"))))
                    .isInstanceOf(TransactionConflictException.class);
            assertThat(ddb.getItem(b -> b.tableName("users").key(item("t2"))).hasItem())
                    .isFalse();
        }
    }

    @Test
    void latencyDelaysTheAnswer() {
        partita.faults().add(FaultRule.Spec.parse("fault=latency,operation=GetItem,latency=300ms"));
        try (DynamoDbClient ddb = client(1)) {
            long started = System.nanoTime();
            ddb.getItem(b -> b.tableName("orders").key(item("x")));
            assertThat((System.nanoTime() - started) / 1_000_000).isGreaterThanOrEqualTo(300);
        }
    }

    @Test
    void theAdminApiAddsListsAndRemovesFaultsAndMetricsCountThem() throws Exception {
        HttpResponse<String> added =
                admin("POST", "/admin/faults?fault=throttle&table=orders&operation=GetItem&count=1");
        assertThat(added.statusCode()).isEqualTo(200);
        assertThat(added.body()).contains("\"fault\" : \"throttle\"").contains("\"remaining\" : 1");
        try (DynamoDbClient ddb = client(2)) {
            ddb.getItem(b -> b.tableName("orders").key(item("x")));
        }
        assertThat(admin("GET", "/admin/faults").body()).contains("\"injected\" : 1");
        assertThat(admin("GET", "/metrics").body())
                .contains("partita_faults_injected_total{fault=\"throttle\",operation=\"GetItem\",rule=\"1\","
                        + "table=\"orders\"} 1.0");
        assertThat(admin("POST", "/admin/faults?fault=slow").statusCode()).isEqualTo(400);
        assertThat(admin("DELETE", "/admin/faults?id=1").body()).contains("\"faults\" : [ ]");
        assertThat(admin("DELETE", "/admin/faults?id=1").statusCode()).isEqualTo(404);
    }

    private static HttpResponse<String> admin(String method, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(partita.endpoint().resolve(path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
