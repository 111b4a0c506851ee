package io.partita.server.cluster;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.partita.cluster.ClusterNode;
import io.partita.cluster.ReplicaStore;
import io.partita.server.PartitaServer;
import io.partita.server.cli.ServerConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of a cluster: its replica of the store, its Raft server ({@link ClusterNode}), its public port ({@link
 * ClusterRouter}) and, while it leads, the server that answers the cluster's requests.
 *
 * <p>The whole store is one Raft group: every change the leader commits (a batch with its change records, a column
 * family made or dropped) is an entry of the group's log, which every replica applies to its RocksDB in order. Only
 * the leader runs a {@link StorageEngine} (tables, capacity, the write path, GSI appliers, streams, the TTL reaper):
 * it opens one on its replica when it has applied every committed entry, and closes it when it stops leading. The
 * other nodes forward every request to it, but for eventually consistent reads with follower reads on: a follower
 * answers those from its own replica, through a read-only engine ({@link StorageEngine#openReader}).
 */
public final class ClusterMember implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterMember.class);
    private static final long WATCH_MILLIS = 20;

    private final ClusterConfig cluster;
    private final ServerConfig server;
    private final Consumer<PartitaServer> onServe;
    private final ReplicaStore replica;
    private final ClusterNode node;
    private final ClusterRouter router;
    private final Thread watch;
    private volatile boolean closed;
    /** This node's own server while it leads; null otherwise. Changed only by {@link #watch} and close. */
    private volatile PartitaServer serving;
    /**
     * With follower reads, while this node follows: the server that answers eventually consistent reads from its
     * replica, through a reader engine ({@link StorageEngine#openReader}); null otherwise. Changed only by {@link
     * #watch}, install and close.
     */
    private volatile Reader reader;
    /** Whether the router may send eventually consistent reads to {@link #reader} now: it is recent enough. */
    private volatile boolean readable;

    /** A reader, the store it reads and the store's {@link RocksStore#catalogChanges} when it loaded its tables. */
    private record Reader(PartitaServer server, RocksStore store, long catalogChanges) {}

    /**
     * How many committed entries a follower may have left to apply and still answer reads: one that fell further
     * behind (it restarted, it installs a checkpoint) forwards them to the leader until it catches up.
     */
    static final long READER_MAX_LAG = 100;

    private ClusterMember(
            ClusterConfig cluster,
            ServerConfig server,
            ClusterNode.Timings timings,
            ClusterNode.LogRetention retention,
            Consumer<PartitaServer> onServe)
            throws IOException, InterruptedException {
        if (server.storage().inMemory()) {
            throw new IllegalArgumentException("a cluster node keeps its replica on disk: give it a data directory");
        }
        if (server.accounts() != null) {
            throw new IllegalArgumentException("a cluster node serves open mode for now");
        }
        // With --tls-cert, clients, the nodes forwarding to each other and the Raft peers all speak TLS; made first,
        // so that unusable files refuse to start before anything is opened.
        SslContext serverTls = PartitaServer.tlsContext(server);
        SslContext forwardTls = server.tls() == null ? null : forwardingContext(server.tls());
        this.cluster = cluster;
        this.server = server;
        this.onServe = onServe;
        this.replica = ReplicaStore.open(server.storage());
        // A checkpoint from the leader replaces the store whole: this node's own server (if it still has one) closes
        // first.
        replica.beforeInstall(() -> {
            stopServing("a checkpoint from the leader replaces its store");
            stopReading("a checkpoint from the leader replaces its store");
        });
        ClusterNode started = null;
        ClusterRouter routing = null;
        try {
            List<ClusterNode.Peer> peers =
                    cluster.members().stream().map(ClusterMember::peer).toList();
            started = ClusterNode.start(
                    cluster.name(),
                    cluster.nodeId(),
                    peers,
                    server.storage().dataDir().resolve("raft"),
                    replica,
                    timings,
                    server.storage().sync(),
                    retention,
                    cluster.join(),
                    server.tls() == null
                            ? null
                            : new ClusterNode.PeerTls(
                                    server.tls().certificate(), server.tls().privateKey()));
            ClusterConfig.Member self = cluster.self();
            routing = new ClusterRouter(
                    server.host(),
                    self.apiPort(),
                    self.id(),
                    this::target,
                    cluster.followerReads() ? this::readTarget : null,
                    this::status,
                    new io.partita.server.metrics.ClusterMetrics(this::view),
                    new ClusterRouter.Members() {
                        @Override
                        public boolean leads() {
                            return node.isLeaderReady();
                        }

                        @Override
                        public ClusterRouter.Made change(byte[] body) {
                            return changeMembers(body);
                        }
                    },
                    serverTls,
                    forwardTls);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (started != null) {
                started.close();
            }
            replica.close();
            throw e;
        }
        this.node = started;
        this.router = routing;
        this.watch = new Thread(this::watchLeadership, "partita-cluster-" + cluster.nodeId());
        watch.setDaemon(true);
        watch.start();
    }

    /**
     * Starts this node of {@code cluster}: its replica in {@code server}'s data directory (the Raft log in its {@code
     * raft} folder), its public port the member's API port. {@code onServe} runs on each server this node opens when
     * it becomes the leader (the command line sets TTL's timing there).
     */
    public static ClusterMember start(
            ClusterConfig cluster, ServerConfig server, ClusterNode.Timings timings, Consumer<PartitaServer> onServe)
            throws IOException, InterruptedException {
        return start(cluster, server, timings, ClusterNode.LogRetention.defaults(), onServe);
    }

    /** As above, keeping as much of the log as {@code retention} says. */
    public static ClusterMember start(
            ClusterConfig cluster,
            ServerConfig server,
            ClusterNode.Timings timings,
            ClusterNode.LogRetention retention,
            Consumer<PartitaServer> onServe)
            throws IOException, InterruptedException {
        return new ClusterMember(cluster, server, timings, retention, onServe);
    }

    /**
     * How a node speaks HTTPS to another's public port: trusting the certificates of its own {@code --tls-cert} file,
     * as the Raft peers do ({@link ClusterNode.PeerTls}).
     */
    private static SslContext forwardingContext(ServerConfig.Tls tls) {
        try {
            return SslContextBuilder.forClient()
                    .trustManager(tls.certificate().toFile())
                    .build();
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot trust the TLS certificate " + tls.certificate() + ": " + e.getMessage(), e);
        }
    }

    private ClusterRouter.Target target() {
        PartitaServer own = serving;
        if (own != null) {
            return new ClusterRouter.Target("127.0.0.1:" + own.port(), true);
        }
        String leader = node.leaderId();
        String api = leader == null || leader.equals(cluster.nodeId()) ? null : apiOf(leader);
        return api == null ? null : new ClusterRouter.Target(api, false);
    }

    /** Where an eventually consistent read goes: this follower's reader while it is recent enough, else null. */
    private ClusterRouter.Target readTarget() {
        Reader r = reader;
        return r == null || !readable
                ? null
                : new ClusterRouter.Target("127.0.0.1:" + r.server().port(), true);
    }

    private static ClusterNode.Peer peer(ClusterConfig.Member m) {
        return new ClusterNode.Peer(m.id(), m.host(), m.raftPort(), m.apiAddress());
    }

    /**
     * Where member {@code id} answers clients: as the group's configuration says, which follows the members'
     * changes; else as this node's own member list does (a group formed before configurations carried it).
     */
    private String apiOf(String id) {
        for (ClusterNode.Peer p : node.members()) {
            if (p.id().equals(id) && p.api() != null) {
                return p.api();
            }
        }
        ClusterConfig.Member m = cluster.member(id);
        return m == null ? null : m.apiAddress();
    }

    /** How long a change of the members may take: the new member may first have a checkpoint to install. */
    private static final java.time.Duration MEMBERS_CHANGE = java.time.Duration.ofMinutes(2);

    /**
     * {@code POST /cluster/members} on the leader: {@code {"add": "id=host:raftPort:apiPort"}} adds a member (started
     * with {@code --cluster-join}), {@code {"remove": "id"}} removes one; one change at a time, and at least three
     * members stay. Answers the members once the group has committed the change; 400 for a change that cannot be
     * made, 503 when the group did not make it (it may still complete: {@code GET /cluster} shows the members).
     */
    ClusterRouter.Made changeMembers(byte[] body) {
        com.fasterxml.jackson.databind.JsonNode in;
        try {
            in = JSON.readTree(body);
        } catch (IOException e) {
            return problem(400, "the body is not JSON: " + e.getMessage());
        }
        if (in == null
                || !in.isObject()
                || in.size() != 1
                || !(in.has("add") || in.has("remove"))
                || !in.elements().next().isTextual()) {
            return problem(400, "expected {\"add\": \"id=host:raftPort:apiPort\"} or {\"remove\": \"id\"}");
        }
        List<ClusterNode.Peer> now = new java.util.ArrayList<>();
        for (ClusterNode.Peer p : node.members()) {
            now.add(p.api() != null ? p : new ClusterNode.Peer(p.id(), p.host(), p.port(), apiOf(p.id())));
        }
        List<ClusterNode.Peer> next = new java.util.ArrayList<>(now);
        if (in.has("add")) {
            ClusterConfig.Member m;
            try {
                m = ClusterConfig.parseMember(in.get("add").asText().trim());
            } catch (IllegalArgumentException e) {
                return problem(400, e.getMessage());
            }
            for (ClusterNode.Peer p : now) {
                if (p.id().equals(m.id())) {
                    return problem(400, "node " + m.id() + " is already a member");
                }
                if ((p.host() + ":" + p.port()).equals(m.host() + ":" + m.raftPort())) {
                    return problem(400, "member " + p.id() + " already listens on " + m.host() + ":" + m.raftPort());
                }
            }
            next.add(peer(m));
        } else {
            String id = in.get("remove").asText().trim();
            if (!next.removeIf(p -> p.id().equals(id))) {
                return problem(400, "node " + id + " is not a member");
            }
            if (next.size() < 3) {
                return problem(
                        400,
                        "a cluster keeps at least 3 members (to lose one and keep a majority): add a node before"
                                + " removing " + id);
            }
        }
        try {
            node.changeMembers(next, MEMBERS_CHANGE);
        } catch (io.partita.storage.StorageUnavailableException e) {
            return problem(503, e.getMessage());
        }
        log.info(
                "node {}: the cluster's members are now {}",
                cluster.nodeId(),
                next.stream().map(ClusterNode.Peer::id).toList());
        com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
        putMembers(out, next);
        return new ClusterRouter.Made(200, out.toString());
    }

    private static ClusterRouter.Made problem(int status, String message) {
        return new ClusterRouter.Made(
                status, JSON.createObjectNode().put("message", message).toString());
    }

    private void putMembers(com.fasterxml.jackson.databind.node.ObjectNode out, List<ClusterNode.Peer> peers) {
        com.fasterxml.jackson.databind.node.ArrayNode members = out.putArray("members");
        for (ClusterNode.Peer p : peers) {
            members.addObject()
                    .put("id", p.id())
                    .put("api", p.api() != null ? p.api() : apiOf(p.id()))
                    .put("raft", p.host() + ":" + p.port());
        }
    }

    private void watchLeadership() {
        while (!closed) {
            try {
                if (serving == null && node.canServe()) {
                    stopReading("it leads");
                    serve();
                } else if (serving != null && !node.isLeaderReady()) {
                    stopServing("it no longer leads");
                }
                if (cluster.followerReads()) {
                    followReads();
                }
            } catch (RuntimeException e) {
                log.error("node {} could not change its part in the cluster", cluster.nodeId(), e);
                stopServing("it failed");
                stopReading("it failed");
            }
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Worker threads of the leader's own server: writes the cluster may commit at once. */
    static final int WRITERS = 64;

    private synchronized void serve() {
        if (closed) {
            return;
        }
        long started = System.nanoTime();
        StorageEngine engine = replica.unlessInstalling(store -> StorageEngine.openOn(store, server.storage()));
        if (engine == null) {
            return;
        }
        // Its own server listens on loopback only: clients reach it through the router.
        // Every write holds a worker while the group commits it (a Raft round trip, mostly waiting): the pool bounds
        // how
        // many writes the cluster commits at once, so it is larger than a single node's (docs/PERFORMANCE.md).
        ServerConfig own = new ServerConfig(
                        "127.0.0.1",
                        0,
                        server.storage(),
                        server.region(),
                        Math.max(server.workerThreads(), WRITERS),
                        server.transport())
                .withLimits(server.limits())
                .withFaults(server.faults());
        PartitaServer opened = PartitaServer.startOn(own, engine);
        onServe.accept(opened);
        serving = opened;
        log.info(
                "node {} leads the cluster (term {}) and serves it, ready in {} ms",
                cluster.nodeId(),
                node.term(),
                (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * While this node follows, keeps its reader open on the replica's current store and catalog, and says whether the
     * router may send it reads: while the node knows a leader (a node cut off from the others soon knows none) and
     * has at most {@link #READER_MAX_LAG} committed entries left to apply.
     */
    private void followReads() {
        if (serving != null || !"FOLLOWER".equals(node.role())) {
            stopReading("it does not follow");
            return;
        }
        if (replica.installing()) {
            // Its hook closed the reader; the next pass after the install opens one on the new store.
            readable = false;
            return;
        }
        Reader r = reader;
        Boolean current = r == null
                ? Boolean.FALSE
                : replica.unlessInstalling(store -> store == r.store() && store.catalogChanges() == r.catalogChanges());
        if (!Boolean.TRUE.equals(current)) {
            openReader(r);
        }
        readable = reader != null
                && node.leaderId() != null
                && node.commitIndex() - node.lastAppliedIndex() <= READER_MAX_LAG;
    }

    /**
     * Opens a reader on the replica's store as it is now, then closes {@code previous} (one on an older catalog, or
     * a store an install replaced): reads go on, to one or the other, meanwhile.
     */
    private synchronized void openReader(Reader previous) {
        if (closed || serving != null || reader != previous) {
            return; // closed, or changed (an install closed it) since the caller looked: the next pass decides
        }
        long started = System.nanoTime();
        Reader opened = replica.unlessInstalling(store -> {
            long changes = store.catalogChanges();
            StorageEngine engine = StorageEngine.openReader(store, server.storage());
            ServerConfig own = new ServerConfig(
                            "127.0.0.1",
                            0,
                            server.storage(),
                            server.region(),
                            server.workerThreads(),
                            server.transport())
                    .withLimits(server.limits())
                    .withFaults(server.faults());
            return new Reader(PartitaServer.startOn(own, engine), store, changes);
        });
        if (opened == null) {
            return; // an install runs: the next watch opens one on the new store
        }
        reader = opened;
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (previous == null) {
            log.info("node {} answers eventually consistent reads from its replica, ready in {} ms", nodeId(), millis);
        } else {
            log.debug("node {}: its reader opened again on the changed tables in {} ms", nodeId(), millis);
            // On a thread of its own: it lets its reads in flight finish, and the watch goes on meanwhile.
            Thread closing = new Thread(previous.server()::close, "partita-cluster-" + nodeId() + "-reader-close");
            closing.setDaemon(true);
            closing.start();
        }
    }

    private synchronized void stopReading(String why) {
        readable = false;
        Reader r = reader;
        if (r == null) {
            return;
        }
        reader = null;
        log.info("node {} stops answering reads from its replica: {}", cluster.nodeId(), why);
        r.server().close();
    }

    private synchronized void stopServing(String why) {
        PartitaServer own = serving;
        if (own == null) {
            return;
        }
        serving = null;
        log.info("node {} stops serving the cluster: {}", cluster.nodeId(), why);
        own.close();
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** This node's view of the cluster, as JSON: what {@code GET /cluster} answers. */
    String status() {
        com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
        out.put("cluster", cluster.name());
        out.put("node", cluster.nodeId());
        out.put("role", node.role());
        out.put("leader", node.leaderId());
        out.put("serving", serving != null);
        out.put("term", node.term());
        out.put("commitIndex", node.commitIndex());
        out.put("appliedIndex", node.lastAppliedIndex());
        out.put("snapshotIndex", node.snapshotIndex());
        out.put("logStartIndex", node.logStartIndex());
        // The group's members as this node knows them (none yet on a node that waits to be added).
        putMembers(out, node.members());
        java.util.Map<String, Long> matched = node.followerMatchIndexes();
        if (!matched.isEmpty()) {
            com.fasterxml.jackson.databind.node.ObjectNode followers = out.putObject("followerMatchIndexes");
            matched.forEach(followers::put);
        }
        return out.toString();
    }

    private io.partita.server.metrics.ClusterMetrics.View view() {
        long[] joined = node.groupCommits();
        return new io.partita.server.metrics.ClusterMetrics.View(
                cluster.nodeId(),
                node.role().equals("LEADER"),
                serving != null,
                node.term(),
                node.commitIndex(),
                node.lastAppliedIndex(),
                node.followerMatchIndexes(),
                joined[0],
                joined[1],
                router.followerReads());
    }

    /** Whether this node answers the cluster's requests now (it leads). */
    public boolean serving() {
        return serving != null;
    }

    public String nodeId() {
        return cluster.nodeId();
    }

    /** The port clients use: the router's. */
    public int port() {
        return router.port();
    }

    @Override
    public void close() {
        closed = true;
        watch.interrupt();
        try {
            watch.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Its own server first, which answers the requests it has; the router then answers 503 (retried elsewhere)
        // until it closes.
        stopServing("it is stopping");
        stopReading("it is stopping");
        router.close();
        try {
            node.close();
        } catch (IOException e) {
            log.warn("node {}: closing its Raft server", cluster.nodeId(), e);
        }
        replica.close();
    }
}
