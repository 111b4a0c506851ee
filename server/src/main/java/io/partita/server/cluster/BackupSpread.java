package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.CutTables;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.backup.TableBackups;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The on-demand backups of a table whose partitions are Raft groups of their own ({@code --cluster-partition-groups},
 * docs/CLUSTER.md), run from the node the client sent the request to. A backup is one part per group, each a backup
 * of that group's own range under one id (so one ARN), and a record in the members' group of which groups hold the
 * parts and their ranges ({@link Records}), written before any part: DescribeBackup, DeleteBackup and
 * RestoreTableFromBackup go to those groups whatever became of the table since (deleted, or its name placed anew
 * elsewhere). A group holding a part is not closed.
 *
 * <ul>
 *   <li>CreateBackup ({@link #create}): the table's first group checks the request as on any table (DynamoDB's errors
 *       first), the backup is recorded under a new id, every group backs up its range under it ({@link CutTables#PART})
 *       at once, and the table's record is read again: a move of a range meanwhile (the ranges backed up no longer the
 *       table's) deletes the parts and answers 503, sent again. The answer is the first group's, its size every
 *       part's.
 *   <li>DescribeBackup ({@link #describe}): every part described, sizes and item counts summed; a part missing (a
 *       delete under way) is the backup missing.
 *   <li>DeleteBackup ({@link #delete}): every part deleted (one gone already counts as deleted), then the record.
 *   <li>RestoreTableFromBackup ({@link #restore}): the first part's group checks the request (the overrides too); the
 *       target's name is looked for in the account's own group, then recorded as a table cut by the backup's ranges in
 *       the groups of its parts; each group restores its part at once ({@link RestoreSpread#ranges}).
 * </ul>
 *
 * ListBackups lists each part in its group: {@link ListSpread} lists a backup once, its size every part's.
 */
final class BackupSpread {
    static final String CREATE = OperationRegistry.DYNAMODB_PREFIX + "CreateBackup";
    static final String DESCRIBE = OperationRegistry.DYNAMODB_PREFIX + "DescribeBackup";
    static final String DELETE = OperationRegistry.DYNAMODB_PREFIX + "DeleteBackup";
    static final String RESTORE = OperationRegistry.DYNAMODB_PREFIX + "RestoreTableFromBackup";

    private BackupSpread() {}

    /**
     * The cluster's records of backups and tables, as this spread needs them; each call blocks. A backup's record says
     * what is under way: {@code creating} from its record until every part is made, {@code deleting} from a
     * DeleteBackup on, and a restore reading it ({@code restoring}); a mark older than {@link #BUSY_MILLIS} (its node
     * stopped midway) is not heeded.
     */
    interface Records {
        /**
         * Records backup {@code id} of table {@code table}, {@code creating}, as held by the groups of {@code ranges}
         * (the table's, live), after a barrier: unless the table's record no longer has those ranges, or a range of it
         * is moving (a 503). Returns what takes the record back.
         */
        Runnable record(String id, String table, TableRanges ranges);

        /** Whether table {@code table}'s record, after a barrier, still has {@code ranges}, no move under way. */
        boolean unchanged(String table, TableRanges ranges);

        /** Marks backup {@code id} made (no longer {@code creating}); false when its record is gone or deleting. */
        boolean made(String id);

        /**
         * Marks backup {@code id} ({@code arn}, as the request names it) {@code deleting}.
         *
         * @throws ApiException {@code BackupInUseException} while it is being made or restored; {@code
         *     BackupNotFoundException} when it is no longer recorded
         */
        void deleting(String id, String arn);

        /** Removes backup {@code id}'s record (its parts deleted). */
        void forget(String id);

        /**
         * Marks backup {@code id} being restored into table {@code name}, then records that table as cut by {@code
         * ranges} (the backup's) in the groups of its parts, as {@link RestoreSpread.Places#place} does a restore to a
         * point in time. Returns what takes the table's record back; {@link #restored} takes the mark back.
         *
         * @throws ApiException {@code BackupInUseException} while the backup is being made or restored into another
         *     table; {@code BackupNotFoundException} while it is being deleted; as {@link RestoreSpread.Places#place}
         *     throws (the mark taken back)
         */
        Runnable place(String name, String id, TableRanges ranges);

        /** Takes back the mark of a restore of backup {@code id}, whatever its outcome. */
        void restored(String id);
    }

    /** How long a mark of a backup's record is heeded: longer than the router waits for any share. */
    static final long BUSY_MILLIS = 600_000;

    /**
     * Runs client's CreateBackup {@code body} of table {@code table}, cut by {@code ranges}, over its groups: the
     * backup's id made at {@code now} (epoch milliseconds), its steps on {@code executor}, which may block.
     */
    static CompletableFuture<ClusterRouter.Reply> create(
            byte[] body,
            String table,
            TableRanges ranges,
            long now,
            RestoreSpread.Sender sender,
            Records records,
            Executor executor) {
        return RestoreSpread.checkedFirst(ranges.groups().get(0), CREATE, body, sender, executor, () -> {
            if (ranges.moving() != null) {
                return RestoreSpread.done(ClusterMember.refusal(RangeSpread.moving(table)));
            }
            String id = TableBackups.newId(now);
            Runnable undo;
            try {
                undo = records.record(id, table, ranges);
            } catch (ApiException e) {
                return RestoreSpread.done(ClusterMember.refusal(e));
            }
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RangeSpread.EVERY_GROUP_MILLIS);
            RangeSpread.Sender parts = (g, t, b) -> sender.send(g, t, b, CutTables.PART + id);
            return RangeSpread.all(ranges.groups(), g -> RangeSpread.untilDone(g, CREATE, body, parts, until, null))
                    .thenComposeAsync(
                            replies -> made(id, table, ranges, replies, sender, records, undo, executor), executor);
        });
    }

    /**
     * Every group's {@code replies} to its part of new backup {@code id} of table {@code table}: the first group's
     * answer, its size every part's, once every part is made, the table's ranges are still those backed up, and the
     * record is marked made; else every part deleted (its record taken back once they are), and the first refusal
     * answered, or a 503. A group's 5xx leaves the outcome unknown: answered as it is, the record kept.
     */
    private static CompletableFuture<ClusterRouter.Reply> made(
            String id,
            String table,
            TableRanges ranges,
            List<ClusterRouter.Reply> replies,
            RestoreSpread.Sender sender,
            Records records,
            Runnable undo,
            Executor executor) {
        ClusterRouter.Reply first = replies.get(0);
        ClusterRouter.Reply refused = RangeSpread.firstRefusal(replies, null);
        String arn = null;
        for (ClusterRouter.Reply r : replies) {
            if (r.status() == 200) {
                arn = BatchSpread.object(r.body())
                        .path("BackupDetails")
                        .path("BackupArn")
                        .asText(null);
            }
        }
        ClusterRouter.Reply unknown =
                replies.stream().filter(r -> r.status() >= 500).findFirst().orElse(null);
        if (unknown != null) {
            // A group that did not answer, or a part the router stopped waiting for, which may still be made: the
            // outcome is not known, and the record stays (ListBackups lists what was made; DeleteBackup deletes it).
            return RestoreSpread.done(unknown);
        }
        boolean unchanged;
        try {
            unchanged = refused == null && records.unchanged(table, ranges) && records.made(id);
        } catch (RuntimeException e) {
            unchanged = false; // the records cannot be read now: the parts are taken back
        }
        if (unchanged) {
            ObjectNode out = BatchSpread.object(first.body());
            for (ClusterRouter.Reply r : replies.subList(1, replies.size())) {
                add(child(out, "BackupDetails"), BatchSpread.object(r.body()).path("BackupDetails"), "BackupSizeBytes");
            }
            return RestoreSpread.done(new ClusterRouter.Reply(200, RangeSpread.bytes(out)));
        }
        ClusterRouter.Reply answer = refused != null
                ? refused
                : BatchSpread.unavailable("a range of table " + table + " moved during the backup; send it again");
        if (arn == null) {
            undo.run(); // no part made
            return RestoreSpread.done(answer);
        }
        return deleteParts(arn, ranges.groups(), sender)
                .thenApplyAsync(
                        deleted -> {
                            if (RangeSpread.firstRefusal(deleted, null) == null) {
                                undo.run();
                            }
                            return answer;
                        },
                        executor);
    }

    /**
     * Deletes backup {@code arn}'s part in every one of {@code groups} at once, each asked again while it answers 503;
     * one gone already counts as deleted (a 200 with the refusal's body).
     */
    private static CompletableFuture<List<ClusterRouter.Reply>> deleteParts(
            String arn, List<UUID> groups, RestoreSpread.Sender sender) {
        byte[] delete = RangeSpread.bytes(DynamoJson.mapper().createObjectNode().put("BackupArn", arn));
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RangeSpread.EVERY_GROUP_MILLIS);
        RangeSpread.Sender plain = (g, t, b) -> sender.send(g, t, b, null);
        return RangeSpread.all(
                groups, g -> RangeSpread.untilDone(g, DELETE, delete, plain, until, "BackupNotFoundException"));
    }

    /** Client's DescribeBackup {@code body} of a backup whose parts {@code groups} hold: every part's, merged. */
    static CompletableFuture<ClusterRouter.Reply> describe(
            byte[] body, List<UUID> groups, RestoreSpread.Sender sender) {
        return RangeSpread.all(groups, g -> sender.send(g, DESCRIBE, body, null))
                .thenApply(replies -> {
                    ClusterRouter.Reply refused = RangeSpread.firstRefusal(replies, null);
                    return refused != null ? refused : merged(replies);
                });
    }

    /**
     * Client's DeleteBackup {@code body} of backup {@code id}, whose parts {@code groups} hold: its record marked
     * {@code deleting} (refused while it is being made or restored), every part deleted, then its record; the answer
     * every part's description, merged. A group that refuses (or does not answer) leaves the record, which a
     * DeleteBackup sent again goes on with.
     */
    static CompletableFuture<ClusterRouter.Reply> delete(
            byte[] body,
            String id,
            List<UUID> groups,
            RestoreSpread.Sender sender,
            Records records,
            Executor executor) {
        String arn = BatchSpread.object(body).path("BackupArn").asText("");
        return CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                records.deleting(id, arn);
                                return null;
                            } catch (ApiException e) {
                                return ClusterMember.refusal(e);
                            }
                        },
                        executor)
                .thenCompose(refused -> refused != null
                        ? RestoreSpread.done(refused)
                        : deleted(arn, id, groups, sender, records, executor));
    }

    /** DeleteBackup {@code arn}'s parts deleted in every one of {@code groups}, then its record {@code id}. */
    private static CompletableFuture<ClusterRouter.Reply> deleted(
            String arn, String id, List<UUID> groups, RestoreSpread.Sender sender, Records records, Executor executor) {
        return deleteParts(arn, groups, sender)
                .thenApplyAsync(
                        replies -> {
                            ClusterRouter.Reply refused = RangeSpread.firstRefusal(replies, null);
                            if (refused != null) {
                                return refused;
                            }
                            try {
                                records.forget(id);
                            } catch (RuntimeException e) {
                                return BatchSpread.unavailable(
                                        "the backup's parts are deleted, and its record could not be removed; send it again");
                            }
                            List<ClusterRouter.Reply> described = new ArrayList<>();
                            for (ClusterRouter.Reply r : replies) {
                                if (BatchSpread.object(r.body()).has("BackupDescription")) {
                                    described.add(r);
                                }
                            }
                            // Every part gone before: this request sent again once its answer was lost, or two at once.
                            return described.isEmpty()
                                    ? ClusterMember.refusal(
                                            new ApiException(ErrorCode.BACKUP_NOT_FOUND, "Backup not found: " + arn))
                                    : merged(described);
                        },
                        executor);
    }

    /**
     * Client's RestoreTableFromBackup {@code body} of backup {@code id}, whose parts the groups of {@code ranges} hold
     * (its record's), over those groups: its steps on {@code executor}, which may block.
     */
    static CompletableFuture<ClusterRouter.Reply> restore(
            byte[] body,
            String id,
            TableRanges ranges,
            RestoreSpread.Sender sender,
            Records records,
            Executor executor) {
        return RestoreSpread.checkedFirst(ranges.groups().get(0), RESTORE, body, sender, executor, () -> {
            String name = BatchSpread.object(body).path("TargetTableName").asText();
            return RestoreSpread.placed(
                    name,
                    () -> records.place(name, id, ranges),
                    sender,
                    executor,
                    undo -> RestoreSpread.ranges(RESTORE, body, name, ranges.groups(), sender, undo, executor)
                            .whenCompleteAsync(
                                    (restored, failed) -> {
                                        try {
                                            records.restored(id);
                                        } catch (RuntimeException e) {
                                            // heeded no longer after BUSY_MILLIS
                                        }
                                    },
                                    executor));
        });
    }

    /** The first of {@code replies}' BackupDescription, its sizes and item count every one's. */
    private static ClusterRouter.Reply merged(List<ClusterRouter.Reply> replies) {
        ObjectNode out = BatchSpread.object(replies.get(0).body());
        ObjectNode description = child(out, "BackupDescription");
        for (ClusterRouter.Reply r : replies.subList(1, replies.size())) {
            JsonNode other = BatchSpread.object(r.body()).path("BackupDescription");
            add(child(description, "BackupDetails"), other.path("BackupDetails"), "BackupSizeBytes");
            add(child(description, "SourceTableDetails"), other.path("SourceTableDetails"), "TableSizeBytes");
            add(child(description, "SourceTableDetails"), other.path("SourceTableDetails"), "ItemCount");
        }
        return new ClusterRouter.Reply(200, RangeSpread.bytes(out));
    }

    /** Adds {@code from}'s number {@code field} to {@code into}'s. */
    private static void add(ObjectNode into, JsonNode from, String field) {
        if (into.has(field) || from.has(field)) {
            into.put(field, into.path(field).asLong(0) + from.path(field).asLong(0));
        }
    }

    /** {@code node}'s object {@code field}, made empty when it has none. */
    private static ObjectNode child(ObjectNode node, String field) {
        return node.get(field) instanceof ObjectNode o ? o : node.putObject(field);
    }
}
