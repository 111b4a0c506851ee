package io.partita.storage.stream;

import io.partita.protocol.error.ApiException;
import io.partita.storage.feed.ChangeFeed;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.feed.FeedConsumer;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB Streams on the change feed. A stream is a feed consumer with a 24-hour retention that never moves: its
 * position in each shard is where the stream began, so a shard's stream records are the feed's records after it,
 * kept 24 hours whether read or not ("DynamoDB Streams ... stores this information in a log for up to 24 hours").
 * Stream shards are the feed's shards, so they follow partitions: a split closes a shard and its children name it as
 * their parent. A disabled stream remembers each shard's last number that belongs to it and stays readable for 24
 * hours; enabling again makes a new stream with a new label (and ARN).
 */
public final class TableStreams {
    public static final Duration RETENTION = Duration.ofHours(24);
    private static final DateTimeFormatter LABEL =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private final ChangeFeed feed;
    private final TableCatalog catalog;
    private final Clock clock;
    /** Per stream ARN-ish key (table id / label / partition), the last read's iterator age. */
    private final Map<String, ReaderAge> ages = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * How far behind the last GetRecords of a shard was (Lambda's {@code IteratorAge}: the age of the last record it
     * returned, 0 when it returned the newest), and when that read was.
     */
    public record ReaderAge(long ageMillis, long readAtMillis) {}

