package io.partita.server.cli;

import io.partita.server.netty.Admission;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import java.nio.file.Path;

/**
 * How a server runs.
 *
 * @param host the address to bind ({@code 0.0.0.0} for all)
 * @param port the port, 0 for any free one
 * @param region the region the health line names
 * @param workerThreads threads that run the operations that do not run on the event loop
 * @param transport the network I/O ({@link Transport#AUTO}: io_uring, else epoll, else NIO)
 * @param accounts strict mode's keys, or null for open mode
 * @param tls HTTPS's files, or null for plain HTTP
 * @param limits load shedding and the slow-sender timeout (null: {@link Admission.Limits#defaults})
 * @param faults faults to inject from the start (null: none)
 * @param tables where the account's tables are in a cluster with a group per table (null: all in its one store)
 */
public record ServerConfig(
        String host,
        int port,
        StorageConfig storage,
        String region,
        int workerThreads,
        Transport transport,
        io.partita.server.auth.Accounts accounts,
        Tls tls,
        Admission.Limits limits,
        io.partita.server.fault.FaultPlan faults,
        io.partita.server.op.table.TablePlacement tables) {
    public ServerConfig {
        if (limits == null) {
            limits = Admission.Limits.defaults();
        }
        if (faults == null) {
            faults = io.partita.server.fault.FaultPlan.none();
        }
    }

    /** HTTPS: a PEM certificate chain and its PEM (PKCS#8) private key. */
    public record Tls(Path certificate, Path privateKey) {}

    /** Open mode, plain HTTP: any well-formed signature is accepted. */
    public ServerConfig(
            String host, int port, StorageConfig storage, String region, int workerThreads, Transport transport) {
        this(host, port, storage, region, workerThreads, transport, null, null, null, null, null);
    }

    /** Strict mode: every request's SigV4 signature is verified against {@code keys}. */
    public ServerConfig strict(io.partita.server.auth.Accounts keys) {
        return new ServerConfig(
                host, port, storage, region, workerThreads, transport, keys, tls, limits, faults, tables);
    }

    /** HTTPS instead of HTTP, on the same port. */
    public ServerConfig withTls(Tls files) {
        return new ServerConfig(
                host, port, storage, region, workerThreads, transport, accounts, files, limits, faults, tables);
    }

    /** Other bounds on requests in flight, their bodies' memory and the time a request may take to arrive. */
    public ServerConfig withLimits(Admission.Limits bounds) {
        return new ServerConfig(
                host, port, storage, region, workerThreads, transport, accounts, tls, bounds, faults, tables);
    }

    /** Faults to inject from the start. */
    public ServerConfig withFaults(io.partita.server.fault.FaultPlan plan) {
        return new ServerConfig(
                host, port, storage, region, workerThreads, transport, accounts, tls, limits, plan, tables);
    }

    /** A cluster's server of one of an account's groups, where a group per table places the account's tables. */
    public ServerConfig withTables(io.partita.server.op.table.TablePlacement placement) {
        return new ServerConfig(
                host, port, storage, region, workerThreads, transport, accounts, tls, limits, faults, placement);
    }

    public static final int DEFAULT_PORT = 8000;
    public static final Path DEFAULT_DATA_DIR = Path.of("partita-data");

    public static int defaultWorkerThreads() {
        return Math.max(4, Runtime.getRuntime().availableProcessors() * 2);
    }

    /** An in-memory server on a free loopback port: what tests use. */
    public static ServerConfig ephemeral() {
        return new ServerConfig(
                "127.0.0.1", 0, StorageConfig.memory(), "us-east-1", defaultWorkerThreads(), Transport.AUTO);
    }
}
