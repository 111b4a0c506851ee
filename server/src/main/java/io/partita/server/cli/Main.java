package io.partita.server.cli;

import io.partita.server.PartitaServer;
import io.partita.server.netty.Admission;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.write.ConflictInjection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line. DynamoDB Local's flags ({@code -port}, {@code -dbPath}, {@code -inMemory}, {@code -sharedDb})
 * are accepted as aliases, and leading words such as {@code -jar DynamoDBLocal.jar} are ignored, so scripts and
 * containers written for DynamoDB Local start Partita unchanged.
 */
@Command(
        name = "partita",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A DynamoDB-compatible server. Data is persisted in --data-dir unless --in-memory is given.")
public final class Main implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    @Option(
            names = {"--port", "-port"},
            description = "Port to listen on (default: ${DEFAULT-VALUE}).",
            defaultValue = "8000")
    int port;

    @Option(
            names = {"--host"},
            description = "Address to bind (default: ${DEFAULT-VALUE}).",
            defaultValue = "0.0.0.0")
    String host;

    @Option(
            names = {"--data-dir", "-dbPath"},
            description = "Directory for persistent data (default: ${DEFAULT-VALUE}).",
            defaultValue = "partita-data")
    Path dataDir;

    @Option(
            names = {"--in-memory", "-inMemory"},
            description = "Keep all data in memory; nothing is written to disk.")
    boolean inMemory;

    @Option(
            names = {"--sync"},
            description = "fsync every commit: survive power loss, not only a process crash (slower writes).")
    boolean sync;

    @Option(
            names = {"--region"},
            description = "Region named in the GET / health line (default: ${DEFAULT-VALUE}).",
            defaultValue = "us-east-1")
    String region;

    @Option(
            names = {"--throughput"},
            description = "Throughput limits: enforce (throttle as DynamoDB does), report (count what would be"
                    + " throttled, refuse nothing) or off (default: ${DEFAULT-VALUE}).",
            defaultValue = "enforce")
    String throughput;

    @Option(
            names = {"--partition-size-limit"},
            description = "Size at which a partition splits, e.g. 10GB, 4MB (default: ${DEFAULT-VALUE}, DynamoDB's).",
            defaultValue = "10GB",
            converter = Sizes.Converter.class)
    long partitionSizeLimit;

    @Option(
            names = {"--item-cache"},
            description = "Memory for the cache of recently used items, e.g. 64MB, 1GB, or 0 to turn it off. It is"
                    + " on the Java heap; the default, auto, is 64MB or an eighth of the maximum heap if that is less.",
            defaultValue = "auto",
            converter = ItemCacheConverter.class)
    long itemCache;

    @Option(
            names = {"--heat-split-after"},
            description = "Seconds a partition must run above 80%% of its ceiling before it splits for heat"
                    + " (default: ${DEFAULT-VALUE}).",
            defaultValue = "600")
    long heatSplitSeconds;

    @Option(
            names = {"--adaptive-capacity"},
            description = "Let a hot partition use the table's unused capacity up to its ceiling (default:"
                    + " ${DEFAULT-VALUE}).",
            defaultValue = "true",
            arity = "1")
    boolean adaptiveCapacity;

    @Option(
            names = {"--table-quota"},
            description = "Per-table read and write quota of the account for on-demand tables, in units per second"
                    + " (default: ${DEFAULT-VALUE}).",
            defaultValue = "40000")
    long tableQuota;

    @Option(
            names = {"--item-collection-limit"},
            description = "The largest item collection (a partition key's items and their LSI entries) of a table with"
                    + " local secondary indexes, e.g. 10GB, 1MB (default: DynamoDB's 10GB); lower it to test"
                    + " ItemCollectionSizeLimitExceededException.",
            defaultValue = "10GB",
            converter = Sizes.Converter.class)
    long itemCollectionLimit;

    @Option(
            names = {"--ttl-interval"},
            description = "How often the TTL reaper deletes expired items: 1s, 500ms, 1m (default: 1s).",
            defaultValue = "1s",
            converter = DurationConverter.class)
    long ttlIntervalMillis;

    @Option(
            names = {"--ttl-delay"},
            description = "Delete expired items only this long after they expire, to reproduce DynamoDB's late"
                    + " deletions: 10m, 2h (default: none). POST /admin/ttl/reap reaps everything expired now.",
            defaultValue = "0",
            converter = DurationConverter.class)
    long ttlDelayMillis;

    @Option(
            names = {"--ttl-cooldown"},
            description = "How long after a table's TTL changes UpdateTimeToLive refuses another change (default:"
                    + " DynamoDB's 1h; 0 lets tests switch it freely).",
            defaultValue = "1h",
            converter = DurationConverter.class)
    long ttlCooldownMillis;

    @Option(
            names = {"--gsi-lag"},
            description = "Hold every change back this long before a global secondary index applies it, to test code"
                    + " against stale indexes: 500ms, 2s, 1m (default: none). POST /admin/indexes/lag changes it, per"
                    + " index too; POST /admin/indexes/await applies everything at once.",
            defaultValue = "0",
            converter = DurationConverter.class)
    long gsiLagMillis;

    @Option(
            names = {"--transaction-conflicts"},
            description = "Cancel this share of transactions (0 to 1) with TransactionConflict, as if another"
                    + " transaction held one of their items, to test retry code (default: none).",
            defaultValue = "0")
    double transactionConflictRate;

    @Option(
            names = {"--transaction-conflict-seed"},
            description = "The seed that picks which transactions meet an injected conflict (default:"
                    + " ${DEFAULT-VALUE}): the same requests in the same order meet the same conflicts.",
            defaultValue = "1")
    long transactionConflictSeed;

    @Option(
            names = {"--fault"},
            description = "Inject a fault, to test retry code (repeatable): fault=throttle|throttling|internal|"
                    + "unavailable|unprocessed|conflict|latency, and optionally table=NAME, operation=NAME, rate=0..1"
                    + " (default 1), count=N (default: no limit), latency=MS (a latency fault's), seed=N; for"
                    + " example fault=throttle,table=orders,operation=PutItem,rate=0.2. /admin/faults lists, adds and"
                    + " removes them.")
    List<String> faults = new ArrayList<>();

    @Option(
            names = {"--fault-seed"},
            description = "The seed that the --fault rules' draws derive from (default: ${DEFAULT-VALUE}): the same"
                    + " requests in the same order meet the same faults.",
            defaultValue = "1")
    long faultSeed;

    @Option(
            names = {"--transport"},
            description = "Network I/O: auto (io_uring where the kernel allows it, else epoll, else NIO), io_uring,"
                    + " epoll or nio (default: ${DEFAULT-VALUE}).",
            defaultValue = "auto",
            converter = TransportConverter.class)
    Transport transport;

    @Option(
            names = {"--credentials"},
            paramLabel = "FILE",
            description = "Strict mode: verify every request's SigV4 signature (header or presigned URL) against the"
                    + " keys in FILE, a JSON {\"accounts\": [{\"accountId\", \"accessKeyId\","
                    + " \"secretAccessKey\"}, ...]}; the admin views and the console need a signature too."
                    + " Without it (the default), any well-formed signature is accepted.")
    Path credentials;

    @Option(
            names = {"--tls-cert"},
            paramLabel = "FILE",
            description = "HTTPS: the server's certificate chain, PEM (with --tls-key). On a cluster node, also HTTPS"
                    + " between the nodes and mutual TLS between the Raft peers, trusting this file's certificates.")
    Path tlsCert;

    @Option(
            names = {"--tls-key"},
            paramLabel = "FILE",
            description = "HTTPS: the certificate's private key, PEM (PKCS#8, unencrypted).")
    Path tlsKey;

    @Option(
            names = {"--s3-dir"},
            description = "The directory that stands for S3 in ExportTableToPointInTime and ImportTable: each bucket"
                    + " is a directory in it (default: s3 in the data directory; in memory, partita-s3 in the"
                    + " system's temporary directory).")
    Path s3Dir;

    @Option(
            names = {"--min-free-space"},
            description = "Refuse writes (503, which the SDKs retry) while the data directory's disk has less free"
                    + " space than this, e.g. 1GB, or 0 for no floor (default: ${DEFAULT-VALUE}). Writes resume by"
                    + " themselves once space is freed.",
            defaultValue = "64MB",
            converter = ItemCacheConverter.class)
    long minFreeSpace;

    @Option(
            names = {"--max-in-flight"},
            description = "Requests read and not yet answered beyond which a new one is refused with"
                    + " ThrottlingException, which the SDKs retry (default: ${DEFAULT-VALUE}).",
            defaultValue = "4096")
    int maxInFlight;

    @Option(
            names = {"--request-memory"},
            description = "Memory for request bodies over 64 KB being received or waiting to run, beyond which a new"
                    + " one is refused with ThrottlingException, e.g. 256MB (default: auto, a quarter of the heap).",
            defaultValue = "auto",
            converter = ItemCacheConverter.class)
    long requestMemory;

    @Option(
            names = {"--request-timeout"},
            description = "The longest a request may take to arrive, from its first byte to its last; a slower sender"
                    + " is disconnected: 30s, 2m (default: 60s).",
            defaultValue = "60s",
            converter = DurationConverter.class)
    long requestTimeoutMillis;

    @Option(
            names = {"--cluster-config"},
            description = "Run as a node of a cluster described by this properties file: cluster.name, node.id and"
                    + " members=id=host:raftPort:apiPort,… (docs/CLUSTER.md).")
    Path clusterConfig;

    @Option(
            names = {"--cluster-members"},
            description = "Run as a node of a cluster of these members: id=host:raftPort:apiPort,… (at least 3)."
                    + " The node listens for clients on its member's API port.")
    String clusterMembers;

    @Option(
            names = {"--cluster-join"},
            description = "This node is new to a running cluster: the first time, it waits for the leader to add it"
                    + " (POST /cluster/members) instead of forming a cluster with --cluster-members.")
    boolean clusterJoin;

    @Option(
            names = {"--cluster-replicas"},
            description = "Place each Raft group on this many members (from 3 to their number) instead of on every"
                    + " member: a group's replicas and its leader's load spread over the nodes. The same on every"
                    + " node, fixed when the cluster is made; the groups move when the members change"
                    + " (docs/CLUSTER.md).")
    Integer clusterReplicas;

    @Option(
            names = {"--cluster-table-groups"},
            description = "Make each new table a Raft group of its own, placed on --cluster-replicas members, so that"
                    + " one account's tables spread their leaders and load over the nodes (docs/CLUSTER.md). The same"
                    + " on every node; once a cluster has it, it keeps it.")
    boolean clusterTableGroups;

    @Option(
            names = {"--cluster-partition-groups"},
            description = "With --cluster-table-groups: make each partition of a new table (one with no global"
                    + " secondary index and no stream) a Raft group of its own, its hash range's, so that one table's"
                    + " writes spread over the nodes (docs/CLUSTER.md).")
    boolean clusterPartitionGroups;

    @Option(
            names = {"--cluster-min-ranges"},
            paramLabel = "N",
            description = "With --cluster-partition-groups: cut each new table that can be cut (no global secondary"
                    + " index, no stream) into at least N hash ranges, each a Raft group (1 to 8; 1, the default,"
                    + " cuts only a table whose throughput needs several partitions), whatever its"
                    + " throughput needs: to run a test suite's small tables over several groups. Each range's group"
                    + " then has the whole table's throughput (docs/CLUSTER.md).")
    Integer clusterMinRanges;

    @Option(
            names = {"--cluster-follower-reads"},
            description = "While this node follows, it answers eventually consistent reads (GetItem, BatchGetItem,"
                    + " Query and Scan without ConsistentRead) from its own replica, which may lag the leader's"
                    + " (docs/CLUSTER.md); without it every request goes to the leader.")
    boolean clusterFollowerReads;

    @Option(
            names = {"--cluster-auto-split"},
            negatable = true,
            description = "With --cluster-partition-groups: a range's group moves part of its range to a new group by"
                    + " itself once its store has split a partition inside the range (for size, heat or more"
                    + " throughput), as DynamoDB splits a partition. --no-cluster-auto-split moves a range only when"
                    + " asked (POST /cluster/ranges; docs/CLUSTER.md). Either one overrides the --cluster-config"
                    + " file's table.auto-split; on by default.")
    Boolean clusterAutoSplit;

    @Option(
            names = {"--cluster-read-lease"},
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "While this node leads, it answers strongly consistent reads at once within its read lease"
                    + " (half the shortest election timeout after an entry it proposed was committed), and through"
                    + " a barrier in the log otherwise. --no-cluster-read-lease makes every such read pass a barrier:"
                    + " for VMs that are paused or moved with their clocks stopped (docs/CLUSTER.md).")
    boolean clusterReadLease = true;

    @Option(
            names = {"--node-id"},
            description = "This node's id among the cluster's members.")
    String nodeId;

    @Option(
            names = {"--cluster-name"},
            description = "The cluster's name, the same on every node (default: ${DEFAULT-VALUE}).",
            defaultValue = "partita")
    String clusterName;

    @Option(
            names = {"--cluster-snapshot-entries"},
            description = "On a cluster node: take a checkpoint of the replica every this many log entries, and purge"
                    + " the log before it but for as many entries again (default: ${DEFAULT-VALUE}).",
            defaultValue = "100000")
    long clusterSnapshotEntries;

    @Option(
            names = {"-sharedDb"},
            description = "Accepted for DynamoDB Local compatibility: Partita always uses one database for all"
                    + " credentials and regions.")
    boolean sharedDb;

    @CommandLine.Unmatched
    List<String> ignored;

    public static void main(String[] args) {
        // The CLI is an application: it configures logging. The library never does (PartitaLogConfigurator).
        io.partita.server.logging.PartitaLogConfigurator.install();
        // Netty's buffer-allocation JFR events cost ~150 ms of start-up to register; nothing here records them.
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
        // Netty's leak detector records a stack trace for one buffer in 128: 1.8 % of GetItem's server CPU under
        // load (async-profiler, docs/PERFORMANCE.md). The embedded server used by the test suites keeps it on.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        JsonWarmUp.startInBackground();
        CommandLine cli = new CommandLine(new Main());
        cli.setUnmatchedArgumentsAllowed(true);
        cli.setUnmatchedOptionsArePositionalParams(true);
        int code = cli.execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        if (ignored != null && !ignored.isEmpty()) {
            log.warn("ignoring arguments {}", ignored);
        }
        if (!(transactionConflictRate >= 0 && transactionConflictRate <= 1)) {
            System.err.println(
                    "--transaction-conflicts is a share of transactions, from 0 to 1: " + transactionConflictRate);
            return 2;
        }
        StorageConfig storage = storageConfig();
        if (maxInFlight < 1 || requestTimeoutMillis < 1) {
            System.err.println("--max-in-flight and --request-timeout must be positive");
            return 2;
        }
        ServerConfig config = new ServerConfig(
                        host, port, storage, region, ServerConfig.defaultWorkerThreads(), transport)
                .withLimits(new Admission.Limits(
                        maxInFlight,
                        requestMemory == ItemCacheConverter.AUTO
                                ? Admission.Limits.defaults().bodyBytes()
                                : requestMemory,
                        java.time.Duration.ofMillis(requestTimeoutMillis)));
        List<io.partita.server.fault.FaultRule.Spec> rules = new ArrayList<>();
        for (String f : faults) {
            try {
                rules.add(io.partita.server.fault.FaultRule.Spec.parse(f));
            } catch (IllegalArgumentException e) {
                System.err.println("--fault " + f + ": " + e.getMessage());
                return 2;
            }
        }
        config = config.withFaults(new io.partita.server.fault.FaultPlan(faultSeed, rules));
        if ((tlsCert == null) != (tlsKey == null)) {
            System.err.println("--tls-cert and --tls-key go together: give both for HTTPS, or neither");
            return 2;
        }
        if (tlsCert != null) {
            config = config.withTls(new ServerConfig.Tls(tlsCert, tlsKey));
            try {
                PartitaServer.tlsContext(config);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
        }
        if (credentials != null) {
            try {
                config = config.strict(io.partita.server.auth.Accounts.load(credentials));
            } catch (java.io.IOException | IllegalArgumentException e) {
                System.err.println("--credentials: " + e.getMessage());
                return 2;
            }
        }
        if (clusterConfig != null || clusterMembers != null) {
            return runClusterNode(config);
        }
        PartitaServer server = PartitaServer.start(config);
        server.storage().ttl().delayMillis(ttlDelayMillis);
        server.storage().ttl().cooldownMillis(ttlCooldownMillis);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            stopped.countDown();
                            // SIGTERM is how a stop is asked for (docker stop, systemd, Kubernetes): once every
                            // request in flight is answered and storage is flushed, that is a clean exit, not 143.
                            Runtime.getRuntime().halt(0);
                        },
                        "partita-shutdown"));
        System.out.println(banner(server.port(), storage, server.transport())
                + (config.tls() == null
                        ? ""
                        : "\n  https: certificate " + config.tls().certificate())
                + "\n  auth: "
                + (config.accounts() == null
                        ? "open (any well-formed signature; --credentials FILE for strict mode)"
                        : "strict, SigV4 verified against " + config.accounts().size() + " keys of " + credentials));
        stopped.await();
        return 0;
    }

    /** Runs this process as one node of a cluster until it is stopped (docs/CLUSTER.md). */
    private int runClusterNode(ServerConfig config) throws InterruptedException {
        io.partita.server.cluster.ClusterConfig cluster;
        try {
            cluster = clusterConfig != null
                    ? io.partita.server.cluster.ClusterConfig.load(clusterConfig, nodeId)
                    : new io.partita.server.cluster.ClusterConfig(
                            clusterName, nodeId, io.partita.server.cluster.ClusterConfig.parseMembers(clusterMembers));
            cluster = cluster.joining(clusterJoin);
            if (clusterFollowerReads) {
                cluster = cluster.withFollowerReads(true);
            }
            if (!clusterReadLease) {
                cluster = cluster.withReadLease(false);
            }
            if (clusterReplicas != null) {
                cluster = cluster.withReplicas(clusterReplicas);
            }
            if (clusterTableGroups) {
                cluster = cluster.withTableGroups(true);
            }
            if (clusterPartitionGroups) {
                cluster = cluster.withPartitionGroups(true);
            }
            if (clusterMinRanges != null) {
                cluster = cluster.withMinRanges(clusterMinRanges);
            }
            if (clusterAutoSplit != null) {
                cluster = cluster.withAutoSplit(clusterAutoSplit);
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            System.err.println("cluster: " + e.getMessage());
            return 2;
        }
        if (inMemory) {
            System.err.println("a cluster node keeps its replica on disk: --in-memory is not for cluster nodes");
            return 2;
        }
        if (clusterSnapshotEntries < 1) {
            System.err.println("--cluster-snapshot-entries must be at least 1: " + clusterSnapshotEntries);
            return 2;
        }
        io.partita.server.cluster.ClusterMember member;
        try {
            io.partita.cluster.ClusterNode.LogRetention retention = new io.partita.cluster.ClusterNode.LogRetention(
                    clusterSnapshotEntries,
                    io.partita.cluster.ClusterNode.LogRetention.defaults().segmentBytes());
            member = io.partita.server.cluster.ClusterMember.start(
                    cluster, config, io.partita.cluster.ClusterNode.Timings.defaults(), retention, serving -> {
                        serving.storage().ttl().delayMillis(ttlDelayMillis);
                        serving.storage().ttl().cooldownMillis(ttlCooldownMillis);
                    });
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("cannot start cluster node " + cluster.nodeId() + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            member.close();
                            stopped.countDown();
                            Runtime.getRuntime().halt(0);
                        },
                        "partita-shutdown"));
        System.out.println(banner(member.port(), config.storage(), Transport.NIO)
                + "\n  cluster: " + cluster.name() + ", node " + cluster.nodeId() + " of "
                + cluster.members().size()
                + " (Raft on port " + cluster.self().raftPort() + "; GET /cluster for its view)"
                + "\n  auth: "
                + (config.accounts() == null
                        ? "open (any well-formed signature)"
                        : "strict, SigV4 verified against " + config.accounts().size() + " keys of " + credentials
                                + "; a Raft group per account ("
                                + config.accounts().accountIds().size() + ")"));
        stopped.await();
        return 0;
    }

    CapacityConfig capacity() {
        ThroughputMode mode;
        try {
            mode = ThroughputMode.valueOf(throughput.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--throughput must be enforce, report or off, not " + throughput);
        }
        CapacityConfig defaults = CapacityConfig.defaults();
        return defaults.withMode(mode)
                .withPartitionSizeLimit(partitionSizeLimit)
                .withHeatSplit(defaults.heatSplitFraction(), heatSplitSeconds * 1000)
                .withAdaptiveCapacity(adaptiveCapacity)
                .withTableQuotas(tableQuota, tableQuota);
    }

    /** The storage the flags describe. */
    StorageConfig storageConfig() {
        return (inMemory
                        ? StorageConfig.memory()
                        : new StorageConfig(dataDir.toAbsolutePath().normalize(), false, sync))
                .withCapacity(capacity())
                .withItemCacheBytes(
                        itemCacheBytes(itemCache, Runtime.getRuntime().maxMemory()))
                .withGsiLagMillis(gsiLagMillis)
                .withItemCollectionLimitBytes(itemCollectionLimit)
                .withTtlIntervalMillis(ttlIntervalMillis)
                .withTransactionConflicts(new ConflictInjection(transactionConflictRate, transactionConflictSeed))
                .withMinFreeBytes(
                        minFreeSpace == ItemCacheConverter.AUTO ? StorageConfig.DEFAULT_MIN_FREE_BYTES : minFreeSpace)
                .withS3Dir(s3Dir == null ? null : s3Dir.toAbsolutePath().normalize());
    }

    /** The item cache budget: {@code option} as {@link ItemCacheConverter} read it, given the JVM's maximum heap. */
    static long itemCacheBytes(long option, long maxHeap) {
        return option == ItemCacheConverter.AUTO
                ? Math.min(StorageConfig.DEFAULT_ITEM_CACHE_BYTES, maxHeap / 8)
                : option;
    }

    static String banner(int port, StorageConfig storage, Transport transport) {
        String mode = storage.inMemory()
                ? "in memory (nothing is written to disk; data is lost on exit)"
                : "persistent, RocksDB at " + storage.dataDir()
                        + (storage.sync()
                                ? " (fsync on every commit)"
                                : " (WAL: survives a process crash, not a power loss; --sync for that)");
        mode += storage.itemCacheBytes() == 0
                ? ", no item cache"
                : ", item cache " + (storage.itemCacheBytes() >> 20) + " MB";
        return "Partita " + new Version().getVersion()[0] + " listening on port " + port + "\n  storage: " + mode
                + "\n  throughput: " + storage.capacity().mode().name().toLowerCase(java.util.Locale.ROOT)
                + " (metrics: GET /admin/metrics, Prometheus: GET /metrics)\n  network: " + transport.label();
    }

    /** {@code auto}, {@code 0} or a size; {@code auto} reads as {@link #AUTO}. */
    static final class ItemCacheConverter implements CommandLine.ITypeConverter<Long> {
        static final long AUTO = -1;

        @Override
        public Long convert(String value) {
            String t = value.trim();
            if (t.equalsIgnoreCase("auto")) {
                return AUTO;
            }
            return t.equals("0") ? 0 : Sizes.parse(t);
        }
    }

    /** A duration in milliseconds from {@code 250ms}, {@code 2s}, {@code 1m}, {@code 1h} or a bare number of milliseconds. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Long> {
        private static final java.util.regex.Pattern FORM = java.util.regex.Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

        @Override
        public Long convert(String value) {
            java.util.regex.Matcher m = FORM.matcher(value.trim());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException("not a duration (like 500ms, 2s, 1m or 1h): " + value);
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "ms" : m.group(2);
            return switch (unit) {
                case "s" -> n * 1000;
                case "m" -> n * 60_000;
                case "h" -> n * 3_600_000;
                default -> n;
            };
        }
    }

    static final class TransportConverter implements CommandLine.ITypeConverter<Transport> {
        @Override
        public Transport convert(String value) {
            return Transport.parse(value);
        }
    }

    /** The version from the jar manifest, or {@code dev} when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {v == null ? "dev" : v};
        }
    }
}
