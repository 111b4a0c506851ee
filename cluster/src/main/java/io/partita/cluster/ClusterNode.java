package io.partita.cluster;

import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.ReplicatedEntry;
import io.partita.storage.rocks.Replication;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One node's replica of a store replicated as a Raft group: the Ratis server (gRPC between the peers, its log in
 * {@code raftDir}), the store as its state machine, and the {@link Replication} through which the store's own
 * changes are proposed.
 *
 * <p>Only the leader proposes: a change is computed on the leader's state (under the item's lock, as in single-node
 * mode) and submitted to the leader's own server, never redirected, so a change computed on a follower's older state
 * cannot reach the log. It returns once the group has committed it and this replica has applied it.
 */
public final class ClusterNode implements Replication, AutoCloseable {
    /**
     * A member of the group: its id, the host and port its Raft server listens on, and the address ({@code
     * host:port}) it answers clients on, or null where nobody needs it. The client address travels in the group's
     * configuration, so that every node knows where to send requests after the members change.
     */
    public record Peer(String id, String host, int port, String api) {
        public Peer {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(host, "host");
        }

        public Peer(String id, String host, int port) {
            this(id, host, port, null);
        }

        String address() {
            return host + ":" + port;
        }

        RaftPeer raftPeer() {
            return raftPeer(0);
        }

        /** As a Raft peer with that priority: a leader hands its part to an up-to-date follower of a higher one. */
        RaftPeer raftPeer(int priority) {
            RaftPeer.Builder b = RaftPeer.newBuilder()
                    .setId(RaftPeerId.valueOf(id))
                    .setAddress(address())
                    .setPriority(priority);
            if (api != null) {
                b.setClientAddress(api);
            }
            return b.build();
        }

