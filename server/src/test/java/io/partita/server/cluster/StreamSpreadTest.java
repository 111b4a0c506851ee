package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.http.ErrorBody;
import io.partita.server.op.KeyedTables;
import io.partita.server.op.stream.DescribeStreamHandler;
import io.partita.server.op.stream.GetRecordsHandler;
import io.partita.server.op.stream.GetShardIteratorHandler;
import io.partita.server.op.stream.StreamTokens;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.HashRange;
import io.partita.storage.table.TableCatalog.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The stream of a table cut by ranges over two groups, each a store holding its half of the hashes, run through the
 * stores' own handlers: one stream (the second group's labelled as the first's), its shards each group's partitions of
 * its half, their ids naming their group, and every record read once through the iterators the node hands out.
 */
class StreamSpreadTest {
    private static final String LABEL = "2026-12-07T10:00:00.000";
    private static final String PREFIX = "DynamoDBStreams_20120810.";

    private static final HashRange LOWER = new HashRange(0, Long.MAX_VALUE);
    private static final HashRange UPPER = new HashRange(Long.MIN_VALUE, -1L);

    private record Group(UUID id, StorageEngine storage, OperationRegistry registry) {}

    private static Group group(HashRange range, String label) {
        StorageEngine storage = StorageEngine.open(StorageConfig.memory());
        Table t = storage.tables().create(KeyedTables.byId("tbl").withHashRange(range));
        storage.streams().enable(t, "KEYS_ONLY", label);
        OperationRegistry registry = new OperationRegistry()
                .registerStreams("DescribeStream", new DescribeStreamHandler(storage))
                .registerStreams("GetShardIterator", new GetShardIteratorHandler(storage))
                .registerStreams("GetRecords", new GetRecordsHandler(storage));
        return new Group(UUID.randomUUID(), storage, registry);
    }

