package io.partita.server.cluster;

import static io.partita.server.cluster.Replies.bytes;
import static io.partita.server.cluster.Replies.message;
import static io.partita.server.cluster.Replies.refusal;
import static io.partita.server.cluster.Replies.tree;
import static io.partita.server.cluster.Replies.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.CutTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The backups of a table cut by ranges, run over its groups from one node: one part per group under one id, recorded
 * first; described, listed and deleted as one; restored range by range into the groups of its parts.
 */
class BackupSpreadTest {
    private static final ObjectMapper JSON = DynamoJson.mapper();
    private static final List<UUID> GROUPS = List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
    private static final TableRanges RANGES = TableRanges.even("pk", GROUPS);
    private static final String ARN =
            "arn:aws:dynamodb:us-east-1:000000000000:table/src/backup/01700000000000-0000abcd";

    /** What the fake groups answer, and what they were asked (group index, operation, mark). */
    private static final class Cluster implements RestoreSpread.Sender {
        final List<String> asked = new CopyOnWriteArrayList<>();
        final List<String> marks = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply check = refusal(
                "ValidationException", "Partita's cluster does not run CreateBackup on table src yet: its partitions");
        ClusterRouter.Reply restoreCheck = refusal(
                "ValidationException",
                "Partita's cluster does not run RestoreTableFromBackup on table src yet: its partitions");
        ClusterRouter.Reply home = refusal("ResourceNotFoundException", "Requested resource not found");
        /** Answers by group index and operation ({@code 2:CreateBackup}), the others as each group makes them. */
        final Map<String, ClusterRouter.Reply> answers = new HashMap<>();

