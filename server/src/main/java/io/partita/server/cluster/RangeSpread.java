package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.CapacityUnits;
import io.partita.server.route.OperationRegistry;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The requests on a table whose partitions are Raft groups of their own ({@code --cluster-partition-groups},
 * docs/CLUSTER.md) that concern more than one of its hash ranges, run from the node the client sent them to: a Scan
 * walks the groups in hash order ({@link #scan}), and so does a PartiQL SELECT that binds no partition key ({@link
 * #select}); DescribeTable asks every group and sums their items and bytes
 * ({@link #describe}), and DescribeContinuousBackups merges every group's ({@link #continuousBackups}); CreateTable,
 * DeleteTable, UpdateTable, UpdateTimeToLive, UpdateContinuousBackups, TagResource, UntagResource and
 * UpdateContributorInsights go to every group ({@link #everyGroup}). An item's request goes to its range's group alone,
 * and needs none of this.
 */
final class RangeSpread {
    /** A Scan of one group's ranges, whose page names the last item it scanned when it reaches their end. */
    static final String SCAN_RANGE = OperationRegistry.PARTITA_PREFIX + "ScanRange";

    /**
     * An ExecuteStatement SELECT's page of one group's ranges, whose answer names the last item it scanned (and the
     * token to go on after it) when it reaches their end.
     */
    static final String SELECT_RANGE = OperationRegistry.PARTITA_PREFIX + "SelectRange";

    /**
     * A Query of a global secondary index in one group, whose page reads the rows of that group's items alone and
     * names each ({@code PartitaEntries}): {@link #queryIndex} merges every group's.
     */
    static final String QUERY_INDEX_RANGE = OperationRegistry.PARTITA_PREFIX + "QueryIndexRange";

    /** How long a change that every group must make is sent again to a group that did not answer. */
    static final long EVERY_GROUP_MILLIS = 25_000;

    /** A page of a walk stops once its groups have read this many bytes, as DynamoDB stops a Scan's page at 1 MB. */
    static final long PAGE_BYTES = 1024 * 1024;

    private static final ObjectMapper JSON = DynamoJson.mapper();

    /** The operations of a table that go to every one of its groups. */
    static final Set<String> EVERY = Set.of(
            "CreateTable",
            "DeleteTable",
            "UpdateTable",
            "UpdateTimeToLive",
            "UpdateContinuousBackups",
            "TagResource",
            "UntagResource",
            "UpdateContributorInsights");

    /**
     * The operations that read or write one item collection: they go to the group of their partition key's range (an
     * ExecuteStatement by the key its statement binds; a SELECT that binds none reads every range: {@link #select}).
     */
    static final Set<String> BY_KEY =
            Set.of("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "ExecuteStatement");

    /**
     * The operations refused on such a table for now: they would read or write several ranges at once, or need what
     * is not cut by ranges yet (exports, a Kinesis destination, a replica, a policy). A client's CreateBackup and
     * RestoreTableToPointInTime are among them only as a group's request: the node the client reached runs them over
     * the groups ({@link BackupSpread}, {@link RestoreSpread}); a RestoreTableFromBackup of a backup of such a table
     * is routed by its backup's record, not its table ({@link BackupSpread}).
     */
    static final Set<String> NOT_YET = Set.of(
            "CreateBackup",
            "ExportTableToPointInTime",
            "RestoreTableFromBackup",
            "RestoreTableToPointInTime",
            "EnableKinesisStreamingDestination",
            "UpdateKinesisStreamingDestination",
            "PutResourcePolicy",
            "UpdateTableReplicaAutoScaling");

    private RangeSpread() {}

    /** Sends {@code body} as {@code target} to group {@code group}; its future never fails (a 503 or 500 instead). */
    @FunctionalInterface
    interface Sender {
        CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body);
    }

    /**
     * The refusal of an ExecuteStatement's SELECT on table {@code table}, whose partitions are groups of their own,
     * that binds no one value of its partition key by equality, when it is not a client's request to walk the groups
     * from this node ({@link #select}).
     */
    static ApiException selectOfEveryRange(String table) {
        return ApiException.validation("Partita's cluster does not run a SELECT that binds no one value of the"
                + " partition key by equality on table " + table + " yet: its partitions are Raft groups of their own"
                + " (--cluster-partition-groups, docs/CLUSTER.md)");
    }

    /**
     * The refusal of a backup or a restore to a point in time of table {@code table} while a range of it moves to a new
     * group.
     */
    static ApiException moving(String table) {
        return ApiException.resourceInUse("Attempt to change a resource which is still in use: a range of table "
                + table + " is moving to a new Raft group; try again once the move is over");
    }

    /** The refusal of {@code operation} on table {@code table}, whose partitions are groups of their own. */
    static ApiException notYet(String operation, String table) {
        return io.partita.server.op.CutTables.notYet(operation, table);
    }

    /**
     * The operations of {@link #NOT_YET} whose handlers check the request first and then refuse it on a table cut by
     * ranges ({@link io.partita.server.op.CutTables}): sent to its first group, as DynamoDB answers a request's own
     * error before anything else; then run over the groups ({@link BackupSpread}, {@link RestoreSpread}).
     */
    static final Set<String> CHECKED_THEN_REFUSED = Set.of("CreateBackup", "RestoreTableToPointInTime");

    /**
     * Runs {@code operation}, one of {@link #EVERY}, on every group of {@code groups} (the table's, its first group
     * first in the list). CreateTable is made in the first group first, whose checks are the request's: then in the
     * others. When the first group has the table already (a CreateTable sent again after a group did not answer, or
     * two at once), the others that lack it get the first group's table as its DescribeTable says ({@link
     * #createOf}), never another definition, and the answer is the first group's {@code ResourceInUseException}.
     * DeleteTable is deleted in the others first (one that lacks the table counts as done), the first group last, so
     * a DeleteTable sent again after one did not answer deletes what is left, and the table is listed until its first
     * group's is gone. Any other goes to every group at once. A group that does not answer is asked again for {@link
     * #EVERY_GROUP_MILLIS}; then the request answers 503 (the SDKs send it again). The answer is the first group's; a
     * refusal of another group is the request's.
     */
    static CompletableFuture<ClusterRouter.Reply> everyGroup(
            String operation, String target, byte[] body, List<UUID> groups, Sender sender) {
        UUID first = groups.get(0);
        List<UUID> others = groups.subList(1, groups.size());
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EVERY_GROUP_MILLIS);
        byte[] asked = unlabelled(body);
        if (operation.equals("UpdateTable") && enablesStream(asked)) {
            // The first group's stream first: every other group's takes its label, so that they are one stream.
            return untilDone(first, target, asked, sender, until, null).thenCompose(made -> {
                if (made.status() == 200) {
                    byte[] rest = labelled(asked, member(made.body(), "TableDescription"));
                    return all(others, g -> untilDone(g, target, rest, sender, until, STREAM_THERE))
                            .thenApply(replies -> firstRefusal(replies, made));
                }
                if (!is(made, STREAM_THERE)) {
                    return CompletableFuture.completedFuture(made);
                }
                // Enabled there by this request sent before (a group did not answer): made where it lacks, and then
                // answered as the first group refused it, as DynamoDB refuses a stream enabled twice.
                // (Its stream as the first group has it, whatever view type the request asked: sent again with another,
                // or a second request racing the first, the groups' streams stay alike.)
                return sender.send(first, DESCRIBE, nameOf(body)).thenCompose(described -> {
                    JsonNode t = described.status() == 200 ? member(described.body(), "Table") : null;
                    byte[] rest = t == null ? null : enabledAs(asked, t);
                    if (rest == null) {
                        return CompletableFuture.completedFuture(made);
                    }
                    return all(others, g -> untilDone(g, target, rest, sender, until, STREAM_THERE))
                            .thenApply(replies -> firstRefusal(replies, made));
                });
            });
        }
        return switch (operation) {
            case "CreateTable" ->
                untilDone(first, target, asked, sender, until, null).thenCompose(made -> {
                    if (made.status() == 200) {
                        byte[] rest = labelled(asked, member(made.body(), "TableDescription"));
                        return all(others, g -> untilDone(g, target, rest, sender, until, "ResourceInUseException"))
                                .thenApply(replies -> firstRefusal(replies, made));
                    }
                    if (!is(made, "ResourceInUseException")) {
                        return CompletableFuture.completedFuture(made);
                    }
                    return sender.send(first, DESCRIBE, nameOf(body)).thenCompose(described -> {
                        byte[] create = described.status() == 200 ? createOf(described.body()) : null;
                        if (create == null) {
                            return CompletableFuture.completedFuture(made);
                        }
                        byte[] rest = withStream(create, member(described.body(), "Table"));
                        return all(others, g -> untilDone(g, target, rest, sender, until, "ResourceInUseException"))
                                .thenApply(replies -> firstRefusal(replies, made));
                    });
                });
            case "DeleteTable" ->
                all(others, g -> untilDone(g, target, body, sender, until, "ResourceNotFoundException"))
                        .thenCompose(replies -> {
                            ClusterRouter.Reply refused = firstRefusal(replies, null);
                            return refused != null
                                    ? CompletableFuture.completedFuture(refused)
                                    : untilDone(first, target, body, sender, until, null);
                        });
            default ->
                all(groups, g -> untilDone(g, target, body, sender, until, g.equals(first) ? null : madeOf(body)))
                        .thenApply(replies -> replies.get(0).status() != 200
                                ? replies.get(0)
                                : firstRefusal(replies.subList(1, replies.size()), replies.get(0)));
        };
    }

    private static final String DESCRIBE = OperationRegistry.DYNAMODB_PREFIX + "DescribeTable";

    /** Member {@code name} of answer {@code body}, or null (an answer that is no JSON object, or lacks it). */
    private static JsonNode member(byte[] body, String name) {
        ObjectNode root = BatchSpread.object(body);
        return root == null ? null : root.get(name);
    }

    /** A group's refusal of a stream enabled where one is: made there already, by this request sent before. */
    private static final String STREAM_THERE = "ValidationException|Table already has an enabled stream";

    /** Whether UpdateTable's {@code body} enables a stream. */
    static boolean enablesStream(byte[] body) {
        ObjectNode root = BatchSpread.object(body);
        return root != null
                && root.path("StreamSpecification").path("StreamEnabled").asBoolean(false);
    }

    /**
     * Request {@code body} without a {@code PartitaStreamLabel} of its own (a client's, which would label the stream
     * of the table's first group): the first group labels its stream itself.
     */
    static byte[] unlabelled(byte[] body) {
        ObjectNode root = BatchSpread.object(body);
        if (root != null
                && root.get("StreamSpecification") instanceof ObjectNode spec
                && spec.has("PartitaStreamLabel")) {
            spec.remove("PartitaStreamLabel");
            return bytes(root);
        }
        return body;
    }

    /**
     * Request {@code body} (a CreateTable or an UpdateTable) that enables a stream, with the label of the stream of the
     * table the first group answered with ({@code table}, its description: {@code LatestStreamLabel}) as its {@code
     * PartitaStreamLabel}: each other group's stream is labelled alike, one stream over the groups. Any other body as
     * it is.
     */
    static byte[] labelled(byte[] body, JsonNode table) {
        ObjectNode root = BatchSpread.object(body);
        String label = table == null ? null : table.path("LatestStreamLabel").asText(null);
        if (label == null
                || root == null
                || !(root.get("StreamSpecification") instanceof ObjectNode spec)
                || !spec.path("StreamEnabled").asBoolean(false)) {
            return body;
        }
        spec.put("PartitaStreamLabel", label);
        return bytes(root);
    }

    /**
     * CreateTable {@code create} ({@link #createOf}) with the stream of the table a DescribeTable answered ({@code
     * table}), labelled as there ({@link #labelled}), when it has one enabled.
     */
    static byte[] withStream(byte[] create, JsonNode table) {
        byte[] with = enabledAs(create, table);
        return with == null ? create : with;
    }

    /**
     * Request {@code body} (a CreateTable or an UpdateTable) enabling the stream the table a DescribeTable answered
     * ({@code table}) has enabled, its view type and its label ({@link #labelled}); null when it has none enabled.
     */
    static byte[] enabledAs(byte[] body, JsonNode table) {
        JsonNode spec = table == null ? null : table.get("StreamSpecification");
        ObjectNode root = BatchSpread.object(body);
        if (root == null
                || spec == null
                || !spec.path("StreamEnabled").asBoolean(false)
                || !spec.path("StreamViewType").isTextual()
                || !table.path("LatestStreamLabel").isTextual()) {
            return null;
        }
        root.putObject("StreamSpecification")
                .put("StreamEnabled", true)
                .put("StreamViewType", spec.path("StreamViewType").asText());
        return labelled(bytes(root), table);
    }

    /** A DescribeTable of the table request {@code body} names ({@code TableName}). */
    private static byte[] nameOf(byte[] body) {
        ObjectNode out = JSON.createObjectNode();
        ObjectNode root = BatchSpread.object(body);
        if (root != null && root.has("TableName")) {
            out.set("TableName", root.get("TableName"));
        }
        return bytes(out);
    }

    /**
     * A CreateTable of the table a DescribeTable answer {@code described} describes: its name, keys, attribute
     * definitions, secondary indexes (a global one's capacity and on-demand maximums too; not one being deleted),
     * billing and capacity (on-demand maximums, warm throughput), class and deletion protection; null for an answer
     * that describes none. (Its tags and encryption settings are the first group's to describe.)
     */
    static byte[] createOf(byte[] described) {
        ObjectNode root = BatchSpread.object(described);
        JsonNode t = root == null ? null : root.get("Table");
        if (t == null || !t.has("TableName") || !t.has("KeySchema")) {
            return null;
        }
        ObjectNode out = JSON.createObjectNode();
        out.set("TableName", t.get("TableName"));
        out.set("KeySchema", t.get("KeySchema"));
        // The attributes of the keys made: not those of an index being deleted, which CreateTable would refuse.
        java.util.Set<String> keyed = new java.util.HashSet<>();
        t.path("KeySchema").forEach(k -> keyed.add(k.path("AttributeName").asText()));
        for (String kind : List.of("LocalSecondaryIndexes", "GlobalSecondaryIndexes")) {
            for (JsonNode index : t.path(kind)) {
                if (!index.path("IndexStatus").asText("").equals("DELETING")) {
                    index.path("KeySchema")
                            .forEach(k -> keyed.add(k.path("AttributeName").asText()));
                }
            }
        }
        ArrayNode definitions = out.putArray("AttributeDefinitions");
        t.path("AttributeDefinitions").forEach(d -> {
            if (keyed.contains(d.path("AttributeName").asText())) {
                definitions.add(d);
            }
        });
        String billing = t.path("BillingModeSummary").path("BillingMode").asText("PROVISIONED");
        out.put("BillingMode", billing);
        if (billing.equals("PROVISIONED")) {
            out.putObject("ProvisionedThroughput")
                    .put(
                            "ReadCapacityUnits",
                            t.path("ProvisionedThroughput")
                                    .path("ReadCapacityUnits")
                                    .asLong())
                    .put(
                            "WriteCapacityUnits",
                            t.path("ProvisionedThroughput")
                                    .path("WriteCapacityUnits")
                                    .asLong());
        } else if (t.has("OnDemandThroughput")) {
            out.set("OnDemandThroughput", t.get("OnDemandThroughput"));
        }
        JsonNode warm = t.get("WarmThroughput");
        if (warm != null && (warm.has("ReadUnitsPerSecond") || warm.has("WriteUnitsPerSecond"))) {
            ObjectNode w = out.putObject("WarmThroughput");
            for (String f : List.of("ReadUnitsPerSecond", "WriteUnitsPerSecond")) {
                if (warm.has(f)) {
                    w.set(f, warm.get(f));
                }
            }
        }
        if (t.get("LocalSecondaryIndexes") instanceof ArrayNode locals && !locals.isEmpty()) {
            ArrayNode indexes = out.putArray("LocalSecondaryIndexes");
            for (JsonNode l : locals) {
                indexes.addObject()
                        .put("IndexName", l.path("IndexName").asText())
                        .<ObjectNode>set("KeySchema", l.get("KeySchema"))
                        .set("Projection", l.get("Projection"));
            }
        }
        ArrayNode globals = JSON.createArrayNode();
        for (JsonNode g : t.path("GlobalSecondaryIndexes")) {
            if (g.path("IndexStatus").asText("").equals("DELETING")) {
                continue;
            }
            ObjectNode index = globals.addObject()
                    .put("IndexName", g.path("IndexName").asText())
                    .<ObjectNode>set("KeySchema", g.get("KeySchema"))
                    .set("Projection", g.get("Projection"));
            if (billing.equals("PROVISIONED")) {
                index.putObject("ProvisionedThroughput")
                        .put(
                                "ReadCapacityUnits",
                                g.path("ProvisionedThroughput")
                                        .path("ReadCapacityUnits")
                                        .asLong())
                        .put(
                                "WriteCapacityUnits",
                                g.path("ProvisionedThroughput")
                                        .path("WriteCapacityUnits")
                                        .asLong());
            } else if (g.has("OnDemandThroughput")) {
                index.set("OnDemandThroughput", g.get("OnDemandThroughput"));
            }
        }
        if (!globals.isEmpty()) {
            out.set("GlobalSecondaryIndexes", globals);
        }
        if (t.has("TableClassSummary")) {
            out.set("TableClass", t.get("TableClassSummary").get("TableClass"));
        }
        if (t.has("DeletionProtectionEnabled")) {
            out.set("DeletionProtectionEnabled", t.get("DeletionProtectionEnabled"));
        }
        return bytes(out);
    }

    /** The first reply of {@code replies} that is not a 200, or {@code otherwise}. */
    static ClusterRouter.Reply firstRefusal(List<ClusterRouter.Reply> replies, ClusterRouter.Reply otherwise) {
        for (ClusterRouter.Reply r : replies) {
            if (r.status() != 200) {
                return r;
            }
        }
        return otherwise;
    }

    /** Every group's reply, in the order of {@code groups}, asked at once. */
    static CompletableFuture<List<ClusterRouter.Reply>> all(
            List<UUID> groups, java.util.function.Function<UUID, CompletableFuture<ClusterRouter.Reply>> ask) {
        List<CompletableFuture<ClusterRouter.Reply>> asked = new ArrayList<>(groups.size());
        for (UUID g : groups) {
            asked.add(ask.apply(g));
        }
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<ClusterRouter.Reply> out = new ArrayList<>(asked.size());
            for (CompletableFuture<ClusterRouter.Reply> f : asked) {
                out.add(f.join());
            }
            return out;
        });
    }

    /**
     * Group {@code group}'s reply, sent again while it is a 503 (nothing was done: the group had no leader, a new
     * group's first election under way, say) until {@code until}; a refusal of type {@code done} counts as a 200 (what
     * it would make is there).
     */
    static CompletableFuture<ClusterRouter.Reply> untilDone(
            UUID group, String target, byte[] body, Sender sender, long until, String done) {
        return sender.send(group, target, body).thenCompose(r -> {
            if (done != null && is(r, done)) {
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, r.body()));
            }
            if (r.status() != 503) {
                return CompletableFuture.completedFuture(r);
            }
            if (System.nanoTime() - until > 0) {
                return CompletableFuture.completedFuture(BatchSpread.unavailable("not every Raft group of the table's"
                        + " partitions answered (the change may be made in some): send it again"));
            }
            // On the common pool, which never refuses a task: a future left undone would hold the client's answer.
            java.util.concurrent.Executor delayed = CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS);
            return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(x -> untilDone(group, target, body, sender, until, done));
        });
    }

    /**
     * Whether {@code r} is a refusal of type {@code type}; {@code type|words}: and its message contains {@code words}.
     */
    static boolean is(ClusterRouter.Reply r, String type) {
        if (r.status() != 400) {
            return false;
        }
        ObjectNode body = BatchSpread.object(r.body());
        int bar = type.indexOf('|');
        return bar < 0
                ? BatchSpread.typeOf(body).equals(type)
                : BatchSpread.typeOf(body).equals(type.substring(0, bar))
                        && body.path("message").asText("").contains(type.substring(bar + 1));
    }

    /**
     * The refusal of UpdateTable {@code body} by a group other than the first that says its change is made there
     * already (for {@link #untilDone}): a global secondary index it makes that the group has, or one it deletes that
     * the group lacks. An UpdateTable sent again after some groups made its change and another refused it (an index
     * of that group not yet ACTIVE, say) then makes it where it lacks (an index of the name is taken as the one
     * asked for: its definition is not compared). Null for any other change, or one with other changes besides.
     */
    private static String madeOf(byte[] body) {
        ObjectNode root = BatchSpread.object(body);
        if (root != null
                && root.size() == 2
                && root.has("TableName")
                && root.path("StreamSpecification").path("StreamEnabled").isBoolean()
                && !root.path("StreamSpecification").path("StreamEnabled").asBoolean()) {
            // A stream disabled, alone: a group that has none enabled disabled it already (this request sent before).
            return "ValidationException|Table has no stream to disable";
        }
        JsonNode updates = root == null ? null : root.get("GlobalSecondaryIndexUpdates");
        if (updates == null || !updates.isArray() || updates.size() != 1) {
            return null;
        }
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            if (!Set.of("TableName", "AttributeDefinitions", "GlobalSecondaryIndexUpdates")
                    .contains(field.getKey())) {
                return null; // another change too, which a group that refuses the index's has not made
            }
        }
        JsonNode u = updates.get(0);
        if (u.path("Create").path("IndexName").isTextual()) {
            return "ValidationException|Attempting to create an index which already exists";
        }
        if (u.path("Delete").path("IndexName").isTextual()) {
            return "ResourceNotFoundException|Index "
                    + u.path("Delete").path("IndexName").asText() + " for table";
        }
        return null;
    }

    /**
     * DescribeTable of a table of {@code groups}: every group asked at once; the first group's answer, with the items
     * and bytes of every group summed ({@code ItemCount}, {@code TableSizeBytes}, and each local secondary index's),
     * and the status of a group whose table is not {@code ACTIVE} yet, or {@code CREATING} for a group that lacks it
     * (a CreateTable that did not reach it yet): a waiter for the table waits for every group's. While a range of the
     * table is {@code moving} (which refuses a change of its settings, as DynamoDB refuses one to a table being
     * updated), {@code UPDATING}. The first group's refusal is the answer, and another group's 5xx (its items are not
     * known now).
     */
    static CompletableFuture<ClusterRouter.Reply> describe(
            String target, byte[] body, List<UUID> groups, boolean moving, Sender sender) {
        return all(groups, g -> sender.send(g, target, body)).thenApply(replies -> {
            ClusterRouter.Reply merged = describeMerge(replies);
            ObjectNode root = moving && merged.status() == 200 ? BatchSpread.object(merged.body()) : null;
            if (root != null
                    && root.get("Table") instanceof ObjectNode table
                    && table.path("TableStatus").asText("").equals("ACTIVE")) {
                table.put("TableStatus", "UPDATING");
                return new ClusterRouter.Reply(200, bytes(root));
            }
            return merged;
        });
    }

    /**
     * DescribeContinuousBackups of a table over groups {@code groups} (its first group first): every group's answer
     * merged, as each group keeps the change log of its own items. A group's refusal is the answer (its table not
     * found, say: the first group's first), as is its 503 or 500. PITR is enabled when it is in every group: its window
     * is then the one every group can restore, from the latest of their {@code EarliestRestorableDateTime} to the
     * earliest of their {@code LatestRestorableDateTime}; a group where it is disabled (an UpdateContinuousBackups that
     * has not reached it yet) makes the answer that group's, disabled.
     */
    static CompletableFuture<ClusterRouter.Reply> continuousBackups(
            String target, byte[] body, List<UUID> groups, Sender sender) {
        return all(groups, g -> sender.send(g, target, body)).thenApply(RangeSpread::continuousBackupsMerge);
    }

    static ClusterRouter.Reply continuousBackupsMerge(List<ClusterRouter.Reply> replies) {
        ClusterRouter.Reply first = replies.get(0);
        ObjectNode root = first.status() == 200 ? BatchSpread.object(first.body()) : null;
        if (root == null
                || !(root.path("ContinuousBackupsDescription").get("PointInTimeRecoveryDescription")
                        instanceof ObjectNode mine)) {
            return first;
        }
        for (ClusterRouter.Reply reply : replies) {
            if (reply.status() != 200) {
                return reply; // a group's refusal is the request's (a CreateTable that has not reached it), or its 503
            }
        }
        for (ClusterRouter.Reply reply : replies) {
            ObjectNode other = BatchSpread.object(reply.body());
            JsonNode theirs = other == null
                    ? null
                    : other.path("ContinuousBackupsDescription").get("PointInTimeRecoveryDescription");
            if (theirs == null
                    || !theirs.path("PointInTimeRecoveryStatus").asText("").equals("ENABLED")) {
                return reply;
            }
            JsonNode earliest = theirs.get("EarliestRestorableDateTime");
            if (earliest != null
                    && earliest.isNumber()
                    && earliest.decimalValue()
                                    .compareTo(mine.path("EarliestRestorableDateTime")
                                            .decimalValue())
                            > 0) {
                mine.set("EarliestRestorableDateTime", earliest);
            }
            JsonNode latest = theirs.get("LatestRestorableDateTime");
            if (latest != null
                    && latest.isNumber()
                    && latest.decimalValue()
                                    .compareTo(mine.path("LatestRestorableDateTime")
                                            .decimalValue())
                            < 0) {
                mine.set("LatestRestorableDateTime", latest);
            }
        }
        return new ClusterRouter.Reply(200, bytes(root));
    }

    static ClusterRouter.Reply describeMerge(List<ClusterRouter.Reply> replies) {
        ClusterRouter.Reply first = replies.get(0);
        ObjectNode root = first.status() == 200 ? BatchSpread.object(first.body()) : null;
        if (root == null || !(root.get("Table") instanceof ObjectNode table)) {
            return first;
        }
        long items = table.path("ItemCount").asLong(0);
        long bytes = table.path("TableSizeBytes").asLong(0);
        Map<String, long[]> indexes = new java.util.HashMap<>();
        for (int i = 1; i < replies.size(); i++) {
            ClusterRouter.Reply reply = replies.get(i);
            if (reply.status() >= 500) {
                return reply;
            }
            ObjectNode other = reply.status() == 200 ? BatchSpread.object(reply.body()) : null;
            JsonNode t = other == null ? null : other.get("Table");
            if (t == null) {
                if (is(reply, "ResourceNotFoundException")
                        && table.path("TableStatus").asText("").equals("ACTIVE")) {
                    table.put("TableStatus", "CREATING");
                }
                continue;
            }
            items += t.path("ItemCount").asLong(0);
            bytes += t.path("TableSizeBytes").asLong(0);
            String status = t.path("TableStatus").asText("ACTIVE");
            if (!status.equals("ACTIVE") && table.path("TableStatus").asText("").equals("ACTIVE")) {
                table.put("TableStatus", status);
            }
            for (JsonNode index : t.path("LocalSecondaryIndexes")) {
                long[] sum = indexes.computeIfAbsent(index.path("IndexName").asText(), n -> new long[2]);
                sum[0] += index.path("ItemCount").asLong(0);
                sum[1] += index.path("IndexSizeBytes").asLong(0);
            }
            java.util.Set<String> theirs = new java.util.HashSet<>();
            for (JsonNode index : t.path("GlobalSecondaryIndexes")) {
                String name = index.path("IndexName").asText();
                theirs.add(name);
                long[] sum = indexes.computeIfAbsent(name, n -> new long[2]);
                sum[0] += index.path("ItemCount").asLong(0);
                sum[1] += index.path("IndexSizeBytes").asLong(0);
                if (globalOf(table, name) instanceof ObjectNode mine) {
                    slowest(mine, index);
                }
            }
            for (JsonNode index : table.path("GlobalSecondaryIndexes")) {
                if (index instanceof ObjectNode mine
                        && !theirs.contains(mine.path("IndexName").asText())
                        && mine.path("IndexStatus").asText("").equals("ACTIVE")) {
                    mine.put("IndexStatus", "CREATING"); // an UpdateTable that has not reached this group yet
                }
            }
            for (JsonNode index : t.path("GlobalSecondaryIndexes")) {
                if (globalOf(table, index.path("IndexName").asText()) == null) {
                    // Gone from the first group, and still in this one (deleting, or made there alone): listed, so
                    // that no client makes it again before every group is done with it.
                    JsonNode mine = table.get("GlobalSecondaryIndexes");
                    ArrayNode list = mine instanceof ArrayNode a ? a : table.putArray("GlobalSecondaryIndexes");
                    ObjectNode copy =
                            ((ObjectNode) index.deepCopy()).put("ItemCount", 0).put("IndexSizeBytes", 0);
                    if (copy.path("IndexStatus").asText("ACTIVE").equals("ACTIVE")) {
                        copy.put("IndexStatus", "DELETING");
                    }
                    list.add(copy);
                }
            }
        }
        table.put("ItemCount", items);
        table.put("TableSizeBytes", bytes);
        for (String kind : List.of("LocalSecondaryIndexes", "GlobalSecondaryIndexes")) {
            for (JsonNode index : table.path(kind)) {
                long[] sum = indexes.get(index.path("IndexName").asText());
                if (sum != null && index instanceof ObjectNode o) {
                    o.put("ItemCount", o.path("ItemCount").asLong(0) + sum[0]);
                    o.put("IndexSizeBytes", o.path("IndexSizeBytes").asLong(0) + sum[1]);
                }
            }
        }
        return new ClusterRouter.Reply(200, bytes(root));
    }

    /** The description of global secondary index {@code name} in table description {@code table}, or null. */
    private static JsonNode globalOf(JsonNode table, String name) {
        for (JsonNode index : table.path("GlobalSecondaryIndexes")) {
            if (index.path("IndexName").asText().equals(name)) {
                return index;
            }
        }
        return null;
    }

    /**
     * Index description {@code mine} (the first group's) as the slower of it and another group's {@code theirs}: not
     * {@code ACTIVE} while either is not, and backfilling while either is (a GSI made by an UpdateTable is each
     * group's rows of its own items, and readable once every group has backfilled them).
     */
    private static void slowest(ObjectNode mine, JsonNode theirs) {
        String status = theirs.path("IndexStatus").asText("ACTIVE");
        if (!status.equals("ACTIVE") && mine.path("IndexStatus").asText("").equals("ACTIVE")) {
            mine.put("IndexStatus", status);
        }
        if (theirs.path("Backfilling").asBoolean(false)) {
            mine.put("Backfilling", true);
        }
    }

    /**
     * A Scan of a table of {@code ranges}: the groups in hash order, from the range of its {@code
     * ExclusiveStartKey}'s partition key (or the first of its segment's, or the first), each asked for a page of its
     * own ranges ({@link #SCAN_RANGE}) with what is left of the {@code Limit}; the pages joined into one. The walk
     * stops at a page that stops short of its group's end (its {@code LastEvaluatedKey} is the answer's), at the
     * {@code Limit}, or once the groups have read {@link #PAGE_BYTES} (each group's page reads what is left of it; the
     * last item scanned is then the answer's {@code LastEvaluatedKey}), or after the last group of the walk. A
     * parallel scan's segment is a slice of the hash space, as on a single node: the walk goes over the groups whose
     * ranges meet it, each reading the segment's part of its own. A refusal of a group is the answer.
     */
    static CompletableFuture<ClusterRouter.Reply> scan(byte[] body, TableRanges ranges, Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        if (root == null) {
            return sender.send(ranges.groups().get(0), SCAN_RANGE, body); // its error
        }
        int from = 0;
        int to = ranges.groups().size() - 1;
        JsonNode segment = root.get("Segment");
        JsonNode total = root.get("TotalSegments");
        // A global secondary index's segment is a slice of its own hash space, whose rows are in every group: its walk
        // goes over them all. (So does an LSI's, whose groups outside the slice read nothing.)
        boolean index = root.hasNonNull("IndexName");
        if (!index && segment != null && segment.canConvertToInt() && total != null && total.canConvertToInt()) {
            int s = segment.asInt();
            int n = total.asInt();
            if (n > 0 && s >= 0 && s < n) {
                from = ranges.indexOf(hashBound(s, n));
                to = s == n - 1 ? to : ranges.indexOf(hashBound(s + 1, n) - 1);
            }
        }
        AttributeValue start = TableRanges.startKey(body, ranges.key());
        if (start != null) {
            from = Math.max(from, ranges.indexOf(io.partita.storage.key.ItemKeyEncoder.partitionHash(start)));
        }
        JsonNode limit = root.get("Limit");
        Long left = limit != null && limit.canConvertToLong() ? limit.asLong() : null;
        Walk walk = new Walk(root, ranges, sender, Math.min(from, to), to, left, false);
        return walk.page(walk.from, true);
    }

    /** Whether Query {@code body} names an index ({@code IndexName}). */
    static boolean namesIndex(byte[] body) {
        ObjectNode root = BatchSpread.object(body);
        return root != null && root.path("IndexName").isTextual();
    }

    /**
     * A Query of a global secondary index of a table of {@code ranges} (one that binds no one value of the table's
     * partition key): every group asked at once for its page ({@link #QUERY_INDEX_RANGE}: the request's own, with its
     * {@code Limit} and start key, reading the rows of the items of the range the record gives the group, which it
     * refuses when its store holds another), the pages merged in the index's order ({@link #mergeIndexPages}). The
     * first refusal in the groups' order is the answer (each group checks the request as the first does).
     */
    static CompletableFuture<ClusterRouter.Reply> queryIndex(byte[] body, TableRanges ranges, Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        if (root == null) {
            return sender.send(ranges.groups().get(0), QUERY_INDEX_RANGE, body); // its error
        }
        root.remove("PartitaHashRange"); // the merge's to set, never a client's
        return all(ranges.groups(), g -> {
                    ObjectNode share = root.deepCopy();
                    share.put("PartitaHashRange", io.partita.server.op.query.ScanHandler.text(ranges.rangeOf(g)));
                    return sender.send(g, QUERY_INDEX_RANGE, bytes(share));
                })
                .thenApply(replies -> {
                    List<ObjectNode> pages = new ArrayList<>(replies.size());
                    ClusterRouter.Reply refused = namedPages(replies, pages);
                    if (refused != null) {
                        return refused;
                    }
                    return new ClusterRouter.Reply(200, bytes(mergeIndexPages(root, pages)));
                });
    }

    /**
     * Adds to {@code pages} each of the groups' {@code replies} to a read of a global secondary index, each naming its
     * rows; or returns the first that is not such a page: a refusal, a group that did not answer, or {@link #unmerged}.
     */
    private static ClusterRouter.Reply namedPages(List<ClusterRouter.Reply> replies, List<ObjectNode> pages) {
        for (ClusterRouter.Reply reply : replies) {
            ObjectNode page = reply.status() == 200 ? BatchSpread.object(reply.body()) : null;
            if (page == null) {
                return reply;
            }
            if (!(page.get("PartitaEntries") instanceof ArrayNode)) {
                return unmerged();
            }
            pages.add(page);
        }
        return null;
    }

    /**
     * The refusal of a read of a global secondary index over a table's groups when a group's page does not name its
     * rows: its store records no range (a table cut before 2026-12-07), and reads every row it has.
     */
    private static ClusterRouter.Reply unmerged() {
        return new ClusterRouter.Reply(
                400,
                bytes(JSON.createObjectNode()
                        .put("__type", "com.amazon.coral.validate#ValidationException")
                        .put(
                                "message",
                                "Partita's cluster cannot read a global secondary index of a table cut by hash ranges"
                                        + " before 2026-12-07 (its groups' stores record no range)")));
    }

    /**
     * The groups' {@code pages} of Query {@code request} on a global secondary index, merged as one store's page
     * would read its rows: in the index's order (each row's {@code Position}, its key in the index's store, the same in
     * every group), up to the earliest last row of a page that stopped short (a group's rows after it are not known),
     * the {@code Limit} rows or a megabyte read ({@link #PAGE_BYTES}, the row that passes it included); then filtered
     * as each group found (its {@code Items} are its matched rows', in order). The answer goes on after its last row
     * whenever it stopped before the groups' ends (its {@code LastEvaluatedKey}, which every group takes as the next
     * page's start); its units are those of the rows it kept, rounded up once, as one store's would be.
     */
    static ObjectNode mergeIndexPages(ObjectNode request, List<ObjectNode> pages) {
        boolean forward = request.path("ScanIndexForward").asBoolean(true);
        JsonNode limitNode = request.get("Limit");
        Long limit = limitNode != null && limitNode.canConvertToLong() ? limitNode.asLong() : null;
        boolean countOnly = "COUNT".equals(request.path("Select").asText(""));
        record Row(byte[] position, JsonNode key, long bytes, boolean matched, JsonNode item) {}
        java.util.Comparator<Row> order = (a, b) -> java.util.Arrays.compareUnsigned(a.position(), b.position());
        if (!forward) {
            order = order.reversed();
        }
        List<Row> rows = new ArrayList<>();
        Row bound = null;
        ObjectNode consumed = null;
        for (ObjectNode page : pages) {
            java.util.Iterator<JsonNode> items = page.path("Items").iterator();
            Row last = null;
            for (JsonNode e : page.path("PartitaEntries")) {
                boolean matched = e.path("Matched").asBoolean(false);
                JsonNode item = matched && items.hasNext() ? items.next() : null;
                last = new Row(
                        java.util.Base64.getDecoder().decode(e.path("Position").asText()),
                        e.get("Key"),
                        e.path("Bytes").asLong(0),
                        matched,
                        item);
                rows.add(last);
            }
            JsonNode stopped = page.get("LastEvaluatedKey");
            if (stopped != null
                    && !stopped.isNull()
                    && last != null
                    && (bound == null || order.compare(last, bound) < 0)) {
                bound = last;
            }
            if (page.get("ConsumedCapacity") instanceof ObjectNode units) {
                consumed = consumed == null ? units : add(consumed, units);
            }
        }
        rows.sort(order);
        ArrayNode items = JSON.createArrayNode();
        long taken = 0;
        long count = 0;
        long bytes = 0;
        JsonNode lastKey = null;
        boolean stopped = bound != null;
        for (Row row : rows) {
            if (bound != null && order.compare(row, bound) > 0) {
                break;
            }
            taken++;
            bytes += row.bytes();
            lastKey = row.key();
            if (row.matched()) {
                count++;
                if (!countOnly && row.item() != null) {
                    items.add(row.item());
                }
            }
            if ((limit != null && taken >= limit) || bytes >= PAGE_BYTES) {
                stopped = true;
                break;
            }
        }
        ObjectNode out = JSON.createObjectNode();
        if (!countOnly) {
            out.set("Items", items);
        }
        out.put("Count", count);
        out.put("ScannedCount", taken);
        if (stopped && lastKey != null) {
            out.set("LastEvaluatedKey", lastKey);
        }
        if (consumed != null) {
            out.set("ConsumedCapacity", roundedOnce(consumed, CapacityUnits.read(bytes, false)));
        }
        return out;
    }

    /**
     * An ExecuteStatement SELECT that binds no one value of the partition key, on a table of {@code ranges}: walked
     * as {@link #scan} walks a Scan, from the range of the key its {@code NextToken} goes on after (or the first), each
     * group asked for a page of its own items ({@link #SELECT_RANGE}) with what is left of the {@code Limit} (the items
     * read, as the statement's {@code Limit} counts them). A page that stops short of its group's end gives the
     * answer its {@code NextToken} and {@code LastEvaluatedKey}; a walk that stops at the {@code Limit} or at 1 MB
     * after a group's end answers the token and key of the last item scanned. A refusal of a group is the answer. A
     * SELECT of several partition key values, which the first group's planner finds, goes on as {@link Values}.
     */
    static CompletableFuture<ClusterRouter.Reply> select(byte[] body, TableRanges ranges, Sender sender) {
        ObjectNode root = BatchSpread.object(body);
        if (root == null) {
            return sender.send(ranges.groups().get(0), SELECT_RANGE, body); // its error
        }
        int from = 0;
        JsonNode token = root.get("NextToken");
        Map<String, AttributeValue> after = token != null && token.isTextual()
                ? io.partita.server.op.partiql.ExecuteStatementHandler.nextTokenKey(token.asText())
                : null;
        AttributeValue start = after == null ? null : after.get(ranges.key());
        if (start != null) {
            try {
                from = ranges.indexOf(io.partita.storage.key.ItemKeyEncoder.partitionHash(start));
            } catch (RuntimeException notAKey) {
                from = 0; // the first group answers that the token is not one
            }
        }
        JsonNode limit = root.get("Limit");
        Long left = limit != null && limit.canConvertToLong() ? limit.asLong() : null;
        Walk walk = new Walk(root, ranges, sender, from, ranges.groups().size() - 1, left, true);
        return walk.page(walk.from, true);
    }

    /**
     * A SELECT of a global secondary index by its key on a table of {@code ranges} ({@code forward}: in the index's
     * order, else backwards), as {@link #queryIndex} runs a Query of it: every group asked at once for the page of the
     * rows of its own items ({@link #SELECT_RANGE}, {@code PartitaMergeIndex}), the pages merged ({@link
     * #mergeIndexPages}: the statement's {@code Limit} counts the rows read, as a single node's does); the answer's
     * {@code NextToken} goes on after its last row in every group.
     */
    private static CompletableFuture<ClusterRouter.Reply> selectIndex(
            ObjectNode request, TableRanges ranges, Sender sender, boolean forward) {
        return indexShares(request, ranges, sender, null, null, true).thenApply(replies -> {
            List<ObjectNode> pages = new ArrayList<>(replies.size());
            ClusterRouter.Reply refused = namedPages(replies, pages);
            if (refused != null) {
                return refused;
            }
            ObjectNode query = JSON.createObjectNode().put("ScanIndexForward", forward);
            JsonNode limit = request.get("Limit");
            if (limit != null && limit.canConvertToLong()) {
                query.put("Limit", limit.asLong());
            }
            ObjectNode merged = mergeIndexPages(query, pages);
            ObjectNode out = JSON.createObjectNode();
            out.set("Items", merged.get("Items"));
            if (merged.get("LastEvaluatedKey") instanceof ObjectNode last) {
                String token = statementToken(request, last, null);
                if (token == null) {
                    return BatchSpread.internal(); // every group read the same request
                }
                out.put("NextToken", token);
                out.set("LastEvaluatedKey", last);
            }
            if (merged.get("ConsumedCapacity") != null) {
                out.set("ConsumedCapacity", merged.get("ConsumedCapacity"));
            }
            return new ClusterRouter.Reply(200, bytes(out));
        });
    }

    /**
     * Asks every group of {@code ranges} at once for its page of the rows of its own items of a SELECT that reads a
     * global secondary index by its key ({@link #SELECT_RANGE}, {@code PartitaMergeIndex}): of value {@code value} of
     * several (null: of the one), with {@code limit} rows to read at most (null: the request's), from the request's
     * {@code NextToken} when {@code fromToken}.
     */
    private static CompletableFuture<List<ClusterRouter.Reply>> indexShares(
            ObjectNode request, TableRanges ranges, Sender sender, Integer value, Long limit, boolean fromToken) {
        return all(ranges.groups(), g -> {
            ObjectNode share = request.deepCopy();
            share.remove(List.of("PartitaValue", "PartitaLaterShare", "PartitaHashRange", "PartitaPageBytes"));
            if (!fromToken) {
                share.remove("NextToken");
            }
            if (limit != null) {
                share.put("Limit", limit);
            }
            if (value != null) {
                share.put("PartitaValue", value);
            }
            share.put("PartitaHashRange", io.partita.server.op.query.ScanHandler.text(ranges.rangeOf(g)));
            share.put("PartitaMergeIndex", true);
            return sender.send(g, SELECT_RANGE, bytes(share));
        });
    }

    /**
     * The {@code NextToken} of ExecuteStatement {@code request} that goes on after row {@code last} (null: from the
     * start of the value), of its {@code value}-th partition key value (null: of its one); null if the request cannot
     * be read (every group read it).
     */
    private static String statementToken(ObjectNode request, ObjectNode last, Integer value) {
        try {
            io.partita.protocol.message.ExecuteStatementInput in =
                    DynamoJson.decode(bytes(request), io.partita.protocol.message.ExecuteStatementInput.class);
            Map<String, AttributeValue> key = last == null ? null : attributesOf(last);
            return value == null
                    ? io.partita.server.op.partiql.ExecuteStatementHandler.nextToken(
                            key, in.statement(), in.parameters())
                    : io.partita.server.op.partiql.ExecuteStatementHandler.nextToken(
                            key, value, in.statement(), in.parameters());
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    /** The attributes (an item's, or a key's) {@code node} holds as JSON, read. */
    private static Map<String, AttributeValue> attributesOf(ObjectNode node) throws IOException {
        try (com.fasterxml.jackson.core.JsonParser p = DynamoJson.factory().createParser(bytes(node))) {
            p.nextToken();
            return io.partita.protocol.json.AttributeValueCodec.readMap(p, 0);
        }
    }

    /** The first hash of segment {@code segment} of {@code total}, as a single node's Scan cuts the hash space. */
    static long hashBound(int segment, int total) {
        return BigInteger.ONE
                .shiftLeft(64)
                .multiply(BigInteger.valueOf(segment))
                .divide(BigInteger.valueOf(total))
                .longValue();
    }

    /** One Scan's or SELECT's walk over the groups, and the page it has joined so far. */
    private static final class Walk {
        final ObjectNode request;
        final TableRanges ranges;
        final Sender sender;
        final int from;
        final int to;
        /** An ExecuteStatement SELECT's walk ({@link #select}), not a Scan's. */
        final boolean statement;
        /** What is left of the request's {@code Limit}, or null for none. */
        Long left;

        final ArrayNode items = JSON.createArrayNode();
        long count;
        long scanned;
        long bytes;
        /** Whether every group named the bytes its page read ({@code PartitaScannedBytes}): its units then exact. */
        boolean byteCounts = true;

        ObjectNode consumed;

        Walk(ObjectNode request, TableRanges ranges, Sender sender, int from, int to, Long left, boolean statement) {
            this.request = request;
            this.ranges = ranges;
            this.sender = sender;
            this.from = from;
            this.to = to;
            this.left = left;
            this.statement = statement;
        }

        /** Asks range {@code at}'s group for its page, with the request's start key or token when {@code first}. */
        CompletableFuture<ClusterRouter.Reply> page(int at, boolean first) {
            ObjectNode share = request.deepCopy();
            // Partita's own fields are the walk's to set, never a client's.
            share.remove(List.of("PartitaValue", "PartitaLaterShare", "PartitaHashRange", "PartitaMergeIndex"));
            if (!first) {
                share.remove(statement ? "NextToken" : "ExclusiveStartKey");
            }
            if (statement && at != from) {
                share.put("PartitaLaterShare", true); // the page's scan is counted once, by its first group
            }
            if (left != null) {
                share.put("Limit", left);
            }
            share.put("PartitaPageBytes", PAGE_BYTES - bytes);
            // The group refuses the page when its store holds another range than the walk's record gives it.
            share.put(
                    "PartitaHashRange",
                    io.partita.server.op.query.ScanHandler.text(
                            ranges.rangeOf(ranges.groups().get(at))));
            return sender.send(ranges.groups().get(at), statement ? SELECT_RANGE : SCAN_RANGE, bytes(share))
                    .thenCompose(reply -> joined(at, first, reply));
        }

        private CompletableFuture<ClusterRouter.Reply> joined(int at, boolean first, ClusterRouter.Reply reply) {
            ObjectNode answer = reply.status() == 200 ? BatchSpread.object(reply.body()) : null;
            if (answer == null) {
                return CompletableFuture.completedFuture(reply); // a refusal, or a group that did not answer
            }
            if (statement && first && answer.hasNonNull("PartitaIndexForward")) {
                // A SELECT of a global secondary index by its key: its rows are in every group, merged in its order;
                // one of several values of that key, each value's so in turn.
                boolean forward = answer.get("PartitaIndexForward").asBoolean(true);
                return answer.get("PartitaValueHashes") instanceof ArrayNode values
                        ? new IndexValues(request, ranges, sender, values.size(), left, forward).page()
                        : selectIndex(request, ranges, sender, forward);
            }
            if (statement && first && answer.get("PartitaValueHashes") instanceof ArrayNode hashes) {
                // A SELECT of several partition key values: each value's Query in its own group, in turn.
                return new Values(request, ranges, sender, hashes, left).page();
            }
            if (!statement && first && answer.get("PartitaEntries") instanceof ArrayNode) {
                // A Scan of a global secondary index: its rows are in every group, in the index's order rather than
                // the groups', so the pages are merged as a Query's are.
                return mergedScan(at, answer);
            }
            if (answer.get("Items") instanceof ArrayNode page) {
                items.addAll(page);
            }
            count += answer.path("Count").asLong(0);
            long read = answer.path(statement ? "PartitaScannedCount" : "ScannedCount")
                    .asLong(0);
            scanned += read;
            byteCounts &= answer.path("PartitaScannedBytes").isIntegralNumber();
            bytes += answer.path("PartitaScannedBytes").asLong(reply.body().length);
            if (answer.get("ConsumedCapacity") instanceof ObjectNode units) {
                consumed = consumed == null ? units : add(consumed, units);
            }
            if (left != null) {
                left = Math.max(0, left - read);
            }
            JsonNode stopped = answer.get("LastEvaluatedKey");
            if (stopped != null && !stopped.isNull()) {
                return done(stopped, answer.get("NextToken")); // stopped short of its group's end
            }
            JsonNode last = answer.get("PartitaLastScannedKey");
            if (at >= to) {
                return done(null, null);
            }
            if (last != null && ((left != null && left == 0) || bytes >= PAGE_BYTES)) {
                // Scanned to the group's end (else its page would have stopped short of it).
                return done(last, answer.get("PartitaLastScannedToken"));
            }
            return page(at + 1, false);
        }

        /**
         * A Scan of a global secondary index, whose first group {@code at} answered {@code firstPage}: every other
         * group asked at once for its page from the same start key (each reading the rows of its own items, and naming
         * them), the pages merged in the index's order ({@link #mergeIndexPages}).
         */
        private CompletableFuture<ClusterRouter.Reply> mergedScan(int at, ObjectNode firstPage) {
            List<UUID> others = new ArrayList<>(ranges.groups());
            others.remove(at);
            ObjectNode share = request.deepCopy();
            share.remove(List.of("PartitaValue", "PartitaLaterShare", "PartitaHashRange"));
            share.put("PartitaPageBytes", PAGE_BYTES);
            return all(others, g -> {
                        ObjectNode mine = share.deepCopy();
                        mine.put("PartitaHashRange", io.partita.server.op.query.ScanHandler.text(ranges.rangeOf(g)));
                        return sender.send(g, SCAN_RANGE, bytes(mine));
                    })
                    .thenApply(replies -> {
                        List<ObjectNode> pages = new ArrayList<>(replies.size() + 1);
                        pages.add(firstPage);
                        ClusterRouter.Reply refused = namedPages(replies, pages);
                        if (refused != null) {
                            return refused;
                        }
                        ObjectNode scan = JSON.createObjectNode();
                        for (String f : List.of("Limit", "Select")) {
                            if (request.has(f)) {
                                scan.set(f, request.get(f));
                            }
                        }
                        return new ClusterRouter.Reply(200, bytes(mergeIndexPages(scan, pages)));
                    });
        }

        /** The joined page, going on after {@code lastKey} (a SELECT's with {@code token}), or the last one. */
        private CompletableFuture<ClusterRouter.Reply> done(JsonNode lastKey, JsonNode token) {
            ObjectNode out = JSON.createObjectNode();
            if (statement) {
                boolean goesOn = lastKey != null && !lastKey.isNull();
                if (goesOn && (token == null || !token.isTextual())) {
                    // Each group's page names both (StatementRunner.selectRange): a page that could not go on.
                    return CompletableFuture.completedFuture(BatchSpread.internal());
                }
                out.set("Items", items);
                if (goesOn) {
                    out.set("NextToken", token);
                }
            } else {
                if (!"COUNT".equals(request.path("Select").asText(""))) {
                    out.set("Items", items);
                }
                out.put("Count", count);
                out.put("ScannedCount", scanned);
            }
            if (lastKey != null && !lastKey.isNull()) {
                out.set("LastEvaluatedKey", lastKey);
            }
            if (consumed != null) {
                out.set(
                        "ConsumedCapacity",
                        byteCounts
                                ? roundedOnce(
                                        consumed,
                                        CapacityUnits.read(
                                                bytes,
                                                request.path("ConsistentRead").asBoolean(false)))
                                : consumed);
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, bytes(out)));
        }
    }

    /**
     * A walk's page's units {@code summed} (each group's own, each rounded up to a whole 4 KB of what it read) as a
     * single node counts the page: {@code units} for all it read, rounded up once ("Query and Scan: capacity units
     * consumed"). Every number of {@code summed} is its total or zero (the table's, or the index's it scanned), and is
     * scaled alike.
     */
    static ObjectNode roundedOnce(ObjectNode summed, double units) {
        double total = summed.path("CapacityUnits").asDouble(0);
        if (total <= 0) {
            return summed;
        }
        ObjectNode out = summed.deepCopy();
        scale(out, total, units);
        return out;
    }

    /** Each number of {@code node} that is {@code total} made {@code units} (not scaled: exactly), any other scaled. */
    private static void scale(ObjectNode node, double total, double units) {
        List<String> names = new ArrayList<>();
        node.properties().forEach(f -> names.add(f.getKey()));
        for (String name : names) {
            JsonNode value = node.get(name);
            if (value.isNumber()) {
                double v = value.asDouble();
                node.put(name, v == total ? units : v * units / total);
            } else if (value instanceof ObjectNode inner) {
                scale(inner, total, units);
            }
        }
    }

    /**
     * One page of a SELECT of several partition key values (an {@code IN} list or an {@code OR}) over a table's groups,
     * as a single node runs its Queries in turn (StatementRunner.perPartition): from the value its {@code NextToken}
     * names (or the first), up to {@link io.partita.server.op.partiql.ExecuteStatementHandler#VALUES_PER_PAGE} values,
     * each value's Query sent to the group of its hash ({@link #SELECT_RANGE} with its index) with what is left of the
     * {@code Limit} (each Query reads up to a megabyte of its own). The page stops within a value whose Query stops
     * short (its token and key are the answer's), at the {@code Limit} or once the values have read 1 MB (the next
     * value's token), or after the page's last value.
     */
    private static final class Values {
        final ObjectNode request;
        final TableRanges ranges;
        final Sender sender;
        final List<Long> hashes = new ArrayList<>();
        final int from;
        final int end;
        Long left;

        final ArrayNode items = JSON.createArrayNode();
        long bytes;
        ObjectNode consumed;

        Values(ObjectNode request, TableRanges ranges, Sender sender, ArrayNode hashes, Long left) {
            this.request = request;
            this.ranges = ranges;
            this.sender = sender;
            hashes.forEach(h -> this.hashes.add(h.asLong()));
            this.left = left;
            JsonNode token = request.get("NextToken");
            int at = token != null && token.isTextual()
                    ? io.partita.server.op.partiql.ExecuteStatementHandler.nextTokenValue(token.asText())
                    : 0;
            this.from = Math.min(at, Math.max(0, this.hashes.size() - 1));
            this.end = Math.min(
                    this.hashes.size(), from + io.partita.server.op.partiql.ExecuteStatementHandler.VALUES_PER_PAGE);
        }

        CompletableFuture<ClusterRouter.Reply> page() {
            return hashes.isEmpty() ? done(null, null) : value(from);
        }

        /** Asks the group of value {@code i} for its Query's page, with the request's token when it is the first. */
        private CompletableFuture<ClusterRouter.Reply> value(int i) {
            ObjectNode share = request.deepCopy();
            share.remove(List.of("PartitaLaterShare", "PartitaHashRange"));
            if (i != from) {
                share.remove("NextToken");
            }
            if (left != null) {
                share.put("Limit", left);
            }
            share.put("PartitaPageBytes", PAGE_BYTES - bytes);
            share.put("PartitaValue", i);
            UUID group = ranges.groups().get(ranges.indexOf(hashes.get(i)));
            return sender.send(group, SELECT_RANGE, bytes(share)).thenCompose(reply -> joined(i, reply));
        }

        private CompletableFuture<ClusterRouter.Reply> joined(int i, ClusterRouter.Reply reply) {
            ObjectNode answer = reply.status() == 200 ? BatchSpread.object(reply.body()) : null;
            if (answer == null) {
                return CompletableFuture.completedFuture(reply); // a refusal, or a group that did not answer
            }
            if (answer.get("Items") instanceof ArrayNode page) {
                items.addAll(page);
            }
            if (answer.get("ConsumedCapacity") instanceof ObjectNode units) {
                consumed = consumed == null ? units : add(consumed, units);
            }
            JsonNode stopped = answer.get("NextToken");
            if (stopped != null && stopped.isTextual()) {
                return done(stopped, answer.get("LastEvaluatedKey")); // stopped short within the value
            }
            if (left != null) {
                left = Math.max(0, left - answer.path("PartitaScannedCount").asLong(0));
            }
            bytes += answer.path("PartitaScannedBytes").asLong(0);
            JsonNode next = answer.get("PartitaLastScannedToken");
            if (i + 1 >= end) {
                return done(end < hashes.size() ? next : null, null);
            }
            if ((left != null && left == 0) || bytes >= PAGE_BYTES) {
                return done(next, null);
            }
            return value(i + 1);
        }

        private CompletableFuture<ClusterRouter.Reply> done(JsonNode token, JsonNode lastKey) {
            ObjectNode out = JSON.createObjectNode();
            out.set("Items", items);
            if (token != null && token.isTextual()) {
                out.set("NextToken", token);
                if (lastKey != null && !lastKey.isNull()) {
                    out.set("LastEvaluatedKey", lastKey);
                }
            }
            if (consumed != null) {
                out.set("ConsumedCapacity", consumed);
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, bytes(out)));
        }
    }

    /**
     * An ExecuteStatement SELECT of several values of a global secondary index's partition key (an {@code IN} list or
     * an {@code OR} of them) on a table of {@code ranges}, as a single node runs its Queries in turn
     * (StatementRunner.perPartition): from the value its {@code NextToken} names (or the first), up to {@link
     * io.partita.server.op.partiql.ExecuteStatementHandler#VALUES_PER_PAGE} values, each value's Query sent to every
     * group at once with what is left of the {@code Limit} and merged as {@link #selectIndex} merges one value's (each
     * value reading up to a megabyte of its own, as each of a single node's Queries does). The page stops within a
     * value whose merged page stops short (at a group's short page, the {@code Limit} or its megabyte: its token names
     * the value and its last row, and its key is the answer's), once the values have read the {@code Limit} or found
     * 1 MB of items (their size as returned) between two values (the next value's token), or after the page's last
     * value.
     */
    private static final class IndexValues {
        final ObjectNode request;
        final TableRanges ranges;
        final Sender sender;
        final int count;
        final int from;
        final int end;
        final boolean forward;
        Long left;

        final ArrayNode items = JSON.createArrayNode();
        long bytes;
        ObjectNode consumed;

        IndexValues(ObjectNode request, TableRanges ranges, Sender sender, int count, Long left, boolean forward) {
            this.request = request;
            this.ranges = ranges;
            this.sender = sender;
            this.count = count;
            this.left = left;
            this.forward = forward;
            JsonNode token = request.get("NextToken");
            int at = token != null && token.isTextual()
                    ? io.partita.server.op.partiql.ExecuteStatementHandler.nextTokenValue(token.asText())
                    : 0;
            this.from = Math.min(at, Math.max(0, count - 1));
            this.end = Math.min(count, from + io.partita.server.op.partiql.ExecuteStatementHandler.VALUES_PER_PAGE);
        }

        CompletableFuture<ClusterRouter.Reply> page() {
            return count == 0 ? done(null, null) : value(from);
        }

        /** Asks every group for value {@code i}'s rows of its items, from the request's token when it is the first. */
        private CompletableFuture<ClusterRouter.Reply> value(int i) {
            return indexShares(request, ranges, sender, i, left, i == from).thenCompose(replies -> {
                List<ObjectNode> pages = new ArrayList<>(replies.size());
                ClusterRouter.Reply refused = namedPages(replies, pages);
                if (refused != null) {
                    return CompletableFuture.completedFuture(refused);
                }
                ObjectNode query = JSON.createObjectNode().put("ScanIndexForward", forward);
                if (left != null) {
                    query.put("Limit", left);
                }
                ObjectNode merged = mergeIndexPages(query, pages);
                if (merged.get("Items") instanceof ArrayNode read) {
                    items.addAll(read);
                    // The page's megabyte between two values counts the items found, as a single node counts its
                    // Queries' (ItemSize of each, as projected).
                    for (JsonNode item : read) {
                        try {
                            bytes += io.partita.protocol.model.ItemSize.of(attributesOf((ObjectNode) item));
                        } catch (IOException | RuntimeException unreadable) {
                            return CompletableFuture.completedFuture(BatchSpread.internal());
                        }
                    }
                }
                if (merged.get("ConsumedCapacity") instanceof ObjectNode units) {
                    consumed = consumed == null ? units : add(consumed, units);
                }
                if (merged.get("LastEvaluatedKey") instanceof ObjectNode last) {
                    return done(i, last); // stopped short within the value
                }
                if (left != null) {
                    left = Math.max(0, left - merged.path("ScannedCount").asLong(0));
                }
                if (i + 1 >= end) {
                    return done(end < count ? i + 1 : null, null);
                }
                if ((left != null && left == 0) || bytes >= PAGE_BYTES) {
                    return done(i + 1, null);
                }
                return value(i + 1);
            });
        }

        /** The page, going on with value {@code next} (null: the last page) after row {@code last} (null: its start). */
        private CompletableFuture<ClusterRouter.Reply> done(Integer next, ObjectNode last) {
            ObjectNode out = JSON.createObjectNode();
            out.set("Items", items);
            if (next != null) {
                String token = statementToken(request, last, next);
                if (token == null) {
                    return CompletableFuture.completedFuture(BatchSpread.internal());
                }
                out.put("NextToken", token);
                if (last != null) {
                    out.set("LastEvaluatedKey", last);
                }
            }
            if (consumed != null) {
                out.set("ConsumedCapacity", consumed);
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, bytes(out)));
        }
    }

    /** {@code a} with every number of {@code b} added to its own, field by field (units of consumed capacity). */
    static ObjectNode add(ObjectNode a, ObjectNode b) {
        ObjectNode out = a.deepCopy();
        for (Map.Entry<String, JsonNode> f : b.properties()) {
            JsonNode mine = out.get(f.getKey());
            if (f.getValue().isNumber() && (mine == null || mine.isNumber())) {
                out.put(
                        f.getKey(),
                        (mine == null ? 0 : mine.asDouble()) + f.getValue().asDouble());
            } else if (f.getValue() instanceof ObjectNode inner && (mine == null || mine instanceof ObjectNode)) {
                out.set(f.getKey(), mine == null ? inner.deepCopy() : add((ObjectNode) mine, inner));
            }
        }
        return out;
    }

    static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
