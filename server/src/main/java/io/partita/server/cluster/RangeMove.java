package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.PrimaryKey;
import io.partita.server.op.item.MovedItemsHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.HashRange;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ChangedKeys;
import io.partita.storage.write.ItemWrite;
import io.partita.storage.write.Written;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A move of part of a table's hash range to a new Raft group (docs/CLUSTER.md, "Moving a range"), run by the leader of
 * the group that gives it (the source) from the move recorded in the table's record ({@link TableRanges.Moving}). Each
 * step may run again, on this leader or the next, until the record says the move is over:
 *
 * <ol>
 *   <li>the move's start, in the source's log ({@link io.partita.storage.table.TableCatalog#changeRange}), once the
 *       new group serves: changes of the table's settings are refused ({@link HashRange#movingFrom}); its writes go
 *       on;
 *   <li>the new group makes the table as the source describes it (its keys, capacity, local secondary indexes, TTL,
 *       Contributor Insights), holding the moved hashes alone, {@code receiving} ({@link TableRanges#rangeOf}): it
 *       serves no user yet;
 *   <li>the first copy, while the writes go on: the new group cleared and told which copy's pages it takes from now
 *       on ({@link MovedItemsHandler.Clear}), the source's items of the moved hashes go to it a page at a time, each
 *       page stored there in one commit through its write path ({@link MovedItemsHandler}), and the source's write
 *       path keeps the key of every moved item a commit changes meanwhile ({@link ChangedKeys});
 *   <li>the fence, in the source's log: writes of the moved hashes are refused (503, which the SDKs send again), reads
 *       of them still served, and every write that checked before has committed; once no transaction under way in
 *       the source holds a moved item (a part prepared there commits where it was prepared), the items changed since
 *       the first copy began are copied again as they are (put, or deleted when gone), and the source's transaction
 *       tokens after them;
 *   <li>the new group's global secondary indexes applied every copied item ({@link MovedItemsHandler.Indexed}); it
 *       opens the range in its log ({@link MovedItemsHandler.Open}): it refuses any later page, so that a leader
 *       before this one, late, cannot overwrite what users write there from step 7 on;
 *   <li>the second fence: the moved hashes leave the source's range, their reads refused too;
 *   <li>the ranges name the new group (a compare-and-set of the record): requests of the moved keys go there;
 *   <li>the source deletes what it holds outside its range, through its write path (its LSI rows, TTL entries and
 *       statistics with each item), and the record's move ends.
 * </ol>
 *
 * No write of a moved key commits in both groups, nor is one lost, nor read stale once acknowledged: the source takes
 * none after step 4 and serves no read of one after step 6, the new group serves none before step 5 (nor a replica of
 * it that has not applied every page), and a user's request reaches it only after step 7. A leader that takes the move
 * over from another has not seen the changes of that one's first copy: it clears what the new group holds, which then
 * refuses the pages of the copy before (its leader replaced, still sending), and copies again, past the fence the
 * range whole under it; so does one whose tracking ran out of room ({@link #MAX_TRACKED}). A leader that no longer
 * leads moves nothing more: its engine is closed, and refuses the fences. A table deleted meanwhile ends the move (the
 * new group's table deleted too).
 */
final class RangeMove {
    private static final Logger log = LoggerFactory.getLogger(RangeMove.class);
    private static final ObjectMapper JSON = DynamoJson.mapper();

    static final String PUT_MOVED = OperationRegistry.PARTITA_PREFIX + "PutMovedItems";
    static final String OPEN_MOVED = OperationRegistry.PARTITA_PREFIX + "OpenMovedRange";
    static final String PUT_TOKENS = OperationRegistry.PARTITA_PREFIX + "PutMovedTokens";
    static final String AWAIT_INDEXES = OperationRegistry.PARTITA_PREFIX + "AwaitIndexes";

    /**
     * Partita's own request that sets the lag a group's global secondary index injects ({@code POST
     * /admin/indexes/lag} of a table cut by ranges, sent to every group).
     */
    static final String INDEX_LAG = OperationRegistry.PARTITA_PREFIX + "IndexLag";

    static final String CLEAR_MOVED = OperationRegistry.PARTITA_PREFIX + "ClearMovedRange";

    /**
     * The most items changed during the first copy whose keys the source keeps ({@link ChangedKeys}); past that, the
     * range is copied again whole under the fence.
     */
    static final int MAX_TRACKED = 100_000;

    private static final String DYNAMODB = OperationRegistry.DYNAMODB_PREFIX;

    /** The most bytes of items one page of the copy carries (at least one item). */
    static final long PAGE_BYTES = 1024 * 1024;

    /** How long a step waits for a group that does not answer, or for the transactions under way. */
    private static final long STEP_MILLIS = 60_000;

    /**
     * For tests only: called after each step of a move ({@code fenced}, {@code copied}, {@code switched}) on the
     * thread that runs it, which it may stop (as a leader that dies there would).
     */
    static volatile java.util.function.Consumer<String> afterStep = step -> {};

    /** The members' group's records, as the mover reads and changes them. */
    interface Records {
        /** Record {@code key} after a barrier through the members' group (so every change before is seen), or null. */
        byte[] read(String key) throws IOException;

        /** Record {@code key} set to {@code now} if it is {@code was}; what is recorded after. */
        byte[] recordIf(String key, byte[] was, byte[] now) throws IOException;
    }

    private final String table;
    private final String recordKey;
    private final UUID source;
    private final StorageEngine engine;
    private final Records records;
    private final RangeSpread.Sender sender;

    RangeMove(
            String table,
            String recordKey,
            UUID source,
            StorageEngine engine,
            Records records,
            RangeSpread.Sender sender) {
        this.table = table;
        this.recordKey = recordKey;
        this.source = source;
        this.engine = engine;
        this.records = records;
        this.sender = sender;
    }

    /**
     * Runs the move the table's record names, from the step it is at, to its end; returns at once when the record
     * names no move from this group. A failure (this node no longer leads, a group that does not answer) is thrown:
     * the next pass runs it again.
     */
    void run() throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            byte[] was = records.read(recordKey);
            JsonNode record = was == null ? null : JSON.readTree(was);
            TableRanges r = record == null ? null : TableRanges.of(record);
            TableRanges.Moving m = r == null ? null : r.moving();
            if (m == null || !m.source().equals(source)) {
                return;
            }
            if (!r.live()) {
                // Deleted meanwhile: the new group's table goes too (made or not; a DeleteTable sent to the groups the
                // ranges named before the switch did not reach it), then the move.
                untilDone(m.group(), DYNAMODB + "DeleteTable", named(), "ResourceNotFoundException");
                if (ended(was, r.withoutMove().into(record))) {
                    log.info("the move of table {}'s range to {} ended: the table is deleted", table, m.group());
                    return;
                }
                continue;
            }
            Table t = engine.tables().find(table);
            if (t == null) {
                throw new IllegalStateException("table " + table + " is not in the source group's store (yet)");
            }
            if (t.metadata().hashRange() == null) {
                // Made before its store recorded its range: it cannot be fenced, and the move is given up.
                if (ended(was, r.withoutMove().into(record))) {
                    log.warn("table {}'s store records no range (cut before 2026-12-07): its move is given up", table);
                    return;
                }
                continue;
            }
            if (!m.switched()) {
                long from = m.from();
                HashRange moved = new HashRange(from, r.rangeOf(source).last());
                // The new group serving first (it answers, the table there or not: elected).
                untilDone(m.group(), DYNAMODB + "DescribeTable", named(), "ResourceNotFoundException");
                HashRange held = t.metadata().hashRange();
                boolean fenced = !held.holds(from) || java.util.Objects.equals(held.frozenFrom(), from);
                // This run's copy: the new group takes its pages alone from its first clear on (HashRange.copier).
                long copier = java.util.concurrent.ThreadLocalRandom.current().nextLong();
                // The move's start, in the source's log: changes of the table's settings refused from now on
                // (HashRange.requireNotMoving), its writes still taken.
                engine.tables()
                        .changeRange(
                                table,
                                h -> !h.holds(from) || java.util.Objects.equals(h.movingFrom(), from)
                                        ? h
                                        : h.movingFrom(from));
                io.partita.storage.table.TableMetadata begun =
                        engine.tables().find(table).metadata();
                if (!fenced && (begun.stream() != null || begun.pitrEnabled())) {
                    // A table with a stream keeps its ranges: its shards are its groups' partitions', and the move's
                    // copy and deletes would be changes of the stream. One with PITR too: each group keeps its own
                    // items' change log, which the new group would lack for the moved items' past. (Seen after the
                    // start, which an UpdateTable enabling a stream and an UpdateContinuousBackups enabling PITR are
                    // refused from, under the catalog's lock: TableStreams.enable, PointInTimeRecovery.enable.)
                    engine.tables()
                            .changeRange(
                                    table, h -> java.util.Objects.equals(h.movingFrom(), from) ? h.notMoving() : h);
                    if (ended(was, r.withoutMove().into(record))) {
                        log.info(
                                "table {} has a stream or PITR: the move of its range to {} is given up",
                                table,
                                m.group());
                        return;
                    }
                    continue;
                }
                // Described once no change of its settings can come in: the new group's table is the source's.
                makeTable(m.group());
                long copied;
                if (!fenced) {
                    // The first copy while the writes go on, each change of a moved item since it began tracked; then
                    // the fence, and those items alone copied again. A copy begun by a leader before this one (or by
                    // an attempt of this one that failed) is cleared first: the changes made during it are not known.
                    clear(m.group(), copier);
                    ChangedKeys changed = engine.writes().trackChanges(t, moved, MAX_TRACKED);
                    try {
                        long first = copy(t, moved, m.group(), copier);
                        // The new group's indexes apply the first copy while the writes go on: under the fence they
                        // then have only the items changed meanwhile to apply.
                        awaitIndexes(m.group(), INDEXING_MILLIS);
                        afterStep.accept("copied once");
                        long started = System.nanoTime();
                        fence(from);
                        awaitTransactions(t, moved);
                        afterStep.accept("fenced");
                        if (changed.overflowed()) {
                            clear(m.group(), copier);
                            copied = copy(t, moved, m.group(), copier);
                        } else {
                            copied = first;
                            long again = copyChanged(t, changed.keys(), m.group(), copier);
                            log.info(
                                    "table {}'s moved items: {} copied while the writes went on, {} changed meanwhile"
                                            + " copied again under the fence in {} ms",
                                    table,
                                    first,
                                    again,
                                    (System.nanoTime() - started) / 1_000_000);
                        }
                    } finally {
                        engine.writes().stopTracking(changed);
                    }
                } else {
                    // Fenced by a leader before this one: whatever it copied is cleared, and the range copied whole.
                    fence(from);
                    awaitTransactions(t, moved);
                    afterStep.accept("fenced");
                    clear(m.group(), copier);
                    copied = copy(t, moved, m.group(), copier);
                }
                copyTokens(m.group());
                // The new group's global secondary indexes caught up with the copied items: once the source gives up
                // the range, its own rows of them no longer answer, and theirs must.
                awaitIndexes(m.group(), STEP_MILLIS);
                afterStep.accept("copied");
                untilDone(
                        m.group(),
                        OPEN_MOVED,
                        RangeSpread.bytes(
                                JSON.createObjectNode().put("TableName", table).put("Copier", copier)),
                        null);
                // The second fence: the moved hashes leave the source's range, their reads refused too from now on,
                // before any write of them reaches the new group.
                engine.tables().changeRange(table, h -> h.holds(from) ? new HashRange(h.first(), from - 1) : h);
                // A read transaction over several groups may have held a moved item during the copy (reads of them
                // were served): none can from here, and one that did must end before the new group takes writes.
                awaitTransactions(t, moved);
                byte[] switched = r.switched().into(record);
                if (!Arrays.equals(records.recordIf(recordKey, was, switched), switched)) {
                    continue; // changed meanwhile (deleted, say): looked at again
                }
                log.info(
                        "table {}'s hashes from {} are in group {} now ({} items copied)",
                        table,
                        Long.toUnsignedString(m.from()),
                        m.group(),
                        copied);
                afterStep.accept("switched");
                was = switched;
                record = JSON.readTree(switched);
                r = TableRanges.of(record);
            }
            // A follower's reader still on the catalog before the second fence refuses what it read once the replica's
            // catalog has moved (StorageEngine.requireServedAfterRead), so none answers the deleted items absent.
            long deleted = deleteOutside(t);
            if (ended(was, r.withoutMove().into(record))) {
                log.info("the move of table {}'s range to {} ended ({} items deleted here)", table, m.group(), deleted);
                return;
            }
        }
        throw new IllegalStateException("table " + table + "'s record kept changing");
    }

    /**
     * The first fence: writes of the hashes from {@code from} refused, reads of them served (their items as they stay);
     * already up, or the second too, it stays.
     */
    private void fence(long from) {
        engine.tables()
                .changeRange(
                        table,
                        h -> !h.holds(from) || java.util.Objects.equals(h.frozenFrom(), from)
                                ? h
                                : h.freezingFrom(from));
        log.info("table {}'s hashes from {} take no writes here now", table, Long.toUnsignedString(from));
    }

    /**
     * Begins copy {@code copier} in {@code group} (the pages of any copy before it refused from then on) and deletes
     * what the group holds of the range it receives ({@link MovedItemsHandler.Clear}), a page at a time; nothing once
     * its range is open.
     */
    private void clear(UUID group, long copier) throws Exception {
        byte[] body = RangeSpread.bytes(
                JSON.createObjectNode().put("TableName", table).put("Copier", copier));
        for (; ; ) {
            ClusterRouter.Reply cleared = untilDone(group, CLEAR_MOVED, body, "ValidationException");
            if (cleared.status() != 200) {
                if (object(cleared.body()).path("message").asText().contains(MovedItemsHandler.NOT_RECEIVING)) {
                    return;
                }
                throw new IllegalStateException("the new group refused to clear table " + table + ": " + text(cleared));
            }
            if (object(cleared.body()).path("Deleted").asInt(0) == 0) {
                return;
            }
        }
    }

    /**
     * Copies again the items of {@code keys} (those changed during the first copy) as they are now, the writes fenced:
     * each there is put, each gone deleted; returns how many.
     */
    private long copyChanged(Table t, List<PrimaryKey> keys, UUID group, long copier) throws Exception {
        int done = 0;
        while (done < keys.size()) {
            List<Map<String, AttributeValue>> items = new ArrayList<>();
            List<Map<String, AttributeValue>> deletes = new ArrayList<>();
            long bytes = 0;
            int next = done;
            while (next < keys.size() && next - done < MovedItemsHandler.MAX_ITEMS && bytes < PAGE_BYTES) {
                PrimaryKey key = keys.get(next++);
                Map<String, AttributeValue> item = engine.get(t, key);
                if (item == null) {
                    deletes.add(t.metadata().keySchema().keyMap(key));
                } else {
                    items.add(item);
                    bytes += io.partita.protocol.model.ItemSize.of(item);
                }
            }
            if (!storeMoved(group, items, deletes, copier)) {
                return done;
            }
            done = next;
        }
        return done;
    }

    /**
     * Sends one page of copy {@code copier} to {@code group}: {@code items} to put, the keys of {@code deletes} to
     * delete. False when the group's range is open already (a leader before this one copied it all, and opened it):
     * nothing more to copy. Refused (thrown) once another copy began there.
     */
    private boolean storeMoved(
            UUID group, List<Map<String, AttributeValue>> items, List<Map<String, AttributeValue>> deletes, long copier)
            throws Exception {
        ObjectNode body = JSON.createObjectNode().put("TableName", table).put("Copier", copier);
        body.set("Items", JSON.valueToTree(items));
        if (!deletes.isEmpty()) {
            body.set("Deletes", JSON.valueToTree(deletes));
        }
        ClusterRouter.Reply stored = untilDone(group, PUT_MOVED, RangeSpread.bytes(body), "ValidationException");
        if (stored.status() != 200) {
            if (object(stored.body()).path("message").asText().contains(MovedItemsHandler.NOT_RECEIVING)) {
                return false;
            }
            throw new IllegalStateException("the new group refused a page of table " + table + ": " + text(stored));
        }
        return true;
    }

    private boolean ended(byte[] was, byte[] now) throws IOException {
        return Arrays.equals(records.recordIf(recordKey, was, now), now);
    }

    /** {@code {"TableName": table}}. */
    private byte[] named() {
        return RangeSpread.bytes(JSON.createObjectNode().put("TableName", table));
    }

    /**
     * The new group makes the table as the source describes it (made already, it answers {@code
     * ResourceInUseException}), and its Contributor Insights and TTL as the source's.
     */
    private void makeTable(UUID group) throws Exception {
        ClusterRouter.Reply described = untilDone(source, DYNAMODB + "DescribeTable", named(), null);
        byte[] create = RangeSpread.createOf(described.body());
        if (create == null) {
            throw new IllegalStateException("the source's description of table " + table + " names no table");
        }
        untilDone(group, DYNAMODB + "CreateTable", create, "ResourceInUseException");
        ClusterRouter.Reply insights = untilDone(source, DYNAMODB + "DescribeContributorInsights", named(), null);
        JsonNode ci = object(insights.body());
        String ciStatus = ci.path("ContributorInsightsStatus").asText("");
        if (ciStatus.equals("ENABLED") || ciStatus.equals("ENABLING")) {
            ObjectNode update =
                    JSON.createObjectNode().put("TableName", table).put("ContributorInsightsAction", "ENABLE");
            if (ci.hasNonNull("ContributorInsightsMode")) {
                update.put(
                        "ContributorInsightsMode",
                        ci.get("ContributorInsightsMode").asText());
            }
            untilDone(group, DYNAMODB + "UpdateContributorInsights", RangeSpread.bytes(update), null);
        }
        ClusterRouter.Reply ttl = untilDone(source, DYNAMODB + "DescribeTimeToLive", named(), null);
        JsonNode d = object(ttl.body()).path("TimeToLiveDescription");
        String status = d.path("TimeToLiveStatus").asText("");
        if (status.equals("ENABLED") || status.equals("ENABLING")) {
            ObjectNode update = JSON.createObjectNode().put("TableName", table);
            update.putObject("TimeToLiveSpecification")
                    .put("Enabled", true)
                    .put("AttributeName", d.path("AttributeName").asText());
            ClusterRouter.Reply made = untilDone(group, DYNAMODB + "UpdateTimeToLive", RangeSpread.bytes(update), "");
            if (made.status() != 200
                    && !object(made.body()).path("message").asText().contains("already enabled")) {
                throw new IllegalStateException("the new group refused table " + table + "'s TTL: " + text(made));
            }
        }
    }

    /** How long a move waits for the new group's indexes to apply its first copy, the writes going on meanwhile. */
    private static final long INDEXING_MILLIS = 600_000;

    /**
     * Waits, up to {@code millis}, until the global secondary indexes of the table in {@code group} have applied every
     * item copied there so far ({@link #AWAIT_INDEXES}, each asked again while it answers 503); thrown past that.
     */
    private void awaitIndexes(UUID group, long millis) throws Exception {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (; ; ) {
            ClusterRouter.Reply r = sender.send(group, AWAIT_INDEXES, named()).get(STEP_MILLIS, TimeUnit.MILLISECONDS);
            if (r.status() == 200) {
                return;
            }
            if (r.status() < 500 || System.nanoTime() > until) {
                throw new IllegalStateException("the new group's indexes of table " + table + ": " + text(r));
            }
            Thread.sleep(200);
        }
    }

    /**
     * Waits until no transaction under way in the source's store holds an item of the {@code moved} hashes (none may
     * start on them once they are frozen): their items are then as they will stay.
     */
    private void awaitTransactions(Table t, HashRange moved) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
        while (engine.writes().transactionsUnderWay(t, moved)) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("transactions are still under way in table " + table + "'s group");
            }
            Thread.sleep(50);
        }
    }

    /**
     * Copies the source's items of {@code moved} to {@code group}, a page at a time; returns how many. A group whose
     * range is open already (a leader before this one copied it all, and opened it) refuses a page: nothing more to
     * copy.
     */
    private long copy(Table t, HashRange moved, UUID group, long copier) throws Exception {
        KeyRanges.Range range = KeyRanges.hashes(moved.first(), moved.last());
        long copied = 0;
        for (; ; ) {
            List<Map<String, AttributeValue>> page = new ArrayList<>();
            byte[][] last = {null};
            long[] bytes = {0};
            engine.range(t, range, true, (key, item, stored) -> {
                page.add(item);
                last[0] = key;
                bytes[0] += stored;
                return page.size() < MovedItemsHandler.MAX_ITEMS && bytes[0] < PAGE_BYTES;
            });
            if (page.isEmpty()) {
                return copied;
            }
            if (!storeMoved(group, page, List.of(), copier)) {
                return copied;
            }
            copied += page.size();
            range = range.resumeAfter(last[0], true);
        }
    }

    /**
     * Copies the source's transaction tokens to {@code group} ({@link MovedItemsHandler.Tokens}): a repeat, after the
     * move, of a transaction made before it on a moved key is answered there as a repeat. Nothing once the group's
     * range is open (a leader before this one copied them, and opened it).
     */
    private void copyTokens(UUID group) throws Exception {
        List<byte[][]> records = engine.writes().tokens().records();
        for (int from = 0; from < records.size(); from += MovedItemsHandler.Tokens.MAX_TOKENS) {
            com.fasterxml.jackson.databind.node.ArrayNode page = JSON.createArrayNode();
            for (byte[][] r :
                    records.subList(from, Math.min(records.size(), from + MovedItemsHandler.Tokens.MAX_TOKENS))) {
                page.addObject().put("Key", r[0]).put("Value", r[1]);
            }
            ObjectNode body = JSON.createObjectNode().put("TableName", table);
            body.set("Tokens", page);
            ClusterRouter.Reply stored = untilDone(group, PUT_TOKENS, RangeSpread.bytes(body), "ValidationException");
            if (stored.status() != 200) {
                if (object(stored.body()).path("message").asText().contains(MovedItemsHandler.NOT_RECEIVING)) {
                    return;
                }
                throw new IllegalStateException("the new group refused table " + table + "'s tokens: " + text(stored));
            }
        }
    }

    /**
     * Deletes the items the source holds outside its range (those a move took elsewhere) through its write path, a
     * page at a time; returns how many.
     */
    private long deleteOutside(Table t) {
        HashRange held = t.metadata().hashRange();
        List<KeyRanges.Range> outside = new ArrayList<>(2);
        if (held.first() != 0) {
            outside.add(KeyRanges.hashes(0, held.first() - 1));
        }
        if (held.last() != -1L) {
            outside.add(KeyRanges.hashes(held.last() + 1, -1L));
        }
        long deleted = 0;
        for (KeyRanges.Range range : outside) {
            for (; ; ) {
                List<ItemWrite> page = new ArrayList<>();
                engine.range(t, range, true, (key, item, stored) -> {
                    PrimaryKey k = t.metadata().keySchema().keyOfItem(item);
                    page.add(ItemWrite.move(t, k, ConditionalWrite.blind(new WriteDecision.Delete())));
                    return page.size() < MovedItemsHandler.MAX_ITEMS;
                });
                if (page.isEmpty()) {
                    break;
                }
                Written[] written = engine.writes().writeAll(page);
                for (Written w : written) {
                    if (w == null) {
                        throw new IllegalStateException("a page of deletions of table " + table + " did not commit");
                    }
                }
                deleted += page.size();
            }
        }
        return deleted;
    }

    /**
     * Sends {@code body} to {@code group} as {@code target} until it answers: a 5xx (no leader yet, a group being made)
     * is sent again for {@link #STEP_MILLIS}; a 200, or a refusal of type {@code done} (any type when {@code done} is
     * empty), is the answer. Another refusal is thrown.
     */
    private ClusterRouter.Reply untilDone(UUID group, String target, byte[] body, String done) throws Exception {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
        for (; ; ) {
            ClusterRouter.Reply r = sender.send(group, target, body).get(STEP_MILLIS, TimeUnit.MILLISECONDS);
            if (r.status() == 200) {
                return r;
            }
            if (r.status() < 500) {
                String type = object(r.body()).path("__type").asText("");
                if (done != null && (done.isEmpty() || type.endsWith("#" + done) || type.equals(done))) {
                    return r;
                }
                throw new IllegalStateException("group " + group + " refused " + target + ": " + text(r));
            }
            if (System.nanoTime() > until) {
                throw new IllegalStateException("group " + group + " did not answer " + target + ": " + text(r));
            }
            Thread.sleep(200);
        }
    }

    /** Answer {@code body} as a JSON object; an empty one when it is none. */
    private static ObjectNode object(byte[] body) {
        ObjectNode o = BatchSpread.object(body);
        return o == null ? JSON.createObjectNode() : o;
    }

    private static String text(ClusterRouter.Reply r) {
        return r.status() + " " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
