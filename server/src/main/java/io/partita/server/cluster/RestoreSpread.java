package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.CutTables;
import io.partita.server.op.table.RestoreTableToPointInTimeHandler;
import io.partita.server.route.OperationRegistry;
import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A restore to a point in time (RestoreTableToPointInTime) of a table whose partitions are Raft groups of their own
 * ({@code --cluster-partition-groups}, docs/CLUSTER.md), run from the node the client sent it to. Each group keeps the
 * change log of its own items (PITR is enabled in every group), so each restores its own range: the restored table is
 * cut by the source's ranges, in the source's groups, as a restore of a whole table stays in its source's group.
 *
 * <ol>
 *   <li>The source's first group checks the request as on any table (DynamoDB's errors first: the request's shape, the
 *       source, its PITR, the time within that group's window, the target's name in its store), and refuses it as one
 *       it does not run alone ({@link CutTables#HEADER}).
 *   <li>Every group's window ({@link RangeSpread#continuousBackups}): PITR enabled in each, and the time (with {@code
 *       UseLatestRestorableTime}, the latest every group can restore) within the window every group can restore.
 *   <li>The target's name is looked for in the account's own group (a table made before the cluster had table
 *       groups), then recorded as a table cut by the source's ranges in the source's groups ({@link Places#place}).
 *   <li>Each group restores its range at that one time ({@link CutTables#RANGE}): the first group first, whose answer
 *       is the client's, then the others at once. A group that does not answer is asked again for {@link
 *       RangeSpread#EVERY_GROUP_MILLIS}; then the request answers 503.
 * </ol>
 *
 * A refusal by the first group at the last step takes the record back (nothing was made). Another group's refusal, or
 * one that never answers, leaves the restored table without that range (DescribeTable {@code CREATING}) until it is
 * deleted.
 */
final class RestoreSpread {
    static final String TARGET = OperationRegistry.DYNAMODB_PREFIX + "RestoreTableToPointInTime";

    private static final String DESCRIBE_TABLE = OperationRegistry.DYNAMODB_PREFIX + "DescribeTable";
    private static final String DESCRIBE_BACKUPS = OperationRegistry.DYNAMODB_PREFIX + "DescribeContinuousBackups";

    private RestoreSpread() {}

    /**
     * Sends {@code body} as {@code target} to group {@code group} ({@link ClusterMember#HOME}: the account's own),
     * marked with {@code mark} as {@link CutTables#HEADER}'s value (null: not marked); its future never fails.
     */
    @FunctionalInterface
    interface Sender {
        CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body, String mark);
    }

    /** Where the cluster records a restored table. */
    @FunctionalInterface
    interface Places {
        /**
         * Records table {@code name} as cut by {@code ranges} (live), after a barrier, unless the account has a table
         * of that name recorded; blocks. Returns what takes the record back.
         *
         * @throws ApiException {@code TableAlreadyExistsException} for a table of that name; a {@code
         *     ValidationException} for a deleted table of that name still recorded (kept for its backups); a 503
         */
        Runnable place(String name, TableRanges ranges);
    }

    /**
     * Runs client's restore {@code body} of table {@code source}, cut by {@code ranges}, over its groups: its steps on
     * {@code executor}, which may block.
     */
    static CompletableFuture<ClusterRouter.Reply> pointInTime(
            byte[] body, String source, TableRanges ranges, Sender sender, Places places, Executor executor) {
        UUID first = ranges.groups().get(0);
        return sender.send(first, TARGET, body, "true")
                .thenComposeAsync(
                        checked -> {
                            if (!RangeSpread.is(
                                    checked, "ValidationException|does not run RestoreTableToPointInTime")) {
                                return done(checked); // the request's own error (or a 503)
                            }
                            if (ranges.moving() != null) {
                                return done(ClusterMember.refusal(ApiException.resourceInUse("Attempt to change a"
                                        + " resource which is still in use: a range of table " + source + " is moving"
                                        + " to a new Raft group; try again once the move is over")));
                            }
                            byte[] describe = RangeSpread.bytes(
                                    DynamoJson.mapper().createObjectNode().put("TableName", source));
                            return RangeSpread.continuousBackups(
                                            DESCRIBE_BACKUPS,
                                            describe,
                                            ranges.groups(),
                                            (g, t, b) -> sender.send(g, t, b, null))
                                    .thenComposeAsync(
                                            window -> restore(body, source, ranges, window, sender, places, executor),
                                            executor);
                        },
                        executor);
    }

    /** Steps 2 to 4, once every group's {@code window} is known. */
    private static CompletableFuture<ClusterRouter.Reply> restore(
            byte[] body,
            String source,
            TableRanges ranges,
            ClusterRouter.Reply window,
            Sender sender,
            Places places,
            Executor executor) {
        if (window.status() != 200) {
            return done(window);
        }
        JsonNode pitr = BatchSpread.object(window.body())
                .path("ContinuousBackupsDescription")
                .path("PointInTimeRecoveryDescription");
        if (!pitr.path("PointInTimeRecoveryStatus").asText("").equals("ENABLED")) {
            return done(ClusterMember.refusal(RestoreTableToPointInTimeHandler.notEnabled(source)));
        }
        ObjectNode asked = BatchSpread.object(body); // read by the first group already: an object
        long earliest = millis(pitr.path("EarliestRestorableDateTime"));
        long latest = millis(pitr.path("LatestRestorableDateTime"));
        long at =
                asked.path("UseLatestRestorableTime").asBoolean(false) ? latest : millis(asked.path("RestoreDateTime"));
        if (at < earliest || at > latest) {
            return done(ClusterMember.refusal(RestoreTableToPointInTimeHandler.outsideWindow(at, earliest, latest)));
        }
        String name = asked.path("TargetTableName").asText();
        byte[] describe =
                RangeSpread.bytes(DynamoJson.mapper().createObjectNode().put("TableName", name));
        return sender.send(ClusterMember.HOME, DESCRIBE_TABLE, describe, null)
                .thenComposeAsync(
                        found -> {
                            if (found.status() == 200) {
                                return done(ClusterMember.refusal(ClusterMember.alreadyExists(name)));
                            }
                            if (found.status() >= 500) {
                                return done(BatchSpread.unavailable(
                                        "the account's Raft group did not answer; send it again"));
                            }
                            Runnable undo;
                            try {
                                undo = places.place(name, ranges);
                            } catch (ApiException e) {
                                return done(ClusterMember.refusal(e));
                            }
                            ObjectNode share = asked.deepCopy();
                            share.remove("UseLatestRestorableTime");
                            share.put("RestoreDateTime", BigDecimal.valueOf(at, 3));
                            return ranges(RangeSpread.bytes(share), name, ranges.groups(), sender, undo, executor);
                        },
                        executor);
    }

    /**
     * Step 4: {@code share} (restoring table {@code name}) restored in each of {@code groups}, the first first. The
     * first group's {@code TableAlreadyExistsException} there is this request's own restore, sent again after it did
     * not answer (its store had no such table at step 1, and the record is this request's): made, described.
     */
    private static CompletableFuture<ClusterRouter.Reply> ranges(
            byte[] share, String name, List<UUID> groups, Sender sender, Runnable undo, Executor executor) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RangeSpread.EVERY_GROUP_MILLIS);
        RangeSpread.Sender ranged = (g, t, b) -> sender.send(g, t, b, CutTables.RANGE);
        return RangeSpread.untilDone(groups.get(0), TARGET, share, ranged, until, null)
                .thenComposeAsync(
                        reply -> {
                            if (!RangeSpread.is(reply, "TableAlreadyExistsException")) {
                                return done(reply);
                            }
                            byte[] describe = RangeSpread.bytes(
                                    DynamoJson.mapper().createObjectNode().put("TableName", name));
                            return sender.send(groups.get(0), DESCRIBE_TABLE, describe, null)
                                    .thenApply(described -> {
                                        ObjectNode d =
                                                described.status() == 200 ? BatchSpread.object(described.body()) : null;
                                        if (d == null || !d.has("Table")) {
                                            return BatchSpread.unavailable("table " + name + " is being restored;"
                                                    + " its state is not known here now: describe it");
                                        }
                                        ObjectNode out = DynamoJson.mapper().createObjectNode();
                                        out.set("TableDescription", d.get("Table"));
                                        return new ClusterRouter.Reply(200, RangeSpread.bytes(out));
                                    });
                        },
                        executor)
                .thenComposeAsync(
                        made -> {
                            if (made.status() != 200) {
                                if (made.status() < 500) {
                                    undo.run(); // refused with nothing made: the name is free again
                                }
                                return done(made);
                            }
                            return RangeSpread.all(
                                            groups.subList(1, groups.size()),
                                            g -> RangeSpread.untilDone(
                                                    g, TARGET, share, ranged, until, "TableAlreadyExistsException"))
                                    .thenApply(replies -> RangeSpread.firstRefusal(replies, made));
                        },
                        executor);
    }

    /** A time of DynamoDB's JSON (seconds since the epoch, a number) in milliseconds; 0 for none. */
    private static long millis(JsonNode seconds) {
        return seconds.isNumber() ? seconds.decimalValue().movePointRight(3).longValue() : 0;
    }

    private static CompletableFuture<ClusterRouter.Reply> done(ClusterRouter.Reply reply) {
        return CompletableFuture.completedFuture(reply);
    }
}
