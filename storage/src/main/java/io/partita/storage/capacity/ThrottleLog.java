package io.partita.storage.capacity;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Throttling you cannot miss: the AWS SDKs retry a throttled request without a word, so a test that hammers one key
 * only sees slower calls. The first throttle of a table is logged at WARN with its partition, key and reason and where
 * to look; after that at most one line a minute sums up what was throttled since. Only the throttled path comes here,
 * and {@link #flush}, which a background task calls every few seconds so that the last burst is summed up too.
 */
public final class ThrottleLog {
    private static final Logger log = LoggerFactory.getLogger("io.partita.throttling");
    static final long SUMMARY_MILLIS = 60_000;

    private final String table;
    private final Consumer<String> sink;
    private boolean logged;
    private long windowStart;
    private long since;
    private String lastPartition;
    private String lastKey;
    private String lastReason;

    public ThrottleLog(String table) {
        this(table, log::warn);
    }

    ThrottleLog(String table, Consumer<String> sink) {
        this.table = table;
        this.sink = sink;
    }

    /**
     * A throttle event of {@code kind} on {@code partition}, for the key {@code key} gives.
     *
     * @param enforced false under {@code --throughput report}: the request went through, and is said to
     */
    public synchronized void record(
            String partition,
            Supplier<String> key,
            CapacityKind kind,
            List<String> reasons,
            long nowMillis,
            boolean enforced) {
        lastPartition = partition;
        lastKey = key.get();
        lastReason = String.join(", ", reasons);
        if (!logged) {
            logged = true;
            windowStart = nowMillis;
            sink.accept("table " + table + (enforced ? " throttled a " : " would have throttled a ")
                    + kind.name().toLowerCase(java.util.Locale.ROOT) + " on partition " + partition + " (key "
                    + lastKey + ": " + lastReason + "). The AWS SDKs retry throttled requests without a word, so this"
                    + " shows only as slower calls. See each partition's consumption in GET /admin/metrics?table="
                    + table + " or the console's Partitions page (/console/#/tables/" + table + "/partitions);"
                    + " --throughput report|off changes the enforcement. Further throttles of this table are summed"
                    + " up at most once a minute.");
            return;
        }
        since++;
        summarise(nowMillis);
    }

    /** Sums up the throttles since the last line once a minute has passed, if there were any. */
    public synchronized void flush(long nowMillis) {
        if (since > 0) {
            summarise(nowMillis);
        }
    }

    private void summarise(long nowMillis) {
        if (nowMillis - windowStart >= SUMMARY_MILLIS) {
            sink.accept("table " + table + ": " + since + " more throttle events in the last "
                    + (nowMillis - windowStart) / 1000 + " s (the last on partition " + lastPartition + ", key "
                    + lastKey + ": " + lastReason + ")");
            windowStart = nowMillis;
            since = 0;
        }
    }
}
