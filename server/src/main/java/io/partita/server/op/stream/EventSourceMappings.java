package io.partita.server.op.stream;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.GetRecordsOutput;
import io.partita.storage.BackgroundThreads;
import io.partita.storage.StorageEngine;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.feed.FeedConsumer;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.table.TableCatalog.Table;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local event-source mappings, as Lambda has for DynamoDB streams ("Using AWS Lambda with Amazon DynamoDB"): each
 * delivers a table's stream records, in Lambda's DynamoDB event format ({@code {"Records": [...]}} with {@code
 * eventSourceARN}), by HTTP POST to a URL, a batch at a time, shard by shard with parents before children. A batch
 * the endpoint refuses (not 2xx, or no answer) is retried; with bisection it is split in halves and each retried
 * ({@code BisectBatchOnFunctionError}); a record that still fails after the retries goes to the on-failure destination
 * (a file it is appended to as a JSON line, or a second URL) and the mapping goes on. Delivery is at least once: a
 * mapping is a feed consumer whose positions are saved after each delivered batch. The mappings live in memory: a
 * restart drops them (and their consumers).
 */
public final class EventSourceMappings implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventSourceMappings.class);
    static final String CONSUMER_PREFIX = "esm:";

    private final StorageEngine storage;
    private final String region;
    private final String account;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, Mapping> mappings = new ConcurrentHashMap<>();

    public EventSourceMappings(StorageEngine storage, String region, String account) {
        this.storage = storage;
        this.region = region;
        this.account = account;
        // Mappings do not survive a restart: the consumers of the last run's would hold the feed back.
        for (Table t : storage.tables().snapshot().values()) {
            for (FeedConsumer c : t.feed().consumers()) {
                if (c.name().startsWith(CONSUMER_PREFIX)) {
                    storage.feed().unregister(t, c.name());
                }
            }
        }
    }

    /** How a mapping delivers. */
    public record Settings(
            String url,
            int batchSize,
            long batchWindowMillis,
            int maximumRetryAttempts,
            boolean bisectBatchOnFunctionError,
            String onFailure) {}

    /** Creates a mapping of {@code t}'s stream; it delivers the records written from now on. */
    public Mapping create(Table t, Settings settings) {
        StreamDefinition stream = t.metadata().stream();
        if (stream == null) {
            throw new IllegalArgumentException("table " + t.metadata().name() + " has no enabled stream");
        }
        String id = UUID.randomUUID().toString();
        // Like the stream it reads, it keeps records 24 hours at most, however far its endpoint is behind.
        FeedConsumer consumer =
                storage.feed().register(t, CONSUMER_PREFIX + id, io.partita.storage.stream.TableStreams.RETENTION);
        Mapping m = new Mapping(id, t, stream, settings, consumer);
        mappings.put(id, m);
        m.start();
        return m;
    }

    public Collection<Mapping> all() {
        return List.copyOf(mappings.values());
    }

    public Mapping find(String id) {
        return id == null ? null : mappings.get(id);
    }

    /** Deletes a mapping: it stops, and its consumer goes. */
    public boolean delete(String id) {
        Mapping m = id == null ? null : mappings.remove(id);
        if (m == null) {
            return false;
        }
        m.close();
        storage.feed().unregister(m.table, m.consumer.name());
        return true;
    }

    @Override
    public void close() {
        for (Mapping m : mappings.values()) {
            m.close();
        }
    }

    /** One mapping: its settings, its thread, and what it has delivered. */
    public final class Mapping implements AutoCloseable {
        private final String id;
        private final Table table;
        private final StreamDefinition stream;
        private final Settings settings;
        private final FeedConsumer consumer;
        private final ExecutorService thread;
        private final AtomicLong delivered = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicLong batches = new AtomicLong();
        private volatile long iteratorAgeMillis;
        private volatile boolean stopped;

        Mapping(String id, Table table, StreamDefinition stream, Settings settings, FeedConsumer consumer) {
            this.id = id;
            this.table = table;
            this.stream = stream;
            this.settings = settings;
            this.consumer = consumer;
            this.thread = Executors.newSingleThreadExecutor(BackgroundThreads.named("partita-esm-" + id));
        }

        public String id() {
            return id;
        }

        public Table table() {
            return table;
        }

        public Settings settings() {
            return settings;
        }

        /** Records the endpoint accepted. */
        public long delivered() {
            return delivered.get();
        }

        /** Records sent to the on-failure destination. */
        public long failed() {
            return failed.get();
        }

        /** Lambda's IteratorAge: the age of the last record of the last batch delivered, 0 once caught up. */
        public long iteratorAgeMillis() {
            return iteratorAgeMillis;
        }

        void start() {
            thread.execute(() -> {
                while (!stopped) {
                    try {
                        if (!pass()) {
                            LockSupport.parkNanos(
                                    TimeUnit.MILLISECONDS.toNanos(Math.max(5, settings.batchWindowMillis())));
                        }
                    } catch (RuntimeException e) {
                        if (stopped) {
                            return;
                        }
                        log.warn("event-source mapping {} failed; trying again in a second", id, e);
                        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                    }
                }
            });
        }

        /** Delivers one batch of each shard that has records; false if none had any. */
        private boolean pass() {
            if (storage.tables().find(table.metadata().name()) != table) {
                // The table is gone (perhaps created again): the mapping ends with it.
                stopped = true;
                mappings.remove(id, this);
                thread.shutdown();
                return false;
            }
            ChangeFeed feed = storage.feed();
            List<FeedShard> shards = feed.shards(table);
            boolean any = false;
            boolean caughtUp = true;
            for (FeedShard s : shards) {
                if (stopped || !consumer.mayRead(s, shards)) {
                    continue;
                }
                List<ChangeRecord> page = consumer.read(s, settings.batchSize());
                if (page.isEmpty()) {
                    continue;
                }
                if (page.size() == settings.batchSize()) {
                    caughtUp = false;
                }
                any = true;
                deliver(s, page);
                consumer.commit(s, page.get(page.size() - 1).sequence());
                ChangeRecord last = page.get(page.size() - 1);
                iteratorAgeMillis = Math.max(0, System.currentTimeMillis() - last.timeMillis());
            }
            if (caughtUp) {
                iteratorAgeMillis = 0;
            }
            return any;
        }

        /** Delivers {@code records}, retrying, bisecting, and at last sending what still fails to the destination. */
        private void deliver(FeedShard shard, List<ChangeRecord> records) {
            for (int attempt = 0; !stopped; attempt++) {
                if (post(settings.url(), event(shard, records))) {
                    delivered.addAndGet(records.size());
                    batches.incrementAndGet();
                    return;
                }
                if (settings.bisectBatchOnFunctionError() && records.size() > 1) {
                    int half = records.size() / 2;
                    deliver(shard, records.subList(0, half));
                    deliver(shard, records.subList(half, records.size()));
                    return;
                }
                if (attempt >= settings.maximumRetryAttempts()) {
                    onFailure(shard, records);
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(1000, 50L << Math.min(attempt, 4))));
            }
        }

        private void onFailure(FeedShard shard, List<ChangeRecord> records) {
            failed.addAndGet(records.size());
            String body = event(shard, records);
            String destination = settings.onFailure();
            if (destination == null) {
                log.warn("event-source mapping {} dropped {} records after its retries", id, records.size());
            } else if (destination.startsWith("http://") || destination.startsWith("https://")) {
                if (!post(destination, body)) {
                    log.warn(
                            "event-source mapping {}: the on-failure destination refused {} records",
                            id,
                            records.size());
                }
            } else {
                try {
                    Files.writeString(
                            Path.of(destination.startsWith("file:") ? destination.substring(5) : destination),
                            body + "\n",
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                } catch (IOException e) {
                    log.warn("event-source mapping {}: cannot write to {}", id, destination, e);
                }
            }
        }

        private boolean post(String url, String body) {
            try {
                HttpResponse<Void> r = http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                return r.statusCode() / 100 == 2;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopped = true;
                return false;
            }
        }

        /** Lambda's DynamoDB event: the stream records, each naming the stream as its event source. */
        private String event(FeedShard shard, List<ChangeRecord> records) {
            ObjectNode event = DynamoJson.mapper().createObjectNode();
            ArrayNode list = event.putArray("Records");
            String arn = StreamTokens.streamArn(
                    "arn:aws:dynamodb:" + region + ":" + account + ":table/"
                            + table.metadata().name(),
                    stream.label());
            for (ChangeRecord r : records) {
                GetRecordsOutput.Record record = GetRecordsHandler.record(region, table, stream, shard.number(), r);
                ObjectNode node = DynamoJson.mapper().valueToTree(record);
                node.put("eventSourceARN", arn);
                list.add(node);
            }
            return event.toString();
        }

        @Override
        public void close() {
            stopped = true;
            BackgroundThreads.stop(thread);
        }
    }
}