        static Peer of(RaftPeer peer) {
            String address = peer.getAddress();
            int colon = address.lastIndexOf(':');
            String api = peer.getClientAddress();
            return new Peer(
                    peer.getId().toString(),
                    address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1)),
                    api == null || api.isEmpty() ? null : api);
        }
    }

    /**
     * How quickly the group notices a dead leader, how long a proposal may wait, and how long after proposing an entry
     * the group committed the leader answers strongly consistent reads without a barrier ({@link ReadLease}; zero for
     * none). Every node of a group has the same: the lease counts on the others' election timeouts.
     */
    public record Timings(Duration electionMin, Duration electionMax, Duration proposal, Duration readLease) {
        public Timings {
            if (readLease.compareTo(electionMin.dividedBy(2)) > 0) {
                throw new IllegalArgumentException(
                        "a read lease lasts at most half the shortest election timeout: " + readLease);
            }
        }

        /** Ratis's usual election timeouts on a LAN, and a read lease of half the shortest. */
        public static Timings defaults() {
            return new Timings(
                    Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofSeconds(10), Duration.ofMillis(500));
        }

        /** Quick elections, for clusters on one machine's loopback (tests). */
        public static Timings loopback() {
            return new Timings(
                    Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(10), Duration.ofMillis(150));
        }

        /** The same, with no read lease: every strongly consistent read passes a barrier through the log. */
        public Timings withoutReadLease() {
            return new Timings(electionMin, electionMax, proposal, Duration.ZERO);
        }
    }

    /**
     * How much of the log a node keeps: a checkpoint of the store every {@code snapshotEntries} entries, after which
     * the log before it is purged but for the last {@code snapshotEntries} entries (a follower a little behind catches
     * up from the log; one further behind gets the checkpoint); the log is written in segments of {@code
     * segmentBytes}, the unit a purge deletes.
     */
    public record LogRetention(long snapshotEntries, long segmentBytes) {
        public LogRetention {
            if (snapshotEntries < 1 || segmentBytes < 1024) {
                throw new IllegalArgumentException("snapshotEntries must be at least 1 and segmentBytes at least 1024: "
                        + snapshotEntries + ", " + segmentBytes);
            }
        }

        /** A checkpoint every 100,000 entries, in Ratis's usual 32 MB segments. */
        public static LogRetention defaults() {
            return new LogRetention(100_000, 32L << 20);
        }
    }

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ClusterNode.class);

    /** The Raft addresses its host's server and clients have been given, by peer id ({@link Host#knownAddresses}). */
    private final Addresses addresses;

    private final RaftServer server;
    private final RaftGroup group;
    private final RaftPeerId self;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final long proposalMillis;
    /** The peers' TLS (none without): a Ratis client this node makes speaks to them as its server does. */
    private final Parameters parameters;
    /** Proposes the entries that follow an answer, off Ratis's own threads ({@link GroupCommit}). */
    private final ExecutorService sender;
    /**
     * Batches that arrive while an entry is proposed and not yet answered wait and go together as the next entry, up
     * to 1 MB ({@link GroupCommit}). One entry in flight did best on one machine: every entry costs CPU on every node,
     * so fewer and larger entries carry more writes (docs/PERFORMANCE.md, "Cluster mode"). The system property {@code
     * partita.cluster.inflight} changes it, for measuring.
     */
    private final GroupCommit<RaftClientReply> batches;
    /** The server this node alone uses, which its close closes ({@link #start}); null when a {@link Host}'s. */
    private Host host;
    /** Strongly consistent reads answered without a barrier ({@link #readBarrier}). */
    private final ReadLease lease;
    /** Where the lease's time comes from: {@link System#nanoTime} and the wall clock, or a test's clocks. */
    private volatile LongSupplier clock = System::nanoTime;

    private volatile LongSupplier wallClock = System::currentTimeMillis;

    private final AtomicLong leaseReads = new AtomicLong();
    private final AtomicLong barrierReads = new AtomicLong();

    private ClusterNode(
            RaftServer server,
            RaftGroup group,
            RaftPeerId self,
            Timings timings,
            Parameters parameters,
            ReadLease lease,
            Addresses addresses) {
        this.server = server;
        this.addresses = addresses;
        this.parameters = parameters;
        this.group = group;
        this.self = self;
        this.proposalMillis = timings.proposal().toMillis();
        this.lease = lease;
        this.sender = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, self + "-group-commit-" + shortId(group));
            t.setDaemon(true);
            return t;
        });
        this.batches =
                new GroupCommit<>(Integer.getInteger("partita.cluster.inflight", 1), 1 << 20, this::submit, sender);
    }

    private static String shortId(RaftGroup group) {
        return group.getGroupId().getUuid().toString().substring(0, 8);
    }

    /** The group id of a cluster by its name: every node of one cluster derives the same. */
    public static UUID groupId(String clusterName) {
        return UUID.nameUUIDFromBytes(("partita-cluster:" + clusterName).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The id of one of a cluster's further groups, by the cluster's name and the group's (an account's id, in strict
     * mode): every node of the cluster derives the same, and it differs from {@link #groupId(String)}'s.
     */
    public static UUID groupId(String clusterName, String group) {
        return UUID.nameUUIDFromBytes(
                ("partita-cluster:" + clusterName + "/" + group).getBytes(StandardCharsets.UTF_8));
    }

    /** The id of the group this node takes part in. */
    public UUID groupId() {
        return group.getGroupId().getUuid();
    }

    /**
     * Starts this node's Raft server for {@code replica}, with the group's log and checkpoints under {@code raftDir},
     * and makes the store propose its changes through it. {@code peers} names every member, this one ({@code id})
     * included. With {@code fsync} an entry counts as written on a node once it is forced to disk (survives power
     * loss, as {@code --sync} does); without, once it is in the OS's page cache (survives the process's crash).
     */
    public static ClusterNode start(
            String clusterName,
            String id,
            List<Peer> peers,
            Path raftDir,
            ReplicaStore replica,
            Timings timings,
            boolean fsync,
            LogRetention retention)
            throws IOException {
        return start(clusterName, id, peers, raftDir, replica, timings, fsync, retention, false, null);
    }

    /**
     * How the peers talk to each other over TLS, each side proving itself (mutual TLS): this node's certificate chain
     * and private key (PEM, the key in PKCS#8), and the certificates it trusts, the same chain's. Every node is
     * therefore given one certificate (whose names cover every node's address), or a chain ending with the authority
     * that signed every node's.
     */
    public record PeerTls(Path certificate, Path privateKey) {
        public PeerTls {
            Objects.requireNonNull(certificate, "certificate");
            Objects.requireNonNull(privateKey, "privateKey");
        }
    }

    /**
     * As above. With {@code join}, a node new to a running group starts with no configuration of its own the first
     * time: it neither stands for election nor votes until the leader adds it ({@link #changeMembers}) and sends it
     * the group's state. {@code peers} then need only name this node. Once its Raft storage exists, {@code join} no
     * longer matters: a node recovers the configuration it last had. With {@code tls} (or null for plain gRPC), the
     * peers talk over mutual TLS.
     */
    public static ClusterNode start(
            String clusterName,
            String id,
            List<Peer> peers,
            Path raftDir,
            ReplicaStore replica,
            Timings timings,
            boolean fsync,
            LogRetention retention,
            boolean join,
            PeerTls tls)
            throws IOException {
        Host host = startGroups(
                id,
                peers,
                raftDir,
                List.of(new Group(groupId(clusterName), replica)),
                timings,
                fsync,
                retention,
                join,
                tls);
        ClusterNode only = host.groups().get(0);
        only.host = host;
        return only;
    }

    /**
     * A Raft group a node's server takes part in: its id, this node's replica of the store it replicates and, when it
     * is placed on some members only ({@link Placement}), their ids, its preferred leader first.
     *
     * @param members the ids of the members the group is made with, its preferred leader first; empty for the members
     *     its Raft log has, or none until its leader adds this node (a group another member added to it); null for
     *     every peer, the group preferring the member at its place among the groups given (modulo the peers, in the
     *     order of their ids), or none when it is the only group
     * @param peers those members with their addresses, when they are not all among the peers the node is given (a
     *     group made on members the cluster decided since); null to find them among the peers
     */
    public record Group(UUID id, ReplicaStore replica, List<String> members, List<Peer> peers) {
        public Group {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(replica, "replica");
            members = members == null ? null : List.copyOf(members);
            peers = peers == null ? null : List.copyOf(peers);
        }

        public Group(UUID id, ReplicaStore replica, List<String> members) {
            this(id, replica, members, null);
        }

        public Group(UUID id, ReplicaStore replica) {
            this(id, replica, null);
        }

        /** A group made with exactly {@code peers}, the first preferred as its leader, whatever peers the node has. */
        public static Group on(UUID id, ReplicaStore replica, List<Peer> peers) {
            return new Group(id, replica, peers.stream().map(Peer::id).toList(), peers);
        }
    }

    /**
     * What a node does with the groups other members add to it or take off it, through Ratis's group management on its
     * Raft port ({@link Host#addTo}, {@link Host#removeFrom}): how groups move between nodes.
     */
    public interface Adoption {
        /**
         * This node's replica of group {@code id}, which another member adds to it; it must hold nothing yet (the
         * group's leader sends it the group's state). Null refuses the group. Called on a Ratis thread, before the
         * group starts on this node.
         */
        ReplicaStore adopt(UUID id);

        /**
         * Group {@code id} was taken off this node by another member (its division closed, its Raft storage about to
         * be deleted), or did not start after its adoption: its replica no longer proposes through it, and is the
         * caller's to close and delete. Called on the thread that removed it (the removing member's request's, or the
         * local call's), or, for a group that did not start, the watchdog's; an add of the group again meanwhile is
         * refused until the host has forgotten it.
         */
        void removed(UUID id, ReplicaStore replica);
    }

    /** Every Raft address a node has been given for each peer id, by id ({@link Host#knownAddresses}). */
    static final class Addresses {
        private final java.util.Map<String, java.util.Set<String>> byId =
                new java.util.concurrent.ConcurrentHashMap<>();

        void note(String id, String address) {
            byId.computeIfAbsent(id, k -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                    .add(address);
        }

        void note(java.util.Collection<RaftPeer> peers) {
            peers.forEach(p -> note(p.getId().toString(), p.getAddress()));
        }

        java.util.Set<String> of(String id) {
            java.util.Set<String> known = byId.get(id);
            return known == null ? java.util.Set.of() : java.util.Set.copyOf(known);
        }
    }

    /**
     * A node's one Raft server and its part in each group it is placed on ({@link ClusterNode}): each group elects a
     * leader of its own, so the groups' leaders spread over the nodes. It also finds the leaders of groups it is not
     * placed on ({@link #locate}). Closing it closes the server.
     */
    public static final class Host implements AutoCloseable {
        /** How often the leader of a group this node is not placed on is asked for again. */
        private static final long LOCATE_MILLIS = 500;
        /** Threads that ask the members of groups this node is not on; a round waits for one while all are busy. */
        private static final int LOCATE_THREADS = 8;

        private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Host.class);

        private final RaftServer server;
        private final RaftPeerId self;
        /** This node's part in each group on it: those it started with, then those added and not removed since. */
        private final List<ClusterNode> groups = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** Each group's replica, which its state machine applies to, by group. */
        private final java.util.Map<RaftGroupId, ReplicaStore> replicas;
        /** Each group's read lease, which its state machine tells of every configuration it applies. */
        private final java.util.Map<RaftGroupId, ReadLease> leases;

        private final List<Peer> peers;
        private final Parameters parameters;
        private final Timings timings;
        private final Duration locateTimeout;
        /** What this node does with groups other members add or take off; null when it takes none. */
        private final Adoption adoption;
        /**
         * The groups this host itself is adding to the server (at its start, {@link #addGroup}, a group's members
         * restored), whose replica the state machine registry takes from {@link #replicas}; any other group the
         * server adds another member added, and gets its replica from the {@link Adoption}.
         */
        private final java.util.Set<RaftGroupId> ownAdds;
        /** The groups {@link #removeGroup} is taking off this node, which it forgets itself. */
        private final java.util.Set<RaftGroupId> removing = java.util.concurrent.ConcurrentHashMap.newKeySet();
        /** When each group another member added was adopted ({@link System#nanoTime}), until the server has it. */
        private final java.util.Map<RaftGroupId, Long> adoptedAt = new java.util.concurrent.ConcurrentHashMap<>();
        /** The Ratis client that adds groups to other members and takes them off; made at first use. */
        private org.apache.ratis.client.RaftClient managing;

        private final List<GroupLocator> located = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** The members whose group info a locator could not get, and until when none is asked of them. */
        private final java.util.Map<String, Long> downUntil = new java.util.concurrent.ConcurrentHashMap<>();

        private boolean closed;
        /** The Ratis client every locator asks through, its scheduler and its threads; made by the first locate. */
        private org.apache.ratis.client.RaftClient locating;

        private java.util.concurrent.ScheduledExecutorService rounds;
        private ExecutorService asking;
        /** The Raft addresses this node's Raft server and clients were given for each peer id since it started. */
        private final Addresses addresses;

        private Host(
                RaftServer server,
                RaftPeerId self,
                java.util.Map<RaftGroupId, ReplicaStore> replicas,
                java.util.Map<RaftGroupId, ReadLease> leases,
                java.util.Set<RaftGroupId> ownAdds,
                List<Peer> peers,
                Parameters parameters,
                Timings timings,
                Adoption adoption,
                Addresses addresses) {
            this.server = server;
            this.addresses = addresses;
            this.adoption = adoption;
            this.self = self;
            this.replicas = replicas;
            this.leases = leases;
            this.ownAdds = ownAdds;
            this.peers = List.copyOf(peers);
            this.parameters = parameters;
            this.timings = timings;
            this.locateTimeout = timings.electionMin();
        }

        /**
         * The Raft addresses ({@code host:port}) this node's Raft server and clients have been given for peer {@code
         * id} since the process started: by the flags, the groups it started or added, the configurations its groups
         * applied, the changes of members it made ({@link ClusterNode#changeMembers}) and the members it asked. Empty
         * for an id never named. Apache Ratis keeps one connection per peer id, and makes it again to the same address
         * (its {@code PeerProxyMap} adds a peer only when its id is absent), so the first address it was given is where
         * it reaches that id for as long as the process runs, whatever a later configuration says. A best effort: Ratis
         * also reads the configurations in the log segments it keeps at a start, which are not all applied again, and
         * a group another member adds to this node is noted once its configuration applies.
         */
        public java.util.Set<String> knownAddresses(String id) {
            return addresses.of(id);
        }

        /**
         * This node's part in each group on it now: those it started with, in the order they were given, then those
         * {@link #addGroup added} since, less those {@link #removeGroup removed}.
         */
        public List<ClusterNode> groups() {
            return List.copyOf(groups);
        }

        /**
         * Adds group {@code id} to this running node: its replica, and its division of the Raft server, whose storage
         * Ratis formats under the node's Raft folder. Without {@code join} the group is new, and {@code members} (this
         * node among them) are its first members, the first of them its preferred leader. With {@code join} this node
         * is about to be added to a running group by its leader (as {@code --cluster-join} does for a node's every
         * group): it starts with no members, neither stands for election nor votes, and learns the group's members and
         * catches up (from the log, or the leader's checkpoint) once the leader's change of the members reaches it.
         * The caller gives the group again, with its members, when the node next starts.
         *
         * @throws IllegalArgumentException when the group is on this node already, or, without {@code join}, when
         *     {@code members} do not name this node
         */
        public ClusterNode addGroup(UUID id, ReplicaStore replica, List<Peer> members, boolean join)
                throws IOException {
            RaftGroupId groupId = RaftGroupId.valueOf(id);
            if (!join && members.stream().noneMatch(p -> p.id().equals(self.toString()))) {
                throw new IllegalArgumentException("group " + id + " is not placed on node " + self);
            }
            List<RaftPeer> raftPeers = new java.util.ArrayList<>();
            for (Peer p : members) {
                raftPeers.add(p.raftPeer(raftPeers.isEmpty() ? 1 : 0));
            }
            RaftGroup group = join ? RaftGroup.valueOf(groupId) : RaftGroup.valueOf(groupId, raftPeers);
            addresses.note(raftPeers);
            ReadLease lease = new ReadLease(timings.readLease());
            ClusterNode node = new ClusterNode(server, group, self, timings, parameters, lease, addresses);
            synchronized (this) {
                if (closed) {
                    node.sender.shutdown();
                    throw new IllegalStateException("the host is closed");
                }
                if (replicas.putIfAbsent(groupId, replica) != null) {
                    node.sender.shutdown();
                    throw new IllegalArgumentException("group " + id + " is on node " + self + " already");
                }
                leases.put(groupId, lease);
                ownAdds.add(groupId);
            }
            replica.replicateThrough(node);
            try {
                // Not under the host's lock: Ratis manages groups one at a time, and an add another member sent may
                // be ahead of this one, its adoption waiting for the lock.
                node.format();
            } catch (IOException | RuntimeException e) {
                boolean started = false;
                for (RaftGroupId running : server.getGroupIds()) {
                    started |= running.equals(groupId);
                }
                if (started) {
                    // Its answer came too late, or not at all, but Ratis made the group: it runs on the replica.
                    log.warn("node {}: group {} started, though its start answered {}", self, id, e.toString());
                    groups.add(node);
                    return node;
                }
                synchronized (this) {
                    replicas.remove(groupId);
                    leases.remove(groupId);
                }
                replica.replicateThrough(null);
                node.sender.shutdown();
                throw e;
            }
            groups.add(node);
            return node;
        }

        /**
         * The replica of group {@code groupId}, which another member is adding to this node, from the {@link Adoption};
         * this node's part in it starts with no members, as a joining node's.
         *
         * @throws IllegalStateException when this node takes no group from another member, or refuses this one: Ratis
         *     then answers the member that the group could not be added
         */
        private synchronized ReplicaStore adopted(RaftGroupId groupId) {
            if (adoption == null || closed) {
                throw new IllegalStateException("node " + self + " takes no group from another member");
            }
            if (replicas.containsKey(groupId)) {
                // Its earlier part here is still closing (Ratis takes a group off its list first): asked again later.
                throw new IllegalStateException("node " + self + " still closes group " + groupId.getUuid());
            }
            ReplicaStore replica = adoption.adopt(groupId.getUuid());
            if (replica == null) {
                throw new IllegalStateException("node " + self + " refuses group " + groupId.getUuid());
            }
            ReadLease lease = new ReadLease(timings.readLease());
            leases.put(groupId, lease);
            replicas.put(groupId, replica);
            adoptedAt.put(groupId, System.nanoTime());
            ClusterNode node =
                    new ClusterNode(server, RaftGroup.valueOf(groupId), self, timings, parameters, lease, addresses);
            replica.replicateThrough(node);
            groups.add(node);
            log.info("node {} takes part in group {}, which another member added to it", self, groupId.getUuid());
            return replica;
        }

        /**
         * Told by the group's state machine that Ratis took group {@code groupId} off this node: forgets it (an add of
         * it again is refused until then), and, when another member took it off, tells the {@link Adoption}.
         */
        private void removed(RaftGroupId groupId) {
            ReplicaStore replica;
            synchronized (this) {
                ClusterNode node = groups.stream()
                        .filter(g -> g.group.getGroupId().equals(groupId))
                        .findFirst()
                        .orElse(null);
                if (node == null || removing.contains(groupId)) {
                    return; // removeGroup's own: it forgets the group itself
                }
                replica = forget(node);
            }
            log.info("node {} no longer takes part in group {}: another member took it off", self, groupId.getUuid());
            if (adoption != null) {
                adoption.removed(groupId.getUuid(), replica);
            }
        }

        /** How long after its adoption a group the server does not have is taken for one whose start failed. */
        private static final long ADOPTING_NANOS = 10_000_000_000L;

        /**
         * Forgets each adopted group whose start failed after its state machine was made (Ratis then drops the
         * division without removing it), and tells the {@link Adoption}; one the server has is no longer watched.
         */
        private void forgetFailedAdoptions() {
            for (var e : List.copyOf(adoptedAt.entrySet())) {
                if (System.nanoTime() - e.getValue() < ADOPTING_NANOS) {
                    continue;
                }
                RaftGroupId groupId = e.getKey();
                ReplicaStore replica;
                synchronized (this) {
                    if (closed || adoptedAt.get(groupId) != e.getValue()) {
                        continue;
                    }
                    try {
                        server.getDivision(groupId);
                        adoptedAt.remove(groupId);
                        continue;
                    } catch (IOException missing) {
                        ClusterNode node = groups.stream()
                                .filter(g -> g.group.getGroupId().equals(groupId))
                                .findFirst()
                                .orElse(null);
                        if (node == null) {
                            adoptedAt.remove(groupId);
                            continue;
                        }
                        replica = forget(node);
                    }
                }
                log.warn("node {}: group {}, which another member added, did not start", self, groupId.getUuid());
                if (adoption != null) {
                    adoption.removed(groupId.getUuid(), replica);
                }
            }
        }

        /** Drops a group the server no longer has from this host; returns its replica. */
        private ReplicaStore forget(ClusterNode node) {
            RaftGroupId groupId = node.group.getGroupId();
            groups.remove(node);
            adoptedAt.remove(groupId);
            leases.remove(groupId);
            ReplicaStore replica = replicas.remove(groupId);
            replica.replicateThrough(null);
            node.sender.shutdown();
            node.closeRecording();
            return replica;
        }

        /**
         * Adds group {@code id} to {@code member}'s running server as a joining member (it has no members until the
         * group's leader adds it, and then catches up), through Ratis's group management on its Raft port; that node's
         * {@link Adoption} gives its replica. Returns once the group is there, at once when it already was.
         *
         * @throws IOException when the member could not be asked, or refused the group
         */
        public void addTo(Peer member, UUID id) throws IOException {
            org.apache.ratis.client.api.GroupManagementApi api = management(member);
            RaftGroupId groupId = RaftGroupId.valueOf(id);
            if (holds(api, groupId)) {
                return;
            }
            RaftClientReply reply = api.add(RaftGroup.valueOf(groupId), true);
            if (!reply.isSuccess() && !holds(api, groupId)) {
                throw new IOException(
                        "node " + member.id() + " did not take group " + id + ": " + reply.getException(),
                        reply.getException());
            }
        }

        /**
         * Takes group {@code id} off {@code member}'s running server, which deletes its Raft storage (its {@link
         * Adoption} is told), through Ratis's group management on its Raft port. Call it once the group's members no
         * longer include that member. Returns once the group is gone from it, at once when it was not there.
         *
         * @throws IOException when the member could not be asked, or kept the group
         */
        public void removeFrom(Peer member, UUID id) throws IOException {
            org.apache.ratis.client.api.GroupManagementApi api = management(member);
            RaftGroupId groupId = RaftGroupId.valueOf(id);
            if (!holds(api, groupId)) {
                return;
            }
            RaftClientReply reply = api.remove(groupId, true, false);
            if (!reply.isSuccess() && holds(api, groupId)) {
                throw new IOException(
                        "node " + member.id() + " kept group " + id + ": " + reply.getException(),
                        reply.getException());
            }
        }

        /**
         * The members of group {@code id} as its leader has them (during a change, the old and new together), asking
         * each of {@code ask} on its Raft port whether it leads the group; null when none of them does (or can be
         * asked). Of two that say they lead, the one of the later term: a leader cut off from the others may not know
         * yet that it was replaced.
         */
        public List<String> leaderMembers(UUID id, java.util.Collection<Peer> ask) {
            RaftGroupId groupId = RaftGroupId.valueOf(id);
            List<String> members = null;
            long term = -1;
            for (Peer p : ask) {
                if (p.id().equals(self.toString())) {
                    continue;
                }
                try {
                    org.apache.ratis.protocol.GroupInfoReply reply =
                            ask(p.id(), p.address()).info(groupId);
                    var role = reply.getRoleInfoProto();
                    if (reply.isSuccess()
                            && role.getRole() == org.apache.ratis.proto.RaftProtos.RaftPeerRole.LEADER
                            && role.getLeaderInfo().getTerm() > term) {
                        term = role.getLeaderInfo().getTerm();
                        members = reply.getGroup().getPeers().stream()
                                .map(r -> r.getId().toString())
                                .sorted()
                                .toList();
                    }
                } catch (IOException | RuntimeException e) {
                    // Down, or not holding the group: the next is asked.
                }
            }
            return members;
        }

        /**
         * Whether {@code member} answers on its Raft port that it has no group {@code id}: it is up, and has lost its
         * part in the group (its Raft storage is gone) or never had it. False when it has the group, or could not be
         * asked.
         */
        public boolean lacks(Peer member, UUID id) {
            try {
                return !holds(ask(member.id(), member.address()), RaftGroupId.valueOf(id));
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        /**
         * Ratis's group management on the Raft port of peer {@code id} at {@code address}, through the client that
         * asks peers for their part in a group. The client learns the address first: it was made with the members
         * this node started with, and a member added since would be unknown to it.
         */
        private org.apache.ratis.client.api.GroupManagementApi ask(String id, String address) {
            org.apache.ratis.client.RaftClient client = client();
            addresses.note(id, address);
            client.getClientRpc()
                    .addRaftPeers(List.of(
                            RaftPeer.newBuilder().setId(id).setAddress(address).build()));
            return client.getGroupManagementApi(RaftPeerId.valueOf(id));
        }

        /** Whether the member {@code api} speaks to has group {@code groupId}. */
        private static boolean holds(org.apache.ratis.client.api.GroupManagementApi api, RaftGroupId groupId)
                throws IOException {
            try {
                return api.info(groupId).isSuccess();
            } catch (org.apache.ratis.protocol.exceptions.GroupMismatchException e) {
                return false;
            } catch (IOException | RuntimeException e) {
                // Over gRPC a group the member does not have comes back as an INTERNAL status naming the group.
                String message = String.valueOf(e.getMessage());
                if (message.contains(groupId.toString()) && message.contains("not found")) {
                    return false;
                }
                throw e instanceof IOException io ? io : new IOException(e);
            }
        }

        /** Ratis's group management on {@code member}'s Raft port, through a client that waits a proposal's time. */
        private synchronized org.apache.ratis.client.api.GroupManagementApi management(Peer member) {
            if (closed) {
                throw new IllegalStateException("the host is closed");
            }
            if (managing == null) {
                managing = client(timings.proposal());
            }
            addresses.note(member.id(), member.host() + ":" + member.port());
            managing.getClientRpc()
                    .addRaftPeers(List.of(RaftPeer.newBuilder()
                            .setId(member.id())
                            .setAddress(member.host() + ":" + member.port())
                            .build()));
            return managing.getGroupManagementApi(RaftPeerId.valueOf(member.id()));
        }

        /**
         * Takes group {@code id} off this running node: its division leaves the Raft server, which deletes the group's
         * Raft storage (its log and checkpoints), and its replica no longer proposes through it. The caller closes the
         * replica, and deletes it. Remove a group from a node once the group's members no longer include it (the
         * leader's change of the members committed): a node the others still count as a member would be missed by
         * them. A write waiting on the group here fails.
         *
         * @throws IllegalArgumentException when the group is not on this node
         */
        public void removeGroup(UUID id) throws IOException {
            RaftGroupId groupId = RaftGroupId.valueOf(id);
            ClusterNode node = groups.stream()
                    .filter(g -> g.group.getGroupId().equals(groupId))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("group " + id + " is not on node " + self));
            // Not under the host's lock, as addGroup's format; the watchdog leaves it to this call meanwhile.
            removing.add(groupId);
            try {
                node.manage(org.apache.ratis.protocol.GroupManagementRequest.newRemove(
                        node.clientId, self, node.callIds.incrementAndGet(), groupId, true, false));
            } catch (IOException e) {
                if (node.present()) {
                    throw e;
                }
                // Another member took it off meanwhile (its removal found this call's mark): gone all the same.
            } finally {
                synchronized (this) {
                    if (groups.contains(node) && !node.present()) {
                        forget(node);
                    }
                }
                removing.remove(groupId);
            }
        }

        /** How often the watchdog looks at the followers of the groups this node leads. */
        private static final long WATCH_MILLIS = 1000;
        /** How long after stepping down for a follower a group's leader does not do so again. */
        private static final long STEP_DOWN_AGAIN_NANOS = 30_000_000_000L;

        private java.util.concurrent.ScheduledExecutorService watchdog;

        /**
         * Starts the watchdog of the log appenders: every second, for each group this node leads, a follower that has
         * answered no append or heartbeat for {@code silence} but has answered group-info requests for a third of that
         * on end (so it is up, holds the group, and had the time to be reached again after a restart) is one the
         * leader no longer sends to. In Ratis 3.2.2 an appender that failed is never restarted
         * ({@code LogAppenderBase.restart} skips one that is not running, and a failed one never is), and with
         * pre-vote the follower cannot unseat the leader: the leader steps down, and the next leader, itself again or
         * another, starts new appenders. At most once in 30 s per group (docs/CLUSTER.md, "A known gap in Ratis
         * 3.2.2").
         */
        private synchronized void watchAppenders(Duration silence) {
            watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, server.getId() + "-watchdog"));
            watchdog.scheduleWithFixedDelay(
                    () -> {
                        try {
                            forgetFailedAdoptions();
                        } catch (RuntimeException | Error e) {
                            log.warn("looking for groups that did not start on node {}", self, e);
                        }
                        for (ClusterNode g : groups) {
                            if (removing.contains(g.group.getGroupId()) || !g.present()) {
                                continue; // leaving this node, or gone from it a moment before the host forgets it
                            }
                            try {
                                if (!g.checkStuckHandOver(silence.dividedBy(2).toNanos())) {
                                    g.checkFollowers(silence.toMillis(), silence.toMillis() / 3, this::holdsGroup);
                                }
                            } catch (RuntimeException | Error e) {
                                log.warn("watching the appenders of group {}", g.groupId(), e);
                            }
                        }
                    },
                    WATCH_MILLIS,
                    WATCH_MILLIS,
                    TimeUnit.MILLISECONDS);
        }

        /** Whether {@code member} answers a group-info request for {@code group} as one of its followers. */
        private boolean holdsGroup(RaftGroupId group, RaftPeer member) {
            try {
                org.apache.ratis.protocol.GroupInfoReply reply =
                        ask(member.getId().toString(), member.getAddress()).info(group);
                if (!reply.isSuccess()) {
                    return false;
                }
                var role = reply.getRoleInfoProto().getRole();
                return role == org.apache.ratis.proto.RaftProtos.RaftPeerRole.FOLLOWER
                        || role == org.apache.ratis.proto.RaftProtos.RaftPeerRole.CANDIDATE;
            } catch (IOException | RuntimeException e) {
                return false; // down or cut off: nothing a new leader would change
            }
        }

        /** The Ratis client that asks peers for their part in a group; made at first use. */
        private synchronized org.apache.ratis.client.RaftClient client() {
            if (closed) {
                throw new IllegalStateException("the host is closed");
            }
            if (locating == null) {
                locating = client(locateTimeout);
            }
            return locating;
        }

        /**
         * Finds, from now on, the leader of group {@code id}, which this node is not placed on, by asking its {@code
         * members} (ids of the peers) every half second ({@link GroupLocator}).
         */
        public synchronized GroupLocator locate(UUID id, List<String> members) {
            if (closed) {
                throw new IllegalStateException("the host is closed");
            }
            if (rounds == null) {
                client();
                String name = server.getId() + "-locate";
                rounds = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name));
                java.util.concurrent.ThreadPoolExecutor pool = (java.util.concurrent.ThreadPoolExecutor)
                        Executors.newFixedThreadPool(LOCATE_THREADS, r -> daemon(r, name + "-ask"));
                pool.prestartAllCoreThreads(); // none left to make later, when making one might fail
                asking = pool;
                rounds.scheduleWithFixedDelay(this::askAll, 0, LOCATE_MILLIS, TimeUnit.MILLISECONDS);
            }
            GroupLocator locator = new GroupLocator(id, members, locating, downUntil);
            located.add(locator);
            return locator;
        }

        /** Stops finding the leader of the group {@code locator} finds (it is on this node now). */
        public void stopLocating(GroupLocator locator) {
            located.remove(locator);
        }

        private void askAll() {
            try {
                located.forEach(l -> l.ask(asking));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                log.debug("asking for the groups' leaders while the host closes", e);
            } catch (RuntimeException | Error e) {
                // Logged, not thrown: a task that throws ends the schedule, and no leader would be learned again.
                log.warn("asking for the groups' leaders", e);
            }
        }

        /**
         * A Ratis client for every group's members: a group management request names its group, and goes to the peer
         * asked (its Raft port, with the peers' TLS), answered within {@code timeout}, never retried.
         */
        private org.apache.ratis.client.RaftClient client(Duration timeout) {
            RaftProperties properties = new RaftProperties();
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
            org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(
                    properties, TimeDuration.valueOf(timeout.toMillis(), TimeUnit.MILLISECONDS));
            // Without the API address the peers carry as their client address: a Ratis client would send there.
            List<RaftPeer> known = peers.stream()
                    .map(p -> RaftPeer.newBuilder()
                            .setId(p.id())
                            .setAddress(p.address())
                            .build())
                    .toList();
            return org.apache.ratis.client.RaftClient.newBuilder()
                    .setRaftGroup(RaftGroup.valueOf(RaftGroupId.randomId(), known))
                    .setProperties(properties)
                    .setParameters(parameters)
                    .setRetryPolicy(org.apache.ratis.retry.RetryPolicies.noRetry())
                    .build();
        }

        private static Thread daemon(Runnable r, String name) {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        }

        @Override
        public void close() throws IOException {
            try {
                synchronized (this) {
                    closed = true;
                    if (watchdog != null) {
                        watchdog.shutdownNow();
                    }
                    if (rounds != null) {
                        rounds.shutdownNow();
                        asking.shutdownNow();
                    }
                    for (var c : java.util.Arrays.asList(locating, managing)) {
                        try {
                            if (c != null) {
                                c.close();
                            }
                        } catch (IOException | RuntimeException e) {
                            log.warn("closing a client that asks the members for their groups", e);
                        }
                    }
                }
                server.close();
            } finally {
                // The server's close failed what was proposed; the writers waiting behind it learn it through each
                // group's sender.
                groups.forEach(g -> g.sender.shutdown());
                groups.forEach(ClusterNode::closeRecording);
            }
        }
    }

    /**
     * Starts this node's Raft server for several groups, each replicating a store of its own ({@code groups}, the
     * first of them Ratis's "own" group; none, on a node that no group is placed on), with the groups' logs and
     * checkpoints under {@code raftDir} (a folder per group, named by its id). A group's first members are those it
     * names, or else {@code peers}. A group this node has no storage for yet is formatted; the others recover. The rest
     * is as {@link #start} says.
     *
     * @throws IllegalArgumentException when {@code raftDir} holds a group that is none of {@code groups}: Ratis would
     *     start it too, with no store to apply its entries to; or when a group names a member that is not a peer, or
     *     does not name this node
     */
    public static Host startGroups(
            String id,
            List<Peer> peers,
            Path raftDir,
            List<Group> groups,
            Timings timings,
            boolean fsync,
            LogRetention retention,
            boolean join,
            PeerTls tls)
            throws IOException {
        return startGroups(id, peers, raftDir, groups, timings, fsync, retention, join, tls, null);
    }

    /**
     * As above; with an {@code adoption}, the node also takes the groups other members add to it ({@link
     * Host#addTo}), and lets them take groups off it ({@link Host#removeFrom}).
     */
    public static Host startGroups(
            String id,
            List<Peer> peers,
            Path raftDir,
            List<Group> groups,
            Timings timings,
            boolean fsync,
            LogRetention retention,
            boolean join,
            PeerTls tls,
            Adoption adoption)
            throws IOException {
        Peer me = peers.stream()
                .filter(p -> p.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("node " + id + " is not one of the peers " + peers));
        java.util.Map<RaftGroupId, ReplicaStore> replicas = new java.util.concurrent.ConcurrentHashMap<>();
        for (Group g : groups) {
            if (replicas.put(RaftGroupId.valueOf(g.id()), g.replica()) != null) {
                throw new IllegalArgumentException("group " + g.id() + " is given twice");
            }
        }
        refuseUnknownGroups(raftDir, replicas.keySet());
        java.util.Map<String, Peer> peerById = new java.util.TreeMap<>();
        peers.forEach(p -> peerById.put(p.id(), p));
        List<String> byId = List.copyOf(peerById.keySet());
        List<RaftGroup> raftGroups = new java.util.ArrayList<>();
        List<Boolean> formatted = new java.util.ArrayList<>();
        for (Group g : groups) {
            RaftGroupId groupId = RaftGroupId.valueOf(g.id());
            boolean exists = java.nio.file.Files.isDirectory(
                    raftDir.resolve(groupId.getUuid().toString()));
            formatted.add(exists);
            // With several groups, each prefers a member as its leader: Ratis hands the leadership to the preferred
            // member whenever it is up to date, so the groups' leaders, and the writes they take, spread over the
            // nodes. A group placed on some members prefers the first it names; otherwise group k prefers member k
            // (in the order of their ids, modulo the members' number). A single group on every member prefers none.
            if (g.members() != null && g.members().isEmpty()) {
                // The members its log has (a group another member added to this node), or none yet: as a joiner.
                raftGroups.add(RaftGroup.valueOf(groupId));
                continue;
            }
            List<String> placed = g.members() != null ? g.members() : byId;
            String preferred = g.members() != null
                    ? placed.get(0)
                    : replicas.size() > 1 ? byId.get(raftGroups.size() % byId.size()) : null;
            if (!placed.contains(id)) {
                throw new IllegalArgumentException("group " + g.id() + " is not placed on node " + id);
            }
            java.util.Map<String, Peer> known = peerById;
            if (g.peers() != null) {
                known = new java.util.HashMap<>();
                for (Peer p : g.peers()) {
                    known.put(p.id(), p);
                }
            }
            List<RaftPeer> members = new java.util.ArrayList<>();
            for (String m : placed) {
                Peer p = known.get(m);
                if (p == null) {
                    throw new IllegalArgumentException("group " + g.id() + " names " + m + ", not one of the peers");
                }
                members.add(p.raftPeer(m.equals(preferred) ? 1 : 0));
            }
            raftGroups.add(join && !exists ? RaftGroup.valueOf(groupId) : RaftGroup.valueOf(groupId, members));
        }
        RaftProperties properties = properties(me, raftDir, timings, fsync, retention);
        RaftPeerId self = RaftPeerId.valueOf(id);
        // Each group's read lease, which its state machine tells of every configuration it applies: one that preferred
        // another member ends the lease for the rest of its term, even when it came and went unseen by a read or a
        // proposal (Ratis starts handing the leadership over as soon as it is appended).
        java.util.Map<RaftGroupId, ReadLease> leases = new java.util.concurrent.ConcurrentHashMap<>();
        Addresses addresses = new Addresses();
        peers.forEach(p -> addresses.note(p.id(), p.host() + ":" + p.port()));
        raftGroups.forEach(g -> addresses.note(g.getPeers()));
        for (RaftGroupId groupId : replicas.keySet()) {
            leases.put(groupId, new ReadLease(timings.readLease()));
        }
        Parameters parameters = new Parameters();
        // The host, once made: the registry below asks it for the groups other members add.
        Host[] hosting = new Host[1];
        // The groups given, which the server starts (formats or recovers) with the replicas given.
        java.util.Set<RaftGroupId> ownAdds = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ownAdds.addAll(replicas.keySet());
        if (tls != null) {
            // The server's side and its clients' (appends to the followers, votes): both present this node's
            // certificate and check the other's.
            GrpcTlsConfig conf = new GrpcTlsConfig(
                    tls.privateKey().toFile(),
                    tls.certificate().toFile(),
                    tls.certificate().toFile(),
                    true);
            GrpcConfigKeys.Server.setTlsConf(parameters, conf);
            GrpcConfigKeys.Client.setTlsConf(parameters, conf);
            GrpcConfigKeys.Admin.setTlsConf(parameters, conf);
        }
        RaftServer server = RaftServer.newBuilder()
                .setServerId(self)
                // A node that no group is placed on starts its server with none.
                .setGroup(raftGroups.isEmpty() ? null : raftGroups.get(0))
                .setProperties(properties)
                .setParameters(parameters)
                // Each group's entries apply to its own store. The groups with storage of their own are found in
                // raftDir and recovered; refuseUnknownGroups made sure each is one of ours.
                // A group another member adds to this node gets its replica from the adoption.
                .setStateMachineRegistry(groupId -> {
                    ReplicaStore replica = ownAdds.remove(groupId) ? replicas.get(groupId) : null;
                    return new StoreStateMachine(
                            replica != null ? replica : hosting[0].adopted(groupId),
                            (members, term) -> {
                                addresses.note(members);
                                ReadLease lease = leases.get(groupId); // none once the group is off the node
                                if (lease != null && prefersAnother(members, self)) {
                                    lease.revoke(term);
                                }
                            },
                            () -> hosting[0].removed(groupId));
                })
                // A node formats a group's storage once, and recovers it from then on.
                .setOption(
                        !formatted.isEmpty() && !formatted.get(0)
                                ? RaftStorage.StartupOption.FORMAT
                                : RaftStorage.StartupOption.RECOVER)
                .build();
        List<ClusterNode> nodes = new java.util.ArrayList<>();
        for (RaftGroup g : raftGroups) {
            nodes.add(new ClusterNode(server, g, self, timings, parameters, leases.get(g.getGroupId()), addresses));
        }
        Host host = new Host(server, self, replicas, leases, ownAdds, peers, parameters, timings, adoption, addresses);
        hosting[0] = host;
        host.groups.addAll(nodes);
        for (int i = 0; i < nodes.size(); i++) {
            replicas.get(raftGroups.get(i).getGroupId()).replicateThrough(nodes.get(i));
        }
        try {
            server.start();
            host.watchAppenders(timings.electionMax().multipliedBy(10));
            for (int i = 1; i < raftGroups.size(); i++) {
                if (!formatted.get(i)) {
                    nodes.get(i).format();
                } else {
                    // Removed and added again, with its replica: not one for the host to forget meanwhile.
                    RaftGroupId restoring = raftGroups.get(i).getGroupId();
                    host.removing.add(restoring);
                    host.ownAdds.add(restoring);
                    try {
                        nodes.get(i).restoreMembers();
                    } finally {
                        host.removing.remove(restoring);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            replicas.values().forEach(r -> r.replicateThrough(null));
            host.close();
            throw e;
        }
        return host;
    }

    /** Adds this node's group, new to it, to its running server: Ratis formats its storage and starts it. */
    private void format() throws IOException {
        manage(org.apache.ratis.protocol.GroupManagementRequest.newAdd(
                clientId, self, callIds.incrementAndGet(), group, true));
    }

    /**
     * Gives a group Ratis recovered from its folder with no members the members it was made with. Ratis recovers every
     * group it finds in the Raft storage without members, and learns them from the group's log; a group formatted on
     * this node whose first leader had not yet written its configuration into the log when the node stopped has none
     * there. Without members it would neither stand for election nor vote, and the group would need every other member
     * to elect a leader. It is removed from the server (its folder kept) and added again, recovered, with its members.
     * A group whose log names its members, or one this node joins (made with none), is left as it is.
     */
    private void restoreMembers() throws IOException {
        if (group.getPeers().isEmpty()
                || !server.getDivision(group.getGroupId())
                        .getRaftConf()
                        .getCurrentPeers()
                        .isEmpty()) {
            return;
        }
        manage(org.apache.ratis.protocol.GroupManagementRequest.newRemove(
                clientId, self, callIds.incrementAndGet(), group.getGroupId(), false, false));
        manage(org.apache.ratis.protocol.GroupManagementRequest.newAdd(
                clientId, self, callIds.incrementAndGet(), group, false));
    }

    private void manage(org.apache.ratis.protocol.GroupManagementRequest request) throws IOException {
        RaftClientReply reply;
        try {
            reply = server.groupManagementAsync(request).get(proposalMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while group " + group.getGroupId() + " starts", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("group " + group.getGroupId() + " did not start on " + self + ": " + e, e);
        }
        if (!reply.isSuccess()) {
            throw new IOException(
                    "group " + group.getGroupId() + " did not start on " + self + ": " + reply.getException(),
                    reply.getException());
        }
    }

    /**
     * Refuses a folder of {@code raftDir} named as a group that is none of {@code known}: Ratis starts every group it
     * finds there, and this one's entries would have no store to apply to (an account whose keys left the
     * credentials, say).
     */
    private static void refuseUnknownGroups(Path raftDir, java.util.Set<RaftGroupId> known) throws IOException {
        if (!java.nio.file.Files.isDirectory(raftDir)) {
            return;
        }
        try (var dirs = java.nio.file.Files.list(raftDir)) {
            for (Path dir : dirs.filter(java.nio.file.Files::isDirectory).toList()) {
                UUID uuid;
                try {
                    uuid = UUID.fromString(dir.getFileName().toString());
                } catch (IllegalArgumentException e) {
                    continue; // not a group's folder: Ratis ignores it too
                }
                if (!known.contains(RaftGroupId.valueOf(uuid))) {
                    throw new IllegalArgumentException("the Raft storage " + dir
                            + " is a group this node no longer has (an account that is no longer among the"
                            + " credentials?): give the account its keys again, or move the folder away");
                }
            }
        }
    }

    /**
     * The shortest first election timeout: half the shortest timeout, the longest read lease a node may hold ({@link
     * Timings}).
     */
    static Duration firstElection(Timings timings) {
        return timings.electionMin().dividedBy(2);
    }

    /** The Ratis server's settings for node {@code me} (package-private for its test). */
    static RaftProperties properties(Peer me, Path raftDir, Timings timings, boolean fsync, LogRetention retention) {
        RaftProperties properties = new RaftProperties();
        // Ratis's gRPC, its leaders sending a follower a checkpoint in one more case (PartitaRpc.PartitaLogAppender).
        RaftConfigKeys.Rpc.setType(properties, new PartitaRpc());
        GrpcConfigKeys.Server.setHost(properties, me.host());
        GrpcConfigKeys.Server.setPort(properties, me.port());
        RaftServerConfigKeys.setStorageDir(properties, List.of(raftDir.toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, millis(timings.electionMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, millis(timings.electionMax()));
        // A group's first election on a node (a table's new group, or each group at a node's start) waits half the
        // usual timeout, so a new table's group serves sooner; never less than the longest read lease any node may
        // hold (half the shortest timeout, whatever this node's own lease), as a node restarted at once after it
        // received an entry must not stand before the lease resting on that entry ends (ReadLease). One that stands
        // while the others still hear from their leader is refused at the pre-vote (Ratis's default), so no leader is
        // disturbed.
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, millis(firstElection(timings)));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(
                properties, millis(firstElection(timings).multipliedBy(2)));
        // Ratis forces its log to disk before an entry counts as written on a node: an fsync per batch on each node,
        // which on one machine's disk holds a cluster to a few hundred writes a second. Without --sync a single node
        // acknowledges a write once it is in the OS's page cache (it survives the process, not the power); "unsafe
        // flush" is the same promise here: the entry is written to the log file before it counts (BufferedWriteChannel
        // .asyncFlush writes the buffer out, then forces it in the background).
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, !fsync);
        // Snapshots: a RocksDB checkpoint every so many entries on each node (StoreStateMachine.takeSnapshot), then the
        // log before it is purged but for as many entries again; a follower that needs a purged entry is sent the
        // leader's checkpoint (Ratis streams its files) and installs it.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, retention.snapshotEntries());
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        RaftServerConfigKeys.Log.setPurgePreservationLogNum(properties, retention.snapshotEntries());
        RaftServerConfigKeys.Log.setPurgeGap(properties, (int) Math.min(1024, retention.snapshotEntries()));
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(retention.segmentBytes()));
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(properties, true);
        // A follower appends every request's entries itself. With Ratis's "compose" (always on in 3.2.0 and 3.2.1, a
        // setting from 3.2.2, on unless told otherwise), a request whose first index an append in flight also starts
        // at is not appended, yet answered as written up to its last entry: a leader sending its log again to a
        // follower catching up counted an entry the follower never wrote (a commit could rest on that phantom copy)
        // and, refused on every heartbeat naming it, left the follower behind until the next election
        // (docs/CLUSTER.md, "Ratis 3.2.2, compose off").
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(properties, false);
        // Without compose, 3.2.2 runs each request's append as a task of its own on the group's server pool, which
        // by default grows a thread per task: two appends at once failed its log's one-writer check ("Already running
        // a method"), and two out of order could let a deposed leader's late append truncate a new leader's
        // acknowledged entries. One thread runs them one at a time, in the order the requests came (RATIS-2505 makes
        // the append run in the request's own thread, in no release yet).
        RaftServerConfigKeys.ThreadPool.setServerCached(properties, false);
        RaftServerConfigKeys.ThreadPool.setServerSize(properties, 1);
        return properties;
    }

    /** A request of this node to its own Raft server: never redirected to another. */
    private RaftClientRequest request(Message message, RaftClientRequest.Type type) {
        return RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(self)
                .setGroupId(group.getGroupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(type)
                .build();
    }

    /**
     * Returns once this node has confirmed, after the call, that it still leads the group, and has applied every entry
     * committed before the call: a strongly consistent read made after it sees every write acknowledged before the
     * read came.
     *
     * <p>Within the read lease ({@link ReadLease}: half the shortest election timeout after this node proposed an
     * entry, a write's or a barrier's, that the group then committed) it returns at once: no other node can have been
     * elected yet, and every write acknowledged so far was this node's, acknowledged once applied here. Not while a
     * member of a higher priority than this node's is in the configuration (Ratis hands it the leadership without
     * waiting for a timeout) or the members are changing.
     *
     * <p>Otherwise the barrier is an empty batch committed through the group ({@link ReplicatedEntry#emptyBatch}),
     * joined with the writes and barriers in flight as any batch is: a majority taking an entry of this node's term
     * after the call means no other node had been elected by then, and Ratis answers once this replica has applied it.
     * It renews the lease. Ratis's own read index is not used: from 3.2.0 to 3.3.0, a leader answers a read index that
     * a majority acknowledged once as acknowledged for good (its {@code ackedCommitIndex}), so a leader deposed while
     * it stalled, whose commit index has not moved since, answered reads from its stale state on waking (seen in
     * {@code ClusterPauseIT}).
     *
     * @throws StorageUnavailableException when this node does not lead, or could not confirm it in time; the read is
     *     then refused, and nothing was changed
     */
    @Override
    public long readBarrier() {
        DivisionInfo before = info();
        if (!before.isLeader()) {
            throw new StorageUnavailableException("node " + self + " is not the cluster's leader");
        }
        long term = before.getCurrentTerm();
        if (leased(term)) {
            leaseReads.incrementAndGet();
            return term;
        }
        barrierReads.incrementAndGet();
        CompletableFuture<RaftClientReply> committed = batches.propose(ReplicatedEntry.emptyBatch());
        RaftClientReply reply;
        try {
            reply = committed.get(proposalMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException("interrupted while the cluster confirms its leader", e, false);
        } catch (ExecutionException | TimeoutException e) {
            batches.withdraw(committed);
            throw new StorageUnavailableException("the cluster did not confirm its leader: " + e, e, false);
        }
        DivisionInfo after = info();
        // Still the leader of the same term: the barrier was this node's own entry, and its engine made every write
        // before it. A node deposed in between may have applied a newer leader's entries that its engine did not make.
        if (!reply.isSuccess() || !after.isLeader() || after.getCurrentTerm() != term) {
            throw new StorageUnavailableException("node " + self + " could not confirm that it still leads");
        }
        return term;
    }

    /** Whether this node, leading in {@code term}, holds the read lease now (see {@link #readBarrier}). */
    private boolean leased(long term) {
        var conf = division().getRaftConf();
        if (prefersAnother(conf.getCurrentPeers(), self)) {
            lease.revoke(term);
            return false;
        }
        return leaseMayHold(conf.getCurrentPeers(), conf.getPreviousPeers(), self)
                && lease.covers(term, conf.getLogEntryIndex(), clock.getAsLong(), wallClock.getAsLong());
    }

    /**
     * Whether one of these members has a higher priority than {@code self}: Ratis then hands it the leadership as
     * soon as it is up to date, by asking it to stand at once, and that request may arrive late, after the members
     * prefer {@code self} again. A term in which this was so holds no lease for the rest of it.
     */
    static boolean prefersAnother(java.util.Collection<RaftPeer> current, RaftPeerId self) {
        int mine = current.stream()
                .filter(p -> p.getId().equals(self))
                .mapToInt(RaftPeer::getPriority)
                .findFirst()
                .orElse(Integer.MAX_VALUE);
        return current.stream().anyMatch(p -> p.getPriority() > mine);
    }

    /**
     * Whether a lease may hold under these members ({@code previous}: those a change under way leaves, else empty) for
     * {@code self}: not while the members change, nor when {@code self} is not among them (it steps down once its
     * removal is committed). Priorities are {@link #prefersAnother}'s.
     */
    static boolean leaseMayHold(
            java.util.Collection<RaftPeer> current, java.util.Collection<RaftPeer> previous, RaftPeerId self) {
        return previous.isEmpty() && current.stream().anyMatch(p -> p.getId().equals(self));
    }

    /**
     * Makes the read lease's time come from {@code nanoTime} and {@code wallMillis} (a test's clocks) instead of
     * {@link System#nanoTime} and {@link System#currentTimeMillis}.
     */
    void useClocks(LongSupplier nanoTime, LongSupplier wallMillis) {
        this.clock = nanoTime;
        this.wallClock = wallMillis;
    }

    /** Strongly consistent reads on this node: those answered within the lease, and those after a barrier. */
    public long[] consistentReads() {
        return new long[] {leaseReads.get(), barrierReads.get()};
    }

    private static TimeDuration millis(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void replicate(byte[] entry) {
        if (!info().isLeader()) {
            // Refused before anything reached the log: the change certainly did not happen.
            throw new StorageUnavailableException("node " + self + " is not the cluster's leader");
        }
        RaftClientReply reply;
        CompletableFuture<RaftClientReply> committed =
                ReplicatedEntry.isBatch(entry) ? batches.propose(entry) : submit(entry);
        try {
            reply = committed.get(proposalMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException("interrupted while the cluster commits the change", e, true);
        } catch (ExecutionException e) {
            throw new StorageUnavailableException(
                    "the cluster did not commit the change: " + e.getMessage(), e, !handingOver(e.getCause()));
        } catch (TimeoutException e) {
            if (batches.withdraw(committed)) {
                // It waited behind an entry the group did not answer, and was never proposed.
                throw new StorageUnavailableException(
                        "the cluster did not take the change within " + proposalMillis + " ms", e, false);
            }
            throw new StorageUnavailableException(
                    "the cluster did not commit the change within " + proposalMillis + " ms", e, true);
        }
        if (!reply.isSuccess()) {
            // Even a "not the leader" now may come from a leader that stepped down with the entry in its log, which
            // the next leader may still commit: the outcome is unknown. But a leader handing its leadership over
            // refuses the proposal before it appends it (Ratis makes its LeaderSteppingDownException only in
            // RaftServerImpl.checkLeaderState): nothing was written, and it may be sent again (a 503).
            Exception why = reply.getException();
            throw new StorageUnavailableException(
                    "the cluster did not confirm the change: " + (why == null ? "unknown" : why.getMessage()),
                    why,
                    !handingOver(why));
        }
    }

    /**
     * Proposes {@code entry} to this node's own Raft server. Once the group commits it, the read lease runs from the
     * moment before it was proposed, in the term and under the members this node had then: the entry, if appended in
     * another term or under other members, extends a lease no read of this term and these members checks.
     */
    private CompletableFuture<RaftClientReply> submit(byte[] entry) {
        long proposedAt = clock.getAsLong();
        long proposedAtMillis = wallClock.getAsLong();
        long term;
        long configuration;
        CompletableFuture<RaftClientReply> reply;
        try {
            var division = division();
            term = division.getInfo().getCurrentTerm();
            var conf = division.getRaftConf();
            configuration = conf.getLogEntryIndex();
            if (prefersAnother(conf.getCurrentPeers(), self)) {
                lease.revoke(term);
            }
            reply = server.submitClientRequestAsync(request(
                    Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)), RaftClientRequest.writeRequestType()));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return reply.whenComplete((r, failure) -> {
            if (failure == null && r.isSuccess()) {
                lease.extend(term, configuration, proposedAt, proposedAtMillis);
                refusedHandingOverSince = 0;
            } else if (steppingDown(failure != null ? failure : r.getException())) {
                if (handingOver(failure != null ? failure : r.getException())) {
                    if (refusedHandingOverSince == 0) {
                        refusedHandingOverSince = Math.max(1, System.nanoTime());
                    }
                }
                // Ratis refuses proposals while it hands the leadership over (a transfer asked of it on the Raft port,
                // say): the other member may stand at once.
                lease.revoke(term);
            }
        });
    }

    /** Whether Ratis refused a proposal because it is handing the leadership over. */
    private static boolean handingOver(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.apache.ratis.protocol.exceptions.LeaderSteppingDownException) {
                return true;
            }
        }
        return false;
    }

    private static boolean steppingDown(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.apache.ratis.protocol.exceptions.LeaderSteppingDownException
                    || t instanceof org.apache.ratis.protocol.exceptions.NotLeaderException
                    || t instanceof org.apache.ratis.protocol.exceptions.TransferLeadershipException) {
                return true;
            }
        }
        return false;
    }

    public String id() {
        return self.toString();
    }

    /** How many entries of batches this node has proposed while it led, and how many writes they carried. */
    public long[] groupCommits() {
        return new long[] {batches.entries(), batches.batches()};
    }

    /**
     * The group's members as this node knows them: its latest configuration, which a change of the members replaces
     * (empty on a node that joins before the leader has added it).
     */
    public List<Peer> members() {
        return byId(division().getRaftConf().getCurrentPeers());
    }

    private static List<Peer> byId(java.util.Collection<RaftPeer> peers) {
        return peers.stream()
                .map(Peer::of)
                .sorted(java.util.Comparator.comparing(Peer::id))
                .toList();
    }

    /**
     * Makes {@code next} the group's members, from any member, whatever they are now; see {@link
     * #changeMembers(java.util.function.UnaryOperator, Duration)}.
     */
    public void changeMembers(List<Peer> next, Duration timeout) {
        changeMembers(now -> next, timeout);
    }

    /**
     * Changes the group's members, from any member, to what {@code change} makes of the members as they are (null:
     * they need no change). Ratis first brings every new member up to date (from the log, or the leader's checkpoint
     * when the log it needs was purged), then commits the old and new members together and then the new alone
     * (Raft's joint consensus), so a majority of both agrees on every entry meanwhile. A member that stays keeps its
     * priority; a new one has none.
     *
     * <p>The change goes to the leader through a Ratis client (this node's too, when it leads), which follows the
     * members' word to the leader and retries while the group elects one or finishes another change. It is a
     * compare-and-set: made only if the members are still those {@code change} was given, so that a change computed
     * from an old view never puts back a removed member or drops an added one; when they differ (this node had not
     * yet learnt of another change), {@code change} is applied again to the members as they now are. Returns the
     * members it made, or the members as they were when {@code change} found nothing to change, once committed,
     * within about {@code timeout}.
     *
     * @throws IllegalArgumentException as {@code change} throws it
     * @throws StorageUnavailableException when the group did not make the change in time (no leader, a new member
     *     that cannot be reached, another change under way); it may still complete
     */
    public List<Peer> changeMembers(java.util.function.UnaryOperator<List<Peer>> change, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<RaftPeer> current = currentPeers();
            List<Peer> now = byId(current);
            List<Peer> next = change.apply(now);
            if (next == null) {
                return now;
            }
            java.util.Map<String, Integer> priorities = new java.util.HashMap<>();
            current.forEach(p -> priorities.put(p.getId().toString(), p.getPriority()));
            List<RaftPeer> peers = next.stream()
                    .map(p -> p.raftPeer(priorities.getOrDefault(p.id(), 0)))
                    .toList();
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new StorageUnavailableException(
                        "the group did not change its members within " + timeout.toSeconds() + " s", null, true);
            }
            // This node's server (leading) or its Ratis client (through the leader) takes the new members' addresses.
            addresses.note(peers);
            if (setConfigurationThroughLeader(current, peers, Duration.ofNanos(left))) {
                return next;
            }
            // The leader's members are not those this node knows: it learns them, and the change is made again.
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageUnavailableException("interrupted while the group changes its members", e, true);
            }
        }
    }

    /**
     * A compare-and-set of {@code key} in the store's {@code meta} family, from any member ({@link
     * ReplicatedEntry#recordIf}): sets it to {@code value} (deletes it for null) if it is {@code expected} then (absent
     * for null). A Ratis client sends the entry to the leader (the members' Raft ports, over the peers' TLS, following
     * their word to the leader, retried until {@code timeout}); each replica decides it as it applies it. Returns the
     * key's value on this replica once it has applied the entry: {@code value} when the set was made, or the value that
     * was there instead.
     *
     * @throws StorageUnavailableException when the group did not commit it in time (it may still), or this replica did
     *     not apply it in time
     */
    public byte[] recordIf(ReplicaStore replica, String key, byte[] expected, byte[] value, Duration timeout) {
        byte[] entry = ReplicatedEntry.recordIf(key.getBytes(StandardCharsets.UTF_8), expected, value);
        long deadline = System.nanoTime() + timeout.toNanos();
        RaftClientReply reply;
        // A blocking send retries on this thread, as the client's policy says: until this call's deadline.
        RECORD_DEADLINE.set(deadline);
        try {
            reply = recordingClient().io().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)));
        } catch (IOException e) {
            throw new StorageUnavailableException(
                    "the group did not record " + key + " in time (it may still): " + e.getMessage(), e, true);
        } finally {
            RECORD_DEADLINE.remove();
        }
        if (!reply.isSuccess()) {
            Exception why = reply.getException();
            throw new StorageUnavailableException(
                    "the group did not record " + key + ": " + (why == null ? "unknown" : why.getMessage()), why, true);
        }
        // Committed at reply.getLogIndex(): read once this replica has applied that far, and no checkpoint replaces
        // its store (one installed then holds the entry too, being further on).
        while (true) {
            if (lastAppliedIndex() >= reply.getLogIndex() && !replica.installing()) {
                byte[][] now = new byte[1][];
                Boolean read = replica.unlessInstalling(s -> {
                    now[0] = replica.recorded(key);
                    return Boolean.TRUE;
                });
                if (read != null) {
                    return now[0];
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new StorageUnavailableException(
                        "node " + self + " has not applied the record of " + key + " in time", null, true);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageUnavailableException("interrupted while " + key + " was recorded", e, true);
            }
        }
    }

    /**
     * The deadline ({@link System#nanoTime}) of the {@link #recordIf} running on this thread, which the client's retry
     * policy reads: a blocking send retries on the calling thread, so each call has a deadline of its own.
     */
    private static final ThreadLocal<Long> RECORD_DEADLINE = new ThreadLocal<>();

    /** The Ratis client {@link #recordIf} sends through, and the members it was made for; made at first use. */
    private org.apache.ratis.client.RaftClient recording;

    private List<RaftPeer> recordingFor;

    /**
     * The client {@link #recordIf} sends through: to the group's members as this node knows them now (their Raft ports,
     * over the peers' TLS; without the API address their configurations carry as their client address, where a Ratis
     * client would send), following their word to the leader; a blocking send retries every 100 ms on the calling
     * thread until its call's deadline ({@link #RECORD_DEADLINE}), each try waiting a second at most. Made again when
     * the members change.
     */
    private synchronized org.apache.ratis.client.RaftClient recordingClient() {
        List<RaftPeer> known = currentPeers().stream()
                .map(p -> RaftPeer.newBuilder()
                        .setId(p.getId())
                        .setAddress(p.getAddress())
                        .build())
                .toList();
        if (recording != null && known.equals(recordingFor)) {
            return recording;
        }
        closeRecording();
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        // Each try waits a second at most for its answer: a commit takes milliseconds, an election about a second.
        org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(
                properties, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        TimeDuration pause = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);
        org.apache.ratis.retry.RetryPolicy untilDeadline = event -> {
            Long deadline = RECORD_DEADLINE.get();
            return deadline != null && System.nanoTime() - deadline < 0
                    ? () -> pause
                    : org.apache.ratis.retry.RetryPolicy.NO_RETRY_ACTION;
        };
        recording = org.apache.ratis.client.RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(group.getGroupId(), known))
                .setProperties(properties)
                .setParameters(parameters)
                .setRetryPolicy(untilDeadline)
                .build();
        recordingFor = known;
        return recording;
    }

    /** Closes the client of {@link #recordIf}, if any: the group left this node, or the node stops. */
    private synchronized void closeRecording() {
        if (recording != null) {
            try {
                recording.close();
            } catch (IOException | RuntimeException e) {
                log.warn("closing the client that records through group {}", shortId(group), e);
            }
            recording = null;
            recordingFor = null;
        }
    }

    private List<RaftPeer> currentPeers() {
        return List.copyOf(division().getRaftConf().getCurrentPeers());
    }

    /**
     * Sends {@code next} as the group's members, if they still are {@code current}, to the leader: a Ratis client
     * sends it to the members (their Raft ports, over the peers' TLS) and follows their word to the leader, retrying
     * until {@code timeout}. Returns false when the leader's members were not {@code current}.
     */
    private boolean setConfigurationThroughLeader(List<RaftPeer> current, List<RaftPeer> next, Duration timeout) {
        // Without the API address the members' configurations carry as their client address: a Ratis client would
        // send its requests there.
        List<RaftPeer> known = current.stream()
                .map(p -> RaftPeer.newBuilder()
                        .setId(p.getId())
                        .setAddress(p.getAddress())
                        .build())
                .toList();
        if (known.isEmpty()) {
            throw new StorageUnavailableException(
                    "node " + self + " knows no members of the group yet: ask a member", null, true);
        }
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(
                properties, TimeDuration.valueOf(timeout.toMillis(), TimeUnit.MILLISECONDS));
        long deadline = System.nanoTime() + timeout.toNanos();
        TimeDuration pause = TimeDuration.valueOf(200, TimeUnit.MILLISECONDS);
        // Retries (to the leader a member names, after an election, after another change) until the time is up.
        org.apache.ratis.retry.RetryPolicy untilDeadline = event ->
                System.nanoTime() < deadline ? () -> pause : org.apache.ratis.retry.RetryPolicy.NO_RETRY_ACTION;
        var arguments = org.apache.ratis.protocol.SetConfigurationRequest.Arguments.newBuilder()
                .setServersInNewConf(next)
                .setServersInCurrentConf(current)
                .setMode(org.apache.ratis.protocol.SetConfigurationRequest.Mode.COMPARE_AND_SET)
                .build();
        RaftClientReply reply;
        try (org.apache.ratis.client.RaftClient client = org.apache.ratis.client.RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(group.getGroupId(), known))
                .setProperties(properties)
                .setParameters(parameters)
                .setRetryPolicy(untilDeadline)
                .build()) {
            reply = client.admin().setConfiguration(arguments);
        } catch (org.apache.ratis.protocol.exceptions.SetConfigurationException e) {
            return false; // the compare failed: the leader's members differ
        } catch (IOException e) {
            throw new StorageUnavailableException("the group did not change its members: " + e.getMessage(), e, true);
        }
        if (!reply.isSuccess()) {
            Exception why = reply.getException();
            if (why instanceof org.apache.ratis.protocol.exceptions.SetConfigurationException) {
                return false;
            }
            throw new StorageUnavailableException(
                    "the group did not change its members: " + (why == null ? "unknown" : why.getMessage()), why, true);
        }
        return true;
    }

    /** Makes {@code next} the group's members, on the leader, if they still are {@code current}. */
    private void setConfiguration(List<RaftPeer> current, List<RaftPeer> next, Duration timeout) {
        if (!info().isLeader()) {
            throw new StorageUnavailableException("node " + self + " does not lead the group");
        }
        var request = new org.apache.ratis.protocol.SetConfigurationRequest(
                clientId,
                self,
                group.getGroupId(),
                callIds.incrementAndGet(),
                org.apache.ratis.protocol.SetConfigurationRequest.Arguments.newBuilder()
                        .setServersInNewConf(next)
                        .setServersInCurrentConf(current)
                        .setMode(org.apache.ratis.protocol.SetConfigurationRequest.Mode.COMPARE_AND_SET)
                        .build());
        RaftClientReply reply;
        try {
            reply = server.setConfigurationAsync(request).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException("interrupted while the cluster changes its members", e, true);
        } catch (IOException | ExecutionException e) {
            throw new StorageUnavailableException("the cluster did not change its members: " + e.getMessage(), e, true);
        } catch (TimeoutException e) {
            throw new StorageUnavailableException(
                    "the cluster did not change its members within " + timeout.toSeconds() + " s", e, true);
        }
        if (!reply.isSuccess()) {
            Exception why = reply.getException();
            throw new StorageUnavailableException(
                    "the cluster did not change its members: " + (why == null ? "unknown" : why.getMessage()),
                    why,
                    true);
        }
    }

    /**
     * Whether the group's configuration is settled here: committed, and not the old and new members of a change under
     * way. Another change made before would be refused.
     */
    public boolean membersSettled() {
        var division = division();
        var conf = division.getRaftConf();
        return conf.getPreviousPeers().isEmpty()
                && conf.getLogEntryIndex() <= division.getRaftLog().getLastCommittedIndex();
    }

    /**
     * Each member's priority in the group's configuration, by id: a leader yields to an up-to-date member of a higher
     * one.
     */
    public java.util.Map<String, Integer> priorities() {
        java.util.Map<String, Integer> out = new java.util.TreeMap<>();
        division()
                .getRaftConf()
                .getCurrentPeers()
                .forEach(p -> out.put(p.getId().toString(), p.getPriority()));
        return out;
    }

    /**
     * On the leader: makes {@code member} the group's preferred leader, with priority 1 and every other member 0, as one
     * change of the configuration that keeps its members (Ratis counts a change of priority as a change). The leader
     * then hands its part to that member once it is up to date. Returns once the change is committed, within {@code
     * timeout}.
     *
     * @throws StorageUnavailableException as {@link #changeMembers} does
     */
    public void prefer(String member, Duration timeout) {
        List<RaftPeer> current = currentPeers();
        if (!member.equals(self.toString()) || prefersAnother(current, self)) {
            // Ratis may hand the leadership over without waiting for a timeout from now on, for the rest of the term.
            lease.revoke(term());
        }
        List<RaftPeer> next = new java.util.ArrayList<>();
        for (RaftPeer p : current) {
            next.add(RaftPeer.newBuilder(p)
                    .setPriority(p.getId().toString().equals(member) ? 1 : 0)
                    .build());
        }
        // A compare-and-set of the members too: a change of the members made since they were read is not undone.
        setConfiguration(current, next, timeout);
    }

    private DivisionInfo info() {
        return division().getInfo();
    }

    RaftServer.Division division() {
        try {
            return server.getDivision(group.getGroupId());
        } catch (IOException e) {
            throw new IllegalStateException("no division for the group on " + self, e);
        }
    }

    /**
     * Whether the group is on this node's server: false once Ratis has taken it off (another member removed it), a
     * moment before the host forgets it.
     */
    public boolean present() {
        // The server's list, which never waits (a lookup of the division waits for one being added).
        for (RaftGroupId id : server.getGroupIds()) {
            if (id.equals(group.getGroupId())) {
                return true;
            }
        }
        return false;
    }

    /** Whether this node leads the group and has committed an entry of its term (so it holds every committed one). */
    public boolean isLeaderReady() {
        DivisionInfo info = info();
        return info.isLeader() && info.isLeaderReady();
    }

    /** The id of the node this one believes leads the group, or null while it knows of none. */
    public String leaderId() {
        RaftPeerId leader = info().getLeaderId();
        return leader == null ? null : leader.toString();
    }

    public long term() {
        return info().getCurrentTerm();
    }

    public long lastAppliedIndex() {
        return info().getLastAppliedIndex();
    }

    /** The index of the last entry this node knows the group committed. */
    public long commitIndex() {
        return division().getRaftLog().getLastCommittedIndex();
    }

    /** The index of the first entry this node's log still holds; the entries before it were purged. */
    public long logStartIndex() {
        return division().getRaftLog().getStartIndex();
    }

    /**
     * The entry this node's latest checkpoint ends with, or -1 before its first (a store that never applied an entry,
     * or one whose checkpoint at a start failed: StoreStateMachine).
     */
    public long snapshotIndex() {
        var snapshot = division().getStateMachine().getLatestSnapshot();
        return snapshot == null || snapshot.getFiles().isEmpty() ? -1 : snapshot.getIndex();
    }

    /**
     * Whether this node leads, has committed an entry of its term, and has applied every entry of its log: no proposal
     * of its own is in flight, so its store holds every change it ever proposed that may yet commit in its term.
     */
    public boolean appliedAll() {
        if (!isLeaderReady()) {
            return false;
        }
        var last = division().getRaftLog().getLastEntryTermIndex();
        return last == null || lastAppliedIndex() >= last.getIndex();
    }

    /**
     * Whether this node may serve as the leader now: it leads, has committed an entry of its term, and has applied
     * every entry committed so far, so its store holds every acknowledged change.
     */
    public boolean canServe() {
        return isLeaderReady() && lastAppliedIndex() >= commitIndex();
    }

    /**
     * On the leader, each follower's last log index known to match the leader's, by follower id; empty on any other
     * node. Ratis lists the followers' ids and their match indexes separately, in the same order; when the members
     * change between the two calls, the lists differ in length and the answer is empty until the next call.
     */
    public java.util.Map<String, Long> followerMatchIndexes() {
        DivisionInfo info = info();
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        if (!info.isLeader() || !info.getRoleInfoProto().hasLeaderInfo()) {
            return out;
        }
        var followers = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
        long[] match = info.getFollowerMatchIndices();
        if (match == null || match.length != followers.size()) {
            return out;
        }
        for (int i = 0; i < match.length; i++) {
            out.put(followers.get(i).getId().getId().toStringUtf8(), match[i]);
        }
        return out;
    }

    /**
     * On the leader, how long ago each follower last answered an append or a heartbeat, in milliseconds, by follower
     * id; empty on any other node.
     */
    public java.util.Map<String, Long> followerSilence() {
        DivisionInfo info = info();
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        if (!info.isLeader() || !info.getRoleInfoProto().hasLeaderInfo()) {
            return out;
        }
        for (var f : info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList()) {
            out.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
        }
        return out;
    }

    /** When this node, leading the group, may step down for a silent follower again ({@link System#nanoTime}). */
    private volatile long stepDownAgainAt = System.nanoTime();

    /**
     * Since when ({@link System#nanoTime}) each follower has been seen silent to this leader yet up; a follower that
     * answers or is down again is taken out.
     */
    private final java.util.Map<String, Long> silentButUp = new java.util.HashMap<>();

    /**
     * On the leader: steps down when a follower has answered nothing for {@code silentMillis} yet {@code holdsGroup}
     * has said, for {@code graceMillis} on end, that it is up and holds the group, so that the leader's appender to it
     * has stopped (see {@link Host}'s watchdog). The grace leaves a follower that just came back the time for the
     * appender to reach it again. Called by one thread; returns whether it stepped down.
     */
    boolean checkFollowers(
            long silentMillis, long graceMillis, java.util.function.BiPredicate<RaftGroupId, RaftPeer> holdsGroup) {
        if (!isLeaderReady()) {
            silentButUp.clear();
            return false;
        }
        if (System.nanoTime() - stepDownAgainAt < 0) {
            return false;
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (var f : info().getRoleInfoProto().getLeaderInfo().getFollowerInfoList()) {
            String follower = f.getId().getId().toStringUtf8();
            if (f.getLastRpcElapsedTimeMs() <= silentMillis) {
                continue;
            }
            // From the configuration the leader sends by: a member added since the node started has its address there.
            RaftPeer peer = division().getRaftConf().getPeer(RaftPeerId.valueOf(follower));
            if (peer == null || !holdsGroup.test(group.getGroupId(), peer)) {
                continue;
            }
            seen.add(follower);
            long since = silentButUp.computeIfAbsent(follower, k -> System.nanoTime());
            if (System.nanoTime() - since >= graceMillis * 1_000_000L) {
                silentButUp.clear();
                stepDownAgainAt = System.nanoTime() + Host.STEP_DOWN_AGAIN_NANOS;
                log.warn(
                        "{} leads group {} but has had no answer from {} for {} ms, which is up: its appends to it"
                                + " stopped (Ratis 3.2.2 does not restart a failed log appender); it steps down so"
                                + " that the next leader sends to it again",
                        self,
                        shortId(group),
                        follower,
                        f.getLastRpcElapsedTimeMs());
                try {
                    stepDown(Duration.ofMillis(proposalMillis));
                } catch (IOException e) {
                    log.warn("{} could not step down in group {}", self, shortId(group), e);
                }
                return true;
            }
        }
        silentButUp.keySet().retainAll(seen);
        return false;
    }

    /**
     * Since when ({@link System#nanoTime}; 0 for none) Ratis has refused every proposal of this node's as handing its
     * leadership over.
     */
    private volatile long refusedHandingOverSince;

    /** The watchdog's last empty entry ({@link #checkStuckHandOver}), and when it was proposed. */
    private volatile CompletableFuture<RaftClientReply> probe;

    private volatile long probedAt;

    /**
     * On the leader: steps down when Ratis has refused every proposal (a write's, a read barrier's, an empty one the
     * watchdog sends every second meanwhile) for {@code stuckNanos} on end as handing its leadership over; one taken
     * ends the count. A transfer ends within its timeout (an election timeout when Ratis yields to a member of a higher
     * priority, 5 s for a move's): once, under a node killed every 13 s, one never ended and its group refused every
     * write for minutes, the leader going on with its heartbeats (docs/CLUSTER.md, "A leader left handing over").
     * Stepping down ends it: Ratis ends a transfer whenever a leader is elected, this node or another. Called by one
     * thread; returns whether it stepped down.
     */
    boolean checkStuckHandOver(long stuckNanos) {
        long since = refusedHandingOverSince;
        long now = System.nanoTime();
        if (since == 0) {
            return false;
        }
        if (!info().isLeader()) {
            refusedHandingOverSince = 0; // a follower hands nothing over; a next term counts anew
            return false;
        }
        if (now - since < stuckNanos) {
            // Refused since then, none taken: an empty entry of the watchdog's own tells whether that goes on, so
            // that a group with few requests is looked at too (taken, it ends the count; refused, it goes on).
            CompletableFuture<RaftClientReply> last = probe;
            if (last != null && !last.isDone() && now - probedAt > proposalMillis * 1_000_000L) {
                batches.withdraw(last); // not answered in a proposal's time: another instead
                last = null;
            }
            if (last == null || last.isDone()) {
                probedAt = now;
                probe = batches.propose(ReplicatedEntry.emptyBatch());
            }
            return false;
        }
        refusedHandingOverSince = 0;
        log.warn(
                "{} leads group {} but Ratis has refused its proposals for {} ms as it hands the leadership over, a"
                        + " transfer that should have ended: it steps down",
                self,
                shortId(group),
                (now - since) / 1_000_000);
        try {
            stepDown(Duration.ofMillis(proposalMillis));
        } catch (IOException e) {
            log.warn("{} could not step down in group {}", self, shortId(group), e);
        }
        return true;
    }

    /** Steps down as the group's leader: the members elect a leader again, which starts new appenders. */
    void stepDown(Duration timeout) throws IOException {
        handOver(null, timeout);
    }

    /**
     * Hands the group's leadership to {@code member}, one of its followers (Ratis's leadership transfer: the leader
     * waits for it to have every entry, then has it stand at once, so no election timeout goes by with no leader).
     * Give it the highest priority first ({@link #prefer}), or the leadership comes back to a member of a higher one.
     */
    public void handOver(String member, Duration timeout) throws IOException {
        var request = new org.apache.ratis.protocol.TransferLeadershipRequest(
                clientId,
                self,
                group.getGroupId(),
                callIds.incrementAndGet(),
                member == null ? null : RaftPeerId.valueOf(member),
                timeout.toMillis());
        RaftClientReply reply;
        try {
            reply = server.transferLeadershipAsync(request).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stepping down", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("did not step down: " + e, e);
        }
        if (!reply.isSuccess()) {
            throw new IOException("did not step down: " + reply.getException(), reply.getException());
        }
    }

    /** This node's role in the group: LEADER, FOLLOWER, CANDIDATE or LISTENER. */
    public String role() {
        var role = info().getCurrentRole();
        return role == null ? "STARTING" : role.name(); // none yet: a group just added, starting
    }

    /** Closes the server, when this node alone used it ({@link #start}); a {@link Host}'s closes with the host. */
    @Override
    public void close() throws IOException {
        if (host != null) {
            host.close();
        }
    }
}
