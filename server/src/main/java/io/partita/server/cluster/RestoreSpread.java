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
 *       source, its PITR, the time within that group's window, the target's name in its store, the overrides), and
 *       refuses it as one it does not run alone ({@link CutTables#HEADER}).
 *   <li>Every group's window ({@link RangeSpread#continuousBackups}): PITR enabled in each, and the time (with {@code
 *       UseLatestRestorableTime}, the latest every group can restore) within the window every group can restore.
 *   <li>The target's name is looked for in the account's own group (a table made before the cluster had table
 *       groups), then recorded as a table cut by the source's ranges in the source's groups ({@link Places#place}).
 *   <li>Each group restores its range at that one time ({@link CutTables#RANGE}), every group at once; the first
 *       group's answer is the client's ({@link #ranges}).
 * </ol>
 *
 * A refusal by every group at the last step takes the record back (nothing was made); by some, the others' ranges are
 * deleted first. A group that never answers (or a range's restore the router stopped waiting for) leaves the outcome
 * unknown: a 503 or 500, and the restored table possibly without that range (DescribeTable {@code CREATING}).
 */
final class RestoreSpread {
    static final String TARGET = OperationRegistry.DYNAMODB_PREFIX + "RestoreTableToPointInTime";

    private static final String DESCRIBE_TABLE = OperationRegistry.DYNAMODB_PREFIX + "DescribeTable";
    private static final String DESCRIBE_BACKUPS = OperationRegistry.DYNAMODB_PREFIX + "DescribeContinuousBackups";
    private static final String DELETE_TABLE = OperationRegistry.DYNAMODB_PREFIX + "DeleteTable";

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
         * Records table {@code name}, restored from table {@code source}, as cut by {@code ranges} (the source's,
         * live), after a barrier, unless the account has a table of that name recorded, or the source's record no
         * longer has those ranges (a 503); blocks. Returns what takes the record back.
         *
         * @throws ApiException {@code TableAlreadyExistsException} for a table of that name; a {@code
         *     ValidationException} for a deleted table of that name still recorded (kept for its backups); a 503
         */
        Runnable place(String name, String source, TableRanges ranges);
    }

    /**
     * Runs client's restore {@code body} of table {@code source}, cut by {@code ranges}, over its groups: its steps on
     * {@code executor}, which may block.
     */
    static CompletableFuture<ClusterRouter.Reply> pointInTime(
            byte[] body, String source, TableRanges ranges, Sender sender, Places places, Executor executor) {
        UUID first = ranges.groups().get(0);
        return checkedFirst(first, TARGET, body, sender, executor, () -> {
            if (ranges.moving() != null) {
                return done(ClusterMember.refusal(RangeSpread.moving(source)));
            }
            byte[] describe =
                    RangeSpread.bytes(DynamoJson.mapper().createObjectNode().put("TableName", source));
            return RangeSpread.continuousBackups(
                            DESCRIBE_BACKUPS, describe, ranges.groups(), (g, t, b) -> sender.send(g, t, b, null))
                    .thenComposeAsync(
                            window -> restore(body, source, ranges, window, sender, places, executor), executor);
        });
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
        return placed(name, () -> places.place(name, source, ranges), sender, executor, undo -> {
            ObjectNode share = asked.deepCopy();
            share.remove("UseLatestRestorableTime");
            share.put("RestoreDateTime", BigDecimal.valueOf(at, 3));
            return ranges(TARGET, RangeSpread.bytes(share), name, ranges.groups(), sender, undo, executor);
        });
    }

    /**
     * Step 3 of a restore into table {@code name}: the name looked for in the account's own group (a table made before
     * the cluster had table groups: {@code TableAlreadyExistsException}), then recorded by {@code place} (which
     * returns what takes the record back, or throws the refusal to answer); then {@code then}, given that.
     */
    static CompletableFuture<ClusterRouter.Reply> placed(
            String name,
            java.util.function.Supplier<Runnable> place,
            Sender sender,
            Executor executor,
            java.util.function.Function<Runnable, CompletableFuture<ClusterRouter.Reply>> then) {
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
                                undo = place.get();
                            } catch (ApiException e) {
                                return done(ClusterMember.refusal(e));
                            }
                            return then.apply(undo);
                        },
                        executor);
    }

    /**
     * Step 4: {@code share} (restoring table {@code name}: a {@code target}, RestoreTableToPointInTime or, from {@link
     * BackupSpread}, RestoreTableFromBackup) restored in every one of {@code groups} at once (the request's checks, its
     * overrides' too, were the first group's at step 1). Each group is asked again while it does
     * not answer ({@link RangeSpread#EVERY_GROUP_MILLIS}); its {@code TableAlreadyExistsException} is its range made
     * by this request sent before (its answer lost: the first group had no such table at step 1, and the record is
     * this request's), described. The answer is the first group's table, or a group's refusal: a refusal by every
     * group takes the record back (nothing was made); one by some groups deletes the ranges the others made, then
     * takes it back. A 500 (the router stopped waiting for a range's restore, which may go on in its group) is
     * answered as it is, the outcome not known.
     */
    static CompletableFuture<ClusterRouter.Reply> ranges(
            String target,
            byte[] share,
            String name,
            List<UUID> groups,
            Sender sender,
            Runnable undo,
            Executor executor) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RangeSpread.EVERY_GROUP_MILLIS);
        RangeSpread.Sender ranged = (g, t, b) -> sender.send(g, t, b, CutTables.RANGE);
        return RangeSpread.all(
                        groups,
                        g -> RangeSpread.untilDone(g, target, share, ranged, until, null)
                                .thenComposeAsync(reply -> made(g, name, reply, sender, executor), executor))
                .thenComposeAsync(
                        replies -> {
                            ClusterRouter.Reply answer = RangeSpread.firstRefusal(replies, replies.get(0));
                            boolean unknown = replies.stream().anyMatch(r -> r.status() >= 500);
                            if (answer.status() == 200 || unknown) {
                                return done(answer);
                            }
                            // Refused by some groups at least (PITR turned off in one meanwhile, say): the ranges
                            // the others made are deleted, and the name is free again.
                            byte[] delete = RangeSpread.bytes(
                                    DynamoJson.mapper().createObjectNode().put("TableName", name));
                            List<UUID> made = new java.util.ArrayList<>();
                            for (int i = 0; i < groups.size(); i++) {
                                if (replies.get(i).status() == 200) {
                                    made.add(groups.get(i));
                                }
                            }
                            return RangeSpread.all(
                                            made,
                                            g -> RangeSpread.untilDone(
                                                    g,
                                                    DELETE_TABLE,
                                                    delete,
                                                    (to, t, b) -> sender.send(to, t, b, null),
                                                    System.nanoTime()
                                                            + TimeUnit.MILLISECONDS.toNanos(
                                                                    RangeSpread.EVERY_GROUP_MILLIS),
                                                    "ResourceNotFoundException"))
                                    .thenApplyAsync(
                                            deleted -> {
                                                undo.run(); // it blocks
                                                return answer;
                                            },
                                            executor);
                        },
                        executor);
    }

    /**
     * Group {@code group}'s {@code reply} to its range's restore: a {@code TableAlreadyExistsException} (its range
     * made by this request sent before) as the table it made, a {@code TableDescription} of table {@code name},
     * described (asked again every half second for {@link RangeSpread#EVERY_GROUP_MILLIS} while the group does not
     * answer); any other reply as it is.
     */
    private static CompletableFuture<ClusterRouter.Reply> made(
            UUID group, String name, ClusterRouter.Reply reply, Sender sender, Executor executor) {
        if (!RangeSpread.is(reply, "TableAlreadyExistsException")) {
            return done(reply);
        }
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RangeSpread.EVERY_GROUP_MILLIS);
        byte[] describe =
                RangeSpread.bytes(DynamoJson.mapper().createObjectNode().put("TableName", name));
        return described(group, describe, sender, until, executor);
    }

    private static CompletableFuture<ClusterRouter.Reply> described(
            UUID group, byte[] describe, Sender sender, long until, Executor executor) {
        return sender.send(group, DESCRIBE_TABLE, describe, null)
                .thenComposeAsync(
                        d -> {
                            ObjectNode table = d.status() == 200 ? BatchSpread.object(d.body()) : null;
                            if (table != null && table.get("Table") instanceof ObjectNode t) {
                                ObjectNode out = DynamoJson.mapper().createObjectNode();
                                out.set("TableDescription", t);
                                return done(new ClusterRouter.Reply(200, RangeSpread.bytes(out)));
                            }
                            if (System.nanoTime() - until > 0) {
                                return done(BatchSpread.unavailable(
                                        "a range of the restored table is not known here now; describe it"));
                            }
                            // On the common pool, which never refuses a task: a future left undone would hold the
                            // client's answer (as RangeSpread.untilDone waits).
                            Executor later = CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS);
                            return CompletableFuture.supplyAsync(() -> null, later)
                                    .thenCompose(x -> described(group, describe, sender, until, executor));
                        },
                        executor);
    }

    /**
     * Sends {@code body} as {@code target} to {@code group}, marked to be checked as on any table and then refused
     * ({@link CutTables#HEADER}), as DynamoDB answers a request's own error before anything else; once it is refused
     * so, {@code then} on {@code executor}. Its own error (or a 503) is the answer.
     */
    static CompletableFuture<ClusterRouter.Reply> checkedFirst(
            UUID group,
            String target,
            byte[] body,
            Sender sender,
            Executor executor,
            java.util.function.Supplier<CompletableFuture<ClusterRouter.Reply>> then) {
        String operation = target.substring(target.indexOf('.') + 1);
        return sender.send(group, target, body, "true")
                .thenComposeAsync(
                        checked -> RangeSpread.is(checked, "ValidationException|does not run " + operation)
                                ? then.get()
                                : done(checked),
                        executor);
    }

    /** A time of DynamoDB's JSON (seconds since the epoch, a number) in milliseconds; 0 for none. */
    private static long millis(JsonNode seconds) {
        return seconds.isNumber() ? seconds.decimalValue().movePointRight(3).longValue() : 0;
    }

    static CompletableFuture<ClusterRouter.Reply> done(ClusterRouter.Reply reply) {
        return CompletableFuture.completedFuture(reply);
    }
}
