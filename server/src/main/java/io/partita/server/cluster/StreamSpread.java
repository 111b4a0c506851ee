package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.server.op.stream.StreamTokens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The stream of a table cut by hash ranges over a cluster's Raft groups ({@code --cluster-partition-groups},
 * docs/CLUSTER.md): each group's store keeps the stream of its own items, every group's labelled alike (its first
 * group's label, {@link RangeSpread#labelled}), so the stream is one ARN; its shards are the groups' partitions' shards.
 * Two groups may number a partition alike, so a shard id names its group too ({@link StreamTokens#taggedShardId}: a
 * tag of the group's id and the partition's number), and a shard iterator wraps its group's ({@link
 * StreamTokens.GroupIterator}). The node the client reached runs DescribeStream over every group, and sends
 * GetShardIterator and GetRecords to the shard's group. (A table with a stream keeps its ranges: a move is given up,
 * {@link RangeMove}.)
 */
final class StreamSpread {
    /** The operations run here on such a table's stream. */
    static final Set<String> OPERATIONS = Set.of("DescribeStream", "GetShardIterator", "GetRecords");

    /** How many pages one group may answer for one DescribeStream: more is a group that pages without end. */
    private static final int MAX_PAGES = 10_000;

    private StreamSpread() {}

    /**
     * The tag a shard id gives group {@code group} ({@link StreamTokens#taggedShardId}): 1 to 999,999,999, from its id.
     * Two groups of one table share one with a chance of about one in a billion a pair.
     */
    static long tag(UUID group) {
        long h = group.getMostSignificantBits() * 0x9E3779B97F4A7C15L ^ group.getLeastSignificantBits();
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        return 1 + Long.remainderUnsigned(h, 999_999_999L);
    }

    /** The group of {@code ranges} that tag {@code tag} names, or null. */
    static UUID groupOf(TableRanges ranges, long tag) {
        for (UUID g : ranges.groups()) {
            if (tag(g) == tag) {
                return g;
            }
        }
        return null;
    }

    /** Runs operation {@code operation} (one of {@link #OPERATIONS}) of table {@code table}'s stream. */
    static CompletableFuture<ClusterRouter.Reply> run(
            String operation, String target, byte[] body, String table, TableRanges ranges, RangeSpread.Sender sender) {
        return switch (operation) {
            case "DescribeStream" -> describe(target, body, ranges, sender);
            case "GetShardIterator" -> shardIterator(target, body, table, ranges, sender);
            default -> records(target, body, table, ranges, sender);
        };
    }

    /**
     * DescribeStream: the request checked by the first group as it is (its errors, the stream's description), then
     * every group's shards, every page of each, their ids tagged with their group's; the client's page of them, in the
     * groups' order (a group's own in the order it gave them: a parent before its children), after its {@code
     * ExclusiveStartShardId} (an id not among them ends the list, as a single node's does) and with its {@code
     * ShardFilter}. A group that lacks the stream (made by a move after it was disabled) has none of its shards.
     */
    static CompletableFuture<ClusterRouter.Reply> describe(
            String target, byte[] body, TableRanges ranges, RangeSpread.Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        UUID first = ranges.groups().get(0);
        if (root == null || !root.path("StreamArn").isTextual()) {
            return sender.send(first, target, body);
        }
        // (Its ExclusiveStartShardId too, checked as any: the group, which has no shard of that id, ends its page.)
        return sender.send(first, target, body).thenCompose(checked -> {
            ObjectNode described = checked.status() == 200 ? BatchSpread.object(checked.body()) : null;
            if (described == null || !(described.get("StreamDescription") instanceof ObjectNode description)) {
                return CompletableFuture.completedFuture(checked);
            }
            List<CompletableFuture<ClusterRouter.Reply>> asked = new ArrayList<>();
            List<List<JsonNode>> shards = new ArrayList<>();
            for (UUID g : ranges.groups()) {
                List<JsonNode> own = new ArrayList<>();
                shards.add(own);
                asked.add(shardsOf(g, target, root.get("StreamArn").asText(), null, own, 0, sender, g.equals(first)));
            }
            return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                    .thenApply(done -> {
                        for (CompletableFuture<ClusterRouter.Reply> f : asked) {
                            if (f.join() != null) {
                                return f.join();
                            }
                        }
                        return new ClusterRouter.Reply(200, page(root, described, description, shards));
                    });
        });
    }

