package io.partita.bench.hotkey;

import io.partita.bench.load.HttpConnection;
import io.partita.bench.load.SigV4;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The hot-key simulator: DynamoDB's "one hot partition throttles while the table has spare capacity", shown on a
 * provisioned table.
 *
 * <p>The table gets a fixed total load below its provisioned rate; only the share of requests that go to one
 * partition key ({@code tenant-hot}) grows, step by step. A partition can serve at most 1000 WCU/s (3000 RCU/s) however
 * much the table has spare, so once the hot key's share of the load passes that ceiling its requests are throttled
 * while the table as a whole still consumes less than it provisioned. Each step reads the server's admin metrics
 * before and after, to show the table's and the hottest partition's consumption beside what the client saw; the
 * results go to stdout as a table and to {@code --chart} as an SVG (or an HTML page around it).
 */
@Command(
        name = "HotKeyScenario",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Hot-key simulator: java -cp partita-bench.jar io.partita.bench.hotkey.HotKeyScenario [options]")
public final class HotKeyScenario implements Callable<Integer> {
    @Option(names = "--endpoint", description = "http(s) endpoint (default: ${DEFAULT-VALUE})")
    String endpoint = "http://localhost:8000";

    @Option(names = "--region", description = "signing region (default: ${DEFAULT-VALUE})")
    String region = "us-east-1";

    @Option(names = "--access-key", description = "default: ${DEFAULT-VALUE} (any key works with Partita)")
    String accessKey = "local";

    @Option(names = "--secret-key", description = "default: ${DEFAULT-VALUE}")
    String secretKey = "local";

    @Option(names = "--table", description = "table to (re)create (default: ${DEFAULT-VALUE})")
    String table = "hotkey-sim";

    @Option(names = "--wcu", description = "provisioned write capacity units (default: ${DEFAULT-VALUE})")
    long wcu = 2000;

    @Option(names = "--rcu", description = "provisioned read capacity units (default: ${DEFAULT-VALUE})")
    long rcu = 6000;

    @Option(names = "--op", description = "write (PutItem) or read (strongly consistent GetItem) (default: write)")
    String op = "write";

    @Option(
            names = "--offered",
            description = "total load in units/s (default: 75%% of --wcu or --rcu: 1500 WCU/s, 4500 RCU/s)")
    Double offered;

    @Option(
            names = "--shares",
            split = ",",
            description = "hot key's share of requests in %%, one step each (default: 0,10,...,100)")
    List<Double> shares = List.of(0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0);

    @Option(names = "--step-seconds", description = "seconds per step (default: ${DEFAULT-VALUE})")
    double stepSeconds = 5;

    @Option(names = "--warmup-seconds", description = "unmeasured seconds at share 0 first (default: ${DEFAULT-VALUE})")
    double warmupSeconds = 2;

    @Option(
            names = "--item-kb",
            description =
                    "item size in KB (default: ${DEFAULT-VALUE}: a write costs 4 WCU, a strongly consistent read 1 RCU;"
                            + " with --op read, 16 needs a quarter of the requests)")
    int itemKb = 4;

    @Option(names = "--tenants", description = "cold partition keys (default: ${DEFAULT-VALUE})")
    int tenants = 200;

    @Option(names = "--ids-per-tenant", description = "items per tenant preloaded for reads (default: 10)")
    int idsPerTenant = 10;

    @Option(names = "--connections", description = "keep-alive connections (default: ${DEFAULT-VALUE})")
    int connections = 32;

    @Option(names = "--chart", description = "SVG chart, or an HTML page if it ends in .html (default: hotkey.svg)")
    Path chart = Path.of("hotkey.svg");

    @Option(names = "--seed", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed = 42;

    public static void main(String[] args) {
        System.exit(new CommandLine(new HotKeyScenario()).execute(args));
    }

    /** Parses {@code args} and runs, printing to {@code out}; for scripts and tests. */
    public static List<StepResult> run(PrintStream out, String... args) throws Exception {
        return CommandLine.populateCommand(new HotKeyScenario(), args).execute(out);
    }

    @Override
    public Integer call() throws Exception {
        execute(System.out);
        return 0;
    }

    List<StepResult> execute(PrintStream out) throws Exception {
        Op kind = Op.valueOf(op.toUpperCase(Locale.ROOT));
        double load = offered != null ? offered : kind == Op.WRITE ? 0.75 * wcu : 0.75 * rcu;
        validate(load);
        HotKeyRequests requests = new HotKeyRequests(table, kind, itemKb, tenants, idsPerTenant, seed);
        int units = requests.unitsPerRequest();
        double rate = load / units;
        out.printf(
                Locale.ROOT,
                "hot-key sweep on %s: %s of %,d-byte items (%d %s each), %,.0f %s/s offered = %,.1f requests/s,"
                        + " %s s per step, %d connections%n",
                endpoint,
                kind.target,
                requests.itemBytes(),
                units,
                kind.unit,
                load,
                kind.unit,
                rate,
                SweepTable.number(stepSeconds, stepSeconds % 1 == 0 ? 0 : 1),
                connections);
        List<StepResult> results = new ArrayList<>();
        HttpConnection.Endpoint ep = HttpConnection.Endpoint.parse(endpoint);
        SigV4.Credentials creds = new SigV4.Credentials(accessKey, secretKey, null, region);
        // One event loop: a few hundred requests a second need no more, and it keeps the client off the server's CPUs.
        try (HttpConnection.Transport transport = new HttpConnection.Transport(ep, creds, 1)) {
            HttpConnection setupConnection = transport.connect();
            TableSetup setup = new TableSetup(setupConnection, table, out);
            setup.recreate(rcu, wcu);
            if (kind == Op.READ) setup.preload(requests, Op.WRITE.unitsPerRequest(requests.itemBytes()), 0.8 * wcu);
            setupConnection.close();
            AdminMetrics metrics = new AdminMetrics(endpoint, table);
            OpenLoop loop = new OpenLoop(transport, connections, requests, seed);
            try {
                if (warmupSeconds > 0) loop.run(rate, 0, warmupSeconds);
                for (double share : shares) results.add(step(loop, metrics, kind, share, load, rate, units, out));
            } finally {
                loop.close();
            }
        }
        report(results, kind, load, requests, out);
        return results;
    }

    private void validate(double load) {
        if (!(load > 0)) throw new IllegalArgumentException("--offered must be positive");
        if (!(stepSeconds > 0)) throw new IllegalArgumentException("--step-seconds must be positive");
        if (connections < 1) throw new IllegalArgumentException("--connections must be at least 1");
        if (idsPerTenant < 1) throw new IllegalArgumentException("--ids-per-tenant must be at least 1");
        if (shares.isEmpty()) throw new IllegalArgumentException("--shares is empty");
        for (double s : shares) {
            if (!(s >= 0 && s <= 100)) throw new IllegalArgumentException("a share must be 0 to 100, not " + s);
        }
    }

    private StepResult step(
            OpenLoop loop,
            AdminMetrics metrics,
            Op kind,
            double share,
            double load,
            double rate,
            int units,
            PrintStream out)
            throws Exception {
        Optional<MetricsSnapshot> before = metrics.read();
        long t0 = System.nanoTime();
        ClientCounts client = loop.run(rate, share, stepSeconds);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Optional<MetricsSnapshot> after = metrics.read();
        StepRates server = before.isPresent() && after.isPresent()
                ? StepRates.between(before.get(), after.get(), seconds, kind)
                : null;
        if (server == null) out.println("  (no server metrics: " + metrics.lastProblem() + ")");
        StepResult r = new StepResult(share, load, units, client, server);
        out.printf(
                Locale.ROOT,
                "  share %5s%%: sent %,.1f req/s, ok %,d, throttled %,d (%.1f%%), errors %,d; table %s %s/s,"
                        + " hot partition %s at %s of %s %s/s%n",
                SweepTable.number(share, share % 1 == 0 ? 0 : 1),
                client.sentPerSecond(),
                client.ok(),
                client.throttled(),
                client.throttlePercent(),
                client.errors(),
                SweepTable.number(r.tableConsumed(), 0),
                kind.unit,
                server == null ? "-" : server.hotPartitionId(),
                SweepTable.number(r.hotConsumed(), 0),
                SweepTable.number(r.hotCeiling(), 0),
                kind.unit);
        return r;
    }

    private void report(List<StepResult> results, Op kind, double load, HotKeyRequests requests, PrintStream out)
            throws Exception {
        SweepTable table = new SweepTable(results, kind);
        out.println();
        out.print(table.text());
        List<String> notes = table.notes();
        if (!notes.isEmpty()) out.println();
        notes.forEach(n -> out.println("note: " + n));

        String partitions = results.stream()
                .filter(r -> r.server() != null)
                .reduce((a, b) -> b)
                .map(r -> ", " + r.server().partitionCount() + " partitions")
                .orElse("");
        String subtitle = String.format(
                Locale.ROOT,
                "%s of %.0f KB items, %,.0f %s/s offered; table %s provisioned at %,d %s/s%s; %d cold keys, %s s per step",
                kind.target,
                requests.itemBytes() / 1024.0,
                load,
                kind.unit,
                this.table,
                kind == Op.WRITE ? wcu : rcu,
                kind.unit,
                partitions,
                tenants,
                SweepTable.number(stepSeconds, stepSeconds % 1 == 0 ? 0 : 1));
        SweepChart chartView = new SweepChart(
                results, kind, "One hot partition throttles while the table has spare capacity", subtitle);
        boolean html = chart.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".html");
        String doc = html ? chartView.html(table) : "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + chartView.svg();
        Path parent = chart.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.writeString(chart, doc, StandardCharsets.UTF_8);
        out.println();
        out.println("chart: " + chart.toAbsolutePath());
    }
}
