package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.PrimaryKey;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.feed.FeedConsumer;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.table.TableCatalog.Table;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The change feed across SIGKILL: writers on several connections put, update (some under a condition that fails),
 * delete and batch-write their own keys while the server is killed. After a restart, each key's records in the feed
 * are exactly the acknowledged changes in the order the writer made them, plus at most the one request it had in
 * flight, at the end; each record's old image is the previous one's new image; the item is the last new image; each
 * shard's numbers rise. With Partita's own log and with {@code --sync} (RocksDB's fsynced log).
 */
class ChangeFeedCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WRITERS = 4;
    private static final int KEYS = 4;
    private static final String DELETED = "(deleted)";

    /** One request of a writer: the changes it makes (key and new op id, or DELETED) and how it ended. */
    static final class Step {
        final Map<String, String> changes = new HashMap<>();
        /** null while in flight; true if acknowledged with these changes, false if acknowledged as no change. */
        volatile Boolean changed;
    }

    @ParameterizedTest(name = "sync={0}")
    @ValueSource(booleans = {false, true})
    void theFeedHoldsExactlyTheAcknowledgedChangesAfterSigkill(boolean sync, @TempDir Path dir) throws Exception {
        String[] flags = sync ? new String[] {"--throughput", "off", "--sync"} : new String[] {"--throughput", "off"};
        List<List<Step>> logs = new ArrayList<>();
        List<String> unexpected = new CopyOnWriteArrayList<>();
        try (ServerProcess server = ServerProcess.start(dir, flags)) {
            RawApi setup = server.api();
            assertThat(setup.createTable("fed").statusCode()).isEqualTo(200);
            assertThat(setup.send("POST", "/admin/feed/consumers?table=fed&name=crash")
                            .statusCode())
                    .isEqualTo(200);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                List<Step> log = new CopyOnWriteArrayList<>();
                logs.add(log);
                int writer = w;
                threads.add(new Thread(() -> write(server.api(), writer, log, unexpected)));
            }
            threads.forEach(Thread::start);
            Thread.sleep(1500);
            server.kill();
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
        assertThat(unexpected).isEmpty();
        try (ServerProcess again = ServerProcess.start(dir, flags)) {
            JsonNode feed = JSON.readTree(
                            again.api().get("/admin/feed?table=fed").body())
                    .get("tables")
                    .get(0);
            assertThat(feed.get("recording").asBoolean()).isTrue();
            assertThat(feed.get("consumers").get(0).get("name").asText()).isEqualTo("crash");
        }
        try (StorageEngine e = StorageEngine.open(new StorageConfig(dir, false, sync))) {
            Table t = e.tables().find("fed");
            Map<String, List<ChangeRecord>> byKey = read(e, t, t.feed().consumer("crash"));
            for (int w = 0; w < WRITERS; w++) {
                List<Step> log = logs.get(w);
                assertThat(log.stream().filter(s -> Boolean.TRUE.equals(s.changed)))
                        .as("writer %d's acknowledged changes", w)
                        .isNotEmpty();
                for (int k = 0; k < KEYS; k++) {
                    String key = "w" + w + "-k" + k;
                    check(e, t, key, log, byKey.getOrDefault(key, List.of()));
                }
            }
        }
    }

    /** One writer's loop until the server is gone; each step is logged before it is sent. */
    private static void write(RawApi api, int writer, List<Step> log, List<String> unexpected) {
        Random random = new Random(writer);
        try {
            for (int i = 0; ; i++) {
                String op = writer + "-" + i;
                String key = "w" + writer + "-k" + random.nextInt(KEYS);
                Step step = new Step();
                int kind = random.nextInt(10);
                String target;
                String body;
                if (kind < 3) {
                    step.changes.put(key, op);
                    target = "PutItem";
                    body = "{\"TableName\":\"fed\",\"Item\":" + item(key, op) + "}";
                } else if (kind < 7) {
                    step.changes.put(key, op);
                    target = "UpdateItem";
                    String condition = kind < 5 ? "" : ",\"ConditionExpression\":\"attribute_exists(id)\"";
                    body = "{\"TableName\":\"fed\",\"Key\":{\"id\":{\"S\":\"" + key + "\"}},"
                            + "\"UpdateExpression\":\"SET #op = :op, n = if_not_exists(n, :zero) + :one\","
                            + "\"ExpressionAttributeNames\":{\"#op\":\"op\"},"
                            + "\"ExpressionAttributeValues\":{\":op\":{\"S\":\"" + op + "\"},"
                            + "\":zero\":{\"N\":\"0\"},\":one\":{\"N\":\"1\"}}" + condition + "}";
                } else if (kind < 8) {
                    step.changes.put(key, DELETED);
                    target = "DeleteItem";
                    body = "{\"TableName\":\"fed\",\"Key\":{\"id\":{\"S\":\"" + key + "\"}},"
                            + "\"ReturnValues\":\"ALL_OLD\"}";
                } else {
                    String other =
                            "w" + writer + "-k" + ((Integer.parseInt(key.substring(key.indexOf('k') + 1)) + 1) % KEYS);
                    step.changes.put(key, op + "a");
                    step.changes.put(other, op + "b");
                    target = "BatchWriteItem";
                    body = "{\"RequestItems\":{\"fed\":[{\"PutRequest\":{\"Item\":" + item(key, op + "a") + "}},"
                            + "{\"PutRequest\":{\"Item\":" + item(other, op + "b") + "}}]}}";
                }
                log.add(step);
                HttpResponse<String> r = api.post("DynamoDB_20120810." + target, body);
                if (r.statusCode() == 200) {
                    JsonNode answer = JSON.readTree(r.body());
                    if (target.equals("DeleteItem")) {
                        step.changed = answer.has("Attributes");
                    } else if (target.equals("BatchWriteItem")
                            && !answer.get("UnprocessedItems").isEmpty()) {
                        unexpected.add("unprocessed items with throughput off: " + r.body());
                        return;
                    } else {
                        step.changed = true;
                    }
                } else if (r.body().contains("ConditionalCheckFailedException")) {
                    step.changed = false;
                } else {
                    unexpected.add(target + " answered " + r.statusCode() + ": " + r.body());
                    return;
                }
            }
        } catch (Exception killed) {
            // The server went away: the last step stays in flight.
        }
    }

    private static String item(String key, String op) {
        return "{\"id\":{\"S\":\"" + key + "\"},\"op\":{\"S\":\"" + op + "\"},\"n\":{\"N\":\"0\"}}";
    }

    /** Every record of the table's feed by key, each key's in the order read (parents before children). */
    private static Map<String, List<ChangeRecord>> read(StorageEngine e, Table t, FeedConsumer c) {
        Map<String, List<ChangeRecord>> byKey = new HashMap<>();
        for (FeedShard s : e.feed().shards(t)) {
            long last = 0;
            for (List<ChangeRecord> page = c.read(s, 500); !page.isEmpty(); page = c.read(s, 500)) {
                for (ChangeRecord r : page) {
                    assertThat(r.sequence())
                            .as("numbers rise in shard %s", s.partitionId())
                            .isGreaterThan(last);
                    last = r.sequence();
                    Map<String, AttributeValue> image = r.newStored() != null ? r.newImage() : r.oldImage();
                    String key = ((AttributeValue.S) image.get("id")).value();
                    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
                }
                c.commit(s, page.get(page.size() - 1).sequence());
            }
        }
        return byKey;
    }

    private static void check(StorageEngine e, Table t, String key, List<Step> log, List<ChangeRecord> records) {
        List<String> acknowledged = new ArrayList<>();
        String inFlight = null;
        for (Step s : log) {
            String change = s.changes.get(key);
            if (change == null) {
                continue;
            }
            if (Boolean.TRUE.equals(s.changed)) {
                acknowledged.add(change);
            } else if (s.changed == null) {
                inFlight = change;
            }
        }
        List<String> recorded = new ArrayList<>();
        Map<String, AttributeValue> previous = null;
        for (ChangeRecord r : records) {
            assertThat(r.oldImage()).as("%s: old image of %s", key, r).isEqualTo(previous);
            previous = r.newImage();
            recorded.add(previous == null ? DELETED : ((AttributeValue.S) previous.get("op")).value());
        }
        List<String> withInFlight = new ArrayList<>(acknowledged);
        if (inFlight != null) {
            withInFlight.add(inFlight);
        }
        assertThat(recorded)
                .as("%s: the feed against what was acknowledged", key)
                .isIn(acknowledged, withInFlight);
        Map<String, AttributeValue> item = e.get(t, new PrimaryKey(new AttributeValue.S(key), null));
        assertThat(item).as("%s: the item is the last new image", key).isEqualTo(previous);
    }
}
