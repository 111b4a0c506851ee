package io.partita.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.server.admin.AdminRoutes;
import io.partita.server.auth.Credentials;
import io.partita.server.auth.SigV4Verifier;
import io.partita.server.cli.ServerConfig;
import io.partita.server.console.ConsoleAssets;
import io.partita.server.console.HotKeySimulator;
import io.partita.server.netty.Admission;
import io.partita.server.netty.Drain;
import io.partita.server.netty.EventLoopThreads;
import io.partita.server.netty.PartitaChannelInitializer;
import io.partita.server.netty.Transport;
import io.partita.server.op.insights.DescribeContributorInsightsHandler;
import io.partita.server.op.insights.ListContributorInsightsHandler;
import io.partita.server.op.insights.UpdateContributorInsightsHandler;
import io.partita.server.op.item.BatchGetItemHandler;
import io.partita.server.op.item.BatchWriteItemHandler;
import io.partita.server.op.item.DeleteItemHandler;
import io.partita.server.op.item.GetItemHandler;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.item.PutItemHandler;
import io.partita.server.op.item.UpdateItemHandler;
import io.partita.server.op.partiql.PartiqlOperations;
import io.partita.server.op.partiql.PartiqlScans;
import io.partita.server.op.query.QueryHandler;
import io.partita.server.op.query.ScanHandler;
import io.partita.server.op.stream.EventSourceMappings;
import io.partita.server.op.table.CreateTableHandler;
import io.partita.server.op.table.DeleteTableHandler;
import io.partita.server.op.table.DescribeEndpointsHandler;
import io.partita.server.op.table.DescribeLimitsHandler;
import io.partita.server.op.table.DescribeTableHandler;
import io.partita.server.op.table.ListTablesHandler;
import io.partita.server.op.table.ListTagsOfResourceHandler;
import io.partita.server.op.table.TagResourceHandler;
import io.partita.server.op.table.UntagResourceHandler;
import io.partita.server.op.table.UpdateTableHandler;
import io.partita.server.route.Dispatcher;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires storage, the operation registry and Netty together; {@link #start} binds, {@link #close} undoes it all. */
public final class PartitaServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitaServer.class);

    /** Parsed expressions kept for reuse; an application rarely has more distinct expressions than this. */
    static final int EXPRESSION_CACHE_ENTRIES = 4096;

    /** Each account's space, in account order; open mode has one, account {@code 000000000000}'s. */
    private final Map<String, Space> spaces;
    /** The first space: open mode's only one (the embedded API's controls and the inline check use it). */
    private final Space primary;
    /** Requests in flight, which a stop lets finish. */
    private final Drain drain = new Drain();

    private final Admission admission;

    private final EventLoopGroup boss;
    private final EventLoopGroup loops;
    private final EventExecutorGroup workers;
    private final Channel channel;
    private final Transport transport;

    /**
     * One account's tables and everything over them. Each account has storage of its own, so that no request, view,
     * stream or background task of one account can reach another's tables: accounts are isolated by construction
     * rather than by a check on every path.
     */
    private static final class Space implements AutoCloseable {
        final String account;
        final StorageEngine storage;
        /** PartiQL SELECTs that became a Scan, per table, for /metrics. */
        final PartiqlScans partiqlScans = new PartiqlScans();

        final OperationRegistry registry;
        EventSourceMappings mappings;
        HotKeySimulator simulator;
        AdminRoutes admin;

        Space(String account, StorageEngine storage, io.partita.server.op.table.TablePlacement placement) {
            this.account = account;
            this.storage = storage;
            this.registry = registry(storage, partiqlScans, placement);
        }

        @Override
        public void close() {
            if (simulator != null) {
                simulator.close();
            }
            if (mappings != null) {
                mappings.close();
            }
            storage.close();
        }
    }

    private PartitaServer(ServerConfig config, Map<String, StorageEngine> storages, boolean inline)
            throws InterruptedException {
        Map<String, Space> byAccount = new LinkedHashMap<>();
        storages.forEach((account, storage) -> byAccount.put(account, new Space(account, storage, config.tables())));
        this.spaces = Collections.unmodifiableMap(byAccount);
        this.primary = spaces.values().iterator().next();
        transport = config.transport().resolve();
        IoHandlerFactory io = transport.ioHandlerFactory();
        boss = new MultiThreadIoEventLoopGroup(1, io);
        loops = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(), new EventLoopThreads(), io);
        workers = new DefaultEventExecutorGroup(config.workerThreads());
        admission = new Admission(config.limits(), drain);
        Dispatcher dispatcher = new Dispatcher(
                primary.registry,
                Clock.systemUTC(),
                config.accounts() == null ? null : new SigV4Verifier(config.accounts(), Clock.systemUTC()),
                config.accounts() == null ? null : account -> spaces.get(account).registry);
        ConsoleAssets console = new ConsoleAssets(config.region(), config.accounts() != null);
        for (Space space : spaces.values()) {
            space.mappings = new EventSourceMappings(space.storage, config.region(), space.account);
            space.simulator = new HotKeySimulator(space.storage, dispatcher, config.region(), space.account);
            space.admin = new AdminRoutes(
                    space.storage,
                    space.mappings,
                    space.partiqlScans,
                    space.simulator,
                    console,
                    admission,
                    space.registry.faults(),
                    space.registry.metrics());
            config.faults().install(space.registry.faults());
        }
        channel = new ServerBootstrap()
                .group(boss, loops)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // A client's half-close ends its requests, not their answers (ApiRequestHandler.userEventTriggered).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new PartitaChannelInitializer(
                        dispatcher,
                        config.region(),
                        workers,
                        inline ? inlineOperations(config, primary.registry) : target -> false,
                        // The caller's account's views; the console's files (null: unsigned) are everyone's.
                        account -> account == null ? primary.admin : spaces.get(account).admin,
                        drain,
                        admission,
                        tlsContext(config)))
                .bind(new InetSocketAddress(config.host(), config.port()))
                .sync()
                .channel();
    }

    /** The server's TLS context from its PEM files, or null for plain HTTP. */
    public static SslContext tlsContext(ServerConfig config) {
        if (config.tls() == null) {
            return null;
        }
        try {
            return SslContextBuilder.forServer(
                            config.tls().certificate().toFile(),
                            config.tls().privateKey().toFile())
                    .build();
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot use the TLS certificate " + config.tls().certificate() + " and key "
                            + config.tls().privateKey() + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * Which requests may start on the event loop: those whose handler says its work is bounded (one item, a table's
     * description), unless every commit is fsynced (an fsync would stall the loop). Inline they cost less CPU than a
     * hop to a worker and back (docs/PERFORMANCE.md); the dispatcher still hands one over if it would wait.
     */
    static Predicate<String> inlineOperations(ServerConfig config, OperationRegistry registry) {
        if (config.storage().sync()) {
            return target -> false;
        }
        return target -> {
            OperationHandler<?, ?> handler = target == null ? null : registry.find(target);
            return handler != null && handler.boundedWork();
        };
    }

    public static PartitaServer start(ServerConfig config) {
        Map<String, StorageEngine> opened = new LinkedHashMap<>();
        try {
            for (String account : accounts(config)) {
                opened.put(account, StorageEngine.open(storage(config, account)));
            }
            return new PartitaServer(config, opened, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            opened.values().forEach(StorageEngine::close);
            throw new IllegalStateException("interrupted while binding", e);
        } catch (RuntimeException e) {
            opened.values().forEach(StorageEngine::close);
            throw e;
        }
    }

    /**
     * A server over {@code storage}, which it closes when it closes: a cluster's leader serving its replica. In open
     * mode its storage is account {@code 000000000000}'s; in strict mode {@code config}'s keys are one account's, and
     * the storage is that account's. No request runs on an event loop, since every commit waits for the cluster to
     * agree on it.
     */
    public static PartitaServer startOn(ServerConfig config, StorageEngine storage) {
        if (config.accounts() != null && config.accounts().accountIds().size() != 1) {
            storage.close();
            throw new IllegalArgumentException("a cluster node's server serves one account: "
                    + config.accounts().accountIds());
        }
        String account = config.accounts() == null
                ? Credentials.OPEN_ACCOUNT
                : config.accounts().accountIds().first();
        try {
            return new PartitaServer(config, Map.of(account, storage), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            storage.close();
            throw new IllegalStateException("interrupted while binding", e);
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }

    /** The accounts the server keeps tables for: strict mode's, in order, or open mode's one. */
    static List<String> accounts(ServerConfig config) {
        return config.accounts() == null
                ? List.of(Credentials.OPEN_ACCOUNT)
                : List.copyOf(config.accounts().accountIds());
    }

    /**
     * Where an account's tables live: account {@code 000000000000} (open mode's) in the data directory itself, so that
     * a directory keeps its tables across a change of mode when that account is among strict mode's; any other in
     * {@code accounts/<id>} beneath it.
     */
    public static StorageConfig storage(ServerConfig config, String account) {
        StorageConfig s = config.storage();
        if (s.inMemory() || account.equals(Credentials.OPEN_ACCOUNT)) {
            return s;
        }
        return s.withDataDir(s.dataDir().resolve("accounts").resolve(account));
    }

    static OperationRegistry registry(
            StorageEngine storage, PartiqlScans partiqlScans, io.partita.server.op.table.TablePlacement placement) {
        ExpressionCache cache = new ExpressionCache(EXPRESSION_CACHE_ENTRIES);
        ItemExpressions expressions = new ItemExpressions(cache);
        OperationRegistry registry = new OperationRegistry();
        if (!storage.reader()) {
            // A follower's reader answers eventually consistent reads; a "not found" there is asked of the leader.
            registry.confirmRefusalsBy(storage::awaitConsistentRead);
        }
        PartiqlOperations.register(registry, storage, expressions, cache, partiqlScans);
        io.partita.server.op.table.TransferOperations.register(registry, storage, placement);
        return registry.register("CreateTable", new CreateTableHandler(storage, placement))
                .register("DescribeTable", new DescribeTableHandler(storage))
                .register("ListTables", new ListTablesHandler(storage, placement))
                .register("UpdateTable", new UpdateTableHandler(storage))
                .register("DeleteTable", new DeleteTableHandler(storage, placement))
                .register("DescribeLimits", new DescribeLimitsHandler())
                .register("DescribeEndpoints", new DescribeEndpointsHandler())
                .register("CreateBackup", new io.partita.server.op.table.CreateBackupHandler(storage))
                .register("DescribeBackup", new io.partita.server.op.table.DescribeBackupHandler(storage))
                .register("ListBackups", new io.partita.server.op.table.ListBackupsHandler(storage))
                .register("DeleteBackup", new io.partita.server.op.table.DeleteBackupHandler(storage))
                .register(
                        "RestoreTableFromBackup",
                        new io.partita.server.op.table.RestoreTableFromBackupHandler(storage, placement))
                .register(
                        "UpdateContinuousBackups",
                        new io.partita.server.op.table.UpdateContinuousBackupsHandler(storage))
                .register(
                        "DescribeContinuousBackups",
                        new io.partita.server.op.table.DescribeContinuousBackupsHandler(storage))
                .register(
                        "RestoreTableToPointInTime",
                        new io.partita.server.op.table.RestoreTableToPointInTimeHandler(storage, placement))
                .register("TagResource", new TagResourceHandler(storage))
                .register("UntagResource", new UntagResourceHandler(storage))
                .register("ListTagsOfResource", new ListTagsOfResourceHandler(storage))
                .register("PutItem", new PutItemHandler(storage, expressions))
                .register("GetItem", new GetItemHandler(storage, expressions))
                .register("UpdateItem", new UpdateItemHandler(storage, expressions))
                .register("DeleteItem", new DeleteItemHandler(storage, expressions))
                .register("BatchGetItem", new BatchGetItemHandler(storage, expressions))
                .register("BatchWriteItem", new BatchWriteItemHandler(storage))
                .registerPartita("CheckBatchWriteItem", new BatchWriteItemHandler.Check(storage))
                .register(
                        "TransactWriteItems",
                        new io.partita.server.op.txn.TransactWriteItemsHandler(storage, expressions, storage.clock()))
                .registerPartita(
                        "PrepareTransactWriteItems",
                        new io.partita.server.op.txn.TransactWriteItemsHandler.Prepare(storage, expressions))
                .registerPartita(
                        "CommitTransactWriteItems",
                        new io.partita.server.op.txn.TransactWriteItemsHandler.Commit(
                                storage, expressions, storage.clock()))
                .registerPartita(
                        "AbortTransactWriteItems",
                        new io.partita.server.op.txn.TransactWriteItemsHandler.Abort(storage))
                .register(
                        "TransactGetItems", new io.partita.server.op.txn.TransactGetItemsHandler(storage, expressions))
                .registerPartita(
                        "HoldTransactGetItems",
                        new io.partita.server.op.txn.TransactGetItemsHandler.Held(storage, expressions))
                .registerPartita(
                        "ReleaseTransactGetItems",
                        new io.partita.server.op.txn.TransactGetItemsHandler.Release(storage))
                .register("Query", new QueryHandler(storage, cache))
                .register("Scan", new ScanHandler(storage, cache))
                .registerPartita("ScanRange", ScanHandler.ofRange(storage, cache))
                .registerPartita("QueryIndexRange", QueryHandler.ofRange(storage, cache))
                .registerPartita("PutMovedItems", new io.partita.server.op.item.MovedItemsHandler(storage))
                .registerPartita("OpenMovedRange", new io.partita.server.op.item.MovedItemsHandler.Open(storage))
                .registerPartita("PutMovedTokens", new io.partita.server.op.item.MovedItemsHandler.Tokens(storage))
                .registerPartita("AwaitIndexes", new io.partita.server.op.item.MovedItemsHandler.Indexed(storage))
                .registerPartita("IndexLag", new io.partita.server.op.table.IndexLagHandler(storage))
                .registerPartita("ChargeTable", new io.partita.server.op.table.ChargeTableHandler(storage))
                .registerPartita("ClearMovedRange", new io.partita.server.op.item.MovedItemsHandler.Clear(storage))
                .register("UpdateContributorInsights", new UpdateContributorInsightsHandler(storage))
                .register("DescribeContributorInsights", new DescribeContributorInsightsHandler(storage))
                .register("ListContributorInsights", new ListContributorInsightsHandler(storage))
                .register("UpdateTimeToLive", new io.partita.server.op.ttl.UpdateTimeToLiveHandler(storage))
                .register("DescribeTimeToLive", new io.partita.server.op.ttl.DescribeTimeToLiveHandler(storage))
                .registerStreams("ListStreams", new io.partita.server.op.stream.ListStreamsHandler(storage))
                .registerStreams("DescribeStream", new io.partita.server.op.stream.DescribeStreamHandler(storage))
                .registerStreams("GetShardIterator", new io.partita.server.op.stream.GetShardIteratorHandler(storage))
                .registerStreams("GetRecords", new io.partita.server.op.stream.GetRecordsHandler(storage));
    }

    /** The network I/O in use, resolved from the configuration. */
    public Transport transport() {
        return transport;
    }

    /** The storage of open mode's account, or of strict mode's first account. */
    public StorageEngine storage() {
        return primary.storage;
    }

    /** The faults injected into the operations of open mode's account, or of strict mode's first account. */
    public io.partita.server.fault.FaultInjector faults() {
        return primary.registry.faults();
    }

    /** Every account's storage, in account order (one in open mode): for the embedded API's controls. */
    public List<StorageEngine> storages() {
        return spaces.values().stream().map(space -> space.storage).toList();
    }

    /** The bound port (useful when the config asked for port 0). */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /**
     * Stops accepting, lets the requests in flight finish (every answer from now on closes its connection; up to 8 s,
     * until none has started for 100 ms), then closes the connections and storage, which flushes.
     */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        drain.begin();
        if (!drain.await(Duration.ofMillis(100), Duration.ofSeconds(8))) {
            log.warn("stopping with {} requests still in flight after 8 s", drain.inFlight());
        }
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        spaces.values().forEach(Space::close);
    }
}
