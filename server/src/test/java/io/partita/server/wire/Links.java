package io.partita.server.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The network between the nodes of a cluster on one machine, one way of each pair of nodes at a time, so that a node
 * can be cut off from its peers and joined again while its clients still reach it. Each node names its peers by host
 * name ({@link #host}); its own hosts file ({@link #hostsFile}, for the JVM's {@code jdk.net.hosts.file}) maps a peer's
 * name to a loopback address of its own for that pair ({@link #address}), where a relay listens on each of the peer's
 * ports and passes the bytes to the peer's real port on 127.0.0.1. A cut closes the relays' connections and refuses new
 * ones: the Raft peers, and nodes forwarding requests to each other, lose each other; clients on 127.0.0.1 do not.
 */
final class Links implements AutoCloseable {
    private final int nodes;
    private final List<Relay> relays = new ArrayList<>();

    /** Relays for {@code nodes} nodes, each listening for its peers on {@code ports[node]} (its Raft and API ports). */
    Links(int nodes, int[][] ports) throws IOException {
        this.nodes = nodes;
        try {
            for (int from = 0; from < nodes; from++) {
                for (int to = 0; to < nodes; to++) {
                    if (from != to) {
                        for (int port : ports[to]) {
                            relays.add(new Relay(from, to, port));
                        }
                    }
                }
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** How the nodes name node {@code node}. */
    static String host(int node) {
        return "n" + node + ".partita.test";
    }

    /** The address node {@code from} reaches node {@code to} at: a relay's. */
    static String address(int from, int to) {
        return "127." + (from + 1) + "." + (to + 1) + ".1";
    }

    /** Node {@code node}'s hosts file, written under {@code dir}: its own name is 127.0.0.1, a peer's its relay. */
    Path hostsFile(Path dir, int node) throws IOException {
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n");
        for (int peer = 0; peer < nodes; peer++) {
            hosts.append(peer == node ? "127.0.0.1" : address(node, peer))
                    .append(' ')
                    .append(host(peer))
                    .append('\n');
        }
        Path file = dir.resolve("hosts-n" + node);
        Files.writeString(file, hosts.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /** Cuts node {@code node} off from every peer, both ways. */
    void cut(int node) {
        relays.stream().filter(r -> r.from == node || r.to == node).forEach(Relay::cut);
    }

    /** Joins node {@code node} to its peers again. */
    void heal(int node) {
        relays.stream().filter(r -> r.from == node || r.to == node).forEach(r -> r.cut = false);
    }

    @Override
    public void close() {
        relays.forEach(Relay::close);
    }

    /** One way of one pair, on one port. */
    private static final class Relay {
        final int from;
        final int to;
        final int port;
        final ServerSocket server;
        final Set<Socket> open = ConcurrentHashMap.newKeySet();
        volatile boolean cut;

        Relay(int from, int to, int port) throws IOException {
            this.from = from;
            this.to = to;
            this.port = port;
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(address(from, to), port));
            Thread accepting = new Thread(this::accept, "relay-n" + from + "-n" + to + "-" + port);
            accepting.setDaemon(true);
            accepting.start();
        }

        private void accept() {
            while (!server.isClosed()) {
                Socket in;
                try {
                    in = server.accept();
                } catch (IOException e) {
                    if (server.isClosed()) {
                        return;
                    }
                    // A relay that stopped accepting would leave its port open and every new connection to it
                    // hanging, unanswered, with no error for the node to act on: a failure of its own, not a cut.
                    System.err.println(Thread.currentThread().getName() + " failed to accept, goes on: " + e);
                    pause();
                    continue;
                }
                relay(in);
            }
        }

        /** A moment before accepting again after an error that may last (too many open files, say). */
        private static void pause() {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void relay(Socket in) {
            if (cut) {
                closeQuietly(in);
                return;
            }
            Socket out = new Socket();
            try {
                out.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            } catch (IOException e) {
                closeQuietly(in);
                closeQuietly(out);
                return;
            }
            open.add(in);
            open.add(out);
            if (cut) {
                // Cut while it connected: cut() may have closed the open connections before these joined them.
                open.remove(in);
                open.remove(out);
                closeQuietly(in);
                closeQuietly(out);
                return;
            }
            try {
                pump(in, out);
                pump(out, in);
            } catch (RuntimeException | Error e) {
                // No thread for a pump (out of memory, say): this connection goes, the relay stays.
                System.err.println(Thread.currentThread().getName() + " failed to relay, goes on: " + e);
                open.remove(in);
                open.remove(out);
                closeQuietly(in);
                closeQuietly(out);
            }
        }

        private void pump(Socket a, Socket b) {
            Thread t = new Thread(
                    () -> {
                        byte[] buffer = new byte[64 * 1024];
                        try (InputStream input = a.getInputStream();
                                OutputStream output = b.getOutputStream()) {
                            for (int n; (n = input.read(buffer)) >= 0; ) {
                                output.write(buffer, 0, n);
                                output.flush();
                            }
                        } catch (IOException e) {
                            // cut, or closed by either end
                        } finally {
                            closeQuietly(a);
                            closeQuietly(b);
                            open.remove(a);
                            open.remove(b);
                        }
                    },
                    "relay-n" + from + "-n" + to + "-" + port + "-pump");
            t.setDaemon(true);
            t.start();
        }

        void cut() {
            cut = true;
            open.forEach(Relay::closeQuietly);
        }

        void close() {
            cut();
            closeQuietly(server);
        }

        private static void closeQuietly(java.io.Closeable c) {
            try {
                c.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
