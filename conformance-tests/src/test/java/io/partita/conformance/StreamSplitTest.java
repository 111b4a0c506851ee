package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardFilterType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Stream shards follow partitions ("DynamoDB Streams: shards"): a partition that splits closes its shard (it gets an
 * EndingSequenceNumber) and its two children name it as their parent; a reader that finishes a parent before its
 * children sees every item's changes in order across the split. A server whose partitions split at 1 MB.
 */
@Tag("partita-only")
class StreamSplitTest {
    @Test
    void aSplitClosesTheShardAndItsChildrenFollowInOrder() {
        try (IsolatedPartita partita =
                        IsolatedPartita.start(CapacityConfig.defaults().withPartitionSizeLimit(1_000_000));
                DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder()
                        .endpointOverride(partita.server().endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                        .httpClient(UrlConnectionHttpClient.create())
                        .build()) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables()
                    .create(CreateTableRequest.builder()
                            .attributeDefinitions(CreateTableTest.attr("id", ScalarAttributeType.S))
                            .keySchema(CreateTableTest.key("id", KeyType.HASH))
                            .billingMode(BillingMode.PAY_PER_REQUEST)
                            .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
            // 44 items of 100 KB: one of the four partitions holds over 1 MB and splits.
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 44; i++) {
                    Map<String, AttributeValue> item = new HashMap<>(IsolatedPartita.item("id", "item-" + i, 100_000));
                    item.put("round", AttributeValue.fromN(Integer.toString(round)));
                    partita.putPatiently(t, item);
                }
                if (round == 0) {
                    JsonNode m = partita.awaitMetrics(
                            t,
                            Duration.ofSeconds(10),
                            x -> x.get("partitionSplits").asInt() >= 1);
                    assertThat(m.get("partitionSplits").asInt()).isGreaterThanOrEqualTo(1);
                }
            }
            String arn = ddb.describeTable(b -> b.tableName(t)).table().latestStreamArn();
            List<Shard> shards = streams.describeStream(b -> b.streamArn(arn))
                    .streamDescription()
                    .shards();
            List<Shard> closed = shards.stream()
                    .filter(s -> s.sequenceNumberRange().endingSequenceNumber() != null)
                    .toList();
            assertThat(closed).as("the split partition's shard is closed").isNotEmpty();
            Shard parent = closed.get(0);
            List<Shard> children = shards.stream()
                    .filter(s -> parent.shardId().equals(s.parentShardId()))
                    .toList();
            assertThat(children).hasSize(2);
            assertThat(streams.describeStream(b -> b.streamArn(arn)
                                    .shardFilter(f ->
                                            f.type(ShardFilterType.CHILD_SHARDS).shardId(parent.shardId())))
                            .streamDescription()
                            .shards())
                    .extracting(Shard::shardId)
                    .containsExactlyInAnyOrderElementsOf(
                            children.stream().map(Shard::shardId).toList());

            // Parents first (DescribeStream lists them first), each shard to its end.
            Map<String, List<String>> rounds = new HashMap<>();
            int closedExhausted = 0;
            for (Shard shard : shards) {
                String it = streams.getShardIterator(b -> b.streamArn(arn)
                                .shardId(shard.shardId())
                                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                        .shardIterator();
                while (it != null) {
                    String from = it;
                    GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(from));
                    for (Record rec : r.records()) {
                        rounds.computeIfAbsent(rec.dynamodb().keys().get("id").s(), k -> new ArrayList<>())
                                .add(rec.dynamodb().newImage().get("round").n());
                    }
                    if (r.records().isEmpty() && r.nextShardIterator() != null) {
                        break; // an open shard read to its end for now
                    }
                    if (r.nextShardIterator() == null) {
                        closedExhausted++;
                    }
                    it = r.nextShardIterator();
                }
            }
            assertThat(closedExhausted).as("closed shards read to their end").isEqualTo(closed.size());
            assertThat(rounds).hasSize(44);
            rounds.forEach((id, seen) -> assertThat(seen).as(id).containsExactly("0", "1"));
        }
    }
}
