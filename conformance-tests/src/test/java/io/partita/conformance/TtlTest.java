package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * Time to Live ("Using time to live (TTL) in DynamoDB"): UpdateTimeToLive and DescribeTimeToLive with DynamoDB's
 * answers, and (Partita only, where a reap can be asked for) expired items deleted by the TTL service: gone from the
 * table and its GSI, a REMOVE in the stream naming the service, and items whose attribute is not an expiry left alone.
 */
@ExtendWith(PartitaExtension.class)
class TtlTest {
    static String table(Tables tables) {
        return tables.create(CreateTableRequest.builder()
                .attributeDefinitions(
                        CreateTableTest.attr("pk", ScalarAttributeType.S),
                        CreateTableTest.attr("g", ScalarAttributeType.S))
                .keySchema(CreateTableTest.key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .globalSecondaryIndexes(GlobalSecondaryIndexTest.gsi(
                        "by-g", ProjectionType.KEYS_ONLY, CreateTableTest.key("g", KeyType.HASH)))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
    }

    @Test
    void enablingAndDescribing(DynamoDbClient ddb, Tables tables) {
        String t = table(tables);
        var before = ddb.describeTimeToLive(b -> b.tableName(t)).timeToLiveDescription();
        assertThat(before.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.DISABLED);
        assertThat(before.attributeName()).isNull();
        var enabled = ddb.updateTimeToLive(b -> b.tableName(t)
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName("expires")))
                .timeToLiveSpecification();
        assertThat(enabled.enabled()).isTrue();
        assertThat(enabled.attributeName()).isEqualTo("expires");
        var after = ddb.describeTimeToLive(b -> b.tableName(t)).timeToLiveDescription();
        assertThat(after.timeToLiveStatus()).isIn(TimeToLiveStatus.ENABLED, TimeToLiveStatus.ENABLING);
        assertThat(after.attributeName()).isEqualTo("expires");
        ApiErrors.assertValidation(
                "TimeToLive is already enabled",
                () -> ddb.updateTimeToLive(b -> b.tableName(t)
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName("expires"))));
        // A second change within the hour after the first is refused.
        ApiErrors.assertValidation(
                "Time to live has been modified multiple times within a fixed interval",
                () -> ddb.updateTimeToLive(b -> b.tableName(t)
                        .timeToLiveSpecification(s -> s.enabled(false).attributeName("expires"))));
    }

    @Test
    void disablingWhatIsDisabledIsRefused(DynamoDbClient ddb, Tables tables) {
        String t = table(tables);
        ApiErrors.assertValidation(
                "TimeToLive is already disabled",
                () -> ddb.updateTimeToLive(b -> b.tableName(t)
                        .timeToLiveSpecification(s -> s.enabled(false).attributeName("expires"))));
    }

    @Test
    @Tag("partita-only")
    void expiredItemsAreDeletedByTheService(DynamoDbClient ddb, Tables tables) throws Exception {
        Assumptions.assumeTrue(Endpoint.isEmbedded(), "asks Partita to reap now");
        String t = table(tables);
        long now = System.currentTimeMillis() / 1000;
        // Written before TTL is enabled: indexed when it is.
        ddb.putItem(b ->
                b.tableName(t).item(Map.of("pk", s("old"), "g", s("G"), "expires", n(Long.toString(now - 60)))));
        ddb.updateTimeToLive(
                b -> b.tableName(t).timeToLiveSpecification(s -> s.enabled(true).attributeName("expires")));
        ddb.putItem(b ->
                b.tableName(t).item(Map.of("pk", s("gone"), "g", s("G"), "expires", n(Long.toString(now - 1)))));
        ddb.putItem(b ->
                b.tableName(t).item(Map.of("pk", s("later"), "g", s("G"), "expires", n(Long.toString(now + 3600)))));
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("text"), "g", s("G"), "expires", s("yesterday"))));
        // More than five years in the past: DynamoDB ignores it.
        ddb.putItem(b -> b.tableName(t)
                .item(Map.of("pk", s("ancient"), "g", s("G"), "expires", n(Long.toString(now - 6L * 365 * 86400)))));
        // An item whose expiry was pushed back after it had passed stays.
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("renewed"), "expires", n(Long.toString(now - 5)))));
        ddb.updateItem(b -> b.tableName(t)
                .key(Map.of("pk", s("renewed")))
                .updateExpression("SET expires = :e")
                .expressionAttributeValues(Map.of(":e", n(Long.toString(now + 3600)))));
        // Expired but not reaped yet: still readable, as in DynamoDB. The server's reaper also passes every second
        // by itself, and may have deleted it already; then the table's count of TTL deletions says so.
        boolean readable =
                ddb.getItem(b -> b.tableName(t).key(Map.of("pk", s("gone")))).hasItem();
        assertThat(readable || ttlDeletions(t) > 0)
                .as("an expired item is readable until the reaper deletes it")
                .isTrue();

        Indexes.adminPost(Endpoint.uri(), "/admin/ttl/reap");
        assertThat(ttlDeletions(t)).isGreaterThanOrEqualTo(2);
        for (String pk : List.of("old", "gone")) {
            assertThat(ddb.getItem(b -> b.tableName(t).key(Map.of("pk", s(pk))).consistentRead(true))
                            .hasItem())
                    .as(pk)
                    .isFalse();
        }
        for (String pk : List.of("later", "text", "ancient", "renewed")) {
            assertThat(ddb.getItem(b -> b.tableName(t).key(Map.of("pk", s(pk))).consistentRead(true))
                            .hasItem())
                    .as(pk)
                    .isTrue();
        }
        Indexes.await(ddb, t);
        assertThat(ddb.query(b -> b.tableName(t)
                                .indexName("by-g")
                                .keyConditionExpression("g = :g")
                                .expressionAttributeValues(Map.of(":g", s("G"))))
                        .items())
                .extracting(i -> i.get("pk").s())
                .containsExactlyInAnyOrder("later", "text", "ancient");
        String arn = ddb.describeTable(b -> b.tableName(t)).table().latestStreamArn();
        List<Record> removals = StreamsTest.readAll(Endpoint.streams(), arn).stream()
                .filter(r -> r.eventName() == OperationType.REMOVE)
                .toList();
        assertThat(removals).hasSize(2).allSatisfy(r -> {
            assertThat(r.userIdentity()).isNotNull();
            assertThat(r.userIdentity().type()).isEqualTo("Service");
            assertThat(r.userIdentity().principalId()).isEqualTo("dynamodb.amazonaws.com");
            assertThat(r.dynamodb().oldImage()).containsKey("expires");
        });
        var ttl = new ObjectMapper().readTree(Indexes.adminGet(Endpoint.uri(), "/admin/ttl?table=" + t));
        assertThat(ttl.get("tables").get(0).get("timeToLiveDeletedItemCount").asLong())
                .isEqualTo(2);
    }

    /** How many items the TTL reaper has deleted from table {@code t} (Partita's {@code /admin/ttl}). */
    private static long ttlDeletions(String t) throws Exception {
        String view = Indexes.adminGet(Endpoint.uri(), "/admin/ttl?table=" + t);
        return new ObjectMapper()
                .readTree(view)
                .get("tables")
                .get(0)
                .get("timeToLiveDeletedItemCount")
                .asLong();
    }
}
