package io.partita.server.cluster;

import static io.partita.server.cluster.Replies.bytes;
import static io.partita.server.cluster.Replies.message;
import static io.partita.server.cluster.Replies.refusal;
import static io.partita.server.cluster.Replies.tree;
import static io.partita.server.cluster.Replies.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.CutTables;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A restore to a point in time of a table cut by ranges, run over its groups from one node: checked by the first group,
 * then every group's window, the name, the record, and each group's range at one time.
 */
class RestoreSpreadTest {
    private static final ObjectMapper JSON = DynamoJson.mapper();
    private static final List<UUID> GROUPS = List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
    private static final TableRanges RANGES = TableRanges.even("pk", GROUPS);
    private static final String NOT_RUN_ALONE = "Partita's cluster does not run RestoreTableToPointInTime on table src"
            + " yet: its partitions are Raft groups of their own";

    /** What the fake cluster answers, and what it was asked. */
    private static final class Cluster implements RestoreSpread.Sender {
        final List<String> asked = new CopyOnWriteArrayList<>();
        final List<ObjectNode> shares = new CopyOnWriteArrayList<>();
        ClusterRouter.Reply check = refusal("ValidationException", NOT_RUN_ALONE);
        List<ClusterRouter.Reply> windows = List.of(
                window("ENABLED", "1000.000", "2000.000"),
                window("ENABLED", "1000.500", "1999.500"),
                window("ENABLED", "999.000", "2001.000"));
        ClusterRouter.Reply home = refusal("ResourceNotFoundException", "Requested resource not found");
        Map<UUID, ClusterRouter.Reply> made = Map.of();

        @Override
        public CompletableFuture<ClusterRouter.Reply> send(UUID group, String target, byte[] body, String mark) {
            String op = target.substring(target.indexOf('.') + 1);
            String who = group.equals(ClusterMember.HOME) ? "home" : Integer.toString(GROUPS.indexOf(group));
            asked.add(who + ":" + op + (mark == null ? "" : "/" + mark));
            ClusterRouter.Reply reply;
            if (op.equals("DescribeContinuousBackups")) {
                reply = windows.get(GROUPS.indexOf(group));
            } else if (op.equals("DescribeTable")) {
                // The account's group: a table made before table groups; a range's group: the restored table.
                reply = group.equals(ClusterMember.HOME)
                        ? home
                        : new ClusterRouter.Reply(200, bytes("{\"Table\":{\"TableName\":\"dst\"}}"));
            } else if (!CutTables.RANGE.equals(mark)) {
                reply = check;
            } else {
                shares.add(BatchSpread.object(body));
                reply = made.getOrDefault(group, new ClusterRouter.Reply(200, bytes("{\"TableDescription\":{}}")));
            }
            return CompletableFuture.completedFuture(reply);
        }
    }

    /** Records the placements asked for, and their take-backs. */
    private static final class Records implements RestoreSpread.Places {
        final AtomicInteger placed = new AtomicInteger();
        final AtomicInteger undone = new AtomicInteger();
        ApiException refusal;

        @Override
        public Runnable place(String name, String source, TableRanges ranges) {
            assertThat(name).isEqualTo("dst");
            assertThat(source).isEqualTo("src");
            assertThat(ranges.groups()).isEqualTo(GROUPS);
            if (refusal != null) {
                throw refusal;
            }
            placed.incrementAndGet();
            return undone::incrementAndGet;
        }
    }

    private static ClusterRouter.Reply run(Cluster cluster, Records records, String body) {
        return RestoreSpread.pointInTime(bytes(body), "src", RANGES, cluster, records, Runnable::run)
                .join();
    }

    private static final String LATEST =
            "{\"SourceTableName\":\"src\",\"TargetTableName\":\"dst\",\"UseLatestRestorableTime\":true}";

