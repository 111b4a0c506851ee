package io.partita.server.embedded;

import io.partita.server.PartitaServer;
import io.partita.server.cli.ServerConfig;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import io.partita.storage.capacity.CapacityConfig;
import java.net.URI;
import java.nio.file.Path;

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

    /** The endpoint to give an SDK, e.g. {@code http://127.0.0.1:43121}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
