package io.partita.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.bench.load.HttpConnection.Response;
import io.partita.bench.load.Workload.Op;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A load generator for any DynamoDB endpoint: Partita, real DynamoDB, another emulator. It speaks the JSON protocol
 * over HTTP/1.1 keep-alive with real SigV4 signatures, from a lean Netty client (raw request bytes, bodies written
 * without a JSON library), so that on a small machine it measures the server rather than itself.
 *
 * <p>Closed loop by default (each connection sends its next request when the previous answer arrives). With
 * {@code --rate} it runs open loop, wrk2-style: each connection has a schedule of intended send times and latency is
 * measured from the intended time, so a stalled server is charged for the requests it delayed (no coordinated
 * omission).
 */
@Command(
        name = "LoadGenerator",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description =
                "DynamoDB load generator: java -cp partita-bench.jar io.partita.bench.load.LoadGenerator [options]")
public final class LoadGenerator implements Callable<Integer> {
    /** Errors that mean "slow down" rather than "wrong": counted as throttles, not errors. */
    static final Set<String> THROTTLES =
            Set.of("ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded");

    @Option(names = "--endpoint", description = "http(s) endpoint (default: ${DEFAULT-VALUE})")
    String endpoint = "http://localhost:8000";

    @Option(names = "--region", description = "signing region (default: $AWS_REGION, else us-east-1)")
    String region;

    @Option(names = "--access-key", description = "default: $AWS_ACCESS_KEY_ID, else 'local'")
    String accessKey;

    @Option(names = "--secret-key", description = "default: $AWS_SECRET_ACCESS_KEY, else 'local'")
    String secretKey;

    @Option(names = "--session-token", description = "default: $AWS_SESSION_TOKEN")
    String sessionToken;

    @Option(names = "--table", description = "table name (default: ${DEFAULT-VALUE})")
    String table = "partita-bench";

    @Option(names = "--create", description = "create the table (if absent) and preload --items items")
    boolean create;

    @Option(
            names = "--provisioned",
            split = ",",
            description = "with --create: a provisioned table of RCU,WCU (default: on demand)")
    long[] provisioned;

    @Option(
            names = "--gsis",
            description = "with --create: that many GSIs (KEYS_ONLY, keyed by g0, g1, …; each put moves the item in"
                    + " each) (default: ${DEFAULT-VALUE})")
    int gsis;

    @Option(
            names = "--stream",
            description = "with --create: a stream of this view type (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE,"
                    + " NEW_AND_OLD_IMAGES)")
    String stream;

    @Option(names = "--items", description = "items in the table (default: ${DEFAULT-VALUE})")
    long items = 10_000;

    @Option(names = "--item-size", description = "item size in bytes as DynamoDB counts it (default: ${DEFAULT-VALUE})")
    int itemSize = 1024;

    @Option(names = "--range-key", description = "hash+range table: partitions of --items-per-partition items")
    boolean rangeKey;

    @Option(names = "--items-per-partition", description = "with --range-key (default: ${DEFAULT-VALUE})")
    int perPartition = 100;

    @Option(
            names = "--workload",
            description =
                    "get|cget (consistent)|put|update|query10|query100|scan|batchget|batchwrite|tx2|tx10|tx100|select|mix (default: ${DEFAULT-VALUE})")
    String workload = "get";

    @Option(names = "--connections", description = "keep-alive connections (default: ${DEFAULT-VALUE})")
    int connections = 8;

    @Option(names = "--threads", description = "client event-loop threads (default: min(cores, connections))")
    Integer threads;

    @Option(names = "--duration", description = "measured seconds (default: ${DEFAULT-VALUE})")
    double duration = 10;

    @Option(names = "--warmup", description = "unmeasured seconds before (default: ${DEFAULT-VALUE})")
    double warmup = 2;

    @Option(names = "--rate", description = "open loop at this many ops/s in total (default: closed loop)")
    Double rate;