    /**
     * Every shard of group {@code group}'s stream {@code arn} from after {@code start}, tagged, added to {@code out};
     * null once done, else the group's refusal (a {@code ResourceNotFoundException} of a group other than the first
     * is none: no shard).
     */
    private static CompletableFuture<ClusterRouter.Reply> shardsOf(
            UUID group,
            String target,
            String arn,
            String start,
            List<JsonNode> out,
            int pages,
            RangeSpread.Sender sender,
            boolean first) {
        ObjectNode ask = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode()
                .put("StreamArn", arn)
                .put("Limit", 100);
        if (start != null) {
            ask.put("ExclusiveStartShardId", start);
        }
        return sender.send(group, target, RangeSpread.bytes(ask)).thenCompose(r -> {
            ObjectNode answer = r.status() == 200 ? BatchSpread.object(r.body()) : null;
            if (answer == null) {
                boolean lacks = !first
                        && r.status() == 400
                        && BatchSpread.typeOf(BatchSpread.object(r.body())).equals("ResourceNotFoundException");
                return CompletableFuture.completedFuture(lacks ? null : r);
            }
            JsonNode d = answer.path("StreamDescription");
            long tag = tag(group);
            for (JsonNode s : d.path("Shards")) {
                ObjectNode shard = s.deepCopy();
                shard.put(
                        "ShardId", StreamTokens.taggedShardId(s.path("ShardId").asText(), tag));
                if (s.path("ParentShardId").isTextual()) {
                    shard.put(
                            "ParentShardId",
                            StreamTokens.taggedShardId(s.path("ParentShardId").asText(), tag));
                }
                out.add(shard);
            }
            JsonNode last = d.get("LastEvaluatedShardId");
            if (last == null || !last.isTextual() || pages + 1 >= MAX_PAGES) {
                return CompletableFuture.completedFuture(null);
            }
            return shardsOf(group, target, arn, last.asText(), out, pages + 1, sender, first);
        });
    }

    /** The client's page of every group's {@code shards} ({@link #describe}), in the first group's description. */
    private static byte[] page(
            ObjectNode request, ObjectNode described, ObjectNode description, List<List<JsonNode>> shards) {
        String parent = request.path("ShardFilter").path("ShardId").asText(null);
        List<JsonNode> all = new ArrayList<>();
        for (List<JsonNode> own : shards) {
            for (JsonNode s : own) {
                if (parent == null || parent.equals(s.path("ParentShardId").asText(null))) {
                    all.add(s);
                }
            }
        }
        String start = request.path("ExclusiveStartShardId").asText(null);
        int from = 0;
        if (start != null) {
            from = all.size();
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).path("ShardId").asText().equals(start)) {
                    from = i + 1;
                }
            }
        }
        JsonNode limit = request.get("Limit");
        int n = limit != null && limit.canConvertToInt() && limit.asInt() > 0 ? Math.min(100, limit.asInt()) : 100;
        int to = Math.min(all.size(), from + n);
        ArrayNode page = description.putArray("Shards");
        all.subList(from, to).forEach(page::add);
        description.remove("LastEvaluatedShardId");
        if (to < all.size() && to > from) {
            description.put(
                    "LastEvaluatedShardId", all.get(to - 1).path("ShardId").asText());
        }
        return RangeSpread.bytes(described);
    }

    /**
     * GetShardIterator: to the group its shard id names, with the group's own id of the shard; the iterator it gives
     * wrapped with the group's tag and the table's name. An id that names no group of the table goes to the first
     * group as it is, which answers its error.
     */
    static CompletableFuture<ClusterRouter.Reply> shardIterator(
            String target, byte[] body, String table, TableRanges ranges, RangeSpread.Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        StreamTokens.TaggedShard shard = root == null
                ? null
                : StreamTokens.parseTaggedShardId(root.path("ShardId").asText(null));
        UUID group = shard == null ? null : groupOf(ranges, shard.tag());
        if (group == null) {
            return sender.send(ranges.groups().get(0), target, body);
        }
        String tagged = root.path("ShardId").asText();
        root.put("ShardId", shard.shardId());
        return sender.send(group, target, RangeSpread.bytes(root))
                .thenApply(r -> r.status() == 200
                        ? wrapped(r, "ShardIterator", table, shard.tag())
                        : new ClusterRouter.Reply(r.status(), named(r.body(), shard.shardId(), tagged)));
    }

    /** Reply {@code r} with its iterator {@code field}, the group's, wrapped with its table and the group's tag. */
    private static ClusterRouter.Reply wrapped(ClusterRouter.Reply r, String field, String table, long tag) {
        ObjectNode answer = BatchSpread.object(r.body());
        JsonNode inner = answer == null ? null : answer.get(field);
        if (inner == null || !inner.isTextual()) {
            return r;
        }
        answer.put(field, new StreamTokens.GroupIterator(table, tag, inner.asText()).print());
        return new ClusterRouter.Reply(r.status(), RangeSpread.bytes(answer));
    }

    /**
     * GetRecords: to the group its iterator names ({@link StreamTokens.GroupIterator}), with the group's own iterator;
     * the next iterator it gives wrapped again. One that names no group of the table goes to the first group as it is,
     * which refuses it.
     */
    static CompletableFuture<ClusterRouter.Reply> records(
            String target, byte[] body, String table, TableRanges ranges, RangeSpread.Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        StreamTokens.GroupIterator iterator = root == null
                ? null
                : StreamTokens.parseGroupIterator(root.path("ShardIterator").asText(null));
        UUID group = iterator == null || !iterator.tableName().equals(table) ? null : groupOf(ranges, iterator.tag());
        if (group == null) {
            return sender.send(ranges.groups().get(0), target, body);
        }
        root.put("ShardIterator", iterator.inner());
        return sender.send(group, target, RangeSpread.bytes(root))
                .thenApply(r -> r.status() == 200 ? wrapped(r, "NextShardIterator", table, iterator.tag()) : r);
    }

    /** An error {@code body} naming the shard by the client's id {@code tagged} rather than its group's {@code own}. */
    private static byte[] named(byte[] body, String own, String tagged) {
        String text = new String(body, StandardCharsets.UTF_8);
        return text.contains(own) ? text.replace(own, tagged).getBytes(StandardCharsets.UTF_8) : body;
    }
}
