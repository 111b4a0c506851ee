package io.partita.server.embedded;

import io.partita.server.PartitaServer;
import io.partita.server.cli.ServerConfig;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.table.TableCatalog.Table;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Partita in-process, for tests: {@code try (var p = EmbeddedPartita.start()) { … p.endpoint() … }} starts an
 * in-memory server on a free loopback port; {@link #start(Path)} keeps data in a directory instead.
 */
public final class EmbeddedPartita implements AutoCloseable {
    private final PartitaServer server;

    private EmbeddedPartita(PartitaServer server) {
        this.server = server;
    }

    /** An in-memory server on a free port. */
    public static EmbeddedPartita start() {
        return new EmbeddedPartita(PartitaServer.start(ServerConfig.ephemeral()));
    }

    /** A server on a free port whose data lives in {@code dataDir}. */
    public static EmbeddedPartita start(Path dataDir) {
        ServerConfig config = new ServerConfig(
                "127.0.0.1",
                0,
                StorageConfig.disk(dataDir),
                "us-east-1",
                ServerConfig.defaultWorkerThreads(),
                Transport.AUTO);
        return new EmbeddedPartita(PartitaServer.start(config));
    }

    /** An in-memory server on a free port with its own partition and throughput settings. */
    public static EmbeddedPartita start(CapacityConfig capacity) {
        ServerConfig config = new ServerConfig(
                "127.0.0.1",
                0,
                StorageConfig.memory().withCapacity(capacity),
                "us-east-1",
                ServerConfig.defaultWorkerThreads(),
                Transport.AUTO);
        return new EmbeddedPartita(PartitaServer.start(config));
    }

    /** A server on a free port with its own storage settings (in memory or on disk, limits, injected GSI lag). */
    public static EmbeddedPartita start(StorageConfig storage) {
        ServerConfig config = new ServerConfig(
                "127.0.0.1", 0, storage, "us-east-1", ServerConfig.defaultWorkerThreads(), Transport.AUTO);
        return new EmbeddedPartita(PartitaServer.start(config));
    }

    /** An in-memory server on a free port in strict mode: every request's signature verified against {@code keys}. */
    public static EmbeddedPartita strict(io.partita.server.auth.Accounts keys) {
        return new EmbeddedPartita(PartitaServer.start(ServerConfig.ephemeral().strict(keys)));
    }

    /** A server from a whole configuration (its port may be 0: a free one). */
    public static EmbeddedPartita start(ServerConfig config) {
        return new EmbeddedPartita(PartitaServer.start(config));
    }

    /** The endpoint to give an SDK, e.g. {@code http://127.0.0.1:43121}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    public int port() {
        return server.port();
    }

    /**
     * Waits until every GSI of every table has applied every change made before the call (applying any it holds back
     * for an injected lag at once) and has finished any backfill: for tests that need an index to be up to date.
     *
     * @throws IllegalStateException if that takes longer than {@code timeout}
     */
    public void awaitIndexes(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (StorageEngine storage : server.storages()) {
            for (Table t : storage.tables().snapshot().values()) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                if (!storage.globalIndexes().await(t, left)) {
                    throw new IllegalStateException(
                            "the indexes of " + t.metadata().name() + " did not catch up within " + timeout);
                }
            }
        }
    }

    /** {@link #awaitIndexes(Duration)} with a minute's timeout. */
    public void awaitIndexes() {
        awaitIndexes(Duration.ofMinutes(1));
    }

    /**
     * Deletes every item whose TTL has expired now, as the reaper would (ignoring any added delay), and returns how
     * many: for tests that observe expiry.
     */
    public long reapTtlNow() {
        return server.storages().stream().mapToLong(s -> s.ttl().reapNow()).sum();
    }

    /** How long after a table's TTL changes UpdateTimeToLive refuses another change (DynamoDB: an hour). */
    public void ttlCooldown(Duration cooldown) {
        server.storages().forEach(s -> s.ttl().cooldownMillis(cooldown.toMillis()));
    }

    /** Makes every GSI without a lag of its own hold each change back {@code lag} before applying it. */
    public void gsiLag(Duration lag) {
        server.storages().forEach(s -> s.globalIndexes().defaultLagMillis(lag.toMillis()));
    }

    /**
     * The faults injected into this server's operations (of open mode's account, or strict mode's first): add a rule
     * to make the next requests fail as DynamoDB's can, and test the retry code that handles it.
     */
    public io.partita.server.fault.FaultInjector faults() {
        return server.faults();
    }

    @Override
    public void close() {
        server.close();
    }
}