    @Option(names = "--seed", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--server-pid", description = "also report this local process's CPU time per operation")
    Long serverPid;

    /** What a run measured. Latencies are in nanoseconds. */
    public record Result(
            long ops,
            double seconds,
            Map<Op, Histogram> latency,
            Histogram all,
            Map<String, Long> errors,
            Map<String, Long> throttles,
            long unfinished,
            double clientCpuMicrosPerOp,
            double serverCpuMicrosPerOp) {
        public double throughput() {
            return ops / seconds;
        }

        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }

        public long throttleCount() {
            return throttles.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    public static void main(String[] args) {
        // As the server does (Main): sampled leak detection records a stack trace per 128 buffers, 1.7 % of the
        // open-loop generator's CPU in a profile.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        System.exit(new CommandLine(new LoadGenerator()).execute(args));
    }

    /** Parses {@code args} and runs, printing the report to {@code out}; for tests and scripts. */
    public static Result run(PrintStream out, String... args) throws Exception {
        LoadGenerator g = CommandLine.populateCommand(new LoadGenerator(), args);
        return g.execute(out);
    }

    @Override
    public Integer call() throws Exception {
        Result r = execute(System.out);
        return r.errorCount() == 0 && r.unfinished() == 0 ? 0 : 1;
    }

    Result execute(PrintStream out) throws Exception {
        if (!workload.equals("mix")) Op.valueOf(workload.toUpperCase(Locale.ROOT)); // fail fast on a typo
        if (workload.startsWith("query") && !rangeKey) {
            out.println("note: query on a hash-only table reads one item per partition; use --range-key");
        }
        HttpConnection.Endpoint ep = HttpConnection.Endpoint.parse(endpoint);
        SigV4.Credentials creds = credentials();
        Workload w =
                new Workload(table, items, itemSize, rangeKey, perPartition, workload, seed).gsis(gsis).stream(stream);
        int loops = threads != null ? threads : Math.min(Runtime.getRuntime().availableProcessors(), connections);
        try (HttpConnection.Transport transport = new HttpConnection.Transport(ep, creds, loops)) {
            List<HttpConnection> conns = new ArrayList<>();
            for (int i = 0; i < connections; i++) conns.add(transport.connect());
            if (create) setUp(w, conns, out);
            Result r = measure(w, conns, out);
            conns.forEach(HttpConnection::close);
            report(w, r, out);
            return r;
        }
    }

    private SigV4.Credentials credentials() {
        String env = System.getenv("AWS_REGION");
        String reg = region != null ? region : env != null ? env : "us-east-1";
        String ak = accessKey != null ? accessKey : System.getenv("AWS_ACCESS_KEY_ID");
        String sk = secretKey != null ? secretKey : System.getenv("AWS_SECRET_ACCESS_KEY");
        String token = sessionToken != null ? sessionToken : System.getenv("AWS_SESSION_TOKEN");
        if (ak == null || sk == null) {
            if (endpoint.contains("amazonaws.com")) {
                throw new IllegalArgumentException(
                        "real DynamoDB needs credentials: --access-key/--secret-key or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY");
            }
            ak = "local";
            sk = "local";
        }
        return new SigV4.Credentials(ak, sk, token, reg);
    }

    // ---------------------------------------------------------------- set-up

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request from a non-event-loop thread, waiting for the answer. */
    private static Response call(HttpConnection c, String target, String body) {
        Workload.Bytes b = new Workload.Bytes().ascii(body);
        return call(c, target, b);
    }

    private static Response call(HttpConnection c, String target, Workload.Bytes body) {
        return CompletableFuture.supplyAsync(() -> c.send(target, body, true), c.loop())
                .thenCompose(f -> f)
                .orTimeout(60, TimeUnit.SECONDS)
                .join();
    }

    private void setUp(Workload w, List<HttpConnection> conns, PrintStream out) throws Exception {
        HttpConnection c0 = conns.get(0);
        Response r = call(
                c0,
                "CreateTable",
                provisioned != null && provisioned.length == 2
                        ? w.createTableBody(provisioned[0], provisioned[1])
                        : w.createTableBody());
        if (r.ok()) {
            out.println("created table " + table);
        } else if ("ResourceInUseException".equals(r.errorType())) {
            out.println("table " + table + " exists; reusing it (its key schema must match --range-key)");
        } else {
            throw new IllegalStateException("CreateTable failed: " + r.body());
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (true) {
            Response d = call(c0, "DescribeTable", "{\"TableName\":\"" + table + "\"}");
            if (!d.ok()) throw new IllegalStateException("DescribeTable failed: " + d.body());
            if ("ACTIVE"
                    .equals(JSON.readTree(d.body())
                            .path("Table")
                            .path("TableStatus")
                            .asText())) break;
            if (System.nanoTime() > deadline) throw new IllegalStateException("table not ACTIVE after 5 minutes");
            Thread.sleep(1000);
        }
        // Preload with BatchWriteItem, 25 items a call, all connections in parallel; unprocessed items and throttles
        // are retried with a short back-off, as real DynamoDB returns both while a new on-demand table scales.
        long start = System.nanoTime();
        AtomicLong cursor = new AtomicLong();
        List<CompletableFuture<Void>> loaders = new ArrayList<>();
        for (HttpConnection c : conns) {
            loaders.add(CompletableFuture.runAsync(() -> {
                Workload.Bytes body = new Workload.Bytes();
                for (long from; (from = cursor.getAndAdd(25)) < items; ) {
                    w.batchWrite(from, Math.min(items, from + 25), body);
                    preloadBatch(c, body);
                }
            }));
        }
        CompletableFuture.allOf(loaders.toArray(CompletableFuture[]::new)).join();
        double s = (System.nanoTime() - start) / 1e9;
        out.printf(
                Locale.ROOT,
                "preloaded %,d items of %d bytes in %.1f s (%,.0f items/s)%n",
                items,
                itemSize,
                s,
                items / s);
    }

    private static void preloadBatch(HttpConnection c, Workload.Bytes body) {
        for (int attempt = 0; ; attempt++) {
            Response r = call(c, "BatchWriteItem", body);
            if (r.ok()) {
                JsonNode unprocessed;
                try {
                    unprocessed = JSON.readTree(r.body()).path("UnprocessedItems");
                } catch (Exception e) {
                    throw new IllegalStateException("unreadable BatchWriteItem answer: " + r.body(), e);
                }
                if (unprocessed.isEmpty()) return;
                ObjectNode retry = JSON.createObjectNode();
                retry.set("RequestItems", unprocessed);
                body.clear();
                body.bytes(retry.toString().getBytes(StandardCharsets.UTF_8));
            } else if (!THROTTLES.contains(r.errorType())) {
                throw new IllegalStateException("BatchWriteItem failed: " + r.body());
            }
            sleep(Math.min(1000, 20L << Math.min(attempt, 6)));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        }
    }

    // ---------------------------------------------------------------- measurement

    private Result measure(Workload w, List<HttpConnection> conns, PrintStream out) throws Exception {
        out.printf(
                Locale.ROOT,
                "running %s on %s: %d connections, %s, %.0f s warm-up + %.0f s%n",
                workload,
                endpoint,
                connections,
                rate == null ? "closed loop" : String.format(Locale.ROOT, "open loop at %,.0f ops/s", rate),
                warmup,
                duration);
        long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long measureStart = t0 + (long) (warmup * 1e9);
        long end = measureStart + (long) (duration * 1e9);
        CountDownLatch finished = new CountDownLatch(conns.size());
        List<Driver> drivers = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int i = 0; i < conns.size(); i++) {
            long interval = rate == null ? 0 : (long) (conns.size() * 1e9 / rate);
            long first = rate == null ? t0 : t0 + (long) (i * 1e9 / rate);
            Driver d = new Driver(w, conns.get(i), seeds.split(), interval, first, measureStart, end, finished);
            drivers.add(d);
            d.conn.loop().schedule(d::next, Math.max(0, t0 - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        sleepUntil(measureStart);
        long clientCpu0 = processCpuNanos();
        long serverCpu0 = serverPid == null ? 0 : procCpuNanos(serverPid);
        sleepUntil(end);
        long clientCpu1 = processCpuNanos();
        long serverCpu1 = serverPid == null ? 0 : procCpuNanos(serverPid);
        finished.await(10, TimeUnit.SECONDS);

        Map<Op, Histogram> latency = new EnumMap<>(Op.class);
        Histogram all = newHistogram();
        Map<String, Long> errors = new TreeMap<>();
        Map<String, Long> throttles = new TreeMap<>();
        for (Driver d : drivers) {
            d.loop.submit(() -> null).get(); // the driver's fields are written on its loop
            for (Op op : Op.values()) {
                Histogram h = d.latency[op.ordinal()];
                if (h == null) continue;
                latency.computeIfAbsent(op, x -> newHistogram()).add(h);
                all.add(h);
            }
            d.errors.forEach((k, v) -> errors.merge(k, v[0], Long::sum));
            d.throttles.forEach((k, v) -> throttles.merge(k, v[0], Long::sum));
        }
        long unfinished = finished.getCount();
        long ops = all.getTotalCount();
        double clientPerOp = ops == 0 ? 0 : (clientCpu1 - clientCpu0) / 1e3 / ops;
        double serverPerOp = serverPid == null || ops == 0 ? Double.NaN : (serverCpu1 - serverCpu0) / 1e3 / ops;
        return new Result(ops, duration, latency, all, errors, throttles, unfinished, clientPerOp, serverPerOp);
    }

    static Histogram newHistogram() {
        // 1 µs to 10 minutes at 3 significant digits: about 200 KB per histogram.
        return new Histogram(1_000, TimeUnit.MINUTES.toNanos(10), 3);
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left; (left = nanoTime - System.nanoTime()) > 0; ) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** utime + stime of a local process from /proc, in nanoseconds (clock ticks assumed to be 100 Hz). */
    static long procCpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ", field 3 (state) is f[0]; utime is field 14 → f[11], stime field 15 → f[12]
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read CPU time of process " + pid, e);
        }
    }

    /** Drives one connection; every method runs on the connection's event loop. */
    private static final class Driver {
        final Workload w;
        final HttpConnection conn;
        final io.netty.channel.EventLoop loop;
        final SplittableRandom rnd;
        final long interval;
        final long measureStart;
        final long end;
        final CountDownLatch finished;
        final Workload.Bytes body = new Workload.Bytes();
        final Histogram[] latency = new Histogram[Op.values().length];
        final Map<String, long[]> errors = new TreeMap<>();
        final Map<String, long[]> throttles = new TreeMap<>();
        long nextIntended;
        boolean rebased;
        boolean done;

        Driver(
                Workload w,
                HttpConnection conn,
                SplittableRandom rnd,
                long interval,
                long first,
                long measureStart,
                long end,
                CountDownLatch finished) {
            this.w = w;
            this.conn = conn;
            this.loop = conn.loop();
            this.rnd = rnd;
            this.interval = interval;
            this.nextIntended = first;
            this.measureStart = measureStart;
            this.end = end;
            this.finished = finished;
            for (Op op : w.ops()) latency[op.ordinal()] = newHistogram();
        }

        /** Requests due sooner than this are sent at once rather than through a timer. */
        static final long EARLY_SEND_NANOS = 200_000;

        void next() {
            long now = System.nanoTime();
            if (interval == 0) {
                fire(now);
                return;
            }
            if (!rebased && now >= measureStart) {
                // A backlog left by the warm-up (a cold JIT on either side) is forgiven once, when measuring
                // starts; from then on every delay is charged to the requests it held up.
                rebased = true;
                if (nextIntended < now) nextIntended = now;
            }
            long intended = nextIntended;
            nextIntended += interval;
            if (intended - now > EARLY_SEND_NANOS) {
                loop.schedule(() -> fire(intended), intended - now, TimeUnit.NANOSECONDS);
            } else {
                // Due, late, or so nearly due that a timer would fire later than the send: send now. Latency
                // counts from the intended time, or from the actual send when that was earlier.
                fire(intended); // behind schedule: send now, and the wait counts in the latency
            }
        }

        void fire(long intended) {
            if (intended >= end) {
                finish();
                return;
            }
            if (!conn.active()) {
                reconnect();
                return;
            }
            Op op = w.pick(rnd);
            w.body(op, rnd, body);
            long from = Math.max(intended, System.nanoTime());
            conn.send(op.target, body, false).whenComplete((r, e) -> completed(op, from, r, e));
        }

        void completed(Op op, long intended, Response r, Throwable e) {
            long now = System.nanoTime();
            boolean measured = now >= measureStart && now <= end;
            if (e != null) {
                if (measured) count(errors, e.getClass().getSimpleName());
                loop.schedule(this::reconnect, 100, TimeUnit.MILLISECONDS);
                return;
            }
            if (measured) {
                if (r.ok()) {
                    latency[op.ordinal()].recordValue(Math.max(1_000, now - intended));
                } else {
                    count(THROTTLES.contains(r.errorType()) ? throttles : errors, r.errorType());
                }
            }
            next();
        }

        void reconnect() {
            if (System.nanoTime() >= end) {
                finish();
                return;
            }
            conn.close();
            conn.connectNow().whenComplete((v, e) -> {
                if (e != null) {
                    loop.schedule(this::reconnect, 500, TimeUnit.MILLISECONDS);
                } else {
                    loop.execute(this::next);
                }
            });
        }

        void finish() {
            if (!done) {
                done = true;
                finished.countDown();
            }
        }

        private static void count(Map<String, long[]> m, String key) {
            m.computeIfAbsent(key, k -> new long[1])[0]++;
        }
    }

    // ---------------------------------------------------------------- report

    private void report(Workload w, Result r, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "%n%s: %,d ops in %.1f s = %,.0f ops/s (items %,d x %d B, %s)%n",
                workload,
                r.ops(),
                r.seconds(),
                r.throughput(),
                w.items(),
                w.itemSize(),
                w.rangeKey() ? "hash+range" : "hash only");
        out.printf(
                Locale.ROOT,
                "%-10s %10s %9s %9s %9s %9s %9s   (latency in ms%s)%n",
                "op",
                "count",
                "p50",
                "p90",
                "p99",
                "p99.9",
                "max",
                rate == null ? "" : ", from intended send time");
        for (Map.Entry<Op, Histogram> e : r.latency().entrySet()) {
            row(out, e.getKey().name().toLowerCase(Locale.ROOT), e.getValue());
        }
        if (r.latency().size() > 1) row(out, "all", r.all());
        out.println("errors:    " + (r.errors().isEmpty() ? "none" : r.errors()));
        out.println("throttles: " + (r.throttles().isEmpty() ? "none" : r.throttles()));
        if (r.unfinished() > 0) out.println("connections still waiting at the end: " + r.unfinished());
        out.printf(Locale.ROOT, "client CPU: %.1f µs/op", r.clientCpuMicrosPerOp());
        if (!Double.isNaN(r.serverCpuMicrosPerOp())) {
            out.printf(Locale.ROOT, ", server (pid %d) CPU: %.1f µs/op", serverPid, r.serverCpuMicrosPerOp());
        }
        out.println();
    }

    private static void row(PrintStream out, String name, Histogram h) {
        out.printf(
                Locale.ROOT,
                "%-10s %,10d %9.3f %9.3f %9.3f %9.3f %9.3f%n",
                name,
                h.getTotalCount(),
                h.getValueAtPercentile(50) / 1e6,
                h.getValueAtPercentile(90) / 1e6,
                h.getValueAtPercentile(99) / 1e6,
                h.getValueAtPercentile(99.9) / 1e6,
                h.getMaxValue() / 1e6);
    }
}
