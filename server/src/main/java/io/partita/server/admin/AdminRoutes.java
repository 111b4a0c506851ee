package io.partita.server.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.protocol.json.DynamoJson;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.HotKeyTracker;
import io.partita.storage.capacity.TableThroughput;
import io.partita.storage.partition.Partition;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin endpoints, without authentication:
 *
 * <ul>
 *   <li>{@code /admin/metrics[?table=NAME]}: per-table and per-partition counters in CloudWatch's vocabulary, as JSON;
 *   <li>{@code /metrics}: the same counters in Prometheus' text format;
 *   <li>{@code /admin/contributor-insights?table=NAME}: the most accessed and most throttled partition keys;
 *   <li>{@code /admin/feed[?table=NAME]}, and POST and DELETE of {@code /admin/feed/consumers}: the change feed
 *       ({@link FeedRoutes});
 *   <li>{@code /admin/indexes[?table=NAME]}, and POST of {@code /admin/indexes/await} and {@code /admin/indexes/lag}:
 *       the GSIs' replication lag, the wait for them to catch up, and injected lag ({@link IndexRoutes});
 *   <li>{@code /admin/streams[?table=NAME]}: each stream's shards and the iterator age of their last read;
 *   <li>{@code /admin/ttl[?table=NAME]} and POST {@code /admin/ttl/reap}: TTL deletions and their lateness, and a
 *       reap of everything expired now;
 *   <li>{@code /admin/event-source-mappings}: GET lists them, POST {@code ?table=T&url=U[&batchSize=N]
 *       [&batchWindowMillis=MS][&maximumRetryAttempts=N][&bisect=false][&onFailure=FILE|URL]} creates one that
 *       delivers the table's stream to {@code U} in Lambda's event format, DELETE {@code ?id=} removes it.
 * </ul>
 *
 * Counters are cumulative since the server started (or since the partition came to be); rates are the reader's
 * differences, as Prometheus expects.
 */
public final class AdminRoutes {
    /** An answer: status, content type and body. */
    public record Answer(int status, String contentType, byte[] body) {}

    private static final String JSON = "application/json";
    private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

    private final StorageEngine storage;
    private final FeedRoutes feed;
    private final IndexRoutes indexes;
    private final SimulatorRoutes simulator;
    private final io.partita.server.console.ConsoleAssets console;

    private final io.partita.server.op.stream.EventSourceMappings mappings;

    private final io.partita.server.op.partiql.PartiqlScans partiqlScans;

    /** {@code /metrics}: this account's registry of the Prometheus client. */
    private final io.partita.server.metrics.PartitaMetrics metrics;

    private final FaultRoutes faults;

    public AdminRoutes(
            StorageEngine storage,
            io.partita.server.op.stream.EventSourceMappings mappings,
            io.partita.server.op.partiql.PartiqlScans partiqlScans,
            io.partita.server.console.HotKeySimulator simulator,
            io.partita.server.console.ConsoleAssets console,
            io.partita.server.netty.Admission admission,
            io.partita.server.fault.FaultInjector faults,
            io.partita.server.metrics.RequestMetrics requests) {
        this.faults = new FaultRoutes(faults);
        this.metrics = new io.partita.server.metrics.PartitaMetrics(storage, partiqlScans, requests, admission, faults);
        this.simulator = new SimulatorRoutes(simulator);
        this.console = console;
        this.mappings = mappings;
        this.partiqlScans = partiqlScans;
        this.storage = storage;
        this.feed = new FeedRoutes(storage);
        this.indexes = new IndexRoutes(storage);
    }

    /** True for the paths this class answers. */
    public static boolean handles(String path) {
        int q = path.indexOf('?');
        String p = q < 0 ? path : path.substring(0, q);
        return p.startsWith("/admin/")
                || p.equals("/metrics")
                || p.equals("/cluster")
                || io.partita.server.console.ConsoleAssets.handles(p);
    }