    /** Each group's store answering the requests sent to it, as its server would. */
    @SuppressWarnings("unchecked")
    private static RangeSpread.Sender sender(List<Group> groups, List<String> asked) {
        return (id, target, body) -> {
            Group g = groups.stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
            asked.add(groups.indexOf(g) + ":" + target.substring(target.indexOf('.') + 1));
            OperationHandler<Object, ?> handler =
                    (OperationHandler<Object, ?>) g.registry().find(target);
            RequestContext context =
                    new RequestContext("r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), target, false);
            try {
                Object out = handler.handle(context, DynamoJson.decode(body, handler.inputType()));
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, DynamoJson.encode(out)));
            } catch (ApiException e) {
                return CompletableFuture.completedFuture(
                        new ClusterRouter.Reply(e.code().httpStatus(), ErrorBody.of(e)));
            }
        };
    }

    private static void put(Group g, String id) {
        Table t = g.storage().tables().find("tbl");
        g.storage()
                .write(
                        t,
                        new PrimaryKey(new AttributeValue.S(id), null),
                        ConditionalWrite.blind(new WriteDecision.Put(Map.of("id", new AttributeValue.S(id)))));
    }

    private static JsonNode tree(byte[] body) {
        try {
            return DynamoJson.mapper().readTree(body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theGroupsStreamsAreOneStreamWhoseShardsNameTheirGroup() {
        Group lower = group(LOWER, null);
        String label = lower.storage().tables().find("tbl").metadata().stream().label();
        Group upper = group(UPPER, label);
        List<Group> groups = List.of(lower, upper);
        try (StorageEngine a = lower.storage();
                StorageEngine b = upper.storage()) {
            assertThat(a.tables().find("tbl").metadata().hashRange()).isEqualTo(LOWER);
            assertThat(b.tables().find("tbl").metadata().stream().label())
                    .as("the label given")
                    .isEqualTo(label);
            TableRanges ranges =
                    new TableRanges("id", new long[] {0, Long.MIN_VALUE}, List.of(lower.id(), upper.id()), true);
            Set<String> written = new HashSet<>();
            for (int i = 0; written.size() < 40; i++) {
                String id = "k" + i;
                long hash = ItemKeyEncoder.partitionHash(new AttributeValue.S(id));
                put(LOWER.holds(hash) ? lower : upper, id);
                written.add(id);
            }
            List<String> asked = new ArrayList<>();
            RangeSpread.Sender sender = sender(groups, asked);
            String arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl/stream/" + label;

            // Each store of an on-demand table has four partitions: two of each half are the stream's shards.
            ClusterRouter.Reply described = StreamSpread.describe(
                            PREFIX + "DescribeStream", json("{\"StreamArn\":\"" + arn + "\"}"), ranges, sender)
                    .join();
            assertThat(described.status())
                    .as(new String(described.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            JsonNode d = tree(described.body()).path("StreamDescription");
            assertThat(d.path("StreamLabel").asText()).isEqualTo(label);
            List<String> shards = new ArrayList<>();
            d.path("Shards").forEach(s -> shards.add(s.path("ShardId").asText()));
            assertThat(shards).hasSize(4).doesNotHaveDuplicates();
            assertThat(shards.subList(0, 2))
                    .allSatisfy(
                            s -> assertThat(StreamTokens.parseTaggedShardId(s).tag())
                                    .isEqualTo(StreamSpread.tag(lower.id())));
            assertThat(shards.subList(2, 4))
                    .allSatisfy(
                            s -> assertThat(StreamTokens.parseTaggedShardId(s).tag())
                                    .isEqualTo(StreamSpread.tag(upper.id())));

            // Paged by the client: a Limit of 3, then after its last shard.
            JsonNode first = tree(StreamSpread.describe(
                                    PREFIX + "DescribeStream",
                                    json("{\"StreamArn\":\"" + arn + "\",\"Limit\":3}"),
                                    ranges,
                                    sender)
                            .join()
                            .body())
                    .path("StreamDescription");
            assertThat(first.path("Shards")).hasSize(3);
            assertThat(first.path("LastEvaluatedShardId").asText()).isEqualTo(shards.get(2));
            JsonNode rest = tree(StreamSpread.describe(
                                    PREFIX + "DescribeStream",
                                    json("{\"StreamArn\":\"" + arn + "\",\"ExclusiveStartShardId\":\"" + shards.get(2)
                                            + "\"}"),
                                    ranges,
                                    sender)
                            .join()
                            .body())
                    .path("StreamDescription");
            assertThat(rest.path("Shards")).hasSize(1);
            assertThat(rest.path("Shards").get(0).path("ShardId").asText()).isEqualTo(shards.get(3));
            assertThat(rest.has("LastEvaluatedShardId")).isFalse();

            // A move's delete of an item that left the range (as a move's source deletes them) is no change of the
            // stream.
            String moved = written.stream()
                    .filter(id -> LOWER.holds(ItemKeyEncoder.partitionHash(new AttributeValue.S(id))))
                    .max(java.util.Comparator.comparing(
                            id -> ItemKeyEncoder.partitionHash(new AttributeValue.S(id)), Long::compareUnsigned))
                    .orElseThrow();
            long cut = ItemKeyEncoder.partitionHash(new AttributeValue.S(moved));
            a.tables().changeRange("tbl", h -> new HashRange(h.first(), cut - 1));
            a.writes()
                    .write(io.partita.storage.write.ItemWrite.move(
                            a.tables().find("tbl"),
                            new PrimaryKey(new AttributeValue.S(moved), null),
                            ConditionalWrite.blind(new WriteDecision.Delete())));
            // Every record, once, through each shard's iterators (the group's own, wrapped).
            Set<String> read = new HashSet<>();
            for (String shard : shards) {
                ClusterRouter.Reply it = StreamSpread.shardIterator(
                                PREFIX + "GetShardIterator",
                                json("{\"StreamArn\":\"" + arn + "\",\"ShardId\":\"" + shard
                                        + "\",\"ShardIteratorType\":\"TRIM_HORIZON\"}"),
                                "tbl",
                                ranges,
                                sender)
                        .join();
                assertThat(it.status()).isEqualTo(200);
                String iterator = tree(it.body()).path("ShardIterator").asText();
                assertThat(StreamTokens.tableOfIterator(iterator)).isEqualTo("tbl");
                ClusterRouter.Reply records = StreamSpread.records(
                                PREFIX + "GetRecords",
                                json("{\"ShardIterator\":\"" + iterator + "\"}"),
                                "tbl",
                                ranges,
                                sender)
                        .join();
                assertThat(records.status()).isEqualTo(200);
                JsonNode answer = tree(records.body());
                answer.path("Records").forEach(r -> {
                    assertThat(r.path("eventName").asText()).isEqualTo("INSERT");
                    assertThat(read.add(r.path("dynamodb")
                                    .path("Keys")
                                    .path("id")
                                    .path("S")
                                    .asText()))
                            .isTrue();
                });
                assertThat(StreamTokens.parseGroupIterator(
                                answer.path("NextShardIterator").asText()))
                        .as("the next iterator wrapped again")
                        .isNotNull();
            }
            assertThat(read).isEqualTo(written);

            // A shard id of no group of the table: the first group's answer, the shard not found.
            asked.clear();
            long other = 1;
            while (other == StreamSpread.tag(lower.id()) || other == StreamSpread.tag(upper.id())) {
                other++;
            }
            String none = StreamTokens.taggedShardId(
                    StreamTokens.parseTaggedShardId(shards.get(0)).shardId(), other);
            ClusterRouter.Reply missing = StreamSpread.shardIterator(
                            PREFIX + "GetShardIterator",
                            json("{\"StreamArn\":\"" + arn + "\",\"ShardId\":\"" + none
                                    + "\",\"ShardIteratorType\":\"LATEST\"}"),
                            "tbl",
                            ranges,
                            sender)
                    .join();
            assertThat(BatchSpread.typeOf((ObjectNode) tree(missing.body()))).isEqualTo("ResourceNotFoundException");
            assertThat(asked).containsExactly("0:GetShardIterator");
        }
    }

    /**
     * A label given that is not of DynamoDB's form, or one the table had, is not taken (one of now is); and no stream
     * is enabled on a store whose range is moving (the move gives up on a table with a stream).
     */
    @Test
    void aGivenLabelIsTakenOnlyWhenItIsOneAndNeverWhileARangeMoves() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            Table t = storage.tables().create(KeyedTables.byId("tbl").withHashRange(LOWER));
            for (String bad : List.of("yesterday", "2026-12-07T10:00:00", "2026-13-07T10:00:00.000")) {
                String made = storage.streams().enable(t, "KEYS_ONLY", bad).label();
                assertThat(made)
                        .as(bad)
                        .isNotEqualTo(bad)
                        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}");
                storage.streams().disable(storage.tables().find("tbl"));
                t = storage.tables().find("tbl");
            }
            String taken = storage.streams().enable(t, "KEYS_ONLY", LABEL).label();
            assertThat(taken).isEqualTo(LABEL);
            storage.streams().disable(storage.tables().find("tbl"));
            t = storage.tables().find("tbl");
            assertThat(storage.streams().enable(t, "KEYS_ONLY", LABEL).label())
                    .as("a label the table had")
                    .isNotEqualTo(LABEL);
            storage.streams().disable(storage.tables().find("tbl"));

            storage.tables().changeRange("tbl", h -> h.movingFrom(1L << 40));
            Table moving = storage.tables().find("tbl");
            int streams = moving.metadata().streams().size();
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> storage.streams().enable(moving, "KEYS_ONLY", null))
                    .isInstanceOfSatisfying(
                            ApiException.class,
                            e -> assertThat(e.code()).isEqualTo(io.partita.protocol.error.ErrorCode.RESOURCE_IN_USE));
            assertThat(storage.tables().find("tbl").metadata().streams()).hasSize(streams);
            assertThat(storage.tables().find("tbl").metadata().stream()).isNull();
        }
    }

    @Test
    void shardIdsAndIteratorsOfAGroupRoundTrip() {
        String own = "shardId-00000000000000000012-0a1b2c3d";
        String tagged = StreamTokens.taggedShardId(own, 123_456_789L);
        assertThat(tagged).isEqualTo("shardId-12345678900000000012-0a1b2c3d").hasSize(own.length());
        assertThat(StreamTokens.parseTaggedShardId(tagged)).isEqualTo(new StreamTokens.TaggedShard(123_456_789L, own));
        assertThat(StreamTokens.parseTaggedShardId(own))
                .as("a group's own id names no group")
                .isNull();
        assertThat(StreamTokens.taggedShardId(own, 0)).isNull();
        assertThat(StreamTokens.taggedShardId("shardId-1", 5)).isNull();
        String wrapped = new StreamTokens.GroupIterator("t", 42, "aW5uZXI").print();
        assertThat(StreamTokens.parseGroupIterator(wrapped))
                .isEqualTo(new StreamTokens.GroupIterator("t", 42, "aW5uZXI"));
        assertThat(StreamTokens.parseGroupIterator("not base64 !")).isNull();
        for (int i = 0; i < 1000; i++) {
            assertThat(StreamSpread.tag(UUID.randomUUID())).isBetween(1L, 999_999_999L);
        }
    }
}
