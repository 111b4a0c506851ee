package io.partita.server.op;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.BatchExecuteStatementOutput;
import io.partita.protocol.message.BatchGetItemOutput;
import io.partita.protocol.message.GetItemOutput;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.partiql.PartiqlOperations;
import io.partita.server.op.partiql.PartiqlScans;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.table.HashRange;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A store that holds one hash range of a table cut by ranges over a cluster's groups refuses, 503, every request that
 * names a key outside it, through each operation that reads or writes an item by its key, and nothing else: a Scan
 * reads what the store holds.
 */
class HashRangeRefusalsTest {
    /** The lower half of the hash space, in unsigned order. */
    private static final HashRange LOWER = new HashRange(0, Long.MAX_VALUE);

    private static final String PREFIX = "DynamoDB_20120810.";

    /** The first id {@code k0}, {@code k1}, ... that is ({@code inside}) or is not in {@link #LOWER}. */
    private static String idIn(boolean inside) {
        for (int i = 0; ; i++) {
            if (LOWER.holds(ItemKeyEncoder.partitionHash(new AttributeValue.S("k" + i))) == inside) {
                return "k" + i;
            }
        }
    }

    private static Object run(OperationRegistry registry, String operation, String json) {
        return run(
                registry,
                new RequestContext("r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "x", false),
                operation,
                json);
    }

    @SuppressWarnings("unchecked")
    private static <I> Object run(OperationRegistry registry, RequestContext asked, String operation, String json) {
        String target = operation.startsWith("Partita.") ? operation : PREFIX + operation;
        OperationHandler<I, ?> handler = (OperationHandler<I, ?>) registry.find(target);
        RequestContext context = new RequestContext(
                asked.requestId(),
                asked.region(),
                asked.accountId(),
                asked.host(),
                asked.clock(),
                target,
                false,
                asked.cutByRanges(),
                asked.share());
        return handler.handle(context, DynamoJson.decode(json.getBytes(StandardCharsets.UTF_8), handler.inputType()));
    }

    private static void refused(OperationRegistry registry, String operation, String json) {
        assertThatThrownBy(() -> run(registry, operation, json))
                .as(operation)
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                .hasMessageContaining("is not in the hash range of the Raft group");
    }

    /** The {@code skip}-th id {@code k0}, {@code k1}, ... that is ({@code inside}) or is not in {@link #LOWER}. */
    private static String idIn(boolean inside, int skip) {
        int found = 0;
        for (int i = 0; ; i++) {
            if (LOWER.holds(ItemKeyEncoder.partitionHash(new AttributeValue.S("k" + i))) == inside && found++ == skip) {
                return "k" + i;
            }
        }
    }

    /**
     * A range move: the group that takes the range over serves no user while it receives the items, which {@code
     * Partita.PutMovedItems} stores within its range alone until {@code Partita.OpenMovedRange}; the group that gave
     * them reads, in a Scan, only the range it holds (the rest it deletes), and refuses a walk's page that expects
     * another range.
     */
    @Test
    void aMovesItemsAreStoredInTheRangeAloneAndAScanReadsTheRangeHeld() {
        String in = idIn(true, 0);
        String in2 = idIn(true, 1);
        String out = idIn(false, 0);
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t").withHashRange(new HashRange(0, -1L, null, true)));
            storage.tables().create(KeyedTables.byId("u").withHashRange(new HashRange(0, Long.MAX_VALUE, null, true)));
            ExpressionCache cache = new ExpressionCache(100);
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "PutItem",
                            new io.partita.server.op.item.PutItemHandler(storage, new ItemExpressions(cache)))
                    .register("Scan", new io.partita.server.op.query.ScanHandler(storage, cache))
                    .registerPartita("ScanRange", io.partita.server.op.query.ScanHandler.ofRange(storage, cache))
                    .registerPartita("PutMovedItems", new io.partita.server.op.item.MovedItemsHandler(storage))
                    .registerPartita("OpenMovedRange", new io.partita.server.op.item.MovedItemsHandler.Open(storage))
                    .registerPartita("PutMovedTokens", new io.partita.server.op.item.MovedItemsHandler.Tokens(storage))
                    .registerPartita("ClearMovedRange", new io.partita.server.op.item.MovedItemsHandler.Clear(storage));
            String put = "{\"TableName\":\"t\",\"Item\":{\"id\":{\"S\":\"%s\"}}}";
            for (String[] refused :
                    new String[][] {{"PutItem", put.formatted(in)}, {"Scan", "{\"TableName\":\"t\"}"}}) {
                assertThatThrownBy(() -> run(registry, refused[0], refused[1]))
                        .as("%s while receiving", refused[0])
                        .isInstanceOfSatisfying(
                                ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                        .hasMessageContaining("still receiving");
            }

            // Each copy begins with a clear that names it: the range then takes that copy's pages alone.
            String clear = "{\"TableName\":\"%s\",\"Copier\":%d}";
            run(registry, "Partita.ClearMovedRange", clear.formatted("t", 1));
            run(registry, "Partita.ClearMovedRange", clear.formatted("u", 1));
            String moved = "{\"TableName\":\"%s\",\"Copier\":1,\"Items\":[%s]}";
            String one = "{\"id\":{\"S\":\"%s\"},\"v\":{\"N\":\"1\"}}";
            run(registry, "Partita.PutMovedItems", moved.formatted("t", one.formatted(in) + "," + one.formatted(out)));
            assertThatThrownBy(() -> run(
                            registry,
                            "Partita.PutMovedItems",
                            moved.formatted("u", one.formatted(in2) + "," + one.formatted(out))))
                    .as("an item outside the range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            assertThat(storage.tables().find("u").stats().itemCount()).isZero();
            for (String bad : new String[] {
                moved.formatted("t", ""),
                moved.formatted("t", "{\"v\":{\"S\":\"x\"}}"),
                "{\"TableName\":\"t\"}",
                "{\"TableName\":\"t\",\"Items\":[" + one.formatted(in2) + "]}"
            }) {
                assertThatThrownBy(() -> run(registry, "Partita.PutMovedItems", bad))
                        .as(bad)
                        .isInstanceOfSatisfying(
                                ApiException.class,
                                e -> assertThat(e.code().httpStatus()).isEqualTo(400));
            }
            assertThatThrownBy(
                            () -> run(registry, "Partita.PutMovedItems", moved.formatted("absent", one.formatted(in))))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_NOT_FOUND));

            // A page's keys to delete (items a first copy took that its source deleted since), in the range alone.
            String gone = idIn(true, 2);
            run(registry, "Partita.PutMovedItems", moved.formatted("t", one.formatted(gone)));
            assertThat(storage.tables().find("t").stats().itemCount()).isEqualTo(3);
            String deletes = "{\"TableName\":\"%s\",\"Copier\":1,\"Deletes\":[{\"id\":{\"S\":\"%s\"}}]}";
            run(registry, "Partita.PutMovedItems", deletes.formatted("t", gone));
            assertThat(storage.tables().find("t").stats().itemCount()).isEqualTo(2);
            assertThat(storage.get(
                            storage.tables().find("t"),
                            new io.partita.protocol.model.PrimaryKey(new AttributeValue.S(gone), null)))
                    .isNull();
            assertThatThrownBy(() -> run(registry, "Partita.PutMovedItems", deletes.formatted("u", out)))
                    .as("a key to delete outside the range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            // A new copy's clear deletes what the receiving range holds, a page at a time, and says how many; the
            // pages of the copy before it (a replaced leader's, late) are refused from then on, and it cannot open.
            run(registry, "Partita.PutMovedItems", moved.formatted("u", one.formatted(in2)));
            assertThat(((io.partita.server.op.item.MovedItemsHandler.Clear.Output)
                                    run(registry, "Partita.ClearMovedRange", clear.formatted("u", 2)))
                            .deleted())
                    .isEqualTo(1);
            assertThat(((io.partita.server.op.item.MovedItemsHandler.Clear.Output)
                                    run(registry, "Partita.ClearMovedRange", clear.formatted("u", 2)))
                            .deleted())
                    .isZero();
            assertThat(storage.tables().find("u").stats().itemCount()).isZero();
            assertThatThrownBy(() -> run(registry, "Partita.PutMovedItems", moved.formatted("u", one.formatted(in2))))
                    .as("a page of the copy before")
                    .hasMessageContaining(HashRange.OTHER_COPY);
            assertThatThrownBy(() -> run(registry, "Partita.OpenMovedRange", clear.formatted("u", 1)))
                    .as("the copy before, opening")
                    .hasMessageContaining(HashRange.OTHER_COPY);
            assertThat(storage.tables().find("u").stats().itemCount()).isZero();
            assertThat(storage.tables().find("u").metadata().hashRange().receiving())
                    .isTrue();

            // The source's transaction tokens, kept while receiving: a repeat of the transaction is known here.
            java.io.ByteArrayOutputStream value = new java.io.ByteArrayOutputStream();
            try (java.io.DataOutputStream w = new java.io.DataOutputStream(value)) {
                w.writeByte(1);
                w.writeLong(System.currentTimeMillis());
                w.writeShort(2);
                w.write(new byte[] {7, 8});
                w.writeInt(1);
                w.write(9);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
            String tokens = "{\"TableName\":\"t\",\"Tokens\":[{\"Key\":\""
                    + b64.encodeToString("TransactWriteItems/tok".getBytes(StandardCharsets.UTF_8)) + "\",\"Value\":\""
                    + b64.encodeToString(value.toByteArray()) + "\"}]}";
            run(registry, "Partita.PutMovedTokens", tokens);
            var kept = storage.writes().tokens().find("TransactWriteItems", "tok");
            assertThat(kept).isNotNull();
            assertThat(kept.digest()).containsExactly(7, 8);
            assertThatThrownBy(() -> run(registry, "Partita.PutMovedTokens", "{\"TableName\":\"t\",\"Tokens\":[]}"))
                    .isInstanceOfSatisfying(
                            ApiException.class,
                            e -> assertThat(e.code().httpStatus()).isEqualTo(400));

            run(registry, "Partita.OpenMovedRange", clear.formatted("t", 1));
            run(registry, "Partita.OpenMovedRange", clear.formatted("t", 2)); // again, open: changes nothing
            assertThatThrownBy(() -> run(registry, "Partita.PutMovedTokens", tokens))
                    .as("tokens, once open")
                    .hasMessageContaining(io.partita.server.op.item.MovedItemsHandler.NOT_RECEIVING);
            assertThatThrownBy(() -> run(registry, "Partita.ClearMovedRange", clear.formatted("t", 3)))
                    .as("a clear, once open")
                    .hasMessageContaining(io.partita.server.op.item.MovedItemsHandler.NOT_RECEIVING);
            assertThatThrownBy(() -> run(registry, "Partita.PutMovedItems", moved.formatted("t", one.formatted(in2))))
                    .as("a late page, once open")
                    .isInstanceOf(ApiException.class)
                    .hasMessageContaining(io.partita.server.op.item.MovedItemsHandler.NOT_RECEIVING);
            run(registry, "PutItem", put.formatted(in2));

            // Narrowed by a move of its own: the item outside the range held (to be deleted) is read by no Scan.
            storage.tables().changeRange("t", h -> LOWER);
            ReadPageOutput scan = (ReadPageOutput) run(registry, "Scan", "{\"TableName\":\"t\"}");
            assertThat(scan.items())
                    .extracting(i -> i.get("id").toString())
                    .doesNotContain(new AttributeValue.S(out).toString());
            assertThat(scan.count()).isEqualTo(2);
            String page = "{\"TableName\":\"t\",\"PartitaHashRange\":\"%s\"}";
            assertThat(((ReadPageOutput) run(registry, "Partita.ScanRange", page.formatted("0-9223372036854775807")))
                            .count())
                    .isEqualTo(2);
            assertThatThrownBy(() -> run(registry, "Partita.ScanRange", page.formatted("0-18446744073709551615")))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                    .hasMessageContaining("a range moved");
            assertThatThrownBy(() -> run(
                            registry,
                            "Scan",
                            "{\"TableName\":\"t\",\"ExclusiveStartKey\":{\"id\":{\"S\":\"" + out + "\"}}}"))
                    .as("a page that starts after a key of a range moved away")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
        }
    }

    /**
     * While a move copies part of a store's range (from its start, its writes going on; then with its writes frozen),
     * a change of the table's settings is refused as DynamoDB refuses one to a table being updated: the move's new
     * group made the table as it was.
     */
    @Test
    void aTablesSettingsDoNotChangeWhileAMoveCopiesItsRange() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("tbl").withHashRange(new HashRange(0, -1L).movingFrom(1L << 62)));
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "PutItem",
                            new io.partita.server.op.item.PutItemHandler(
                                    storage, new ItemExpressions(new ExpressionCache(100))))
                    .register("UpdateTimeToLive", new io.partita.server.op.ttl.UpdateTimeToLiveHandler(storage))
                    .register("TagResource", new io.partita.server.op.table.TagResourceHandler(storage))
                    .register(
                            "UpdateContributorInsights",
                            new io.partita.server.op.insights.UpdateContributorInsightsHandler(storage));
            String arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl";
            for (String[] change : new String[][] {
                {
                    "UpdateTimeToLive",
                    "{\"TableName\":\"tbl\",\"TimeToLiveSpecification\":{\"Enabled\":true,"
                            + "\"AttributeName\":\"ttl\"}}"
                },
                {"TagResource", "{\"ResourceArn\":\"" + arn + "\",\"Tags\":[{\"Key\":\"k\",\"Value\":\"v\"}]}"},
                {"UpdateContributorInsights", "{\"TableName\":\"tbl\",\"ContributorInsightsAction\":\"ENABLE\"}"}
            }) {
                assertThatThrownBy(() -> run(registry, change[0], change[1]))
                        .as(change[0])
                        .isInstanceOfSatisfying(
                                ApiException.class,
                                e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.RESOURCE_IN_USE))
                        .hasMessageContaining("is moving to a new Raft group");
            }
            assertThat(storage.tables().find("tbl").metadata().tags()).isEmpty();
            // The moved hashes' writes are taken until the fence; then refused, the settings still refused.
            String movedKey = idIn(false);
            String write = "{\"TableName\":\"tbl\",\"Item\":{\"id\":{\"S\":\"" + movedKey + "\"}}}";
            run(registry, "PutItem", write);
            storage.tables().changeRange("tbl", h -> h.freezingFrom(1L << 62));
            assertThatThrownBy(() -> run(registry, "PutItem", write))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            assertThatThrownBy(() -> run(
                            registry,
                            "TagResource",
                            "{\"ResourceArn\":\"" + arn + "\",\"Tags\":[{\"Key\":\"k\",\"Value\":\"v\"}]}"))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_IN_USE));
            storage.tables().changeRange("tbl", h -> new HashRange(0, (1L << 62) - 1));
            run(
                    registry,
                    "TagResource",
                    "{\"ResourceArn\":\"" + arn + "\",\"Tags\":[{\"Key\":\"k\",\"Value\":\"v\"}]}");
            assertThat(storage.tables().find("tbl").metadata().tags()).containsEntry("k", "v");
        }
    }

    /**
     * What is not cut by ranges yet (a backup) is checked as on any table
     * first, DynamoDB's errors answered as DynamoDB answers them, and refused only then: on a store holding a range,
     * or when the node that sent it marked it so (CutTables.HEADER, a table whose store records no range).
     */
    @Test
    void whatIsNotCutYetIsCheckedFirstThenRefused() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("cut").withHashRange(new HashRange(0, Long.MAX_VALUE)));
            storage.tables().create(KeyedTables.byId("whole"));
            OperationRegistry registry = new OperationRegistry()
                    .register("CreateBackup", new io.partita.server.op.table.CreateBackupHandler(storage))
                    .register(
                            "UpdateContinuousBackups",
                            new io.partita.server.op.table.UpdateContinuousBackupsHandler(storage))
                    .register("UpdateTable", new io.partita.server.op.table.UpdateTableHandler(storage));
            String[][] checkedFirst = {
                {"CreateBackup", "{\"TableName\":\"cut\",\"BackupName\":\"ab\"}", "backupName"},
                {
                    "UpdateContinuousBackups",
                    "{\"TableName\":\"cut\",\"PointInTimeRecoverySpecification\":"
                            + "{\"PointInTimeRecoveryEnabled\":false,\"RecoveryPeriodInDays\":5}}",
                    "Cannot specify RecoveryPeriodInDays"
                },
                {
                    "UpdateTable",
                    "{\"TableName\":\"cut\",\"AttributeDefinitions\":"
                            + "[{\"AttributeName\":\"g\",\"AttributeType\":\"S\"}],"
                            + "\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"gidx\",\"KeySchema\":"
                            + "[{\"AttributeName\":\"nope\",\"KeyType\":\"HASH\"}],\"Projection\":"
                            + "{\"ProjectionType\":\"ALL\"}}}]}",
                    "Some index key attribute have no definition"
                }
            };
            for (String[] r : checkedFirst) {
                assertThatThrownBy(() -> run(registry, r[0], r[1]))
                        .as(r[0] + ", its own error first")
                        .isInstanceOf(ApiException.class)
                        .hasMessageContaining(r[2])
                        .hasMessageNotContaining("does not run");
            }
            String[][] refused = {{"CreateBackup", "{\"TableName\":\"%s\",\"BackupName\":\"fine\"}"}};
            RequestContext marked = new RequestContext(
                    "r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "x", false, true);
            for (String[] r : refused) {
                assertThatThrownBy(() -> run(registry, r[0], r[1].formatted("cut")))
                        .as(r[0] + " on a store holding a range")
                        .isInstanceOfSatisfying(
                                ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION))
                        .hasMessageContaining("does not run " + r[0]);
                assertThatThrownBy(() -> run(registry, marked, r[0], r[1].formatted("whole")))
                        .as(r[0] + " marked by the node that sent it")
                        .hasMessageContaining("does not run " + r[0]);
            }
            assertThat(storage.backups().all()).isEmpty();
            assertThat(storage.tables().find("cut").metadata().pitrEnabled()).isFalse();
            run(registry, "CreateBackup", refused[0][1].formatted("whole"));
        }
    }

    /**
     * PITR runs on a store holding a range (each group of a table cut by ranges keeps its own items' change log), and
     * is refused while a move copies part of the range, nothing changed: the move's new group would lack the moved
     * items' past (a move gives up on a table with PITR).
     */
    @Test
    void pitrIsEnabledOnARangeAndRefusedWhileItMoves() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("cut").withHashRange(new HashRange(0, Long.MAX_VALUE)));
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "UpdateContinuousBackups",
                            new io.partita.server.op.table.UpdateContinuousBackupsHandler(storage));
            String enable = "{\"TableName\":\"cut\",\"PointInTimeRecoverySpecification\":"
                    + "{\"PointInTimeRecoveryEnabled\":%s}}";
            storage.tables().changeRange("cut", h -> h.movingFrom(1L << 62));
            assertThatThrownBy(() -> run(registry, "UpdateContinuousBackups", enable.formatted("true")))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_IN_USE))
                    .hasMessageContaining("is moving to a new Raft group");
            assertThat(storage.tables().find("cut").metadata().pitrEnabled()).isFalse();
            storage.tables().changeRange("cut", HashRange::notMoving);
            run(registry, "UpdateContinuousBackups", enable.formatted("true"));
            assertThat(storage.tables().find("cut").metadata().pitrEnabled()).isTrue();
            // Disabled while a move runs: its new group has no PITR either.
            storage.tables().changeRange("cut", h -> h.movingFrom(1L << 62));
            run(registry, "UpdateContinuousBackups", enable.formatted("false"));
            assertThat(storage.tables().find("cut").metadata().pitrEnabled()).isFalse();
        }
    }

    /** A restore's share, as a cluster node marks it ({@code CutTables.RANGE}). */
    private static RequestContext rangeShare() {
        return new RequestContext(
                "r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "x", false, false, CutTables.RANGE);
    }

    /**
     * Restore {@code operation} ({@code json}) run as {@code share} while the record gives this group a range its
     * source is not of: refused 503, nothing made; then the record gives it {@link #LOWER} again.
     */
    private static void refusedOutsideTheRange(
            OperationRegistry registry,
            RequestContext share,
            HashRange[] recorded,
            List<String> made,
            String operation,
            String json) {
        recorded[0] = new HashRange(0, Long.MAX_VALUE / 2);
        assertThatThrownBy(() -> run(registry, share, operation, json))
                .as("a record whose range the source is not of")
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
        assertThat(made).isEmpty();
        recorded[0] = LOWER;
    }

    /**
     * A cluster's placement as a group of a table cut by ranges sees it: a restored table's record gives this group
     * range {@code recorded[0]}; each table made here is added to {@code made}.
     */
    private static io.partita.server.op.table.TablePlacement placement(HashRange[] recorded, List<String> made) {
        return new io.partita.server.op.table.TablePlacement() {
            @Override
            public Placed place(String account, String name, Layout layout) {
                assertThat(layout.partitionKey()).isEqualTo("id");
                return new Placed(false, recorded[0]);
            }

            @Override
            public <T> T makeHere(String name, java.util.function.Supplier<T> make) {
                made.add(name);
                return make.get();
            }

            @Override
            public <T> T restoreHere(String account, String name, java.util.function.Supplier<T> restore) {
                throw new AssertionError("a range's restore is placed by the cluster, not here");
            }

            @Override
            public void deleted(String account, String name) {}

            @Override
            public java.util.SortedSet<String> names(String account) {
                return new java.util.TreeSet<>();
            }
        };
    }

    /**
     * A restore to a point in time of a store holding a range: refused alone (after its checks); a restore's share
     * ({@code CutTables.RANGE}) makes the restored table here with the range its record gives this group, once that
     * is the range the source holds, and with the source's items of it.
     */
    @Test
    void aRestoresShareMakesTheRangeTheRecordGivesAndNothingElse() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("cut").withHashRange(LOWER));
            HashRange[] recorded = {LOWER};
            java.util.List<String> made = new java.util.ArrayList<>();
            io.partita.server.op.table.TablePlacement placement = placement(recorded, made);
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "UpdateContinuousBackups",
                            new io.partita.server.op.table.UpdateContinuousBackupsHandler(storage))
                    .register(
                            "PutItem",
                            new io.partita.server.op.item.PutItemHandler(
                                    storage, new ItemExpressions(new ExpressionCache(10))))
                    .register(
                            "RestoreTableToPointInTime",
                            new io.partita.server.op.table.RestoreTableToPointInTimeHandler(storage, placement));
            run(
                    registry,
                    "UpdateContinuousBackups",
                    "{\"TableName\":\"cut\",\"PointInTimeRecoverySpecification\":"
                            + "{\"PointInTimeRecoveryEnabled\":true}}");
            String in = idIn(true, 0);
            String in2 = idIn(true, 1);
            for (String id : List.of(in, in2)) {
                run(registry, "PutItem", "{\"TableName\":\"cut\",\"Item\":{\"id\":{\"S\":\"" + id + "\"}}}");
            }
            String restore =
                    "{\"SourceTableName\":\"cut\",\"TargetTableName\":\"%s\"," + "\"UseLatestRestorableTime\":true}";
            assertThatThrownBy(() -> run(registry, "RestoreTableToPointInTime", restore.formatted("alone")))
                    .hasMessageContaining("does not run RestoreTableToPointInTime");
            RequestContext share = rangeShare();
            refusedOutsideTheRange(
                    registry, share, recorded, made, "RestoreTableToPointInTime", restore.formatted("other"));
            run(registry, share, "RestoreTableToPointInTime", restore.formatted("copy"));
            assertThat(made).containsExactly("copy");
            var copy = storage.tables().find("copy");
            assertThat(copy.metadata().hashRange()).isEqualTo(LOWER);
            assertThat(copy.stats().itemCount()).isEqualTo(2);
            assertThat(storage.tables().find("alone")).isNull();
            assertThat(storage.tables().find("other")).isNull();
        }
    }

    /**
     * A backup's part ({@code CutTables.PART}): a store holding a range backs it up under the id it is given, once; a
     * table holding no range is not backed up so. A RestoreTableFromBackup of a part is checked, then refused alone; a
     * restore's share makes the restored table here with the range its record gives this group, once that is the
     * range of the part, and with the part's items.
     */
    @Test
    void aBackupsPartAndItsRestoreAreThisGroupsRange() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("cut").withHashRange(LOWER));
            storage.tables().create(KeyedTables.byId("whole"));
            HashRange[] recorded = {LOWER};
            List<String> made = new java.util.ArrayList<>();
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "PutItem",
                            new io.partita.server.op.item.PutItemHandler(
                                    storage, new ItemExpressions(new ExpressionCache(10))))
                    .register("CreateBackup", new io.partita.server.op.table.CreateBackupHandler(storage))
                    .register(
                            "RestoreTableFromBackup",
                            new io.partita.server.op.table.RestoreTableFromBackupHandler(
                                    storage, placement(recorded, made)));
            for (String id : List.of(idIn(true, 0), idIn(true, 1))) {
                run(registry, "PutItem", "{\"TableName\":\"cut\",\"Item\":{\"id\":{\"S\":\"" + id + "\"}}}");
            }
            String id = io.partita.storage.backup.TableBackups.newId(1_700_000_000_000L);
            RequestContext part = new RequestContext(
                    "r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "x", false, false, id);
            assertThat(part.backupPart()).isEqualTo(id);
            String backup = "{\"TableName\":\"%s\",\"BackupName\":\"nightly\"}";
            assertThatThrownBy(() -> run(registry, part, "CreateBackup", backup.formatted("whole")))
                    .as("a table holding no range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            run(registry, part, "CreateBackup", backup.formatted("cut"));
            run(registry, part, "CreateBackup", backup.formatted("cut"));
            assertThat(storage.backups().all()).singleElement().satisfies(b -> {
                assertThat(b.id()).isEqualTo(id);
                assertThat(b.itemCount()).isEqualTo(2);
                assertThat(b.source().hashRange()).isEqualTo(LOWER);
            });
            String arn = "arn:aws:dynamodb:us-east-1:000000000000:table/cut/backup/" + id;
            String restore = "{\"BackupArn\":\"" + arn + "\",\"TargetTableName\":\"%s\"%s}";
            assertThatThrownBy(() -> run(
                            registry,
                            "RestoreTableFromBackup",
                            restore.formatted("copy", ",\"BillingModeOverride\":\"NOPE\"")))
                    .as("its own error first")
                    .hasMessageNotContaining("does not run");
            assertThatThrownBy(() -> run(registry, "RestoreTableFromBackup", restore.formatted("alone", "")))
                    .hasMessageContaining("does not run RestoreTableFromBackup");
            RequestContext share = rangeShare();
            refusedOutsideTheRange(
                    registry, share, recorded, made, "RestoreTableFromBackup", restore.formatted("other", ""));
            run(registry, share, "RestoreTableFromBackup", restore.formatted("copy", ""));
            assertThat(made).containsExactly("copy");
            var copy = storage.tables().find("copy");
            assertThat(copy.metadata().hashRange()).isEqualTo(LOWER);
            assertThat(copy.stats().itemCount()).isEqualTo(2);
            assertThat(storage.tables().find("alone")).isNull();
            assertThat(storage.tables().find("other")).isNull();
        }
    }

    @Test
    void everyRequestByKeyOutsideTheRangeIsRefusedAndAScanIsNot() {
        String in = idIn(true);
        String out = idIn(false);
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t").withHashRange(LOWER));
            ExpressionCache cache = new ExpressionCache(100);
            OperationRegistry registry = new OperationRegistry();
            ItemExpressions expressions = new ItemExpressions(cache);
            registry.register("PutItem", new io.partita.server.op.item.PutItemHandler(storage, expressions))
                    .register("GetItem", new io.partita.server.op.item.GetItemHandler(storage, expressions))
                    .register("BatchGetItem", new io.partita.server.op.item.BatchGetItemHandler(storage, expressions))
                    .register("Query", new io.partita.server.op.query.QueryHandler(storage, cache))
                    .register("Scan", new io.partita.server.op.query.ScanHandler(storage, cache));
            PartiqlOperations.register(registry, storage, expressions, cache, new PartiqlScans());

            run(registry, "PutItem", "{\"TableName\":\"t\",\"Item\":{\"id\":{\"S\":\"" + in + "\"}}}");
            refused(registry, "PutItem", "{\"TableName\":\"t\",\"Item\":{\"id\":{\"S\":\"" + out + "\"}}}");

            assertThat(((GetItemOutput) run(
                                    registry,
                                    "GetItem",
                                    "{\"TableName\":\"t\",\"Key\":{\"id\":{\"S\":\"" + in + "\"}}}"))
                            .item())
                    .containsEntry("id", new AttributeValue.S(in));
            refused(registry, "GetItem", "{\"TableName\":\"t\",\"Key\":{\"id\":{\"S\":\"" + out + "\"}}}");

            String keys = "{\"RequestItems\":{\"t\":{\"Keys\":[{\"id\":{\"S\":\"" + in + "\"}}%s]}}}";
            assertThat(((BatchGetItemOutput) run(registry, "BatchGetItem", keys.formatted("")))
                            .responses()
                            .get("t"))
                    .hasSize(1);
            refused(registry, "BatchGetItem", keys.formatted(",{\"id\":{\"S\":\"" + out + "\"}}"));

            String query = "{\"TableName\":\"t\",\"KeyConditionExpression\":\"id = :v\","
                    + "\"ExpressionAttributeValues\":{\":v\":{\"S\":\"%s\"}}}";
            assertThat(((ReadPageOutput) run(registry, "Query", query.formatted(in))).count())
                    .isEqualTo(1);
            refused(registry, "Query", query.formatted(out));

            String select = "{\"Statement\":\"SELECT * FROM \\\"t\\\" WHERE id = '%s'\"}";
            run(registry, "ExecuteStatement", select.formatted(in));
            refused(registry, "ExecuteStatement", select.formatted(out));
            refused(
                    registry,
                    "ExecuteStatement",
                    "{\"Statement\":\"INSERT INTO \\\"t\\\" VALUE {'id': '" + out + "'}\"}");

            // A statement of a batch answers its own error, one a caller may send again; the others go ahead.
            BatchExecuteStatementOutput batch = (BatchExecuteStatementOutput) run(
                    registry,
                    "BatchExecuteStatement",
                    "{\"Statements\":[{\"Statement\":\"UPDATE \\\"t\\\" SET v = 1 WHERE id = '" + in + "'\"},"
                            + "{\"Statement\":\"UPDATE \\\"t\\\" SET v = 1 WHERE id = '" + out + "'\"}]}");
            assertThat(batch.responses().get(0).error()).isNull();
            assertThat(batch.responses().get(1).error().code()).isEqualTo("InternalServerError");

            // A Scan reads the range's items, and the refused ones were written nowhere.
            ReadPageOutput scan = (ReadPageOutput) run(registry, "Scan", "{\"TableName\":\"t\"}");
            assertThat(scan.items()).extracting(i -> i.get("id")).containsExactly(new AttributeValue.S(in));
        }
    }

    /**
     * A global secondary index of a table cut by ranges, in one group's store (the lower half of the hash space): a
     * group's page of a Query over every group ({@code Partita.QueryIndexRange}) reads the rows of its own items alone,
     * each named in the index's order, and is refused when the walk names another range; a client's Query of it is
     * served here only when it binds the table's partition key by equality to a key of this range (else a 503: its
     * router's record is behind), and a PartiQL SELECT's is refused as not run yet.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aGlobalIndexOfACutTableIsReadRangeByRange() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            io.partita.storage.index.IndexDefinition byG = KeyedTables.globalIndex("byG", "g", "n");
            storage.tables()
                    .create(KeyedTables.byId("cut")
                            .withIndexes(java.util.List.of(byG))
                            .withHashRange(new HashRange(0, -1L)));
            ExpressionCache cache = new ExpressionCache(100);
            OperationRegistry registry = new OperationRegistry()
                    .register(
                            "PutItem",
                            new io.partita.server.op.item.PutItemHandler(storage, new ItemExpressions(cache)))
                    .register("Query", new io.partita.server.op.query.QueryHandler(storage, cache))
                    .registerPartita("QueryIndexRange", io.partita.server.op.query.QueryHandler.ofRange(storage, cache))
                    .register("Scan", new io.partita.server.op.query.ScanHandler(storage, cache));
            PartiqlOperations.register(registry, storage, new ItemExpressions(cache), cache, new PartiqlScans());
            java.util.List<Integer> inside = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                run(
                        registry,
                        "PutItem",
                        "{\"TableName\":\"cut\",\"Item\":{\"id\":{\"S\":\"k" + i + "\"},\"g\":{\"S\":\"a\"},"
                                + "\"n\":{\"N\":\"" + i + "\"}}}");
                if (LOWER.holds(ItemKeyEncoder.partitionHash(new AttributeValue.S("k" + i)))) {
                    inside.add(i);
                }
            }
            // The store holding the lower half now (its items of the upper half left to be deleted, as after a move).
            storage.tables().changeRange("cut", h -> LOWER);
            org.assertj.core.api.Assertions.assertThat(storage.globalIndexes()
                            .await(storage.tables().find("cut"), java.time.Duration.ofMinutes(1)))
                    .isTrue();
            String query = "{\"TableName\":\"cut\",\"IndexName\":\"byG\",\"KeyConditionExpression\":\"g = :g\","
                    + "\"ExpressionAttributeValues\":{\":g\":{\"S\":\"a\"}},\"Limit\":7,\"ScanIndexForward\":false";
            ReadPageOutput page = (ReadPageOutput) run(
                    registry,
                    "Partita.QueryIndexRange",
                    query + ",\"PartitaHashRange\":\"" + io.partita.server.op.query.ScanHandler.text(LOWER) + "\"}");
            java.util.List<Integer> expected = new java.util.ArrayList<>(inside);
            java.util.Collections.reverse(expected);
            assertThat(page.items())
                    .extracting(i -> ((AttributeValue.N) i.get("n")).value().intValueExact())
                    .containsExactlyElementsOf(expected.subList(0, 7));
            assertThat(page.partitaEntries()).hasSize(7).allMatch(ReadPageOutput.Entry::matched);
            java.util.List<String> positions = page.partitaEntries().stream()
                    .map(ReadPageOutput.Entry::position)
                    .toList();
            for (int i = 1; i < positions.size(); i++) {
                assertThat(java.util.Arrays.compareUnsigned(
                                java.util.Base64.getDecoder().decode(positions.get(i - 1)),
                                java.util.Base64.getDecoder().decode(positions.get(i))))
                        .as("backwards in the index's order")
                        .isPositive();
            }
            assertThat(page.partitaEntries().get(6).key()).isEqualTo(page.lastEvaluatedKey());
            assertThatThrownBy(() -> run(
                            registry,
                            "Partita.QueryIndexRange",
                            query + ",\"PartitaHashRange\":\"0-18446744073709551615\"}"))
                    .as("a walk whose record gives this group another range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE))
                    .hasMessageContaining("(a range moved)");
            assertThatThrownBy(() -> run(registry, "Query", query + "}"))
                    .as("a client's Query of the index that reads every range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            String bound = "{\"TableName\":\"cut\",\"IndexName\":\"byG\",\"KeyConditionExpression\":\"g = :g\","
                    + "\"FilterExpression\":\"id = :id\",\"ExpressionAttributeValues\":{\":g\":{\"S\":\"a\"},"
                    + "\":id\":{\"S\":\"%s\"}}}";
            assertThat(((ReadPageOutput) run(registry, "Query", bound.formatted(idIn(true)))).items())
                    .as("one that binds a key of this range (a PartiQL SELECT's filter)")
                    .hasSize(1);
            refused(registry, "Query", bound.formatted(idIn(false)));
            // A Scan of the index answered here alone (a PartiQL SELECT that binds the table's key) likewise.
            String scan = "{\"TableName\":\"cut\",\"IndexName\":\"byG\",\"FilterExpression\":\"id = :id\","
                    + "\"ExpressionAttributeValues\":{\":id\":{\"S\":\"%s\"}}}";
            assertThat(((ReadPageOutput) run(registry, "Scan", scan.formatted(idIn(true)))).items())
                    .hasSize(1);
            refused(registry, "Scan", scan.formatted(idIn(false)));
            assertThatThrownBy(() -> run(registry, "Scan", "{\"TableName\":\"cut\",\"IndexName\":\"byG\"}"))
                    .as("a client's Scan of the index that reads every range")
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE));
            assertThatThrownBy(() -> run(
                            registry,
                            "ExecuteStatement",
                            "{\"Statement\":\"SELECT * FROM \\\"cut\\\".\\\"byG\\\" WHERE g = 'a' ORDER BY n\"}"))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION))
                    .hasMessageContaining("does not run a SELECT of global secondary index byG");
        }
    }
}
