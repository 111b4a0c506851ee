package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Single-item writes are atomic (API_UpdateItem: "atomic counter"; Expressions.ConditionExpressions): concurrent
 * read-modify-write updates never lose an increment, and a conditional insert has exactly one winner.
 */
@ExtendWith(PartitaExtension.class)
class AtomicityTest {
    private static final Map<String, AttributeValue> KEY = Map.of("pk", s("k"));

    /** Runs {@code task} on {@code threads} threads released together, and returns their results. */
    private static <T> List<T> race(int threads, Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(2, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentAddsLoseNoIncrement(Tables tables) throws Exception {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        DynamoDbClient ddb = Endpoint.client();
        int threads = 8;
        int perThread = 50;

        List<Integer> acknowledged = race(threads, () -> {
            int ok = 0;
            for (int i = 0; i < perThread; i++) {
                ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .updateExpression("ADD #c :one")
                        .expressionAttributeNames(Map.of("#c", "counter"))
                        .expressionAttributeValues(Map.of(":one", n("1"))));
                ok++;
            }
            return ok;
        });

        int total = acknowledged.stream().mapToInt(Integer::intValue).sum();
        assertThat(total).isEqualTo(threads * perThread);
        assertThat(ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                        .item())
                .isEqualTo(item("pk", s("k"), "counter", n(String.valueOf(total))));
    }

    @Test
    void concurrentSetArithmeticLosesNoIncrement(Tables tables) throws Exception {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        DynamoDbClient ddb = Endpoint.client();
        ddb.putItem(r -> r.tableName(table).item(item("pk", s("k"), "v", n("0"))));
        int threads = 8;
        int perThread = 25;

        race(threads, () -> {
            for (int i = 0; i < perThread; i++) {
                ddb.updateItem(r -> r.tableName(table)
                        .key(KEY)
                        .updateExpression("SET v = v + :one")
                        .expressionAttributeValues(Map.of(":one", n("1"))));
            }
            return null;
        });

        assertThat(ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                        .item())
                .containsEntry("v", n(String.valueOf(threads * perThread)));
    }

    @Test
    void conditionalInsertHasExactlyOneWinner(Tables tables) throws Exception {
        String table = tables.hashTable("pk", ScalarAttributeType.S);
        DynamoDbClient ddb = Endpoint.client();
        int threads = 16;
        AtomicInteger next = new AtomicInteger();

        List<String> outcomes = race(threads, () -> {
            int writer = next.getAndIncrement();
            try {
                ddb.putItem(r -> r.tableName(table)
                        .item(item("pk", s("k"), "writer", n(String.valueOf(writer))))
                        .conditionExpression("attribute_not_exists(pk)"));
                return "won:" + writer;
            } catch (ConditionalCheckFailedException e) {
                return "lost";
            }
        });

        List<String> winners =
                outcomes.stream().filter(o -> o.startsWith("won:")).toList();
        assertThat(winners).hasSize(1);
        assertThat(outcomes).filteredOn("lost"::equals).hasSize(threads - 1);
        String winner = winners.get(0).substring("won:".length());
        assertThat(ddb.getItem(r -> r.tableName(table).key(KEY).consistentRead(true))
                        .item())
                .isEqualTo(item("pk", s("k"), "writer", n(winner)));
    }
}
