package io.partita.conformance.support;

import io.partita.cluster.ClusterNode;
import io.partita.server.cli.ServerConfig;
import io.partita.server.cluster.ClusterConfig;
import io.partita.server.cluster.ClusterMember;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A cluster of Partita nodes in this JVM, on loopback, each with its replica in a temporary directory: what the suite
 * runs against with {@code -Dpartita.cluster=3}. Its endpoint is a node that does not lead, so every request the
 * tests make is forwarded to the leader and every change is replicated before it is acknowledged.
 */
final class LocalCluster implements AutoCloseable {
    private final List<ClusterMember> nodes = new ArrayList<>();
    /** The replicas' folder, deleted when the cluster closes (hundreds of MB after the suite). */
    private final Path dir;

    private LocalCluster(int size) throws Exception {
        dir = Files.createTempDirectory("partita-cluster");
        List<ClusterConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", freePort(), freePort()));
        }
        for (int i = 0; i < size; i++) {
            ServerConfig server = new ServerConfig(
                    "127.0.0.1",
                    members.get(i).apiPort(),
                    StorageConfig.disk(dir.resolve("n" + i)),
                    "us-east-1",
                    ServerConfig.defaultWorkerThreads(),
                    Transport.AUTO);
            nodes.add(ClusterMember.start(
                    new ClusterConfig("conformance", "n" + i, members),
                    server,
                    // A LAN's election timeouts (1 to 2 s), not loopback's (0.3 to 0.6 s): no node is killed here,
                    // and under CI's load on two cores a pause past 300 ms began elections that left the suite's
                    // requests unserved past the SDK's three attempts (AtomicityTest, 2026-12-07).
                    ClusterNode.Timings.defaults(),
                    serving -> {}));
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (nodes.stream().noneMatch(ClusterMember::serving)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no node of the cluster leads after 30 s");
            }
            Thread.sleep(20);
        }
    }

    static LocalCluster start(int size) {
        try {
            return new LocalCluster(size);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start a cluster of " + size + ": " + e.getMessage(), e);
        }
    }

    /** A node that does not lead (as the cluster was when asked). */
    URI followerEndpoint() {
        ClusterMember follower =
                nodes.stream().filter(n -> !n.serving()).findFirst().orElseThrow();
        return URI.create("http://127.0.0.1:" + follower.port());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        nodes.forEach(ClusterMember::close);
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            all.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Left in the temporary directory.
        }
    }
}