    private final java.util.concurrent.ScheduledExecutorService expiry =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    io.partita.storage.BackgroundThreads.named("partita-stream-expiry"));

    public TableStreams(ChangeFeed feed, TableCatalog catalog, Clock clock) {
        this(feed, catalog, clock, true);
    }

    /**
     * With {@code maintain} false (a cluster follower's reader, which changes nothing) it neither removes orphaned
     * consumers nor expires disabled streams.
     */
    public TableStreams(ChangeFeed feed, TableCatalog catalog, Clock clock, boolean maintain) {
        this.feed = feed;
        this.catalog = catalog;
        this.clock = clock;
        if (!maintain) {
            return;
        }
        for (Table t : catalog.snapshot().values()) {
            // A crash between registering a new stream's consumer and storing the stream leaves a consumer of nothing.
            for (FeedConsumer c : t.feed().consumers()) {
                if (c.name().startsWith("stream:")
                        && t.metadata().stream(c.name().substring("stream:".length())) == null) {
                    feed.unregister(t, c.name());
                }
            }
        }
        expiry.scheduleWithFixedDelay(this::expireAll, 60, 60, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Forgets every table's streams disabled over 24 hours ago, so their consumers stop keeping records. */
    public void expireAll() {
        for (Table t : catalog.snapshot().values()) {
            try {
                expire(t);
            } catch (RuntimeException e) {
                // A table deleted meanwhile has nothing to expire; others are tried again at the next pass.
            }
        }
    }

    /** Stops the periodic expiry. */
    public void close() {
        io.partita.storage.BackgroundThreads.stop(expiry);
    }

    /** Enables a new stream of {@code viewType} on {@code t}: it holds every change committed from now on. */
    public StreamDefinition enable(Table t, String viewType) {
        return enable(t, viewType, null);
    }

    /**
     * Enables a new stream of {@code viewType} on {@code t} labelled {@code given}, a label of DynamoDB's form that
     * another store gave the same table's stream (a cluster's table cut by hash ranges, whose every group's stream is
     * one stream: docs/CLUSTER.md); null, or a label of another form or one the table has had, for one of now.
     */
    public synchronized StreamDefinition enable(Table t, String viewType, String given) {
        if (t.metadata().stream() != null) {
            // Checked again here: two UpdateTables may both have found no stream.
            throw ApiException.validation("Table already has an enabled stream: TableName: "
                    + t.metadata().name());
        }
        Long at = given == null || t.metadata().stream(given) != null ? null : labelMillis(given);
        long now = at != null ? at : clock.millis();
        String label = LABEL.format(Instant.ofEpochMilli(now));
        while (t.metadata().stream(label) != null) {
            now++;
            label = LABEL.format(Instant.ofEpochMilli(now));
        }
        StreamDefinition d = new StreamDefinition(label, viewType, now, null, Map.of());
        feed.register(t, d.consumerName(), RETENTION);
        try {
            catalog.update(t.metadata().name(), m -> {
                // Under the catalog's lock: a move of a range of a table cut by ranges, which gives up on a table with
                // a stream, may have begun since the request was checked.
                io.partita.storage.table.HashRange.requireNotMoving(m);
                List<StreamDefinition> next = new ArrayList<>(m.streams());
                next.add(d);
                return m.withStreams(next);
            });
        } catch (RuntimeException e) {
            feed.unregister(t, d.consumerName());
            throw e;
        }
        return d;
    }

    /** The time label {@code label} names, or null when it is not a label of DynamoDB's form. */
    private static Long labelMillis(String label) {
        try {
            Instant at = Instant.from(LABEL.parse(label));
            return LABEL.format(at).equals(label) ? at.toEpochMilli() : null;
        } catch (java.time.DateTimeException e) {
            return null;
        }
    }

    /** Disables the table's stream: it keeps the changes made until now and stays readable for 24 hours. */
    public synchronized StreamDefinition disable(Table t) {
        StreamDefinition current = t.metadata().stream();
        if (current == null) {
            return null;
        }
        Map<String, Long> ends = new HashMap<>();
        for (FeedShard s : feed.shards(t)) {
            ends.put(s.partitionId(), s.lastAssigned());
        }
        StreamDefinition disabled = current.disabled(clock.millis(), ends);
        catalog.update(t.metadata().name(), m -> {
            List<StreamDefinition> next = new ArrayList<>();
            for (StreamDefinition d : m.streams()) {
                next.add(d.label().equals(current.label()) ? disabled : d);
            }
            return m.withStreams(next);
        });
        return disabled;
    }

    /** Forgets the table's streams disabled more than 24 hours ago: their records are gone. */
    public synchronized void expire(Table t) {
        long now = clock.millis();
        List<StreamDefinition> gone = new ArrayList<>();
        for (StreamDefinition d : t.metadata().streams()) {
            if (!d.enabled() && d.disabledMillis() + RETENTION.toMillis() <= now) {
                gone.add(d);
            }
        }
        if (gone.isEmpty()) {
            return;
        }
        for (StreamDefinition d : gone) {
            feed.unregister(t, d.consumerName());
        }
        catalog.update(t.metadata().name(), m -> {
            List<StreamDefinition> next = new ArrayList<>(m.streams());
            next.removeIf(d -> gone.stream().anyMatch(g -> g.label().equals(d.label())));
            return m.withStreams(next);
        });
    }

    /**
     * One shard of a stream: its feed shard, the number its records start after, and its last number once it is
     * closed (a split, or the stream disabled), else -1.
     */
    public record StreamShard(FeedShard shard, long startAfter, long end) {
        public boolean closed() {
            return end >= 0;
        }
    }

    /** The stream's shards, oldest first: those of the feed that hold or will hold records of the stream. */
    public List<StreamShard> shards(Table t, StreamDefinition d) {
        FeedConsumer c = t.feed().consumer(d.consumerName());
        List<StreamShard> out = new ArrayList<>();
        if (c == null) {
            return out;
        }
        for (FeedShard s : feed.shards(t)) {
            long start = c.position(s);
            long end;
            if (!d.enabled()) {
                Long e = d.ends().get(s.partitionId());
                if (e == null) {
                    continue; // born after the stream was disabled: nothing of it
                }
                end = e;
            } else {
                end = s.closed() ? s.lastAssigned() : -1;
            }
            // A closed shard without records of the stream is listed too: a reader holding an iterator on it finds
            // it read to its end, as DynamoDB answers, rather than gone.
            out.add(new StreamShard(s, start, end < 0 ? -1 : Math.max(end, start)));
        }
        return out;
    }

    /** Records how far behind a read of {@code s} was: the age of its last record, or 0 if nothing newer is visible. */
    public void readerAt(Table t, StreamDefinition d, StreamShard s, ChangeRecord last, boolean caughtUp) {
        long now = clock.millis();
        long age = caughtUp || last == null ? 0 : Math.max(0, now - last.timeMillis());
        ages.put(ageKey(t, d, s.shard().partitionId()), new ReaderAge(age, now));
    }

    /** The last read's iterator age of each shard of the stream that has been read, by partition id. */
    public Map<String, ReaderAge> readerAges(Table t, StreamDefinition d) {
        Map<String, ReaderAge> out = new java.util.TreeMap<>();
        String prefix = ageKey(t, d, "");
        ages.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    private static String ageKey(Table t, StreamDefinition d, String partitionId) {
        return t.metadata().id() + "/" + d.label() + "/" + partitionId;
    }

    /** What a read found: the records, and whether the shard has nothing more to give (closed and read to its end). */
    public record Read(List<ChangeRecord> records, boolean exhausted) {}

    /**
     * Up to {@code limit} records of the stream's shard after number {@code after}. A position the trim has passed
     * (records kept 24 hours) is DynamoDB's TrimmedDataAccessException.
     */
    public Read read(Table t, StreamShard s, long after, int limit) {
        FeedShard shard = s.shard();
        long from = Math.max(after, s.startAfter());
        if (from < shard.floor()) {
            throw new ApiException(
                    io.partita.protocol.error.ErrorCode.TRIMMED_DATA_ACCESS,
                    "The data you are trying to access has been trimmed");
        }
        List<ChangeRecord> page = feed.read(t, shard, from, limit);
        if (from < shard.floor()) {
            // Trimmed while it was read: what it skipped is gone, which the reader must be told.
            throw new ApiException(
                    io.partita.protocol.error.ErrorCode.TRIMMED_DATA_ACCESS,
                    "The data you are trying to access has been trimmed");
        }
        List<ChangeRecord> out = new ArrayList<>(page.size());
        for (ChangeRecord r : page) {
            if (s.closed() && r.sequence() > s.end()) {
                break;
            }
            out.add(r);
        }
        long last = out.isEmpty() ? from : out.get(out.size() - 1).sequence();
        boolean exhausted = s.closed()
                && out.size() < limit
                && (last >= s.end()
                        || (shard.visible() - 1 >= s.end()
                                && feed.read(t, shard, last, 1).stream().noneMatch(r -> r.sequence() <= s.end())));
        return new Read(out, exhausted);
    }
}