    @Test
    void eachGroupRestoresItsRangeAtTheLatestTimeEveryGroupCanRestore() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        ClusterRouter.Reply reply = run(cluster, records, LATEST);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(records.placed).hasValue(1);
        assertThat(records.undone).hasValue(0);
        assertThat(cluster.asked.subList(0, 5))
                .containsExactly(
                        "0:RestoreTableToPointInTime/true",
                        "0:DescribeContinuousBackups",
                        "1:DescribeContinuousBackups",
                        "2:DescribeContinuousBackups",
                        "home:DescribeTable");
        assertThat(cluster.asked.subList(5, 8))
                .as("every range, once placed")
                .containsExactlyInAnyOrder(
                        "0:RestoreTableToPointInTime/range",
                        "1:RestoreTableToPointInTime/range",
                        "2:RestoreTableToPointInTime/range");
        assertThat(cluster.shares).hasSize(3).allSatisfy(share -> {
            assertThat(share.has("UseLatestRestorableTime")).isFalse();
            // The earliest of the groups' latest times: one time for every range.
            assertThat(share.get("RestoreDateTime").decimalValue()).isEqualByComparingTo("1999.5");
            assertThat(share.get("TargetTableName").asText()).isEqualTo("dst");
        });
    }

    @Test
    void aTimeOutsideTheWindowEveryGroupCanRestoreIsRefusedWithNothingPlaced() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        // Within the first group's window, not within the second's.
        ClusterRouter.Reply early = run(
                cluster,
                records,
                "{\"SourceTableName\":\"src\",\"TargetTableName\":\"dst\",\"RestoreDateTime\":1000.2}");
        assertThat(type(early)).isEqualTo("InvalidRestoreTimeException");
        assertThat(message(early)).startsWith("RestoreDateTime '1970-01-01T00:16:40Z' must be within");
        ClusterRouter.Reply fine = run(
                cluster,
                records,
                "{\"SourceTableName\":\"src\",\"TargetTableName\":\"dst\",\"RestoreDateTime\":1500.25}");
        assertThat(fine.status()).isEqualTo(200);
        assertThat(cluster.shares)
                .allSatisfy(
                        s -> assertThat(s.get("RestoreDateTime").decimalValue()).isEqualByComparingTo("1500.25"));
        assertThat(records.placed).hasValue(1);
    }

    @Test
    void theFirstGroupsChecksAndEveryGroupsPitrComeFirst() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        cluster.check = refusal("PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled");
        assertThat(run(cluster, records, LATEST)).isSameAs(cluster.check);
        assertThat(cluster.asked).containsExactly("0:RestoreTableToPointInTime/true");

        cluster = new Cluster();
        cluster.windows = List.of(
                window("ENABLED", "1000", "2000"), window("DISABLED", null, null), window("ENABLED", "1000", "2000"));
        ClusterRouter.Reply off = run(cluster, records, LATEST);
        assertThat(type(off)).isEqualTo("PointInTimeRecoveryUnavailableException");
        assertThat(message(off)).isEqualTo("Point in time recovery is not enabled for table 'src'");

        cluster = new Cluster();
        cluster.home = new ClusterRouter.Reply(200, bytes("{\"Table\":{}}"));
        ClusterRouter.Reply there = run(cluster, records, LATEST);
        assertThat(type(there)).isEqualTo("TableAlreadyExistsException");

        cluster = new Cluster();
        records.refusal = ClusterMember.alreadyExists("dst");
        assertThat(type(run(cluster, records, LATEST))).isEqualTo("TableAlreadyExistsException");
        assertThat(cluster.shares).isEmpty();
        assertThat(records.placed).hasValue(0);
    }

    @Test
    void aRefusalByEveryRangeTakesTheRecordBackAndARangeMadeBeforeCountsAsDone() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        ClusterRouter.Reply limit = refusal("LimitExceededException", "too many");
        cluster.made = Map.of(GROUPS.get(0), limit, GROUPS.get(1), limit, GROUPS.get(2), limit);
        ClusterRouter.Reply refused = run(cluster, records, LATEST);
        assertThat(type(refused)).isEqualTo("LimitExceededException");
        assertThat(records.undone).hasValue(1);
        // One range refused, the others made: theirs deleted, the record taken back, the refusal the answer.
        cluster = new Cluster();
        records = new Records();
        cluster.made = Map.of(GROUPS.get(0), limit);
        assertThat(type(run(cluster, records, LATEST))).isEqualTo("LimitExceededException");
        assertThat(records.undone).hasValue(1);
        assertThat(cluster.shares).hasSize(3);
        assertThat(cluster.asked)
                .filteredOn(a -> a.endsWith(":DeleteTable"))
                .containsExactlyInAnyOrder("1:DeleteTable", "2:DeleteTable");

        cluster = new Cluster();
        records = new Records();
        // Made by this request sent before (its answer lost): done.
        cluster.made = Map.of(GROUPS.get(2), refusal("TableAlreadyExistsException", "Table already exists: dst"));
        assertThat(run(cluster, records, LATEST).status()).isEqualTo(200);
        assertThat(records.undone).hasValue(0);
        cluster = new Cluster();
        cluster.made = Map.of(GROUPS.get(1), refusal("ValidationException", "bad"));
        assertThat(type(run(cluster, new Records(), LATEST))).isEqualTo("ValidationException");
        assertThat(cluster.asked)
                .filteredOn(a -> a.endsWith(":DeleteTable"))
                .containsExactlyInAnyOrder("0:DeleteTable", "2:DeleteTable");
        // The first group's own, sent again after it did not answer: made then, described now, and the record kept.
        cluster = new Cluster();
        records = new Records();
        cluster.made = Map.of(GROUPS.get(0), refusal("TableAlreadyExistsException", "Table already exists: dst"));
        ClusterRouter.Reply again = run(cluster, records, LATEST);
        assertThat(again.status()).isEqualTo(200);
        assertThat(tree(again).path("TableDescription").path("TableName").asText())
                .isEqualTo("dst");
        assertThat(records.undone).hasValue(0);
        assertThat(cluster.shares).hasSize(3);
    }

    @Test
    void aRangeWhoseOutcomeIsNotKnownIsAnsweredSoAndNothingIsTakenBack() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        // The router stopped waiting for the second range's restore, which may go on in its group.
        ClusterRouter.Reply stopped = new ClusterRouter.Reply(500, new byte[0]);
        cluster.made = Map.of(GROUPS.get(1), stopped, GROUPS.get(2), refusal("LimitExceededException", "too many"));
        assertThat(run(cluster, records, LATEST)).isSameAs(stopped);
        assertThat(records.undone).hasValue(0);
        assertThat(cluster.asked).noneMatch(a -> a.endsWith(":DeleteTable") || a.endsWith("1:DescribeTable"));
        cluster = new Cluster();
        cluster.made = Map.of(GROUPS.get(1), stopped);
        assertThat(run(cluster, records, LATEST)).isSameAs(stopped);
        assertThat(records.undone).hasValue(0);
    }

    @Test
    void aTableWhoseRangeMovesIsRefused() {
        Cluster cluster = new Cluster();
        Records records = new Records();
        TableRanges moving = new TableRanges(
                "pk",
                RANGES.starts(),
                GROUPS,
                true,
                new TableRanges.Moving(1L << 62, UUID.randomUUID(), GROUPS.get(0), false));
        ClusterRouter.Reply reply = RestoreSpread.pointInTime(
                        bytes(LATEST), "src", moving, cluster, records, Runnable::run)
                .join();
        assertThat(type(reply)).isEqualTo("ResourceInUseException");
        assertThat(records.placed).hasValue(0);
    }

    private static ClusterRouter.Reply window(String status, String earliest, String latest) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode d = root.putObject("ContinuousBackupsDescription").put("ContinuousBackupsStatus", status);
        ObjectNode p = d.putObject("PointInTimeRecoveryDescription").put("PointInTimeRecoveryStatus", status);
        if (earliest != null) {
            p.put("EarliestRestorableDateTime", new java.math.BigDecimal(earliest))
                    .put("LatestRestorableDateTime", new java.math.BigDecimal(latest));
        }
        return new ClusterRouter.Reply(200, RangeSpread.bytes(root));
    }
}