    /** A GET; any failure is a 500 (logged), never a connection left without an answer. */
    public Answer get(String uri) {
        return get(uri, null);
    }

    /** A GET with the request's {@code Accept} header (null if none), which picks the format of {@code /metrics}. */
    public Answer get(String uri, String accept) {
        try {
            return route(uri, accept);
        } catch (BadQuery e) {
            return error(400, e.getMessage());
        } catch (RuntimeException e) {
            log.error("admin GET {} failed", uri, e);
            return error(500, "Internal error");
        }
    }

    private Answer route(String uri, String accept) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        String table = q < 0 ? null : parameter(uri.substring(q + 1), "table");
        if (io.partita.server.console.ConsoleAssets.handles(path)) {
            return console.get(path);
        }
        switch (path) {
            case "/admin/simulator":
                return simulator.get();
            case "/admin/metrics":
                return json(g -> metrics(g, tables(table)));
            case "/metrics":
                io.partita.server.metrics.PartitaMetrics.Scrape scrape = metrics.scrape(accept);
                return new Answer(200, scrape.contentType(), scrape.body());
            case "/admin/contributor-insights":
                return json(g -> insights(g, tables(table)));
            case "/admin/feed":
                return feed.view(tables(table));
            case "/admin/indexes":
                return indexes.view(tables(table));
            case "/admin/streams":
                return json(g -> streams(g, tables(table)));
            case "/admin/ttl":
                return json(g -> ttl(g, tables(table)));
            case "/admin/event-source-mappings":
                return json(g -> mappings(g, mappings.all()));
            case "/admin/faults":
                return faults.view();
            case "/cluster":
                // A cluster node's router answers this itself (its view of the Raft group); reaching here means a
                // single node, which belongs to no cluster.
                return new Answer(200, "application/json", bytes("{\"members\":[]}"));
            default:
                return new Answer(404, "text/plain; charset=utf-8", bytes("Not found: " + path + "\n"));
        }
    }

    /** A POST or DELETE: the change feed's consumers, and the GSIs' await and lag. May wait (it runs on a worker). */
    public Answer change(String method, String uri) {
        try {
            return routeChange(method, uri);
        } catch (BadQuery e) {
            return error(400, e.getMessage());
        } catch (RuntimeException e) {
            log.error("admin {} {} failed", method, uri, e);
            return error(500, "Internal error");
        }
    }

    private Answer routeChange(String method, String uri) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        String query = q < 0 ? "" : uri.substring(q + 1);
        if (method.equals("POST") && path.equals("/admin/indexes/await")) {
            String table = parameter(query, "table");
            if (table != null && storage.tables().find(table) == null) {
                return error(404, "no table " + table);
            }
            return indexes.await(query, tables(table));
        }
        if (method.equals("POST") && path.equals("/admin/indexes/lag")) {
            return indexes.lag(query);
        }
        if (path.startsWith("/admin/simulator/")) {
            return simulator.change(method, path, query);
        }
        if (path.equals("/admin/event-source-mappings")) {
            return mapping(method, query);
        }
        if (path.equals("/admin/faults")) {
            return faults.change(method, query);
        }
        if (method.equals("POST") && path.equals("/admin/ttl/reap")) {
            long reaped = storage.ttl().reapNow();
            return json(g -> {
                g.writeStartObject();
                g.writeNumberField("deletedItems", reaped);
                g.writeEndObject();
            });
        }
        if (!path.equals("/admin/feed/consumers")) {
            return new Answer(404, "text/plain; charset=utf-8", bytes("Not found: " + path + "\n"));
        }
        return switch (method) {
            case "POST" -> feed.register(query);
            case "DELETE" -> feed.unregister(query);
            default -> new Answer(405, "text/plain; charset=utf-8", bytes("Method not allowed\n"));
        };
    }

    /** A JSON error body {@code {"message": …}}. */
    static Answer error(int status, String message) {
        Answer a = json(g -> {
            g.writeStartObject();
            g.writeStringField("message", message);
            g.writeEndObject();
        });
        return new Answer(status, a.contentType(), a.body());
    }

    private Collection<Table> tables(String name) {
        Map<String, Table> all = storage.tables().snapshot();
        if (name == null) {
            return all.values();
        }
        Table t = all.get(name);
        return t == null ? List.of() : List.of(t);
    }

    private static void metrics(JsonGenerator g, Collection<Table> tables) throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("tables");
        for (Table t : tables) {
            TableMetadata m = t.metadata();
            TablePartitions parts = t.partitions();
            TableThroughput tt = parts.throughput();
            g.writeStartObject();
            g.writeStringField("tableName", m.name());
            g.writeStringField("billingMode", m.billingMode());
            g.writeStringField("throughputMode", parts.mode().name());
            g.writeNumberField("provisionedReadCapacityUnits", m.readCapacityUnits());
            g.writeNumberField("provisionedWriteCapacityUnits", m.writeCapacityUnits());
            g.writeNumberField("consumedReadCapacityUnits", tt.consumption().consumedReadUnits());
            g.writeNumberField("consumedWriteCapacityUnits", tt.consumption().consumedWriteUnits());
            g.writeNumberField("readThrottleEvents", tt.consumption().readThrottleEvents());
            g.writeNumberField("writeThrottleEvents", tt.consumption().writeThrottleEvents());
            g.writeNumberField("throttledRequests", tt.throttledRequests());
            g.writeNumberField("itemCount", t.stats().itemCount());
            g.writeNumberField("tableSizeBytes", t.stats().sizeBytes());
            if (m.hashRange() != null) {
                // One range of a table cut by ranges over a cluster's groups: this store holds its items alone.
                g.writeObjectFieldStart("hashRange");
                g.writeStringField("hashStart", hex(m.hashRange().first()));
                g.writeStringField("hashEnd", hex(m.hashRange().last()));
                if (m.hashRange().movingFrom() != null) {
                    // A range move takes the hashes from here on elsewhere: its copy runs, the table's settings wait.
                    g.writeStringField("movingFrom", hex(m.hashRange().movingFrom()));
                }
                if (m.hashRange().frozenFrom() != null) {
                    // A range move copies the hashes from here on elsewhere: their writes wait (docs/CLUSTER.md).
                    g.writeStringField("frozenFrom", hex(m.hashRange().frozenFrom()));
                }
                g.writeBooleanField("receiving", m.hashRange().receiving());
                // What the table's other groups reported they consumed, charged to its budget here (Capacity over
                // ranges, docs/CLUSTER.md).
                g.writeNumberField(
                        "chargedElsewhereReadCapacityUnits", tt.elsewhere().consumedReadUnits());
                g.writeNumberField(
                        "chargedElsewhereWriteCapacityUnits", tt.elsewhere().consumedWriteUnits());
                g.writeEndObject();
            }
            // One view: a split between reading the map and the splits would count a split the map does not have.
            TablePartitions.View view = parts.view();
            List<Partition> ps = view.map().partitions();
            g.writeNumberField("partitionCount", ps.size());
            List<TablePartitions.SplitEvent> splits = view.splits();
            g.writeNumberField("partitionSplits", splits.size());
            g.writeArrayFieldStart("partitions");
            for (Partition p : ps) {
                g.writeStartObject();
                g.writeStringField("partitionId", p.id());
                g.writeStringField("hashStart", hex(p.start()));
                g.writeStringField("hashEnd", hex(p.end()));
                if (p.parentId() != null) {
                    g.writeStringField("parentId", p.parentId());
                }
                g.writeNumberField(
                        "consumedReadCapacityUnits",
                        p.throughput().consumption().consumedReadUnits());
                g.writeNumberField(
                        "consumedWriteCapacityUnits",
                        p.throughput().consumption().consumedWriteUnits());
                g.writeNumberField(
                        "readThrottleEvents", p.throughput().consumption().readThrottleEvents());
                g.writeNumberField(
                        "writeThrottleEvents", p.throughput().consumption().writeThrottleEvents());
                g.writeNumberField("sizeBytes", p.sizeBytes());
                g.writeNumberField("readCeiling", 3000);
                g.writeNumberField("writeCeiling", 1000);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("splits");
            for (TablePartitions.SplitEvent s : splits) {
                g.writeStartObject();
                g.writeNumberField("atMillis", s.atMillis());
                g.writeStringField("parentId", s.parentId());
                g.writeStringField("leftId", s.leftId());
                g.writeStringField("rightId", s.rightId());
                g.writeStringField("reason", s.reason().name());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /**
     * Each table's streams: status, view type, and per shard the iterator age of its last GetRecords (how far behind
     * the reader was: the age of the last record it returned, 0 once it had read everything).
     */
    private void streams(JsonGenerator g, Collection<Table> tables) throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("tables");
        for (Table t : tables) {
            if (t.metadata().streams().isEmpty()) {
                continue;
            }
            g.writeStartObject();
            g.writeStringField("tableName", t.metadata().name());
            g.writeArrayFieldStart("streams");
            for (var d : t.metadata().streams()) {
                g.writeStartObject();
                g.writeStringField("streamLabel", d.label());
                g.writeStringField("streamStatus", d.enabled() ? "ENABLED" : "DISABLED");
                g.writeStringField("streamViewType", d.viewType());
                g.writeArrayFieldStart("shards");
                var ages = storage.streams().readerAges(t, d);
                for (var s : storage.streams().shards(t, d)) {
                    g.writeStartObject();
                    g.writeStringField("partitionId", s.shard().partitionId());
                    g.writeBooleanField("closed", s.closed());
                    var age = ages.get(s.shard().partitionId());
                    if (age != null) {
                        g.writeNumberField("iteratorAgeMillis", age.ageMillis());
                        g.writeNumberField("lastReadAtMillis", age.readAtMillis());
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** POST creates a mapping of a table's stream to a URL; DELETE removes one. */
    private Answer mapping(String method, String query) {
        if (method.equals("DELETE")) {
            return mappings.delete(parameter(query, "id"))
                    ? json(g -> mappings(g, mappings.all()))
                    : error(404, "no event-source mapping " + parameter(query, "id"));
        }
        if (!method.equals("POST")) {
            return new Answer(405, "text/plain; charset=utf-8", bytes("Method not allowed\n"));
        }
        String name = parameter(query, "table");
        Table t = name == null ? null : storage.tables().find(name);
        if (t == null) {
            return error(404, "no table " + name);
        }
        String url = parameter(query, "url");
        if (url == null || !(url.startsWith("http://") || url.startsWith("https://"))) {
            return error(400, "url must be an http or https URL");
        }
        io.partita.server.op.stream.EventSourceMappings.Settings settings;
        try {
            settings = new io.partita.server.op.stream.EventSourceMappings.Settings(
                    url,
                    bounded(parameter(query, "batchSize"), 100, 1, 10_000),
                    bounded(parameter(query, "batchWindowMillis"), 0, 0, 300_000),
                    bounded(parameter(query, "maximumRetryAttempts"), 2, 0, 10_000),
                    !"false".equals(parameter(query, "bisect")),
                    parameter(query, "onFailure"));
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
        try {
            var m = mappings.create(t, settings);
            return json(g -> mappings(g, List.of(m)));
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
    }

    private static int bounded(String value, int otherwise, int min, int max) {
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value);
            if (n < min || n > max) {
                throw new IllegalArgumentException(value + " is not between " + min + " and " + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a whole number: " + value);
        }
    }

    private static void mappings(
            JsonGenerator g, java.util.Collection<io.partita.server.op.stream.EventSourceMappings.Mapping> all)
            throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("eventSourceMappings");
        for (var m : all) {
            g.writeStartObject();
            g.writeStringField("id", m.id());
            g.writeStringField("tableName", m.table().metadata().name());
            g.writeStringField("url", m.settings().url());
            g.writeNumberField("batchSize", m.settings().batchSize());
            g.writeNumberField("batchWindowMillis", m.settings().batchWindowMillis());
            g.writeNumberField("maximumRetryAttempts", m.settings().maximumRetryAttempts());
            g.writeBooleanField("bisectBatchOnFunctionError", m.settings().bisectBatchOnFunctionError());
            if (m.settings().onFailure() != null) {
                g.writeStringField("onFailure", m.settings().onFailure());
            }
            g.writeNumberField("deliveredRecords", m.delivered());
            g.writeNumberField("failedRecords", m.failed());
            g.writeNumberField("iteratorAgeMillis", m.iteratorAgeMillis());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** Each table's TTL: its attribute, the items the reaper deleted, and how late after expiry it deleted them. */
    private void ttl(JsonGenerator g, Collection<Table> tables) throws IOException {
        g.writeStartObject();
        g.writeNumberField("delayMillis", storage.ttl().delayMillis());
        g.writeArrayFieldStart("tables");
        for (Table t : tables) {
            var settings = t.metadata().ttl();
            if (settings == null) {
                continue;
            }
            g.writeStartObject();
            g.writeStringField("tableName", t.metadata().name());
            g.writeStringField("attributeName", settings.attributeName());
            g.writeStringField("timeToLiveStatus", settings.enabled() ? "ENABLED" : "DISABLED");
            g.writeNumberField(
                    "timeToLiveDeletedItemCount",
                    storage.ttl().deletedCount(t.metadata().id()));
            var late = storage.ttl().lateness(t.metadata().id());
            if (late != null) {
                g.writeNumberField("deletedAfterExpiryP50Millis", late.getValueAtPercentile(50));
                g.writeNumberField("deletedAfterExpiryP99Millis", late.getValueAtPercentile(99));
                g.writeNumberField("deletedAfterExpiryMaxMillis", late.getMaxValue());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void insights(JsonGenerator g, Collection<Table> tables) throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("tables");
        for (Table t : tables) {
            TableThroughput tt = t.partitions().throughput();
            g.writeStartObject();
            g.writeStringField("tableName", t.metadata().name());
            g.writeStringField(
                    "contributorInsightsStatus",
                    t.metadata().contributorInsightsMode() == null ? "DISABLED" : "ENABLED");
            if (t.metadata().contributorInsightsMode() != null) {
                g.writeStringField("contributorInsightsMode", t.metadata().contributorInsightsMode());
                if (!"THROTTLED_KEYS".equals(t.metadata().contributorInsightsMode())) {
                    contributors(g, "mostAccessedKeys", tt.accessedKeys());
                }
                contributors(g, "mostThrottledKeys", tt.throttledKeys());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void contributors(JsonGenerator g, String field, HotKeyTracker tracker) throws IOException {
        g.writeArrayFieldStart(field);
        for (HotKeyTracker.Contributor c : tracker.top(10)) {
            g.writeStartObject();
            g.writeStringField("key", c.key());
            g.writeNumberField("count", c.estimate());
            g.writeNumberField("maxError", c.maxError());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** Table names are [a-zA-Z0-9_.-]; escaping is for safety only. */
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String hex(long v) {
        return String.format("%016x", v);
    }

    /** A query string that cannot be decoded: the caller's mistake, answered 400. */
    static final class BadQuery extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadQuery(String message) {
            super(message, null, false, false);
        }
    }

    static String parameter(String query, String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) {
                try {
                    return java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    throw new BadQuery("malformed query parameter " + name + ": " + e.getMessage());
                }
            }
        }
        return null;
    }

    @FunctionalInterface
    interface Writer {
        void write(JsonGenerator g) throws IOException;
    }

    static Answer json(Writer w) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = DynamoJson.factory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            w.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Answer(200, JSON, out.toByteArray());
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
