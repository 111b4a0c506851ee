package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.BatchGetItemInput;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.server.http.ErrorBody;
import io.partita.server.op.item.BatchGetItemHandler;
import io.partita.server.op.item.BatchWriteItemHandler;
import io.partita.server.route.OperationRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A BatchGetItem or BatchWriteItem over tables in several Raft groups ({@code --cluster-table-groups},
 * docs/CLUSTER.md), run as one share per group and answered as one batch, as DynamoDB answers a batch over tables on
 * different partitions.
 *
 * <p>A table whose partitions are Raft groups of their own ({@code --cluster-partition-groups}) is cut further: each of
 * its keys (a read's, a delete's) or items (a put's) goes to its range's group, and the answers of one table from
 * several groups are joined (its items, its unprocessed keys, its units added into one entry).
 *
 * <p>The node the client sent it to checks the request as a whole first, as a single node does before it looks at a
 * table ({@link #split}: the JSON, the shape, the limits over all tables). Each share then goes to its group's leader
 * as a request of its own. A BatchWriteItem's shares are first only checked there ({@code
 * Partita.CheckBatchWriteItem}), every one, so that bad input in one table changes nothing in another; then written.
 * The answers merge ({@link #merge}): a share its group could not take (no leader, throttled, an answer lost) is
 * returned whole in {@code UnprocessedKeys} or {@code UnprocessedItems}, which the SDKs send again (puts and deletes
 * are idempotent, and a read changes nothing); the batch fails only when no share was done, with the error a single
 * node would give.
 */
final class BatchSpread {
    static final String GET = "BatchGetItem";
    static final String WRITE = "BatchWriteItem";
    /** The target of a share of a BatchWriteItem that its group only checks. */
    static final String CHECK = OperationRegistry.PARTITA_PREFIX + "CheckBatchWriteItem";
    /** A merged BatchGetItem's answer stays within DynamoDB's 16 MB; the shares past it are left unprocessed. */
    static final long MAX_ANSWER_BYTES = 16L * 1024 * 1024;

    private static final ObjectMapper JSON = DynamoJson.mapper();
    /** The errors after which a share is sent again, as the SDKs send a throttled batch's unprocessed part again. */
    private static final Set<String> RETRYABLE =
            Set.of("ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded");

    private BatchSpread() {}

    /** Whether {@code target} runs over several groups when its tables are in several: BatchGetItem, BatchWriteItem. */
    static boolean runs(String target) {
        return (OperationRegistry.DYNAMODB_PREFIX + GET).equals(target)
                || (OperationRegistry.DYNAMODB_PREFIX + WRITE).equals(target);
    }

    /**
     * A group's share of the batch: its tables, in the order the request names them, their entries of {@code
     * RequestItems} as the request gave them, and the body that asks for them alone.
     */
    record Share<G>(G group, List<String> tables, ObjectNode items, byte[] body) {}

    /** Sends {@code share}'s body to its group as {@code target}; its future never fails (a 503 or 500 instead). */
    @FunctionalInterface
    interface Sender<G> {
        CompletableFuture<ClusterRouter.Reply> send(Share<G> share, String target);
    }

    /**
     * The shares of {@code operation}'s {@code body}: one per run of tables of one group ({@code groupOf} each table),
     * in the request's order, so that the first share its group refuses holds the first table a single node would
     * refuse (tables of two groups in turn, a b a, make three shares); the request checked as a whole first, as a
     * single node checks it before it reads any table.
     *
     * @throws ApiException DynamoDB's error for a request that is bad as a whole
     */
    static <G> List<Share<G>> split(String operation, byte[] body, Function<String, G> groupOf) {
        return split(operation, body, groupOf, table -> null);
    }

    /**
     * The shares of {@code operation}'s {@code body} as {@link #split(String, byte[], Function)} cuts them, a table
     * that {@code cut} gives a function for (a table whose partitions are groups of their own) cut further by the group
     * of each of its keys or items: one part of the table per group, in the order of each group's first key, each part
     * with the table's other members (a read's projection, its consistency).
     */
    static <G> List<Share<G>> split(
            String operation, byte[] body, Function<String, G> groupOf, Function<String, Function<JsonNode, G>> cut) {
        if (operation.equals(GET)) {
            BatchGetItemHandler.checkShape(DynamoJson.decode(body, BatchGetItemInput.class));
        } else {
            BatchWriteItemHandler.checkShape(DynamoJson.decode(body, BatchWriteItemInput.class));
        }
        ObjectNode root = root(body);
        List<G> groups = new ArrayList<>();
        List<ObjectNode> runs = new ArrayList<>();
        List<List<String>> tables = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : root.get("RequestItems").properties()) {
            Function<JsonNode, G> byKey = cut.apply(e.getKey());
            Map<G, JsonNode> parts = byKey == null
                    ? Map.of(groupOf.apply(e.getKey()), e.getValue())
                    : byRange(operation.equals(GET), e.getValue(), byKey);
            for (Map.Entry<G, JsonNode> part : parts.entrySet()) {
                G group = part.getKey();
                if (groups.isEmpty() || !groups.get(groups.size() - 1).equals(group)) {
                    groups.add(group);
                    runs.add(JSON.createObjectNode());
                    tables.add(new ArrayList<>());
                }
                runs.get(runs.size() - 1).set(e.getKey(), part.getValue());
                tables.get(tables.size() - 1).add(e.getKey());
            }
        }
        List<Share<G>> shares = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            shares.add(new Share<>(
                    groups.get(i),
                    List.copyOf(tables.get(i)),
                    runs.get(i),
                    bytes(sharing(root, "RequestItems", runs.get(i)))));
        }
        return shares;
    }

    /**
     * A cut table's entry of {@code RequestItems} ({@code entry}) in parts by group ({@code byKey} of each key or
     * item), in the order of each group's first: a read's {@code Keys}, each part with the entry's other members; a
     * write's requests, by a put's {@code Item} or a delete's {@code Key} (a request that has neither, which its group
     * refuses, by null).
     */
    private static <G> Map<G, JsonNode> byRange(boolean get, JsonNode entry, Function<JsonNode, G> byKey) {
        Map<G, ArrayNode> lists = new LinkedHashMap<>();
        for (JsonNode one : get ? entry.path("Keys") : entry) {
            JsonNode key = get ? one : writeKeyOf(one);
            lists.computeIfAbsent(byKey.apply(key), g -> JSON.createArrayNode()).add(one);
        }
        Map<G, JsonNode> parts = new LinkedHashMap<>();
        lists.forEach((g, list) -> parts.put(g, get ? ((ObjectNode) entry.deepCopy()).set("Keys", list) : list));
        return parts;
    }

    /**
     * What places a BatchWriteItem request's item in its range, as its group's server reads the request: a put's
     * {@code Item}, else a delete's {@code Key} (a {@code PutRequest} of null is none).
     */
    static JsonNode writeKeyOf(JsonNode one) {
        return one.get("PutRequest") instanceof ObjectNode put
                ? put.get("Item")
                : one.path("DeleteRequest").get("Key");
    }

    /** The request {@code body} as a tree; the caller decoded it before, so it is an object. */
    static ObjectNode root(byte[] body) {
        try {
            return (ObjectNode) JSON.readTree(body);
        } catch (IOException | ClassCastException e) {
            throw ApiException.serialization("Start of structure or map expected"); // decoded before: not reached
        }
    }

    /**
     * A share's body: the request {@code root} with its {@code field} (what is split over the groups) replaced by
     * {@code part}; the request's other fields (ReturnConsumedCapacity, ReturnItemCollectionMetrics) go with every
     * share.
     */
    static ObjectNode sharing(ObjectNode root, String field, JsonNode part) {
        ObjectNode share = JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> f : root.properties()) {
            share.set(f.getKey(), f.getKey().equals(field) ? part : f.getValue());
        }
        return share;
    }

    /**
     * A request's list of actions (Gets, writes, statements) by group: each action's table (an ARN read as its name),
     * and each group's actions' places, in the order of each group's first action.
     */
    record Grouped<G>(String[] tables, Map<G, int[]> places) {
        /** The actions at {@code at} of {@code items}, as a part's own list. */
        static ArrayNode part(JsonNode items, int[] at) {
            ArrayNode part = JSON.createArrayNode();
            for (int i : at) {
                part.add(items.get(i));
            }
            return part;
        }

        /** The tables of the actions at {@code at}. */
        String[] tablesAt(int[] at) {
            return java.util.Arrays.stream(at).mapToObj(i -> tables[i]).toArray(String[]::new);
        }
    }

    /** Groups {@code items} by the group ({@code groupOf}) of each one's table ({@code tableOf}). */
    static <G> Grouped<G> group(JsonNode items, Function<JsonNode, String> tableOf, Function<String, G> groupOf) {
        return group(items, tableOf, groupOf, table -> null, item -> null);
    }

    /**
     * Groups {@code items} by the group ({@code groupOf}) of each one's table ({@code tableOf}); an item of a table
     * that {@code cut} gives a function for (a table whose partitions are groups of their own) by the group of its key
     * ({@code keyOf}: its {@code Key}, or a put's {@code Item}).
     */
    static <G> Grouped<G> group(
            JsonNode items,
            Function<JsonNode, String> tableOf,
            Function<String, G> groupOf,
            Function<String, Function<JsonNode, G>> cut,
            Function<JsonNode, JsonNode> keyOf) {
        Map<G, List<Integer>> positions = new LinkedHashMap<>();
        String[] tables = new String[items.size()];
        for (int i = 0; i < items.size(); i++) {
            String t = tableOf.apply(items.get(i));
            tables[i] = t != null && t.startsWith("arn:") ? TableRoute.tableOfArn(t) : t;
            Function<JsonNode, G> byKey = tables[i] == null ? null : cut.apply(tables[i]);
            G group = byKey == null ? groupOf.apply(tables[i]) : byKey.apply(keyOf.apply(items.get(i)));
            positions.computeIfAbsent(group, g -> new ArrayList<>()).add(i);
        }
        Map<G, int[]> places = new LinkedHashMap<>();
        positions.forEach(
                (g, at) -> places.put(g, at.stream().mapToInt(Integer::intValue).toArray()));
        return new Grouped<>(tables, places);
    }

    /** {@code node} as JSON. */
    static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Runs {@code operation}'s {@code shares} through {@code sender} and answers the batch: a BatchWriteItem's checked
     * by every group before any writes, but for a batch of one share (a table cut by ranges whose keys are all in one
     * range), whose group checks it whole before it writes any of it, as a single node does. The replies are read and
     * merged on {@code work}, never where they arrive (the router's event loops).
     */
    static <G> CompletableFuture<ClusterRouter.Reply> run(
            String operation, List<Share<G>> shares, Sender<G> sender, java.util.concurrent.Executor work) {
        if (operation.equals(GET) || shares.size() == 1) {
            return all(shares, sender, operation)
                    .thenApplyAsync(replies -> merge(operation, shares, replies, MAX_ANSWER_BYTES), work);
        }
        return all(shares, sender, CHECK)
                .thenComposeAsync(
                        checks -> {
                            ClusterRouter.Reply unsure = null;
                            for (ClusterRouter.Reply check : checks) {
                                if (check.status() >= 500) {
                                    unsure = unsure == null ? check : unsure;
                                } else if (check.status() != 200) {
                                    return CompletableFuture.completedFuture(check); // the first refusal, in order
                                }
                            }
                            if (unsure != null) {
                                // A check changes nothing, whatever became of it.
                                return CompletableFuture.completedFuture(unavailable(
                                        "a Raft group of the batch's tables did not answer; nothing was written"));
                            }
                            return all(shares, sender, WRITE)
                                    .thenApplyAsync(replies -> merge(WRITE, shares, replies, MAX_ANSWER_BYTES), work);
                        },
                        work);
    }

    private static <G> CompletableFuture<List<ClusterRouter.Reply>> all(
            List<Share<G>> shares, Sender<G> sender, String operation) {
        String target = operation.equals(CHECK) ? CHECK : OperationRegistry.DYNAMODB_PREFIX + operation;
        return sendAll(shares, share -> sender.send(share, target), "a share of the batch");
    }

    /**
     * Sends each of {@code parts} at once ({@code send}) and returns their replies in order, once all have come; a
     * part not sent (this node closing, say) or whose reply failed is a 503 that says which ({@code what}).
     */
    static <T> CompletableFuture<List<ClusterRouter.Reply>> sendAll(
            List<T> parts, Function<T, CompletableFuture<ClusterRouter.Reply>> send, String what) {
        List<CompletableFuture<ClusterRouter.Reply>> sent = new ArrayList<>(parts.size());
        for (T part : parts) {
            CompletableFuture<ClusterRouter.Reply> reply;
            try {
                reply = send.apply(part);
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            sent.add(reply.exceptionally(e -> unavailable(what + " was not sent: " + e.getMessage())));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .thenApply(v -> sent.stream().map(CompletableFuture::join).toList());
    }

    /**
     * The batch's answer from its shares' {@code replies} (in the order of {@code shares}). A refusal of a read
     * answers the batch (the first, in the tables' order); a share that was not done goes whole into the unprocessed
     * requests; with none done, the batch answers: an outcome unknown (500) first, which a write's share may have been
     * written in, then a refusal, a throttle, a 503. A BatchGetItem's answer stops short of {@code maxBytes}: the
     * shares past it are unprocessed.
     */
    static <G> ClusterRouter.Reply merge(
            String operation, List<Share<G>> shares, List<ClusterRouter.Reply> replies, long maxBytes) {
        boolean get = operation.equals(GET);
        ObjectNode responses = JSON.createObjectNode();
        ObjectNode unprocessed = JSON.createObjectNode();
        ObjectNode collections = null;
        ArrayNode consumed = null;
        ClusterRouter.Reply refused = null;
        ClusterRouter.Reply lost = null;
        ClusterRouter.Reply throttled = null;
        ClusterRouter.Reply unavailable = null;
        int done = 0;
        long bytes = 0;
        for (int i = 0; i < shares.size(); i++) {
            Share<G> share = shares.get(i);
            ClusterRouter.Reply reply = replies.get(i);
            ObjectNode answer = reply.status() == 200 ? object(reply.body()) : null;
            if (answer == null) {
                String type = reply.status() == 200 ? "" : typeOf(reply.body());
                if (reply.status() == 500 || reply.status() == 200) {
                    lost = lost == null ? (reply.status() == 500 ? reply : internal()) : lost;
                } else if (reply.status() >= 500) {
                    unavailable = unavailable == null ? reply : unavailable;
                } else if (RETRYABLE.contains(type)) {
                    throttled = throttled == null ? reply : throttled;
                } else {
                    refused = refused == null ? reply : refused;
                }
                append(unprocessed, share.items());
                continue;
            }
            if (answer.get("ConsumedCapacity") instanceof ArrayNode units) {
                consumed = consumed == null ? JSON.createArrayNode() : consumed;
                consumed.addAll(units);
            }
            if (get && done > 0 && bytes + reply.body().length > maxBytes) {
                append(unprocessed, share.items()); // read, and not answered: DynamoDB's 16 MB
                continue;
            }
            bytes += reply.body().length;
            done++;
            if (answer.get("Responses") instanceof ObjectNode found) {
                append(responses, found);
            }
            if (answer.get(get ? "UnprocessedKeys" : "UnprocessedItems") instanceof ObjectNode left) {
                append(unprocessed, left);
            }
            if (answer.get("ItemCollectionMetrics") instanceof ObjectNode metrics) {
                collections = collections == null ? JSON.createObjectNode() : collections;
                append(collections, metrics);
            }
        }
        if (get && refused != null) {
            return refused; // a read's refusal is the batch's: a read changes nothing
        }
        if (done == 0) {
            if (lost != null) {
                return lost; // a write's share may have been written: the batch is not refused
            }
            return refused != null ? refused : throttled != null ? throttled : unavailable;
        }
        ObjectNode out = JSON.createObjectNode();
        if (get) {
            out.set("Responses", responses);
            out.set("UnprocessedKeys", unprocessed);
        } else {
            out.set("UnprocessedItems", unprocessed);
        }
        if (consumed != null) {
            out.set("ConsumedCapacity", byTable(consumed));
        }
        if (collections != null) {
            out.set("ItemCollectionMetrics", collections);
        }
        try {
            return new ClusterRouter.Reply(200, JSON.writeValueAsBytes(out));
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Adds {@code part}'s tables to {@code into}'s: a table's list (items, requests, metrics) joined to the same
     * table's from another share, a read's unprocessed {@code Keys} to the same table's (its other members, a
     * projection, are the same in both); a table new to it set whole.
     */
    static void append(ObjectNode into, ObjectNode part) {
        for (Map.Entry<String, JsonNode> f : part.properties()) {
            JsonNode mine = into.get(f.getKey());
            if (mine == null) {
                into.set(f.getKey(), f.getValue().deepCopy());
            } else if (mine instanceof ArrayNode list && f.getValue() instanceof ArrayNode more) {
                list.addAll(more);
            } else if (mine.get("Keys") instanceof ArrayNode keys
                    && f.getValue().get("Keys") instanceof ArrayNode more) {
                keys.addAll(more);
            }
        }
    }

    /**
     * The units of consumed capacity {@code consumed}, one entry per table as DynamoDB answers a batch: the entries of
     * one table from several groups (a table whose partitions are groups of their own) added into one.
     */
    static ArrayNode byTable(ArrayNode consumed) {
        Map<String, ObjectNode> tables = new LinkedHashMap<>();
        ArrayNode other = JSON.createArrayNode();
        for (JsonNode entry : consumed) {
            JsonNode name = entry.get("TableName");
            if (entry instanceof ObjectNode units && name != null && name.isTextual()) {
                tables.merge(name.asText(), units, RangeSpread::add);
            } else {
                other.add(entry);
            }
        }
        ArrayNode out = JSON.createArrayNode();
        tables.values().forEach(out::add);
        return out.addAll(other);
    }

    /** A 503 of DynamoDB's shape: nothing was done, and the SDKs send the request again. */
    static ClusterRouter.Reply unavailable(String message) {
        return new ClusterRouter.Reply(503, ErrorBody.of(new ApiException(ErrorCode.SERVICE_UNAVAILABLE, message)));
    }

    /** A 500 of DynamoDB's shape: what was done is not known. */
    static ClusterRouter.Reply internal() {
        return new ClusterRouter.Reply(
                500, ErrorBody.of(new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error")));
    }

    static ObjectNode object(byte[] body) {
        try {
            return JSON.readTree(body) instanceof ObjectNode o ? o : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The error's type, after the {@code #} of its {@code __type}; empty for a body that names none. */
    private static String typeOf(byte[] body) {
        return typeOf(object(body));
    }

    /** The error's type, after the {@code #} of its {@code __type}; empty for an error that names none. */
    static String typeOf(ObjectNode error) {
        JsonNode type = error == null ? null : error.get("__type");
        if (type == null || !type.isTextual()) {
            return "";
        }
        String t = type.asText();
        return t.substring(t.indexOf('#') + 1);
    }
}
