package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.partita.server.junit.WithPartita;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * {@code @WithPartita} with its tables declared in Java rather than in a file, and the server's options: the
 * throughput mode and a conflict rate, here every transaction cancelled, to test retry code.
 */
@Tag("partita-only")
@WithPartita(
        declare = {
            @WithPartita.Table(name = "sessions", partitionKey = "id", ttlAttribute = "expires"),
            @WithPartita.Table(name = "events", partitionKey = "device", sortKey = "at", sortKeyType = "N")
        },
        throughput = "off",
        transactionConflicts = 1)
class JUnitExtensionDeclarationsTest {
    @Test
    void theDeclaredTablesHaveTheirKeysAndTtl(DynamoDbClient ddb) {
        assertThat(ddb.listTables().tableNames()).containsExactly("events", "sessions");
        var events = ddb.describeTable(d -> d.tableName("events")).table();
        assertThat(events.keySchema())
                .extracting(k -> k.attributeName() + ":" + k.keyType())
                .containsExactly("device:" + KeyType.HASH, "at:" + KeyType.RANGE);
        assertThat(ddb.describeTimeToLive(d -> d.tableName("sessions"))
                        .timeToLiveDescription()
                        .timeToLiveStatus())
                .isEqualTo(TimeToLiveStatus.ENABLED);
        assertThat(ddb.describeTimeToLive(d -> d.tableName("events"))
                        .timeToLiveDescription()
                        .timeToLiveStatus())
                .isEqualTo(TimeToLiveStatus.DISABLED);
    }

    /** {@code throughput = "off"}: no limits and no accounting, so a write consumes nothing in the metrics. */
    @Test
    void throughputOffAccountsNothing(DynamoDbClient ddb, io.partita.server.embedded.EmbeddedPartita partita)
            throws Exception {
        ddb.putItem(p -> p.tableName("events").item(item("device", s("d1"), "at", n("1"))));
        String metrics = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(partita.endpoint().resolve("/metrics"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics).contains("partita_consumed_write_capacity_units_total{table=\"events\"} 0.0");
    }

    @Test
    void theConflictRateCancelsEveryTransaction(DynamoDbClient ddb) {
        Throwable thrown = catchThrowable(() -> ddb.transactWriteItems(r -> r.transactItems(TransactWriteItem.builder()
                .put(p -> p.tableName("sessions").item(item("id", s("a"))))
                .build())));
        assertThat(thrown).isInstanceOf(TransactionCanceledException.class);
        assertThat(TransactWriteItemsTest.codes((TransactionCanceledException) thrown))
                .containsExactly("TransactionConflict");
        // A single write is not a transaction: it goes through.
        ddb.putItem(p -> p.tableName("sessions").item(item("id", s("b"))));
        assertThat(ddb.getItem(g -> g.tableName("sessions").key(java.util.Map.of("id", s("b"))))
                        .hasItem())
                .isTrue();
    }
}