        @Override
        public CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body, String mark) {
            String op = target.substring(target.indexOf('.') + 1);
            int i = GROUPS.indexOf(group);
            asked.add((group.equals(ClusterMember.HOME) ? "home" : Integer.toString(i)) + ":" + op
                    + (mark == null || mark.startsWith(CutTables.PART) ? "" : "/" + mark));
            if (mark != null && mark.startsWith(CutTables.PART)) {
                marks.add(mark);
            }
            ClusterRouter.Reply reply;
            if (group.equals(ClusterMember.HOME)) {
                reply = home;
            } else if ("true".equals(mark)) {
                reply = op.equals("CreateBackup") ? check : restoreCheck;
            } else if (answers.containsKey(i + ":" + op)) {
                reply = answers.get(i + ":" + op);
            } else {
                reply = switch (op) {
                    case "CreateBackup" ->
                        ok("{\"BackupDetails\":{\"BackupArn\":\"" + ARN + "\",\"BackupSizeBytes\":" + (i + 1) * 100
                                + "}}");
                    case "DescribeBackup", "DeleteBackup" ->
                        ok("{\"BackupDescription\":{\"BackupDetails\":"
                                + "{\"BackupArn\":\"" + ARN + "\",\"BackupSizeBytes\":" + (i + 1) * 100 + "},"
                                + "\"SourceTableDetails\":{\"TableSizeBytes\":" + (i + 1) * 100 + ",\"ItemCount\":"
                                + (i + 1)
                                + "}}}");
                    default -> ok("{\"TableDescription\":{\"TableName\":\"dst\"}}");
                };
            }
            return CompletableFuture.completedFuture(reply);
        }
    }

    /** The fake records: what was recorded, taken back, forgotten and placed. */
    private static final class Records implements BackupSpread.Records {
        final List<String> recorded = new ArrayList<>();
        final List<String> undone = new ArrayList<>();
        final List<String> forgotten = new ArrayList<>();
        final List<String> placed = new ArrayList<>();
        final List<String> marked = new ArrayList<>();
        boolean unchanged = true;
        boolean made = true;
        io.partita.protocol.error.ApiException inUse;

        @Override
        public Runnable record(String id, String table, TableRanges ranges) {
            assertThat(table).isEqualTo("src");
            assertThat(ranges.groups()).isEqualTo(GROUPS);
            recorded.add(id);
            return () -> undone.add(id);
        }

        @Override
        public boolean unchanged(String table, TableRanges ranges) {
            return unchanged;
        }

        @Override
        public boolean made(String id) {
            marked.add("made " + id);
            return made;
        }

        @Override
        public void deleting(String id, String arn) {
            if (inUse != null) {
                throw inUse;
            }
            marked.add("deleting " + id);
        }

        @Override
        public void forget(String id) {
            forgotten.add(id);
        }

        @Override
        public Runnable place(String name, String id, TableRanges ranges) {
            assertThat(ranges.groups()).isEqualTo(GROUPS);
            if (inUse != null) {
                throw inUse;
            }
            placed.add(name + "<" + id);
            return () -> undone.add(name);
        }

        @Override
        public void restored(String id) {
            marked.add("restored " + id);
        }
    }

    private static final String CREATE = "{\"TableName\":\"src\",\"BackupName\":\"nightly\"}";

    private static ClusterRouter.Reply create(Cluster cluster, Records records, TableRanges ranges) {
        return BackupSpread.create(bytes(CREATE), "src", ranges, 1_700_000_000_000L, cluster, records, Runnable::run)
                .join();
    }

    @Test
    void eachGroupBacksUpItsRangeUnderTheOneIdRecordedFirst() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        ClusterRouter.Reply reply = create(cluster, records, RANGES);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(tree(reply).path("BackupDetails").path("BackupSizeBytes").asLong())
                .as("every part's size")
                .isEqualTo(600);
        assertThat(records.recorded).singleElement().asString().matches("01700000000000-[0-9a-f]{8}");
        String id = records.recorded.get(0);
        assertThat(cluster.asked.get(0)).isEqualTo("0:CreateBackup/true");
        assertThat(cluster.asked.subList(1, 4))
                .containsExactlyInAnyOrder("0:CreateBackup", "1:CreateBackup", "2:CreateBackup");
        assertThat(cluster.marks).hasSize(3).allSatisfy(m -> assertThat(m).isEqualTo(CutTables.PART + id));
        assertThat(records.marked).containsExactly("made " + id);
        assertThat(records.undone).isEmpty();
    }

    @Test
    void theRequestsOwnErrorOrAMoveIsAnsweredWithNothingRecorded() {
        Cluster cluster = new Cluster();
        cluster.check = refusal("ValidationException", "1 validation error detected: Value 'a' at 'backupName'");
        Records records = new Records();
        ClusterRouter.Reply reply = create(cluster, records, RANGES);
        assertThat(type(reply)).isEqualTo("ValidationException");
        assertThat(message(reply)).contains("backupName");
        assertThat(cluster.asked).containsExactly("0:CreateBackup/true");

        Cluster moving = new Cluster();
        TableRanges move = new TableRanges(
                "pk",
                RANGES.starts(),
                GROUPS,
                true,
                new TableRanges.Moving(1L << 62, UUID.randomUUID(), GROUPS.get(0), false));
        assertThat(type(create(moving, records, move))).isEqualTo("ResourceInUseException");
        assertThat(records.recorded).isEmpty();
    }

    @Test
    void aPartRefusedOrTheRangesMovedDeletesEveryPartAndTheRecord() {
        Cluster cluster = new Cluster();
        cluster.answers.put("2:CreateBackup", refusal("ResourceNotFoundException", "Table not found: src"));
        Records records = new Records();
        ClusterRouter.Reply reply = create(cluster, records, RANGES);
        assertThat(type(reply)).isEqualTo("ResourceNotFoundException");
        assertThat(cluster.asked.subList(4, 7))
                .containsExactlyInAnyOrder("0:DeleteBackup", "1:DeleteBackup", "2:DeleteBackup");
        assertThat(records.undone).isEqualTo(records.recorded);

        Cluster moved = new Cluster();
        Records changed = new Records();
        changed.unchanged = false;
        ClusterRouter.Reply again = create(moved, changed, RANGES);
        assertThat(again.status()).isEqualTo(503);
        assertThat(message(again)).contains("moved during the backup");
        assertThat(moved.asked.stream().filter(a -> a.endsWith("DeleteBackup"))).hasSize(3);
        assertThat(changed.undone).isEqualTo(changed.recorded);

        // Its record deleted meanwhile (a DeleteBackup of a create its node gave up on): the parts go too.
        Cluster gone = new Cluster();
        Records notMade = new Records();
        notMade.made = false;
        assertThat(create(gone, notMade, RANGES).status()).isEqualTo(503);
        assertThat(gone.asked.stream().filter(a -> a.endsWith("DeleteBackup"))).hasSize(3);
    }

    @Test
    void aPartWhoseOutcomeIsNotKnownKeepsTheRecord() {
        Cluster cluster = new Cluster();
        cluster.answers.put("1:CreateBackup", new ClusterRouter.Reply(500, bytes("{}")));
        Records records = new Records();
        ClusterRouter.Reply reply = create(cluster, records, RANGES);
        assertThat(reply.status()).isEqualTo(500);
        assertThat(cluster.asked.stream().filter(a -> a.endsWith("DeleteBackup")))
                .isEmpty();
        assertThat(records.undone).isEmpty();
        assertThat(records.marked).as("not made").isEmpty();
    }

    @Test
    void describedAndDeletedAsOneBackup() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        byte[] body = bytes("{\"BackupArn\":\"" + ARN + "\"}");
        ClusterRouter.Reply described =
                BackupSpread.describe(body, GROUPS, cluster).join();
        JsonNode d = tree(described).path("BackupDescription");
        assertThat(d.path("BackupDetails").path("BackupSizeBytes").asLong()).isEqualTo(600);
        assertThat(d.path("SourceTableDetails").path("TableSizeBytes").asLong()).isEqualTo(600);
        assertThat(d.path("SourceTableDetails").path("ItemCount").asLong()).isEqualTo(6);

        cluster.answers.put("1:DescribeBackup", refusal("BackupNotFoundException", "Backup not found: " + ARN));
        cluster.answers.put("1:DeleteBackup", refusal("BackupNotFoundException", "Backup not found: " + ARN));
        assertThat(type(BackupSpread.describe(body, GROUPS, cluster).join()))
                .as("a part missing: a delete under way")
                .isEqualTo("BackupNotFoundException");
        // Deleted: a part gone already counts as deleted, the others' descriptions merged; then the record.
        ClusterRouter.Reply deleted = BackupSpread.delete(body, "id", GROUPS, cluster, records, Runnable::run)
                .join();
        assertThat(tree(deleted)
                        .path("BackupDescription")
                        .path("BackupDetails")
                        .path("BackupSizeBytes")
                        .asLong())
                .isEqualTo(400);
        assertThat(records.forgotten).containsExactly("id");
        assertThat(records.marked).containsExactly("deleting id");

        // Being restored (the record's mark): refused before any part is deleted.
        records.inUse = new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.BACKUP_IN_USE, "Backup is being used to restore table: x");
        int asked = cluster.asked.size();
        assertThat(type(BackupSpread.delete(body, "id", GROUPS, cluster, records, Runnable::run)
                        .join()))
                .isEqualTo("BackupInUseException");
        assertThat(cluster.asked).hasSize(asked);
        records.inUse = null;
        // A part a group refuses to delete: refused, and the record kept (a DeleteBackup sent again goes on).
        cluster.answers.put(
                "0:DeleteBackup", refusal("BackupInUseException", "Backup is being used to restore table: x"));
        assertThat(type(BackupSpread.delete(body, "id", GROUPS, cluster, records, Runnable::run)
                        .join()))
                .isEqualTo("BackupInUseException");
        assertThat(records.forgotten).hasSize(1);

        // Every part gone: the backup is not found, and its record goes.
        for (int i = 0; i < 3; i++) {
            cluster.answers.put(i + ":DeleteBackup", refusal("BackupNotFoundException", "Backup not found: " + ARN));
        }
        ClusterRouter.Reply none = BackupSpread.delete(body, "id2", GROUPS, cluster, records, Runnable::run)
                .join();
        assertThat(type(none)).isEqualTo("BackupNotFoundException");
        assertThat(message(none)).isEqualTo("Backup not found: " + ARN);
        assertThat(records.forgotten).containsExactly("id", "id2");
    }

    @Test
    void aRestoreIsCheckedThenPlacedThenMadeRangeByRange() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        byte[] body = bytes("{\"BackupArn\":\"" + ARN + "\",\"TargetTableName\":\"dst\"}");
        ClusterRouter.Reply reply = BackupSpread.restore(body, "id", RANGES, cluster, records, Runnable::run)
                .join();
        assertThat(reply.status()).isEqualTo(200);
        assertThat(cluster.asked.subList(0, 2)).containsExactly("0:RestoreTableFromBackup/true", "home:DescribeTable");
        assertThat(records.placed).containsExactly("dst<id");
        assertThat(records.marked).as("the mark taken back once restored").containsExactly("restored id");
        assertThat(cluster.asked.subList(2, 5))
                .containsExactlyInAnyOrder(
                        "0:RestoreTableFromBackup/range",
                        "1:RestoreTableFromBackup/range",
                        "2:RestoreTableFromBackup/range");

        // A table of that name in the account's own group: refused, nothing placed.
        Cluster taken = new Cluster();
        taken.home = ok("{\"Table\":{\"TableName\":\"dst\"}}");
        Records none = new Records();
        assertThat(type(BackupSpread.restore(body, "id", RANGES, taken, none, Runnable::run)
                        .join()))
                .isEqualTo("TableAlreadyExistsException");
        assertThat(none.placed).isEmpty();

        // The request's own error (checked by the first part's group) first.
        Cluster bad = new Cluster();
        bad.restoreCheck = refusal("ValidationException", "1 validation error detected: billingModeOverride");
        assertThat(message(BackupSpread.restore(body, "id", RANGES, bad, none, Runnable::run)
                        .join()))
                .contains("billingModeOverride");
        assertThat(bad.asked).containsExactly("0:RestoreTableFromBackup/true");
    }

    private static ClusterRouter.Reply ok(String json) {
        return new ClusterRouter.Reply(200, bytes(json));
    }
}
