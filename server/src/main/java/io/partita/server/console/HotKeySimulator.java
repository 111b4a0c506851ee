package io.partita.server.console;

import io.partita.protocol.model.AttributeValue;
import io.partita.server.auth.Credentials;
import io.partita.server.route.ApiRequest;
import io.partita.server.route.ApiResponse;
import io.partita.server.route.Dispatcher;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's hot-key simulator: a fixed total write load on a provisioned table, of which a share that the user
 * moves goes to one partition key. The load is real: each write is a PutItem through the {@link Dispatcher}, the
 * path every HTTP request takes after decoding, so it is admitted, charged and throttled by the same partitions the
 * console's heat map shows.
 *
 * <p>One simulation runs at a time, on its own thread, in an open loop: requests are issued at the offered rate
 * whatever the answers, as independent clients would, so throttled requests are not retried and the load stays
 * fixed. Its table is its own: created by {@link #start} (and recreated by the next start), never a user's table.
 */
public final class HotKeySimulator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HotKeySimulator.class);
    private static final String PUT = "DynamoDB_20120810.PutItem";
    private static final String JSON = "application/x-amz-json-1.0";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");
    /** The write ceiling of one partition, DynamoDB's hard limit whatever the table provisions. */
    public static final double WRITE_CEILING = 1000;

    public static final String HOT_KEY = "tenant-hot";

    /** What the user chose; every field is checked by {@link #check}. */
    public record Settings(String table, long writeCapacityUnits, double offeredUnits, int itemKb, double share) {
        /** The write units one PutItem of the simulator's items costs. */
        public int unitsPerRequest() {
            return itemKb;
        }

        Settings withShare(double s) {
            return new Settings(table, writeCapacityUnits, offeredUnits, itemKb, s);
        }

        /** Refuses what the simulator cannot run; DynamoDB's own limits apply to the table it creates. */
        public Settings check() {
            if (table == null || !table.matches("[a-zA-Z0-9_.-]{3,255}")) {
                throw new IllegalArgumentException("table must be 3 to 255 of a-z, A-Z, 0-9, '_', '-' and '.'");
            }
            if (writeCapacityUnits < 1 || writeCapacityUnits > 40_000) {
                throw new IllegalArgumentException("wcu must be between 1 and 40000");
            }
            if (!(offeredUnits > 0) || offeredUnits > writeCapacityUnits) {
                throw new IllegalArgumentException(
                        "offered must be above 0 and at most wcu: the simulator shows a hot partition throttled"
                                + " while the table is under what it provisions");
            }
            if (itemKb < 1 || itemKb > 64) {
                throw new IllegalArgumentException("itemKb must be between 1 and 64");
            }
            checkShare(share);
            return this;
        }
    }

    /** A running simulation's counters; cumulative, as the admin metrics are. */
    public record Status(
            Settings settings,
            boolean running,
            long sent,
            long succeeded,
            long throttled,
            long failed,
            String lastError,
            String hotPartitionId,
            int partitionCount,
            double hotWidth) {
        public HotKeyPrediction prediction() {
            return new HotKeyPrediction(settings.offeredUnits(), hotWidth, WRITE_CEILING);
        }
    }

    private final StorageEngine storage;
    private final Dispatcher dispatcher;
    private final String region;
    /** The simulator's requests are the server's own: made as this caller, their signature not checked. */
    private final Credentials caller;

    private final Set<String> ownTables = new HashSet<>();
    private Run run;
    private Settings last;

    /** @param account the account whose tables it writes to (its console's caller's) */
    public HotKeySimulator(StorageEngine storage, Dispatcher dispatcher, String region, String account) {
        this.storage = storage;
        this.dispatcher = dispatcher;
        this.region = region;
        this.caller = new Credentials("console", region, account);
    }

    static void checkShare(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be between 0 and 1");
        }
    }

    /**
     * Stops any running simulation, (re)creates the table and starts the load. A table of that name that the
     * simulator did not create is left alone and refused.
     */
    public synchronized Status start(Settings settings) {
        settings.check();
        stopRun();
        Table existing = storage.tables().find(settings.table());
        if (existing != null && !ownTables.contains(settings.table())) {
            throw new IllegalStateException(
                    "table " + settings.table() + " exists and is not the simulator's;" + " choose another name");
        }
        if (existing != null) {
            call("DeleteTable", "{\"TableName\":\"" + settings.table() + "\"}");
        }
        long rcu = 1;
        call(
                "CreateTable",
                "{\"TableName\":\"" + settings.table() + "\",\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
                        + "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
                        + "\"BillingMode\":\"PROVISIONED\",\"ProvisionedThroughput\":{\"ReadCapacityUnits\":" + rcu
                        + ",\"WriteCapacityUnits\":" + settings.writeCapacityUnits() + "}}");
        ownTables.add(settings.table());
        last = settings;
        run = new Run(settings);
        run.thread.start();
        return status();
    }

    /** Moves the hot key's share of the requests (0..1) of the running simulation. */
    public synchronized Status share(double share) {
        checkShare(share);
        if (run == null) {
            throw new IllegalStateException("no simulation is running");
        }
        run.settings = run.settings.withShare(share);
        last = run.settings;
        return status();
    }

    /** Stops the load; the table and its metrics stay for looking at. */
    public synchronized Status stop() {
        stopRun();
        return status();
    }

    /** The simulation's counters and the hot partition as the table's partition map has it now; null before any. */
    public synchronized Status status() {
        Settings s = run != null ? run.settings : last;
        if (s == null) {
            return null;
        }
        Table t = storage.tables().find(s.table());
        String hotId = null;
        int count = 0;
        double width = 1;
        if (t != null) {
            long hash = ItemKeyEncoder.partitionHash(new AttributeValue.S(HOT_KEY));
            Partition p = t.partitions().map().partitionFor(hash);
            hotId = p.id();
            width = p.width();
            count = t.partitions().map().size();
        }
        Counters c = run != null ? run.counters : stoppedCounters;
        return new Status(
                s,
                run != null,
                c.sent.get(),
                c.succeeded.get(),
                c.throttled.get(),
                c.failed.get(),
                c.lastError,
                hotId,
                count,
                width);
    }

    private Counters stoppedCounters = new Counters();

    private void stopRun() {
        if (run == null) {
            return;
        }
        run.stopped = true;
        LockSupport.unpark(run.thread);
        try {
            run.thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stoppedCounters = run.counters;
        run = null;
    }

    @Override
    public synchronized void close() {
        stopRun();
    }

    private ApiResponse call(String operation, String body) {
        ApiResponse r = dispatcher.dispatchAs(request("DynamoDB_20120810." + operation, body), caller);
        if (r.status() != 200) {
            throw new IllegalStateException(operation + " failed: " + new String(r.body(), StandardCharsets.UTF_8));
        }
        return r;
    }

    private ApiRequest request(String target, String body) {
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(AMZ_DATE);
        // Dispatched as the server's own (dispatchAs): the header only has DynamoDB's shape.
        String auth = "AWS4-HMAC-SHA256 Credential=console/" + date.substring(0, 8) + "/" + region
                + "/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0";
        return new ApiRequest(target, auth, date, JSON, "localhost", body.getBytes(StandardCharsets.UTF_8));
    }

    private static final class Counters {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong succeeded = new AtomicLong();
        final AtomicLong throttled = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile String lastError;
    }

    /** One simulation's open loop. */
    private final class Run implements Runnable {
        final Thread thread;
        final Counters counters = new Counters();
        volatile Settings settings;
        volatile boolean stopped;

        Run(Settings settings) {
            this.settings = settings;
            this.thread = new Thread(this, "partita-hotkey-simulator");
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            SplittableRandom random = new SplittableRandom(42);
            String table = settings.table();
            // Items of itemKb KB: the key, and a padding attribute that brings the item to that size.
            String pad = "x".repeat(Math.max(1, settings.itemKb() * 1024 - 40));
            String hotBody = body(table, HOT_KEY, pad);
            long started = System.nanoTime();
            long issued = 0;
            while (!stopped) {
                Settings s = settings;
                double perSecond = s.offeredUnits() / s.unitsPerRequest();
                double elapsed = (System.nanoTime() - started) / 1e9;
                long due = (long) (elapsed * perSecond);
                if (issued >= due) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    continue;
                }
                // Behind by more than a second (a pause): skip ahead rather than burst to catch up.
                if (due - issued > perSecond) {
                    issued = due - (long) perSecond;
                }
                for (; issued < due && !stopped; issued++) {
                    String b = random.nextDouble() < s.share()
                            ? hotBody
                            : body(table, "tenant-" + random.nextInt(1_000_000), pad);
                    put(b);
                }
            }
        }

        private void put(String body) {
            counters.sent.incrementAndGet();
            ApiResponse r;
            try {
                r = dispatcher.dispatchAs(request(PUT, body), caller);
            } catch (RuntimeException e) {
                counters.failed.incrementAndGet();
                counters.lastError = e.toString();
                log.warn("hot-key simulator write failed", e);
                return;
            }
            if (r.status() == 200) {
                counters.succeeded.incrementAndGet();
                return;
            }
            String answer = new String(r.body(), StandardCharsets.UTF_8);
            if (answer.contains("ProvisionedThroughputExceededException")) {
                counters.throttled.incrementAndGet();
            } else {
                counters.failed.incrementAndGet();
                counters.lastError = answer;
            }
        }
    }

    private static String body(String table, String key, String pad) {
        return "{\"TableName\":\"" + table + "\",\"Item\":{\"pk\":{\"S\":\"" + key + "\"},\"pad\":{\"S\":\"" + pad
                + "\"}}}";
    }
}
