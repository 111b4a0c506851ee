package io.partita.bench.hotkey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.bench.load.HttpConnection;
import io.partita.bench.load.HttpConnection.Response;
import io.partita.bench.load.Workload.Bytes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Gets the table ready before the sweep: deletes it if it exists, creates it PROVISIONED, waits for ACTIVE and, for
 * reads, preloads the items the GetItems will ask for. Blocking calls from the caller's thread over one connection.
 */
final class TableSetup {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long WAIT_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final HttpConnection c;
    private final String table;
    private final PrintStream out;

    TableSetup(HttpConnection c, String table, PrintStream out) {
        this.c = c;
        this.table = table;
        this.out = out;
    }

    /** Deletes {@code table} if it exists, then creates it with the given throughput and waits until it is ACTIVE. */
    void recreate(long rcu, long wcu) throws InterruptedException {
        Response d = describe();
        if (d.ok()) {
            Response del = call("DeleteTable", nameOnly());
            if (!del.ok() && !"ResourceNotFoundException".equals(del.errorType())) {
                throw new IllegalStateException("DeleteTable failed: " + del.body());
            }
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (describe().ok()) {
                if (System.nanoTime() > deadline) throw new IllegalStateException(table + " still exists after 5 min");
                Thread.sleep(500);
            }
            out.println("deleted the existing table " + table);
        } else if (!"ResourceNotFoundException".equals(d.errorType())) {
            throw new IllegalStateException("DescribeTable failed: " + d.body());
        }
        Response cr = call("CreateTable", HotKeyRequests.createTableBody(table, rcu, wcu));
        if (!cr.ok()) throw new IllegalStateException("CreateTable failed: " + cr.body());
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!"ACTIVE".equals(status(describe()))) {
            if (System.nanoTime() > deadline) throw new IllegalStateException(table + " not ACTIVE after 5 min");
            Thread.sleep(500);
        }
        out.printf(Locale.ROOT, "created %s: PROVISIONED, %d RCU, %d WCU, ACTIVE%n", table, rcu, wcu);
    }

    /**
     * Writes the items reads will ask for with BatchWriteItem, paced at {@code unitsPerSecond} WCU so that it mostly
     * fits the table's provisioned rate; throttles and unprocessed items are retried with back-off.
     */
    void preload(HotKeyRequests requests, int writeUnitsPerItem, double unitsPerSecond) throws InterruptedException {
        long items = requests.preloadItems();
        long start = System.nanoTime();
        double batchNanos = 25 * writeUnitsPerItem * 1e9 / unitsPerSecond;
        Bytes body = new Bytes();
        long batch = 0;
        for (long from = 0; from < items; from += 25, batch++) {
            sleepUntil(start + (long) (batch * batchNanos));
            requests.batchWrite(from, Math.min(items, from + 25), body);
            writeAll(body);
        }
        out.printf(
                Locale.ROOT,
                "preloaded %,d items of %,d bytes in %.1f s%n",
                items,
                requests.itemBytes(),
                (System.nanoTime() - start) / 1e9);
    }

    private void writeAll(Bytes body) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            Response r = call("BatchWriteItem", body);
            if (r.ok()) {
                JsonNode unprocessed = json(r.body()).path("UnprocessedItems");
                if (unprocessed.isEmpty()) return;
                ObjectNode retry = JSON.createObjectNode();
                retry.set("RequestItems", unprocessed);
                body.clear();
                body.bytes(retry.toString().getBytes(StandardCharsets.UTF_8));
            } else if (!ClientCounts.isThrottle(r.errorType())) {
                throw new IllegalStateException("BatchWriteItem failed: " + r.body());
            }
            Thread.sleep(Math.min(1000, 20L << Math.min(attempt, 6)));
        }
    }

    private Response describe() {
        return call("DescribeTable", nameOnly());
    }

    private String nameOnly() {
        return "{\"TableName\":\"" + table + "\"}";
    }

    private static String status(Response describe) {
        if (!describe.ok()) throw new IllegalStateException("DescribeTable failed: " + describe.body());
        return json(describe.body()).path("Table").path("TableStatus").asText();
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable answer: " + body, e);
        }
    }

    private Response call(String target, String body) {
        return call(target, new Bytes().ascii(body));
    }

    /** One request from a thread that is not the connection's event loop, waiting for the answer. */
    private Response call(String target, Bytes body) {
        return CompletableFuture.supplyAsync(() -> c.send(target, body, true), c.loop())
                .thenCompose(f -> f)
                .orTimeout(60, TimeUnit.SECONDS)
                .join();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left; (left = nanoTime - System.nanoTime()) > 0; ) TimeUnit.NANOSECONDS.sleep(left);
    }
}
