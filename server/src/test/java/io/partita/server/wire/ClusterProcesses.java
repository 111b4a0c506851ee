package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A 3-node cluster of real server processes on loopback ({@link ServerProcess}, each on a data directory of its own
 * under {@code dir}), whose nodes are killed with SIGKILL and restarted on their directories; with {@link #linked},
 * whose network between the nodes can be cut ({@link Links}).
 */
final class ClusterProcesses implements AutoCloseable {
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"n(\\d)\"");
    private static final Pattern APPLIED = Pattern.compile("\"appliedIndex\":(-?\\d+)");

    private final Path dir;
    private final List<String> members = new ArrayList<>();
    private final ServerProcess[] nodes = new ServerProcess[3];
    private final int[] apiPorts = new int[3];
    /** The network between the nodes, when they name each other through it; else null. */
    private final Links links;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** Arguments every node is started with besides the cluster's own. */
    private final List<String> extra;

    private ClusterProcesses(Path dir, boolean linked, List<String> extra) throws Exception {
        this.dir = dir;
        this.extra = List.copyOf(extra);
        int[][] ports = new int[3][];
        for (int i = 0; i < 3; i++) {
            apiPorts[i] = FreePorts.next();
            int raft = FreePorts.next();
            ports[i] = new int[] {raft, apiPorts[i]};
            members.add("n" + i + "=" + (linked ? Links.host(i) : "127.0.0.1") + ":" + raft + ":" + apiPorts[i]);
        }
        this.links = linked ? new Links(3, ports) : null;
        try {
            for (int i = 0; i < 3; i++) {
                start(i);
            }
            awaitFormed();
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
    }

    static ClusterProcesses start(Path dir) throws Exception {
        return new ClusterProcesses(dir, false, List.of());
    }

    /** A cluster whose every node is also given {@code arguments}. */
    static ClusterProcesses start(Path dir, String... arguments) throws Exception {
        return new ClusterProcesses(dir, false, List.of(arguments));
    }

    /** A cluster whose nodes reach each other through {@link #links}, which can cut one off. */
    static ClusterProcesses linked(Path dir) throws Exception {
        return new ClusterProcesses(dir, true, List.of());
    }

    /** The network between the nodes ({@link #linked} clusters only). */
    Links links() {
        return links;
    }

    /** Starts node {@code i} (again) on its data directory. */
    void start(int i) throws Exception {
        List<String> arguments = new ArrayList<>(
                List.of("--cluster-members", String.join(",", members), "--node-id", "n" + i, "--throughput", "off"));
        arguments.addAll(extra);
        nodes[i] = ServerProcess.start(
                dir.resolve("n" + i),
                links == null ? List.of() : List.of("-Djdk.net.hosts.file=" + links.hostsFile(dir, i)),
                arguments.toArray(String[]::new));
        assertThat(nodes[i].port()).isEqualTo(apiPorts[i]);
    }

    /** SIGKILL to node {@code i}. */
    void kill(int i) {
        nodes[i].kill();
        nodes[i] = null;
    }

    /** SIGSTOP to node {@code i}: it holds its state and its connections, and answers nothing until resumed. */
    void pause(int i) throws Exception {
        nodes[i].signal("STOP");
    }

    /** SIGCONT to node {@code i}, paused. */
    void resume(int i) throws Exception {
        nodes[i].signal("CONT");
    }

    URI endpoint(int i) {
        return URI.create("http://127.0.0.1:" + apiPorts[i]);
    }

    /** The index of the node that leads and serves, as a live node sees it, once there is one. */
    int leader() throws Exception {
        return leader(-1);
    }

    /**
     * The leader's index as node {@code asking} sees it (any live node if -1, which must also say the leader
     * serves), once there is one; within 60 s.
     */
    int leader(int asking) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (nodes[i] == null || (asking >= 0 && i != asking)) {
                    continue;
                }
                try {
                    String view = view(i);
                    Matcher m = LEADER.matcher(view);
                    if (m.find() && (asking >= 0 || view.contains("\"serving\":true"))) {
                        return Integer.parseInt(m.group(1));
                    }
                } catch (java.io.IOException e) {
                    // not up yet
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader within 60 s" + diagnosis());
    }

    /**
     * Waits until every node has applied an entry of the group's log (the first leader's configuration, at least): Ratis
     * counts no vote of a member whose log is empty once the candidate has committed entries (its
     * {@code LeaderElection.nonEmptyLog}), so a leader killed before the member that started last got its first entry
     * leaves the other two unable to elect a leader until it returns. The tests kill nodes of a formed cluster.
     */
    private void awaitFormed() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int i = 0; i < 3; i++) {
            while (true) {
                try {
                    Matcher m = APPLIED.matcher(view(i));
                    if (m.find() && Long.parseLong(m.group(1)) >= 0) {
                        break;
                    }
                } catch (java.io.IOException e) {
                    // not up yet
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("n" + i + " applied no entry within 60 s" + diagnosis());
                }
                Thread.sleep(50);
            }
        }
    }

    /** Node {@code i}'s view of the cluster ({@code GET /cluster}), within 1 s. */
    String view(int i) throws java.io.IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(endpoint(i).resolve("/cluster"))
                                .timeout(Duration.ofSeconds(1))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /**
     * The index of a node other than {@code away} (paused, say) that says it leads and serves, once there is one
     * within {@code timeout}; -1 when none did.
     */
    int servingOtherThan(int away, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (i == away || nodes[i] == null) {
                    continue;
                }
                try {
                    String view = view(i);
                    if (view.contains("\"role\":\"LEADER\"") && view.contains("\"serving\":true")) {
                        return i;
                    }
                } catch (java.io.IOException e) {
                    // not answering yet
                }
            }
            Thread.sleep(50);
        }
        return -1;
    }

    /**
     * For a failure's message: each live node's last log lines and the stacks of its Raft threads (see {@link
     * ServerProcess#diagnosis}); the whole logs, with the thread dumps, are under target/server-logs.
     */
    String diagnosis() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            if (nodes[i] != null) {
                out.append("\nn").append(i).append(" (").append(nodes[i].log()).append("):");
                try {
                    out.append(nodes[i].diagnosis(15));
                } catch (Exception e) {
                    out.append(" no diagnosis: ").append(e);
                }
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        for (ServerProcess p : nodes) {
            if (p != null) {
                p.kill();
            }
        }
        if (links != null) {
            links.close();
        }
    }
}
