package io.partita.server.cluster;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.partita.cluster.ClusterNode;
import io.partita.cluster.ReplicaStore;
import io.partita.server.PartitaServer;
import io.partita.server.cli.ServerConfig;
import io.partita.server.op.table.TablePlacement;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of a cluster: its replica of each group's store, its Raft server ({@link ClusterNode.Host}), its public port
 * ({@link ClusterRouter}) and, for each group it leads, the server that answers that group's requests.
 *
 * <p>In open mode the whole store is one Raft group. In strict mode ({@code --credentials}) each account's store is a
 * group of its own, as each account has a store of its own on a single node, and each group prefers another member as
 * its leader, so the accounts' leaders spread over the nodes. Every change a group's leader commits (a batch with its
 * change records, a column family made or dropped) is an entry of the group's log, which every replica applies to its
 * RocksDB in order. Only a group's leader runs a {@link StorageEngine} on it (tables, capacity, the write path, GSI
 * appliers, streams, the TTL reaper): it opens one on its replica when it has applied every committed entry, and closes
 * it when it stops leading. The router sends each request to the leader of its account's group; with follower reads
 * on, a follower answers eventually consistent reads from its own replica, through a read-only engine ({@link
 * StorageEngine#openReader}).
 *
 * <p>With {@code --cluster-replicas R}, each group is placed on R of the members only ({@link
 * io.partita.cluster.Placement}): a node keeps replicas of the groups placed on it, and sends the requests of any other
 * group to the leader its {@link io.partita.cluster.GroupLocator} learns from that group's members.
 */
public final class ClusterMember implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterMember.class);
    private static final long WATCH_MILLIS = 20;

    private final ClusterConfig cluster;
    /**
     * How long a removal waits for a group that a decision of the members' group names the removed node for to have a
     * known leader ({@link #changePlaced}): a few elections, and at least 3 s, for a locator to hear of a new one.
     */
    private final long leaderWaitNanos;
    /**
     * How long a table's group may hold nothing before its leader closes it: five of the longest election timeouts
     * (10 s with Ratis's usual ones), which a CreateTable placed there and retried across an election outlasts.
     */
    private final long emptyNanos;

    private final ServerConfig server;
    private final Consumer<PartitaServer> onServe;
    /** Strict mode's keys (each key's account names its group), or null in open mode. */
    private final io.partita.server.auth.Accounts accounts;
    /**
     * Verifies, in strict mode, the signatures of a change of the members and of a batch over several groups (which
     * signs the batch's shares anew, {@link #spread}); null in open mode.
     */
    private final io.partita.server.auth.SigV4Verifier verifier;
    /**
     * Every group of the cluster, by account, the first the one unsigned requests go to: those this node is placed on,
     * and, with {@code --cluster-replicas}, those it routes to only.
     */
    private final java.util.Map<String, Group> groups;
    /**
     * With {@code --cluster-table-groups}: each table's group, by its Raft id, as the members' group records them
     * ({@link #syncTables}): those on this node and those it routes to only.
     */
    private final java.util.Map<UUID, Group> tableGroups = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Where a batch over several groups is checked and split ({@link #spread}), off the router's event loops: it
     * decodes up to 16 MB, and its shares then go on without a thread.
     */
    private final java.util.concurrent.ExecutorService batches;
    /** The projections of a TransactGetItems over several groups, checked here before any group reads. */
    private final io.partita.server.op.item.ItemExpressions expressions =
            new io.partita.server.op.item.ItemExpressions(new io.partita.protocol.expr.ExpressionCache(64));
    /**
     * Where a list over every table of an account reads the account's groups ({@link #accountGroups}), whose barrier
     * through the members' group may wait for its leader: not on {@link #batches}, which batches would then wait for.
     */
    private final java.util.concurrent.ExecutorService lists;
    /** Where the resolvers of transactions' parts left behind ask their deciding groups ({@link #resolve}). */
    private final java.util.concurrent.ExecutorService resolver;

    private final java.util.concurrent.ExecutorService moves;

    private final Group primary;
    private final ClusterNode.Host host;
    /**
     * With {@code --cluster-replicas}: this node's part in the members' group, which every member is on and whose
     * members are the cluster's (a change of the members is a change of its members); null otherwise.
     */
    private final ClusterNode membersGroup;
    /** The members' group's replica (its store holds nothing yet), or null. */
    private final ReplicaStore membersReplica;
    /** The node's record of its groups' placement, which the mover tells of changed members. */
    private final PlacementRecord placementRecord;

    private final ClusterRouter router;
    private final Thread watch;
    /** Whether this node has started: it takes no group from another member before. */
    private volatile boolean ready;
    /**
     * With {@code --cluster-table-groups}: makes this node's tables' groups those the members' group records, as soon
     * as its replica of that group applies an entry ({@link #syncTables}); null otherwise.
     */
    private final Thread tablesWatch;
    /** With {@code --cluster-replicas}: moves the groups this node leads to the members they are placed on now. */
    private final Thread mover;
    /** With {@code --cluster-partition-groups}: the reports of each range's consumption to its table's other groups. */
    private final Thread charges;

    private volatile boolean closed;

    /** A reader, the store it reads and the store's {@link RocksStore#catalogChanges} when it loaded its tables. */
    private record Reader(PartitaServer server, RocksStore store, long catalogChanges) {}

    /**
     * One group: an account's store, this node's replica of it, its part in the group and what serves it here; or,
     * for a group this node is not placed on, where its leader is.
     */
    private final class Group {
        final String account;
        final StorageConfig storage;
        /** The group's Raft id. */
        final UUID id;
        /**
         * What this node's placement record calls the group ({@link PlacementRecord}): its account's id, or, for a
         * table's group, {@code table-<id>}.
         */
        final String recordKey;
        /** Its place in the groups' order: it is placed on the members {@code Placement.of(members, place, R)}. */
        final int place;
        /** For a table's group ({@code --cluster-table-groups}): the table it was made for; null for an account's. */
        final String table;
        /**
         * For a group of one of a table's hash ranges but its first ({@code --cluster-partition-groups}): the range's
         * place among them; 0 for any other group. Set before the group is known to others.
         */
        volatile int range;
        /**
         * For a table's group this node leads: whether it is being closed, empty ({@link #collect}); new tables are
         * refused meanwhile.
         */
        volatile boolean closing;
        /** For a table's group this node leads: since when ({@link System#nanoTime}) it has held nothing, or 0. */
        volatile long emptySince;
        /** For a table's group this node leads: when it last compared its tables with the cluster's records. */
        volatile long collectedAt;
        /** For a group this node leads: when it last looked for transactions' parts left behind ({@link #resolve}). */
        volatile long resolvedAt;
        /**
         * For a table's group this node leads: the tables its server has held, which it has seen made, each with the
         * time its record says it was placed ({@code at}) when it was seen: a name placed anew since is not taken for
         * gone by it.
         */
        final java.util.Map<String, Long> held = new java.util.concurrent.ConcurrentHashMap<>();
        /**
         * For a table's group: held by each table made in it ({@link Placing#makeHere}) while it is made, and taken
         * whole by its close ({@link #closeEmpty}) as it starts refusing new ones, so no table is being made once the
         * close looks.
         */
        final java.util.concurrent.locks.ReadWriteLock fence = new java.util.concurrent.locks.ReentrantReadWriteLock();
        /**
         * For an account's own group: held while CreateTable places a new name elsewhere ({@link
         * Placing#place}), and while a restore here checks and reserves its name ({@link #restoring}).
         */
        final java.util.concurrent.locks.ReentrantLock naming = new java.util.concurrent.locks.ReentrantLock();
        /** For an account's own group: the names its restores under way make here, which CreateTable leaves here. */
        final java.util.Set<String> restoring = java.util.concurrent.ConcurrentHashMap.newKeySet();
        /** For a table's group: whether its record is gone and this node took it off ({@link #dropTableGroup}). */
        volatile boolean dropped;
        /**
         * The members the group is placed on, its preferred leader first; null when it is on every member. With
         * {@code --cluster-replicas}, as the cluster's members are now: it changes with them, and the group's leader
         * then moves the group there ({@link #moveGroups}).
         */
        volatile List<String> placed;
        /**
         * This node's replica, null when the group is not on this node. Set, with {@link #node}, when the group is
         * added to this node or taken off it, under the group's lock.
         */
        volatile ReplicaStore replica;
        /** This node's part in the group, null when the group is not on this node (or is being added to it). */
        volatile ClusterNode node;
        /** Where the group is led, for a group not on this node; null for one that is. */
        volatile io.partita.cluster.GroupLocator locator;
        /** The members the group's last move by this node left, by id, which have not taken it off yet. */
        final java.util.Map<String, Left> leftOn = new java.util.concurrent.ConcurrentHashMap<>();
        /** When the members in {@link #leftOn} were last asked ({@link System#nanoTime}); 0 for at once. */
        volatile long leftAskedAt;
        /**
         * Whether the group is to be made where the members' group decides ({@link #formLate}): its account was new to
         * this node at a start after its first, and this node has neither made it nor learned that it is not on it.
         */
        volatile boolean late;
        /** When another member added the group to this node ({@link System#nanoTime}). */
        volatile long joinedAt;
        /**
         * Whether this node has been among the group's members since it got the group: false while one another
         * member added catches up (its configuration, from the log it is sent, is the group's before it was added).
         */
        volatile boolean memberSeen = true;
        /**
         * Leading the group: since when ({@link System#nanoTime}) each member has said it has no copy of the group,
         * by id ({@link #dropLost}). Used by the mover only.
         */
        final java.util.Map<String, Long> lostSince = new java.util.HashMap<>();
        /** When a member that could not be added to the group is asked again ({@link System#nanoTime}). */
        volatile long addAgainAt = System.nanoTime();
        /** When the members that stopped answering were last asked whether they lost the group. */
        long lostCheckedAt;
        /** When this node last asked the group's leader whether it is still one of the group's members. */
        volatile long checkedAt;
        /**
         * This node's own server for the group while it leads; null otherwise. Set by the watch; cleared by the watch,
         * an install, the group's removal from this node and close, under the group's lock.
         */
        volatile PartitaServer serving;
        /**
         * Done once the server this node had for the group when it stopped leading has closed ({@link #retire}); null
         * when none closes. The group is served again, or its store closed, only after that.
         */
        volatile java.util.concurrent.CompletableFuture<Void> retiring;
        /** When {@link #retiring} began ({@link System#nanoTime}), and whether a close that long was warned of. */
        volatile long retiringSince;

        volatile boolean retiringWarned;
        /**
         * With follower reads, while this node follows: the server that answers eventually consistent reads from its
         * replica, through a reader engine ({@link StorageEngine#openReader}); null otherwise. Changed only by the
         * watch, install and close.
         */
        volatile Reader reader;
        /** Whether the router may send eventually consistent reads to {@link #reader} now: it is recent enough. */
        volatile boolean readable;
        /**
         * The term, members and placement with which this node, leading the group, last checked whose leadership it
         * prefers; null before.
         */
        String preferredFor;
        /** When a preference that could not be made is tried again ({@link System#nanoTime}). */
        long preferAgainAt;

        Group(
                String account,
                StorageConfig storage,
                List<String> placed,
                UUID id,
                String recordKey,
                int place,
                String table) {
            this.account = account;
            this.storage = storage;
            this.placed = placed;
            this.id = id;
            this.recordKey = recordKey;
            this.place = place;
            this.table = table;
        }

        /** Whether the group is on this node: it holds a replica and takes part in the group. */
        boolean here() {
            return node != null;
        }

        /** How the group is named in logs: by its account, in strict mode; a table's by its table. */
        String name() {
            if (table != null) {
                return "table " + table + "'s group" + (accounts == null ? "" : " (account " + account + ")");
            }
            return accounts == null ? "the cluster" : "account " + account;
        }
    }

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
        // With --tls-cert, clients, the nodes forwarding to each other and the Raft peers all speak TLS; made first,
        // so that unusable files refuse to start before anything is opened.
        SslContext serverTls = PartitaServer.tlsContext(server);
        SslContext forwardTls = server.tls() == null ? null : forwardingContext(server.tls());
        this.cluster = cluster;
        this.leaderWaitNanos =
                Math.max(3_000_000_000L, timings.electionMax().multipliedBy(3).toNanos());
        this.emptyNanos = timings.electionMax().multipliedBy(5).toNanos();
        this.server = server;
        this.onServe = onServe;
        this.accounts = server.accounts();
        // Its threads are made on first use: none while no batch runs over several groups.
        this.batches = java.util.concurrent.Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "partita-cluster-" + cluster.nodeId() + "-batches");
            t.setDaemon(true);
            return t;
        });
        this.lists = java.util.concurrent.Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "partita-cluster-" + cluster.nodeId() + "-lists");
            t.setDaemon(true);
            return t;
        });
        // One thread: a resolver waits for the groups it asks, and must not hold up the requests the node runs.
        this.resolver = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "partita-cluster-" + cluster.nodeId() + "-resolver");
            t.setDaemon(true);
            return t;
        });
        // Moves of ranges (RangeMove): each waits for its groups, for seconds; one at a time on this node.
        this.moves = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "partita-cluster-" + cluster.nodeId() + "-range-moves");
            t.setDaemon(true);
            return t;
        });
        this.verifier = accounts == null
                ? null
                : new io.partita.server.auth.SigV4Verifier(accounts, java.time.Clock.systemUTC());
        // Open mode's one group is the cluster's own, over the data directory; in strict mode each account's store (in
        // the data directory for account 000000000000, in accounts/<id> for any other, as on a single node) is a
        // group named by the cluster and the account.
        List<String> owners = accounts == null
                ? List.of(io.partita.server.auth.Credentials.OPEN_ACCOUNT)
                : List.copyOf(accounts.accountIds());
        java.util.Map<String, Group> byAccount = new java.util.LinkedHashMap<>();
        List<ClusterNode.Group> given = new java.util.ArrayList<>();
        ClusterNode.Host started = null;
        ClusterRouter routing = null;
        ReplicaStore membersStore = null;
        List<String> memberIds =
                cluster.members().stream().map(ClusterConfig.Member::id).toList();
        Path raftDir = server.storage().dataDir().resolve("raft");
        PlacementRecord placement = null;
        try {
            placement = PlacementRecord.check(raftDir, cluster, owners);
            // With --cluster-replicas the members' group comes first, on every member. Until this node has it, the
            // groups it is on are those the flags place on it; from then on, those it has (groups move between nodes
            // as the members change), and an account's group new to the node's record where the flags place it.
            boolean made = cluster.placed() && isGroupFolder(raftDir, membersGroupId());
            if (cluster.placed()) {
                membersStore = ReplicaStore.open(membersStorage());
                given.add(new ClusterNode.Group(membersGroupId(), membersStore, null));
            }
            for (String account : owners) {
                StorageConfig storage = PartitaServer.storage(server, account);
                // With --cluster-replicas, the group at place k in the accounts' order is on the members Placement
                // names; a node it is not on keeps no replica of it, and routes its requests to its leader.
                List<String> placed = cluster.placed()
                        ? io.partita.cluster.Placement.of(memberIds, byAccount.size(), cluster.replicas())
                        : null;
                boolean folder = isGroupFolder(raftDir, groupId(account));
                if (accounts != null && placed == null && !folder && !placement.first() && placement.membersChanged()) {
                    // Without --cluster-replicas the group would be made on the members the flags name.
                    throw new IllegalArgumentException("this node cannot start: account " + account + "'s group is not"
                            + " on it (the account is new to it, or the group's folder under raft/ is gone), and the"
                            + " cluster's members changed since its flags named them, so it would make the group on"
                            + " the members the flags name; adding an account after the members changed is built only"
                            + " for a cluster made with --cluster-replicas, whose members' group decides where a new"
                            + " account's group is made");
                }
                // An account new to this node after its first start: its group is made where the members' group
                // decides, once it has (formLate), as the cluster's members may have changed since the flags'.
                boolean late = placed != null && !folder && placement.late(account);
                boolean here = placed == null
                        || folder
                        || (!late && !cluster.join() && !made && placed.contains(cluster.nodeId()));
                Group g = new Group(account, storage, placed, groupId(account), account, byAccount.size(), null);
                g.late = late;
                byAccount.put(account, g);
                if (!here) {
                    continue;
                }
                holdReplica(g, ReplicaStore.open(storage));
                // The members the flags place it on, to make it with; a group moved here, made where the members'
                // group decided, or on a node that joined or whose members changed, has its members in its log (none
                // yet: it waits, as a joining node).
                boolean byFlags = placed == null
                        || (placed.contains(cluster.nodeId())
                                && !cluster.join()
                                && !placement.membersChanged()
                                && !placement.late(account)
                                && !placement.ownMembers(account));
                List<ClusterNode.Peer> madeOn = placed != null && placement.formed(account)
                        ? decision(membersStore.recorded(LATE_GROUP + account))
                        : null;
                // One made where the members' group decided is given those members again: a restart before its first
                // leader wrote them in its log has them back (ClusterNode.restoreMembers).
                given.add(
                        madeOn != null
                                ? ClusterNode.Group.on(groupId(account), g.replica, madeOn)
                                : new ClusterNode.Group(groupId(account), g.replica, byFlags ? placed : List.of()));
            }
            if (cluster.tableGroups()) {
                startTables(membersStore, raftDir, placement, given);
            }
            List<ClusterNode.Peer> peers =
                    cluster.members().stream().map(ClusterMember::peer).toList();
            this.groups = java.util.Collections.unmodifiableMap(byAccount);
            started = ClusterNode.startGroups(
                    cluster.nodeId(),
                    peers,
                    raftDir,
                    given,
                    timings,
                    server.storage().sync(),
                    retention,
                    cluster.join(),
                    server.tls() == null
                            ? null
                            : new ClusterNode.PeerTls(
                                    server.tls().certificate(), server.tls().privateKey()),
                    cluster.placed() ? new Adopting() : null);
            java.util.Map<UUID, ClusterNode> byId = new java.util.HashMap<>();
            started.groups().forEach(n -> byId.put(n.groupId(), n));
            this.membersGroup = cluster.placed() ? byId.get(membersGroupId()) : null;
            this.membersReplica = membersStore;
            List<Group> starting = new java.util.ArrayList<>(byAccount.values());
            starting.addAll(tableGroups.values());
            for (Group g : starting) {
                if (g.replica != null) {
                    g.node = byId.get(g.id);
                    // One restarted while it was added and caught up is not yet among the members its log names.
                    g.memberSeen = ids(g.node.members()).contains(cluster.nodeId());
                    g.joinedAt = System.nanoTime();
                    checkMembers(g, placement);
                } else {
                    g.locator = started.locate(g.id, g.placed);
                }
            }
            placement.write();
            this.placementRecord = placement;
            this.primary = byAccount.values().iterator().next();
            ClusterConfig.Member self = cluster.self();
            routing = new ClusterRouter(
                    server.host(),
                    self.apiPort(),
                    self.id(),
                    request -> membersGroup != null && request.uri().equals(ClusterRouter.MEMBERS_PATH)
                            ? membersTarget()
                            : route(request),
                    cluster.followerReads() ? this::readRoute : null,
                    this::status,
                    new io.partita.server.metrics.ClusterMetrics(this::view),
                    new ClusterRouter.Members() {
                        @Override
                        public boolean leads() {
                            if (membersGroup != null) {
                                return membersGroup.isLeaderReady();
                            }
                            return primary.here() && primary.node.isLeaderReady();
                        }

                        @Override
                        public ClusterRouter.Made change(ClusterRouter.Sent request) {
                            return changeMembers(request);
                        }

                        @Override
                        public ClusterRouter.Made ranges(ClusterRouter.Sent request) {
                            return splitRange(request);
                        }

                        @Override
                        public java.time.Duration limit() {
                            return membersChangeLimit();
                        }
                    },
                    serverTls,
                    forwardTls,
                    cluster.tableGroups()
                            ? new ClusterRouter.Tables() {
                                @Override
                                public boolean places(io.netty.handler.codec.http.FullHttpRequest request) {
                                    return makesTable(request);
                                }

                                @Override
                                public java.util.concurrent.CompletableFuture<ClusterRouter.Reply> spread(
                                        ClusterRouter.Sent request) {
                                    return ClusterMember.this.spread(request);
                                }
                            }
                            : null);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (started != null) {
                started.close();
            }
            byAccount.values().stream().filter(g -> g.replica != null).forEach(g -> g.replica.close());
            tableGroups.values().stream().filter(g -> g.replica != null).forEach(g -> g.replica.close());
            if (membersStore != null) {
                membersStore.close();
            }
            if (placement != null) {
                placement.failed(e);
            }
            throw e;
        }
        this.host = started;
        this.router = routing;
        this.watch = new Thread(this::watchLeadership, "partita-cluster-" + cluster.nodeId());
        watch.setDaemon(true);
        watch.start();
        this.mover = cluster.placed() ? new Thread(this::moveGroups, "partita-cluster-" + nodeId() + "-moves") : null;
        this.tablesWatch =
                cluster.tableGroups() ? new Thread(this::watchTables, "partita-cluster-" + nodeId() + "-tables") : null;
        this.charges = cluster.partitionGroups()
                ? new Thread(this::reportConsumption, "partita-cluster-" + nodeId() + "-charges")
                : null;
        ready = true;
        for (Thread t : java.util.Arrays.asList(mover, tablesWatch, charges)) {
            if (t != null) {
                t.setDaemon(true);
                t.start();
            }
        }
    }

    /**
     * At a start with {@code --cluster-table-groups}: a group for each table's group the members' group records (its
     * replica opened, and given to Ratis, when its folder is here), and the folders of tables' groups closed while this
     * node was down deleted (their records are gone: a record, once applied, is gone only when its group closed).
     */
    private void startTables(
            ReplicaStore records, Path raftDir, PlacementRecord placement, List<ClusterNode.Group> given)
            throws IOException {
        java.util.SortedMap<String, byte[]> recorded = records.recordedUnder(GROUP_RECORD);
        if (recorded == null) {
            throw new IOException("the members' group's records cannot be read: a checkpoint replaces them");
        }
        java.util.Set<UUID> ids = new java.util.HashSet<>();
        for (var e : recorded.entrySet()) {
            UUID id = UUID.fromString(e.getKey().substring(GROUP_RECORD.length()));
            ids.add(id);
            Group g = tableGroup(id, e.getValue());
            if (g == null) {
                if (isGroupFolder(raftDir, id)) {
                    // As for an account's own group: its copy is kept, and the node does not start without its keys.
                    throw new IllegalArgumentException("this node cannot start: " + raftDir.resolve(id.toString())
                            + " holds a table's group of account "
                            + JSON.readTree(e.getValue()).get("account").asText()
                            + ", which the credentials file does not name: give the account its keys again, or move"
                            + " the folder away (its data is that table's replica)");
                }
                continue; // neither held nor routed to: its requests name no account of this node's
            }
            tableGroups.put(id, g);
            if (!isGroupFolder(raftDir, id)) {
                g.late = g.placed.contains(cluster.nodeId()) && !placement.ownMembers(g.recordKey);
                continue;
            }
            holdReplica(g, ReplicaStore.open(g.storage));
            // One this node made is given its members again (a restart before its first leader wrote them in its log);
            // one another member added has them in its log.
            given.add(
                    placement.formed(g.recordKey)
                            ? ClusterNode.Group.on(
                                    id,
                                    g.replica,
                                    decision(JSON.writeValueAsBytes(
                                            JSON.readTree(e.getValue()).get("on"))))
                            : new ClusterNode.Group(id, g.replica, List.of()));
        }
        for (String key : placement.tableKeys()) {
            UUID id = UUID.fromString(key.substring("table-".length()));
            if (!ids.contains(id)) {
                deleteTree(raftDir.resolve(id.toString()));
                deleteTree(tableStorage(id).dataDir());
                placement.forget(key);
                log.info("node {} deleted its copy of table group {}, closed while it was down", cluster.nodeId(), id);
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!java.nio.file.Files.exists(dir)) {
            return;
        }
        try (var paths = java.nio.file.Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }

    /** The members' group's id: every node of the cluster derives the same, and no account's group has it. */
    private UUID membersGroupId() {
        return ClusterNode.groupId(cluster.name(), "members");
    }

    /** Where the members' group's replica is: beside the Raft storage, in the data directory's {@code cluster}. */
    private StorageConfig membersStorage() {
        return server.storage().withDataDir(server.storage().dataDir().resolve("cluster"));
    }

    /** Whether the Raft storage in {@code raftDir} has group {@code id}'s folder: the group is on this node. */
    private static boolean isGroupFolder(Path raftDir, UUID id) {
        return java.nio.file.Files.isDirectory(raftDir.resolve(id.toString()));
    }

    /**
     * Makes {@code replica} the group's on this node. A checkpoint from the leader replaces the store whole: this
     * node's own server for the group (if it still has one) and its reader close first.
     */
    private void holdReplica(Group g, ReplicaStore replica) {
        g.replica = replica;
        replica.beforeInstall(() -> {
            stopServing(g, "a checkpoint from the leader replaces its store");
            stopReading(g, "a checkpoint from the leader replaces its store");
        });
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

    /**
     * As above, keeping as much of the log as {@code retention} says. The timings' read lease applies only when {@code
     * cluster} has it on ({@link ClusterConfig#readLease}).
     */
    public static ClusterMember start(
            ClusterConfig cluster,
            ServerConfig server,
            ClusterNode.Timings timings,
            ClusterNode.LogRetention retention,
            Consumer<PartitaServer> onServe)
            throws IOException, InterruptedException {
        return new ClusterMember(
                cluster, server, cluster.readLease() ? timings : timings.withoutReadLease(), retention, onServe);
    }

    /** The Raft group of {@code account}'s store: open mode's one is the cluster's own. */
    private UUID groupId(String account) {
        return account.equals(io.partita.server.auth.Credentials.OPEN_ACCOUNT)
                ? ClusterNode.groupId(cluster.name())
                : ClusterNode.groupId(cluster.name(), account);
    }

    /**
     * Refuses a group placed on this node whose members, as its Raft log has them, are not those it is placed on: the
     * group was made by nodes given other members, R or accounts than this one.
     */
    private void checkMembers(Group g, PlacementRecord record) {
        if (g.placed == null || record.membersEverChanged()) {
            return; // on every member, whose changes the group's configuration follows; or moved with the members
        }
        List<String> flags = cluster.members().stream()
                .map(ClusterConfig.Member::id)
                .sorted()
                .toList();
        if (!ids(membersGroup.members()).equals(flags)) {
            return; // the members changed since the flags': the groups move with them (moveGroups)
        }
        List<String> has =
                g.node.members().stream().map(ClusterNode.Peer::id).sorted().toList();
        List<String> placedOn = g.placed.stream().sorted().toList();
        if (record.ownMembers(g.recordKey) || !has.contains(cluster.nodeId())) {
            return; // moved here (perhaps still catching up), made late, or a stray: its members are its log's
        }
        if (!has.equals(placedOn)) {
            throw new IllegalArgumentException("this node cannot start: " + g.name() + "'s group is on " + has
                    + " as its Raft log says, and would now be on " + placedOn + ": give every node the"
                    + " --cluster-replicas, members and accounts the cluster was made with");
        }
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

    /**
     * The group a request belongs to: in strict mode, that of the account whose access key it names (its {@code
     * Authorization} header's, or a presigned URL's); one that names none, or a key of no account, goes to the first
     * group, whose server answers DynamoDB's error for it (and serves the console's files and the health line).
     */
    private Group groupOf(io.netty.handler.codec.http.FullHttpRequest request) {
        if (groups.size() == 1 || request.uri().equals(ClusterRouter.MEMBERS_PATH)) {
            return primary; // a change of the members is made by the first group's leader, for every group
        }
        String uri = request.uri();
        int q = uri.indexOf('?');
        String key;
        try {
            key = io.partita.server.auth.SigV4Verifier.accessKeyOf(
                    request.headers().get(io.netty.handler.codec.http.HttpHeaderNames.AUTHORIZATION),
                    q < 0 ? null : uri.substring(q + 1));
        } catch (RuntimeException malformed) {
            return primary; // a query string that does not decode: the first group's server answers its error
        }
        io.partita.server.auth.Accounts.Key known = key == null ? null : accounts.find(key);
        Group g = known == null ? null : groups.get(known.accountId());
        return g == null ? primary : g;
    }

    /**
     * Where a request goes: to the serving node of its group ({@link #target}), or nowhere yet (null: it waits), or
     * refused ({@link ClusterRouter.Target#refusing}).
     */
    private ClusterRouter.Target route(io.netty.handler.codec.http.FullHttpRequest request) {
        Routed r = routed(request);
        if (r.refusal() != null) {
            return ClusterRouter.Target.refusing(r.refusal());
        }
        if (r.spreads()) {
            return ClusterRouter.Target.SPREAD;
        }
        return r.group() == null ? null : target(r.group());
    }

    /** Where an eventually consistent read goes, as {@link #readTarget} says for its group; null for the leader. */
    private ClusterRouter.Target readRoute(io.netty.handler.codec.http.FullHttpRequest request) {
        Routed r = routed(request);
        return r.group() == null ? null : readTarget(r.group());
    }

    /**
     * A request's group, or why it is refused, or that it runs over several groups from here ({@link #spread}); none
     * of them while it waits for its table's group.
     */
    private record Routed(Group group, io.partita.protocol.error.ApiException refusal, boolean spreads) {
        Routed(Group group, io.partita.protocol.error.ApiException refusal) {
            this(group, refusal, false);
        }
    }

    /** Whether {@code request} may make a table: CreateTable or ImportTable ({@link ClusterRouter#PLACED}). */
    static boolean makesTable(io.netty.handler.codec.http.FullHttpRequest request) {
        String target = request.headers().get("x-amz-target");
        return target != null
                && (target.equals("DynamoDB_20120810.CreateTable") || target.equals("DynamoDB_20120810.ImportTable"));
    }

    /**
     * The group a request belongs to: its account's ({@link #groupOf}); with {@code --cluster-table-groups}, that of
     * the tables it names ({@link TableRoute}) when they are in a group of their own. A request that names no such
     * table goes to the account's group: one that names none (ListTables, DescribeLimits), a table made before the
     * cluster had a group per table, a table that does not exist (the account's group answers so), or a new table,
     * which the account's group places in a group of its own. A BatchGetItem, BatchWriteItem, BatchExecuteStatement,
     * TransactGetItems or ExecuteTransaction over tables in several groups, and a list over every table of the account
     * (ListStreams, ListBackups, ListExports, ListImports, ListContributorInsights), run from here ({@link #spread});
     * a TransactWriteItems over tables in several groups is refused (an ExecuteTransaction of writes there). A restore
     * goes to its source's group, where the restored table stays ({@link Placing#restoreHere}), from here when its
     * target's name must first be looked for in the account's own group ({@link #runRestore}).
     */
    private Routed routed(io.netty.handler.codec.http.FullHttpRequest request) {
        Group home = groupOf(request);
        if (!cluster.tableGroups()) {
            return new Routed(home, null);
        }
        if (membersReplica.installing()) {
            return new Routed(null, null); // which group has which table is unknown a moment: it waits
        }
        String target = request.headers().get("x-amz-target");
        if (target == null) {
            // An admin view of one table (?table=T) is its group's; any other view is the account's group's.
            List<String> named;
            try {
                named = new io.netty.handler.codec.http.QueryStringDecoder(request.uri())
                        .parameters()
                        .getOrDefault("table", List.of());
            } catch (IllegalArgumentException malformed) {
                named = List.of(); // the account's group's server answers its error
            }
            List<String> table = named.size() == 1 ? named : List.of();
            UUID chosen = chosenGroup(request);
            if (chosen == null && table.size() == 1 && everyGroupsIndexes(request)) {
                TableRanges cut =
                        membersReplica.unlessInstalling(store -> tableRangesOf(store, home.account, table.get(0)));
                if (cut != null && cut.live() && cut.groups().size() > 1) {
                    return new Routed(null, null, true); // every group's indexes (runIndexes)
                }
            }
            if (chosen == null && table.size() == 1 && mapsEvents(request)) {
                TableRanges cut =
                        membersReplica.unlessInstalling(store -> tableRangesOf(store, home.account, table.get(0)));
                if (cut != null && cut.live() && cut.groups().size() > 1) {
                    // A group's mapping would deliver its own range's records alone.
                    return new Routed(
                            null,
                            RangeSpread.notYet(
                                    "an event-source mapping (POST /admin/event-source-mappings)", table.get(0)));
                }
            }
            Group range = chosen == null ? null : tableGroups.get(chosen);
            if (range != null
                    && range.account.equals(home.account)
                    && table.size() == 1
                    && table.get(0).equals(range.table)) {
                // A view of the table in one of its groups, named as another node names a share's (of a table cut by
                // ranges, one range's own partitions and the range its store holds): that group's.
                return new Routed(range, null);
            }
            java.util.Set<UUID> in = groupsOf(home.account, table, false);
            if (in == null) {
                return new Routed(null, null);
            }
            Group g = in.isEmpty() ? home : tableGroups.get(in.iterator().next());
            if (g == null) {
                nudge();
            }
            return new Routed(g, null);
        }
        TableRoute tables;
        try {
            tables = TableRoute.of(
                    target,
                    new io.netty.buffer.ByteBufInputStream(request.content().duplicate()));
        } catch (IOException e) {
            return new Routed(home, null);
        }
        switch (tables.kind()) {
            case NONE -> {
                UUID chosen = chosenGroup(request);
                if (chosen != null && TransactWriteSpread.PARTS.contains(target)) {
                    // A resolver's question to a deciding group, by its id (ClusterMember.resolveOne): that group's.
                    Group g = tableGroups.get(chosen);
                    if (g == null) {
                        nudge();
                        return new Routed(null, null);
                    }
                    if (g.account.equals(home.account)) {
                        return new Routed(g, null);
                    }
                }
                return new Routed(home, null);
            }
            case ACCOUNT_WIDE -> {
                if (request.headers().contains(ClusterRouter.FORWARDED) && ListSpread.Kind.of(target) != null) {
                    // A group's own part of a list over every table of the account (ListSpread): listed there, in a
                    // group of the account the request names.
                    UUID chosen = chosenGroup(request);
                    Group g = chosen == null ? home : tableGroups.get(chosen);
                    if (g == null) {
                        nudge();
                        return new Routed(null, null);
                    }
                    if (g.account.equals(home.account)) {
                        return new Routed(g, null);
                    }
                }
                if (ListSpread.Kind.of(target) != null
                        && !request.headers().contains(ClusterRouter.FORWARDED)
                        && request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                        && !io.partita.server.admin.AdminRoutes.handles(request.uri())) {
                    return new Routed(null, null, true);
                }
                return new Routed(
                        null,
                        io.partita.protocol.error.ApiException.validation("Partita's cluster with a group per table"
                                + " (--cluster-table-groups) runs a list over every table of an account only as a"
                                + " request of DynamoDB's API (a POST to /); give any but ListBackups a TableName (or"
                                + " TableArn)"));
            }
            default -> {}
        }
        Routed backup = backupRouted(request, target, home);
        if (backup != null) {
            return backup;
        }
        Routed byRange = rangeRouted(request, target, tables, home);
        if (byRange != null) {
            return byRange;
        }
        // A client's BatchGetItem, BatchWriteItem, BatchExecuteStatement, TransactGetItems or ExecuteTransaction over
        // several groups, the account's own among them, runs from here.
        boolean batch = (BatchSpread.runs(target)
                        || TransactSpread.runs(target)
                        || StatementSpread.runs(target)
                        || target.equals(TransactWriteSpread.TARGET))
                && request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                && !io.partita.server.admin.AdminRoutes.handles(request.uri())
                && !request.headers().contains(ClusterRouter.FORWARDED);
        java.util.Set<UUID> in = groupsOf(home.account, tables.tables(), batch);
        if (in == null) {
            return new Routed(null, null); // a checkpoint replaces the records this moment: it waits
        }
        if (batch && in.size() > 1) {
            return new Routed(null, null, true);
        }
        in.remove(HOME);
        UUID chosen = chosenGroup(request);
        if (chosen != null
                && (tables.kind() == TableRoute.Kind.TABLES
                        || tables.kind() == TableRoute.Kind.RESTORES
                        || madeFor(chosen, tables))
                && (in.isEmpty() || in.equals(Set.of(chosen)))) {
            // Forwarded to the group the forwarding node found its tables in, which this node may not have applied the
            // table's record of yet: served there (only tables of no other group, and never a new table made, but a
            // restore's, which stays in its source's group, and a CreateTable of one of a table's hash ranges in the
            // group made for it).
            in = Set.of(chosen);
        }
        if (in.isEmpty()) {
            // Placed a moment ago by the account's group, whose record this node has not applied yet: it waits.
            boolean placed = tables.kind() == TableRoute.Kind.CREATES
                    && request.headers().contains(ClusterRouter.PLACED);
            return new Routed(placed ? null : home, null);
        }
        if (in.size() > 1) {
            return new Routed(null, differentGroups(tables.tables()));
        }
        if (tables.kind() == TableRoute.Kind.RESTORES
                && !request.headers().contains(ClusterRouter.FORWARDED)
                && request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                && !io.partita.server.admin.AdminRoutes.handles(request.uri())) {
            return new Routed(null, null, true); // its target's name is looked for in the account's group first
        }
        Group g = tableGroups.get(in.iterator().next());
        if (g == null) {
            nudge(); // recorded, and not known to this node yet: the mover makes or finds it
            return new Routed(null, null);
        }
        return new Routed(g, null);
    }

    /**
     * Where a request on a table whose partitions are Raft groups of their own goes ({@code
     * --cluster-partition-groups}, docs/CLUSTER.md), or null for a request that names no such table. One forwarded to
     * one of the table's groups is served there (a share of a request run from another node, or an item's request
     * routed there). An item's request (GetItem, PutItem, UpdateItem, DeleteItem, Query) goes to the group of its
     * partition key's range, or to the table's first group when the request names none (which answers its error); an
     * ExecuteStatement by the partition key its statement binds. A client's Scan, PartiQL SELECT that binds no
     * partition key, DescribeTable, DescribeContinuousBackups, and a change every group makes ({@link
     * RangeSpread#EVERY}, a CreateTable once its account's group placed it) run from here ({@link #runRanged}), as do
     * its batches and transactions ({@link #cutByKey}, each key to its range's group: {@link #runSpread}); another
     * request over several tables, or one that is not cut by ranges yet ({@link RangeSpread#NOT_YET}), is refused; any
     * other (the descriptions of its settings, its tags) goes to its first group. CreateBackup and
     * RestoreTableToPointInTime ({@link RangeSpread#CHECKED_THEN_REFUSED}) run from here too: checked by its first
     * group, then run over the groups ({@link BackupSpread}, {@link RestoreSpread}). (A request naming a backup of
     * such a table goes by the backup's record first: {@link #backupRouted}.)
     */
    private Routed rangeRouted(
            io.netty.handler.codec.http.FullHttpRequest request, String target, TableRoute tables, Group home) {
        java.util.Map<String, TableRanges> ranged = membersReplica.unlessInstalling(store -> {
            java.util.Map<String, TableRanges> out = new java.util.LinkedHashMap<>();
            for (String t : tables.tables()) {
                TableRanges r = tableRangesOf(store, home.account, t);
                if (r != null) {
                    out.put(t, r);
                }
            }
            return out;
        });
        if (ranged == null) {
            return new Routed(null, null); // a checkpoint replaces the records this moment: it waits
        }
        if (ranged.isEmpty()) {
            return null;
        }
        String name = ranged.keySet().iterator().next();
        TableRanges ranges = ranged.get(name);
        UUID chosen = chosenGroup(request);
        String operation = operationOf(target);
        if (chosen != null && (tables.tables().size() > 1 || !ranges.has(chosen))) {
            // Another node sent it to a group this node's record of the table does not name (or a share over several
            // tables, none of which shares a group with a table cut by ranges): one of the two replicas of the records
            // is behind (the name deleted and placed anew meanwhile). It waits until they agree, and is answered 503
            // after a while, which its sender sends again; never served by a record's stale groups.
            if (!tableGroups.containsKey(chosen)) {
                nudge();
            }
            return new Routed(null, null);
        }
        if (chosen != null
                && tables.tables().size() == 1
                && (operation == null
                        || (ranges.moving() != null
                                && chosen.equals(ranges.moving().group())
                                && !RangeSpread.BY_KEY.contains(operation))
                        || (ranges.live()
                                && (!RangeSpread.NOT_YET.contains(operation)
                                        || (RangeSpread.CHECKED_THEN_REFUSED.contains(operation)
                                                && request.headers().contains(io.partita.server.op.CutTables.HEADER)))
                                && !RangeSpread.BY_KEY.contains(operation)))) {
            // A group's share of a request over the table's groups (a Scan's or a SELECT's page, a change every group
            // makes, a batch's or a transaction's part, whose commit or abort comes to its group even once the table is
            // deleted; and a share of the group a move makes, even once the table is deleted: the mover's DeleteTable
            // there): served there. An item's request goes by its own key, below, whichever group it names. (A
            // CreateTable there is made only if the table's record, after a barrier, names the group:
            // Placing.placedHere.) A share's keys must all be in the group's ranges: one sent elsewhere would be
            // written where no read looks for it.
            if (carriesKeys(target) && !keysIn(ranges, target, request, chosen)) {
                return new Routed(
                        null,
                        new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                                "Partita: a key of this share of a request over table " + name
                                        + "'s groups is not in the hash range of the group it names"
                                        + " (x-partita-group); send it again"));
            }
            return routedTo(chosen);
        }
        if (operation == null && chosen == null && request.headers().contains(ClusterRouter.FORWARDED)) {
            // A part of a batch or transaction that a node with no record of the table yet sent to the account's group:
            // it waits, and is answered 503 after a while; sent again, it goes to its range's group.
            return new Routed(null, null);
        }
        if (!ranges.live()) {
            // Deleted: its first group answers that it is gone. A new table of the name is placed anew by the account's
            // group (a CreateTable it placed a moment ago waits for the new record), never made in the old groups.
            if (tables.kind() == TableRoute.Kind.CREATES) {
                return request.headers().contains(ClusterRouter.PLACED)
                        ? new Routed(null, null)
                        : new Routed(home, null);
            }
            return routedTo(ranges.groups().get(0));
        }
        // A request over the table's groups is run from here unless it is a group's share (which names its group): one
        // another node forwarded to its account's group (that node had no record of the table yet) included.
        boolean whole = chosen == null
                && request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                && !io.partita.server.admin.AdminRoutes.handles(request.uri());
        if (whole && cutByKey(target)) {
            // Each key to its range's group (BatchSpread, TransactSpread, TransactWriteSpread), other tables' too.
            return new Routed(null, null, true);
        }
        if (whole && tables.tables().size() == 1 && RangeSpread.CHECKED_THEN_REFUSED.contains(operation)) {
            return new Routed(null, null, true); // checked by the first group, then refused there (runRanged)
        }
        if (tables.tables().size() > 1 || operation == null || RangeSpread.NOT_YET.contains(operation)) {
            return new Routed(null, RangeSpread.notYet(operation == null ? target : operation, name));
        }
        if (operation.equals("ExecuteStatement")) {
            TableRanges.Statement statement;
            try {
                statement = TableRanges.statement(
                        BatchSpread.object(io.netty.buffer.ByteBufUtil.getBytes(request.content())));
            } catch (RuntimeException malformed) {
                statement = null;
            }
            io.partita.protocol.model.AttributeValue key =
                    statement == null ? null : TableRanges.statementKey(statement.parsed(), ranges.key());
            if (key == null && statement != null && statement.scans()) {
                // It reads every range: walked from here over the groups (RangeSpread.select).
                return whole ? new Routed(null, null, true) : new Routed(null, RangeSpread.selectOfEveryRange(name));
            }
            // One that does not parse, or writes no one item, goes to the first group, which answers its error.
            return routedTo(key == null ? ranges.groups().get(0) : ranges.groupOf(key));
        }
        if (RangeSpread.BY_KEY.contains(operation)) {
            byte[] body = io.netty.buffer.ByteBufUtil.getBytes(request.content());
            io.partita.protocol.model.AttributeValue key =
                    TableRanges.partitionKey(operation, body, ranges.key(), keyConditions);
            if (key == null && whole && operation.equals("Query") && RangeSpread.namesIndex(body)) {
                // A Query of an index that binds no one value of the table's partition key: a global secondary index's,
                // whose rows are in every group, merged here (RangeSpread.queryIndex). (One that binds it reads the
                // items of that key alone, all in its range's group: an LSI's, or a GSI's keyed by it too.)
                return new Routed(null, null, true);
            }
            return routedTo(key == null ? ranges.groups().get(0) : ranges.groupOf(key));
        }
        if (operation.equals("ImportTable")) {
            return new Routed(
                    null, io.partita.protocol.error.ApiException.resourceInUse("Table already exists: " + name));
        }
        // A CreateTable of a table placed already (sent again after a group did not answer, say) makes it in every
        // group that lacks it; its first group answers as it would.
        boolean spreads = operation.equals("Scan")
                || operation.equals("DescribeTable")
                || operation.equals("DescribeContinuousBackups")
                || RangeSpread.EVERY.contains(operation)
                || StreamSpread.OPERATIONS.contains(operation);
        if (spreads && whole) {
            return new Routed(null, null, true);
        }
        return routedTo(ranges.groups().get(0));
    }

    /**
     * Whether {@code target} runs over a table whose partitions are groups of their own with each key in its range's
     * group: BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems, BatchExecuteStatement and
     * ExecuteTransaction (each statement by the partition key it binds).
     */
    private static boolean cutByKey(String target) {
        return BatchSpread.runs(target)
                || TransactSpread.runs(target)
                || StatementSpread.runs(target)
                || target.equals(TransactWriteSpread.TARGET);
    }

    /**
     * Whether {@code target} is a group's share of a request over a table cut by ranges that names keys: one of {@link
     * #cutByKey}'s, a check of a BatchWriteItem's share, a read transaction's hold, or a write transaction's prepare.
     */
    private static boolean carriesKeys(String target) {
        return cutByKey(target)
                || target.equals(BatchSpread.CHECK)
                || target.equals(TransactSpread.HOLD)
                || target.equals(TransactSpread.HOLD_STATEMENTS)
                || target.equals(TransactWriteSpread.PREPARE)
                || target.equals(TransactWriteSpread.PREPARE_STATEMENTS);
    }

    /**
     * Whether the keys of share {@code request} are all in the ranges of group {@code chosen} ({@link
     * TableRanges#groupsOfShare}); a body that is no JSON object, or names no key, has nothing to place (its group's
     * server answers its error).
     */
    private static boolean keysIn(
            TableRanges ranges, String target, io.netty.handler.codec.http.FullHttpRequest request, UUID chosen) {
        com.fasterxml.jackson.databind.JsonNode body;
        try {
            body = io.partita.protocol.json.DynamoJson.mapper()
                    .readTree(new io.netty.buffer.ByteBufInputStream(
                            request.content().duplicate()));
        } catch (IOException malformed) {
            return true;
        }
        Set<UUID> in = body == null ? Set.of() : ranges.groupsOfShare(target, body);
        return in.isEmpty() || in.equals(Set.of(chosen));
    }

    /**
     * Whether {@code tables} is a CreateTable of the one table group {@code chosen} was made for: a share of a
     * CreateTable over a table's hash ranges ({@link RangeSpread#everyGroup}), on a node that has not applied the
     * table's record yet.
     */
    private boolean madeFor(UUID chosen, TableRoute tables) {
        Group g = tableGroups.get(chosen);
        return tables.kind() == TableRoute.Kind.CREATES
                && tables.tables().size() == 1
                && g != null
                && tables.tables().get(0).equals(g.table);
    }

    /** Group {@code id}, or a wait while this node does not know it yet (the mover makes or finds it). */
    private Routed routedTo(UUID id) {
        Group g = tableGroups.get(id);
        if (g == null) {
            nudge();
            return new Routed(null, null);
        }
        return new Routed(g, null);
    }

    /**
     * DynamoDB's (or DynamoDB Streams') operation {@code target} names, or null for another (Partita's own). A group's
     * page of a SELECT's walk ({@link RangeSpread#SELECT_RANGE}) is null too, so that {@link #rangeRouted} serves it in
     * the group it names: as an ExecuteStatement it would go by its statement's key, or be walked again.
     */
    private static String operationOf(String target) {
        if (target.equals(RangeSpread.SCAN_RANGE)) {
            return "Scan";
        }
        for (String prefix : List.of(
                io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX,
                io.partita.server.route.OperationRegistry.STREAMS_PREFIX)) {
            if (target.startsWith(prefix)) {
                return target.substring(prefix.length());
            }
        }
        return null;
    }

    /** Parses the key conditions of Queries on tables whose partitions are groups of their own, to route them. */
    private final io.partita.protocol.expr.ExpressionCache keyConditions =
            new io.partita.protocol.expr.ExpressionCache(256);

    /** The refusal of a request Partita does not run over the several groups its {@code tables} are in. */
    private static io.partita.protocol.error.ApiException differentGroups(List<String> tables) {
        return io.partita.protocol.error.ApiException.validation("The tables " + tables + " are in different Raft"
                + " groups (--cluster-table-groups): Partita does not run one request over several groups yet; send"
                + " one request per table");
    }

    /** The group key of the tables of a batch that are in their account's own group ({@link #spread}). */
    static final UUID HOME = new UUID(0, 0);

    /** Headers of a batch that its shares do not carry: each share's are its own, or the router's. */
    private static final Set<String> NOT_SHARED = java.util.stream.Stream.concat(
                    ClusterRouter.HOP_BY_HOP.stream().filter(h -> !h.equals("host")), // signed: the client's own
                    java.util.stream.Stream.of(
                            "accept-encoding",
                            "content-encoding",
                            "x-amz-content-sha256",
                            "x-amz-target",
                            ClusterRouter.FORWARDED,
                            ClusterRouter.GROUP,
                            io.partita.server.op.CutTables.HEADER,
                            ClusterRouter.PLACED))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    /**
     * Runs a request over several groups from this node, on {@link #batches}: a list over every table of an account
     * ({@link #runList}), or a BatchGetItem or BatchWriteItem ({@link BatchSpread}), TransactGetItems or
     * ExecuteTransaction ({@link TransactSpread}) or BatchExecuteStatement ({@link StatementSpread}) over tables in
     * several groups: checked here as a single node checks it (content type, signature, the request as a whole), then
     * one share per group, each sent to its group's leader as a request of its own. In strict mode a share is signed
     * anew with the caller's own key, whose signature of the whole was verified here: the node that serves the share
     * verifies it as any.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> spread(ClusterRouter.Sent request) {
        // Each batch under way holds its body, and its shares' and answers' copies: bounded, as a server's admission
        // bounds the bodies it holds; past it the batch is answered 503, which the SDKs send again.
        int kb = request.body().length / 1024 + 1;
        if (!batchKilobytes.tryAcquire(kb)) {
            return java.util.concurrent.CompletableFuture.completedFuture(BatchSpread.unavailable(
                    "too many requests over several Raft groups are under way on this node; send it again"));
        }
        java.util.concurrent.CompletableFuture<ClusterRouter.Reply> reply;
        try {
            reply = java.util.concurrent.CompletableFuture.supplyAsync(() -> runSpread(request), batches)
                    .thenCompose(r -> r);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            reply = java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("this node is stopping; send it again"));
        }
        return reply.whenComplete((r, e) -> batchKilobytes.release(kb));
    }

    /**
     * Runs a client's request on a table whose partitions are Raft groups of their own ({@link #rangeRouted}) from
     * here, over the table's groups ({@link RangeSpread}): a Scan's or a PartiQL SELECT's walk, DescribeTable,
     * DescribeContinuousBackups, a change every group makes, a CreateBackup ({@link BackupSpread}) or a
     * RestoreTableToPointInTime ({@link RestoreSpread}). Null for a request that names no such table.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runRanged(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller, String target) {
        String operation = operationOf(target);
        if (operation == null
                || !(operation.equals("Scan")
                        || operation.equals("Query")
                        || operation.equals("ExecuteStatement")
                        || operation.equals("DescribeTable")
                        || operation.equals("DescribeContinuousBackups")
                        || RangeSpread.EVERY.contains(operation)
                        || StreamSpread.OPERATIONS.contains(operation)
                        || RangeSpread.CHECKED_THEN_REFUSED.contains(operation))) {
            return null;
        }
        TableRoute named;
        try {
            named = TableRoute.of(target, new java.io.ByteArrayInputStream(request.body()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a body in memory: not reached
        }
        if (named.tables().size() != 1) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("the request's table is not known here now; send it again"));
        }
        String table = named.tables().get(0);
        String account = caller.accountId();
        java.util.Optional<TableRanges> found = membersReplica.unlessInstalling(
                store -> java.util.Optional.ofNullable(tableRangesOf(store, account, table)));
        if (found == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("the cluster's map of tables is being replaced; send it again"));
        }
        if ((found.isEmpty() || !found.get().live()) && RangeSpread.CHECKED_THEN_REFUSED.contains(operation)) {
            // Not a table cut by ranges: run as on any other table (a restore from its source: runRestore).
            return null;
        }
        if (found.isEmpty() || !found.get().live()) {
            // Routed here as a table cut by ranges, and no longer (deleted a moment ago, say): sent again, it goes
            // where its table is now.
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("table " + table + "'s record changed meanwhile; send it again"));
        }
        TableRanges ranges = found.get();
        RangeSpread.Sender sender = (group, shareTarget, body) -> sendTo(request, caller, group, shareTarget, body);
        if (operation.equals("Scan")) {
            return RangeSpread.scan(request.body(), ranges, sender);
        }
        if (operation.equals("Query")) {
            return RangeSpread.queryIndex(request.body(), ranges, sender); // a GSI's of every range (rangeRouted)
        }
        if (operation.equals("ExecuteStatement")) {
            return RangeSpread.select(request.body(), ranges, sender); // a SELECT of every range (rangeRouted)
        }
        if (operation.equals("DescribeTable")) {
            return RangeSpread.describe(target, request.body(), ranges.groups(), ranges.moving() != null, sender);
        }
        if (operation.equals("DescribeContinuousBackups")) {
            return RangeSpread.continuousBackups(target, request.body(), ranges.groups(), sender);
        }
        if (StreamSpread.OPERATIONS.contains(operation)) {
            return StreamSpread.run(operation, target, request.body(), table, ranges, sender);
        }
        if (operation.equals("RestoreTableToPointInTime")) {
            // Each group restores its own range, the restored table recorded as cut by the same ranges (RestoreSpread).
            return RestoreSpread.pointInTime(
                    request.body(),
                    table,
                    ranges,
                    (group, shareTarget, body, mark) -> sendTo(request, caller, group, shareTarget, body, mark),
                    (name, source, cut) -> placeCutRestore(account, name, source, null, cut),
                    batches);
        }
        if (operation.equals("CreateBackup")) {
            // Each group backs up its own range under one id, recorded first (BackupSpread).
            return BackupSpread.create(
                    request.body(),
                    table,
                    ranges,
                    System.currentTimeMillis(),
                    (group, shareTarget, body, mark) -> sendTo(request, caller, group, shareTarget, body, mark),
                    backupRecords(caller),
                    batches);
        }
        if (!operation.equals("CreateTable") && !operation.equals("DeleteTable")) {
            // After a barrier through the members' group: a move recorded through another node a moment ago is seen.
            try {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
            } catch (RuntimeException e) {
                return java.util.concurrent.CompletableFuture.completedFuture(BatchSpread.unavailable(
                        "the cluster's record of the tables cannot be read now; send it again"));
            }
            java.util.Optional<TableRanges> now = membersReplica.unlessInstalling(
                    store -> java.util.Optional.ofNullable(tableRangesOf(store, account, table)));
            if (now == null || now.isEmpty() || !now.get().live()) {
                return java.util.concurrent.CompletableFuture.completedFuture(
                        BatchSpread.unavailable("table " + table + "'s record changed meanwhile; send it again"));
            }
            ranges = now.get();
        }
        if (ranges.moving() != null
                && !ranges.moving().switched()
                && !operation.equals("CreateTable")
                && !operation.equals("DeleteTable")) {
            // The new group made the table as the source described it, and the ranges do not name it yet: a change now
            // would miss it. Refused as DynamoDB refuses a change to a table being updated.
            return refused(io.partita.protocol.error.ApiException.resourceInUse(
                    "Attempt to change a resource which is still in use: a range of table " + table
                            + " is moving to a new Raft group; try again once the move is over"));
        }
        return RangeSpread.everyGroup(operation, target, request.body(), ranges.groups(), sender);
    }

    /** Whether {@code request} is {@code POST /admin/indexes/await} or {@code POST /admin/indexes/lag}. */
    private static boolean everyGroupsIndexes(io.netty.handler.codec.http.FullHttpRequest request) {
        try {
            String path = new io.netty.handler.codec.http.QueryStringDecoder(request.uri()).path();
            return request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                    && (path.equals("/admin/indexes/await") || path.equals(INDEX_LAG_PATH));
        } catch (IllegalArgumentException malformed) {
            return false; // its group's server answers its error
        }
    }

    private static final String INDEX_LAG_PATH = "/admin/indexes/lag";

    /** Whether {@code request} is {@code POST /admin/event-source-mappings}, a new mapping of a table's stream. */
    private static boolean mapsEvents(io.netty.handler.codec.http.FullHttpRequest request) {
        try {
            return request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                    && new io.netty.handler.codec.http.QueryStringDecoder(request.uri())
                            .path()
                            .equals("/admin/event-source-mappings");
        } catch (IllegalArgumentException malformed) {
            return false; // its group's server answers its error
        }
    }

    /**
     * {@code POST /admin/indexes/await} or {@code POST /admin/indexes/lag} of a table cut by ranges ({@link
     * #everyGroupsIndexes}), run over every group of its table.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runIndexes(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller) {
        io.netty.handler.codec.http.QueryStringDecoder query =
                new io.netty.handler.codec.http.QueryStringDecoder(request.uri());
        if (!query.path().equals(INDEX_LAG_PATH)) {
            return runIndexesAwait(request, caller);
        }
        List<String> named = query.parameters().getOrDefault("table", List.of());
        String index = query.parameters().getOrDefault("index", List.of()).stream()
                .findFirst()
                .orElse(null);
        String millis = query.parameters().getOrDefault("millis", List.of()).stream()
                .findFirst()
                .orElse(null);
        long lag;
        try {
            lag = Long.parseLong(millis);
        } catch (NumberFormatException e) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    adminError(400, "millis must be a whole number of milliseconds: " + millis));
        }
        if (index == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    adminError(404, "no global secondary index " + index + " of table " + named.get(0)));
        }
        Asking asking = asking(caller, named);
        if (asking.refusal() != null) {
            return java.util.concurrent.CompletableFuture.completedFuture(asking.refusal());
        }
        byte[] body = RangeSpread.bytes(JSON.createObjectNode()
                .put("TableName", named.get(0))
                .put("IndexName", index)
                .put("LagMillis", lag));
        return RangeSpread.everyGroup(
                        "IndexLag",
                        RangeMove.INDEX_LAG,
                        body,
                        asking.ranges().groups(),
                        (group, shareTarget, share) -> sendTo(asking.asked(), asking.own(), group, shareTarget, share))
                .thenApply(r -> {
                    if (r.status() == 200) {
                        return new ClusterRouter.Reply(
                                200,
                                RangeSpread.bytes(JSON.createObjectNode()
                                        .put("tableName", named.get(0))
                                        .put("indexName", index)
                                        .put("injectedLagMillis", lag)));
                    }
                    com.fasterxml.jackson.databind.JsonNode refusal = BatchSpread.object(r.body());
                    boolean notFound =
                            refusal != null && refusal.path("__type").asText("").endsWith("ResourceNotFoundException");
                    return notFound
                            ? adminError(404, "no global secondary index " + index + " of table " + named.get(0))
                            : r;
                });
    }

    /**
     * What an admin request over every group of the table {@code named} (one name) needs: its ranges, and the
     * cluster's own request and key to ask them with, as a move's or a resolver's (the admin request itself is not an
     * API call); or its refusal.
     */
    private record Asking(
            TableRanges ranges,
            ClusterRouter.Sent asked,
            io.partita.server.auth.Credentials own,
            ClusterRouter.Reply refusal) {}

    private Asking asking(io.partita.server.auth.Credentials caller, List<String> named) {
        java.util.Optional<TableRanges> found = named.size() != 1
                ? java.util.Optional.empty()
                : membersReplica.unlessInstalling(
                        store -> java.util.Optional.ofNullable(tableRangesOf(store, caller.accountId(), named.get(0))));
        if (found == null || found.isEmpty() || !found.get().live()) {
            return new Asking(
                    null, null, null, BatchSpread.unavailable("the table's record changed meanwhile; send it again"));
        }
        io.partita.server.auth.Credentials own = resolverCaller(caller.accountId(), "us-east-1");
        if (own == null) {
            return new Asking(
                    null,
                    null,
                    null,
                    refused(io.partita.protocol.error.ApiException.validation(
                                    "the account of table " + named.get(0) + " has no key to ask its groups with"))
                            .join());
        }
        return new Asking(found.get(), resolverRequest(own), own, null);
    }

    /**
     * {@code POST /admin/indexes/await?table=T[&timeoutSeconds=S]} of a table cut by ranges: every group's global
     * secondary indexes have applied every change made before it ({@code Partita.AwaitIndexes} sent to each group at
     * once, each asked again while it answers 503: {@link RangeSpread#everyGroup}, again until the timeout, 60 s by
     * default, then a 504 as a single node's). Its answer is {@code {"Indexed": true}}, not the indexes' view (which
     * {@code GET /admin/indexes?table=T} gives of the first group). A single node's, or one group's, awaits its own.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runIndexesAwait(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller) {
        List<String> named = new io.netty.handler.codec.http.QueryStringDecoder(request.uri())
                .parameters()
                .getOrDefault("table", List.of());
        Asking asking = asking(caller, named);
        if (asking.refusal() != null) {
            return java.util.concurrent.CompletableFuture.completedFuture(asking.refusal());
        }
        long seconds = 60;
        List<String> given = new io.netty.handler.codec.http.QueryStringDecoder(request.uri())
                .parameters()
                .getOrDefault("timeoutSeconds", List.of());
        if (!given.isEmpty()) {
            try {
                seconds = Long.parseLong(given.get(0));
            } catch (NumberFormatException e) {
                return java.util.concurrent.CompletableFuture.completedFuture(
                        adminError(400, "timeoutSeconds must be a whole number of seconds: " + given.get(0)));
            }
        }
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(Math.max(0, seconds));
        byte[] body = RangeSpread.bytes(JSON.createObjectNode().put("TableName", named.get(0)));
        String waited = "the indexes of " + named.get(0) + " did not catch up within " + seconds + " s";
        return awaitEvery(asking.ranges().groups(), body, asking.asked(), asking.own(), until, waited);
    }

    /** {@link #runIndexesAwait}'s rounds, until every group has answered or {@code until} passed (a 504). */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> awaitEvery(
            List<UUID> groups,
            byte[] body,
            ClusterRouter.Sent asked,
            io.partita.server.auth.Credentials own,
            long until,
            String waited) {
        return RangeSpread.everyGroup(
                        "AwaitIndexes",
                        RangeMove.AWAIT_INDEXES,
                        body,
                        groups,
                        (group, shareTarget, share) -> sendTo(asked, own, group, shareTarget, share))
                .thenCompose(r -> {
                    if (r.status() != 503) {
                        return java.util.concurrent.CompletableFuture.completedFuture(r);
                    }
                    return System.nanoTime() - until > 0
                            ? java.util.concurrent.CompletableFuture.completedFuture(adminError(504, waited))
                            : awaitEvery(groups, body, asked, own, until, waited);
                });
    }

    /** An admin endpoint's refusal, as {@code AdminRoutes.error} answers one. */
    private static ClusterRouter.Reply adminError(int status, String message) {
        return new ClusterRouter.Reply(
                status, RangeSpread.bytes(JSON.createObjectNode().put("message", message)));
    }

    /** The bodies the requests over several groups under way on this node may hold, in KB: 256 MB. */
    private final java.util.concurrent.Semaphore batchKilobytes = new java.util.concurrent.Semaphore(256 * 1024);

    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runSpread(ClusterRouter.Sent request) {
        String target = request.headers().get("x-amz-target");
        io.partita.server.auth.Credentials caller;
        try {
            // The one admin request run over a table's groups (routed), which open mode takes unsigned, as any, and
            // strict mode signed, whatever its content type.
            caller = target != null
                    ? callerOf(request)
                    : verifier == null
                            ? new io.partita.server.auth.Credentials(
                                    "admin", "us-east-1", io.partita.server.auth.Credentials.OPEN_ACCOUNT)
                            : verifier.verify(request);
        } catch (io.partita.protocol.error.ApiException e) {
            return refused(e);
        }
        if (target == null) {
            return runIndexes(request, caller);
        }
        ListSpread.Kind list = ListSpread.Kind.of(target);
        if (list != null) {
            return runList(request, caller, list);
        }
        java.util.concurrent.CompletableFuture<ClusterRouter.Reply> backup = runBackup(request, caller, target);
        if (backup != null) {
            return backup;
        }
        java.util.concurrent.CompletableFuture<ClusterRouter.Reply> ranged = runRanged(request, caller, target);
        if (ranged != null) {
            return ranged;
        }
        if (target.equals("DynamoDB_20120810.RestoreTableFromBackup")
                || target.equals("DynamoDB_20120810.RestoreTableToPointInTime")) {
            return runRestore(request, caller, target);
        }
        String operation = target.substring(io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX.length());
        java.util.Map<String, UUID> placed = new java.util.HashMap<>();
        java.util.Map<String, TableRanges> cut = new java.util.LinkedHashMap<>();
        try {
            String account = caller.accountId();
            TableRoute named = TableRoute.of(target, new java.io.ByteArrayInputStream(request.body()));
            Boolean read = membersReplica.unlessInstalling(store -> {
                for (String t : named.tables()) {
                    UUID id = tableGroupOf(store, account, t);
                    placed.put(t, id == null ? HOME : id);
                    TableRanges ranges = tableRangesOf(store, account, t);
                    if (ranges != null && ranges.live()) {
                        cut.put(t, ranges);
                    }
                }
                return true;
            });
            if (read == null) {
                return java.util.concurrent.CompletableFuture.completedFuture(
                        BatchSpread.unavailable("the cluster's map of tables is being replaced; send it again"));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a body in memory: not reached
        }
        // A table named by its ARN was looked up by its name.
        java.util.function.Function<String, UUID> groupOf =
                t -> t == null ? HOME : placed.getOrDefault(t.startsWith("arn:") ? TableRoute.tableOfArn(t) : t, HOME);
        // Each key (or statement) of a table cut by ranges goes to its range's group.
        boolean statements = StatementSpread.runs(target) || target.equals(TransactSpread.Kind.STATEMENTS.target);
        java.util.function.Function<String, java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, UUID>>
                byKey = t -> {
                    TableRanges ranges = cut.get(t.startsWith("arn:") ? TableRoute.tableOfArn(t) : t);
                    return ranges == null ? null : statements ? ranges::groupOfStatement : ranges::groupOfEntry;
                };
        if (StatementSpread.runs(target)) {
            List<StatementSpread.Share<UUID>> parts;
            try {
                parts = StatementSpread.split(request.body(), groupOf, byKey);
            } catch (io.partita.protocol.error.ApiException e) {
                return refused(e);
            }
            return StatementSpread.run(parts, (group, body) -> sendTo(request, caller, group, target, body), batches);
        }
        if (target.equals(TransactWriteSpread.TARGET)) {
            return runTransaction(request, caller, groupOf, byKey, TransactWriteSpread.Kind.ACTIONS);
        }
        if (TransactSpread.runs(target)) {
            List<TransactSpread.Share<UUID>> parts;
            try {
                parts = TransactSpread.split(
                        TransactSpread.Kind.of(target),
                        request.body(),
                        groupOf,
                        byKey,
                        expressions,
                        UUID.randomUUID().toString());
            } catch (io.partita.protocol.error.ApiException e) {
                return refused(e);
            }
            if (parts == null) {
                // An ExecuteTransaction of writes: a write transaction over several groups.
                return runTransaction(request, caller, groupOf, byKey, TransactWriteSpread.Kind.STATEMENTS);
            }
            return TransactSpread.run(
                    parts, (group, shareTarget, body) -> sendTo(request, caller, group, shareTarget, body), batches);
        }
        List<BatchSpread.Share<UUID>> shares;
        try {
            shares = BatchSpread.split(operation, request.body(), groupOf, byKey);
        } catch (io.partita.protocol.error.ApiException e) {
            return refused(e);
        }
        return BatchSpread.run(
                operation,
                shares,
                (share, shareTarget) -> sendTo(request, caller, share.group(), shareTarget, share.body()),
                batches);
    }

    /**
     * Runs a write transaction over tables in several groups ({@link TransactWriteSpread}: a TransactWriteItems, or
     * an ExecuteTransaction of writes), its {@code ClientRequestToken} kept here: a repeat through this node within
     * ten minutes answers the first answer again (one through another node runs anew).
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runTransaction(
            ClusterRouter.Sent request,
            io.partita.server.auth.Credentials caller,
            java.util.function.Function<String, UUID> groupOf,
            java.util.function.Function<
                            String, java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, UUID>>
                    byKey,
            TransactWriteSpread.Kind kind) {
        List<TransactWriteSpread.Share<UUID>> parts;
        String requestToken;
        Object idempotent;
        byte[] digest;
        int n;
        try {
            if (kind == TransactWriteSpread.Kind.ACTIONS) {
                var in = io.partita.protocol.json.DynamoJson.decode(
                        request.body(), io.partita.protocol.message.TransactWriteItemsInput.class);
                requestToken = in.clientRequestToken();
                idempotent = in.idempotentParameters();
                n = in.transactItems() == null ? 0 : in.transactItems().size();
            } else {
                var in = io.partita.protocol.json.DynamoJson.decode(
                        request.body(), io.partita.protocol.message.ExecuteTransactionInput.class);
                requestToken = in.clientRequestToken();
                idempotent =
                        new io.partita.protocol.message.ExecuteTransactionInput(in.transactStatements(), null, null);
                n = in.transactStatements() == null
                        ? 0
                        : in.transactStatements().size();
            }
            digest = requestToken == null ? null : io.partita.server.op.txn.IdempotencyTokens.digest(idempotent);
            parts = TransactWriteSpread.split(
                    kind,
                    request.body(),
                    groupOf,
                    byKey,
                    expressions,
                    UUID.randomUUID().toString(),
                    System.currentTimeMillis() + TransactWriteSpread.DEADLINE_MILLIS,
                    requestToken,
                    digest);
        } catch (io.partita.protocol.error.ApiException e) {
            return refused(e);
        }
        if (parts.size() == 1) {
            // One group after all (a table placed since the route was chosen): the request as the client sent it.
            return sendTo(request, caller, parts.get(0).group(), kind.target, request.body());
        }
        // Kept apart by operation and account, as a single node keeps each operation's tokens.
        String token = requestToken == null ? null : kind + "/" + caller.accountId() + "/" + requestToken;
        TransactWriteSpread.Sender<UUID> sender = (group, target, body) -> sendTo(request, caller, group, target, body);
        io.partita.server.op.txn.IdempotencyTokens.Run<ClusterRouter.Reply> begun = null;
        if (token != null) {
            try {
                begun = transactionTokens.begin(token, digest);
            } catch (io.partita.protocol.error.ApiException e) {
                Unsettled left = e.code() == io.partita.protocol.error.ErrorCode.TRANSACTION_IN_PROGRESS
                        ? unsettled.remove(token)
                        : null;
                if (left == null || System.nanoTime() - left.since() > UNSETTLED_NANOS) {
                    return refused(e);
                }
                // A repeat of one whose outcome was not known (a 500, which the SDKs send again with its token):
                // settled now, as the deciding group says.
                return TransactWriteSpread.settle(left.parts(), left.n(), sender, batches)
                        .whenComplete((reply, failed) -> {
                            if (failed != null) {
                                unsettled.putIfAbsent(token, left); // for the next repeat
                            }
                        })
                        .thenCompose(reply -> {
                            if (reply == null) {
                                transactionTokens.abandon(left.run()); // aborted everywhere: it runs anew
                                return runTransaction(request, caller, groupOf, byKey, kind);
                            }
                            ended(token, reply, left);
                            return java.util.concurrent.CompletableFuture.completedFuture(reply);
                        });
            }
            if (begun.repeated() != null) {
                return java.util.concurrent.CompletableFuture.completedFuture(begun.repeated());
            }
            // A new run of the token (its last one's window over): nothing of that one is settled any more.
            unsettled.remove(token);
        }
        // What a repeat needs to settle it: each part's group, places, tables and end, not its actions.
        Unsettled run = new Unsettled(
                parts.stream()
                        .map(p -> new TransactWriteSpread.Share<>(
                                p.kind(), p.group(), p.positions(), p.tables(), null, p.end()))
                        .toList(),
                n,
                System.nanoTime(),
                begun);
        return TransactWriteSpread.run(parts, n, sender, batches).whenComplete((reply, failed) -> {
            if (token != null) {
                // A run that failed (not an answer, a bug's exception) is answered 500: its outcome is not known.
                ended(token, reply != null ? reply : new ClusterRouter.Reply(500, new byte[0]), run);
            }
        });
    }

    /**
     * Notes how the transaction with {@code token} ({@code parts}) ended: 200, committed (a repeat answers it again);
     * refused, cancelled, or not prepared everywhere (a 503), nothing written (the token is free again); else (a 500)
     * it committed or may have: the token stays in progress for its window, and a repeat settles it ({@link
     * #unsettled}).
     */
    private void ended(String token, ClusterRouter.Reply reply, Unsettled parts) {
        if (reply.status() == 200) {
            transactionTokens.complete(parts.run(), reply);
        } else if (reply.status() < 500 || reply.status() == 503) {
            transactionTokens.abandon(parts.run());
        } else {
            long now = System.nanoTime();
            unsettled.values().removeIf(u -> now - u.since() > UNSETTLED_NANOS);
            if (unsettled.size() < 10_000) {
                unsettled.put(token, parts);
            }
        }
    }

    /**
     * A transaction whose outcome its run did not know: its parts (without their actions' bodies), its actions' number,
     * since when, and its run of its token.
     */
    private record Unsettled(
            List<TransactWriteSpread.Share<UUID>> parts,
            int n,
            long since,
            io.partita.server.op.txn.IdempotencyTokens.Run<ClusterRouter.Reply> run) {}

    /**
     * The transactions run from this node whose outcome was not known (a 500), by token, for a repeat to settle
     * ({@link TransactWriteSpread#settle}): at most 10,000, each for the ten minutes its token is kept.
     */
    private final java.util.Map<String, Unsettled> unsettled = new java.util.concurrent.ConcurrentHashMap<>();

    private static final long UNSETTLED_NANOS = 600_000_000_000L;

    /** The ClientRequestTokens of the write transactions over several groups run from this node. */
    private final io.partita.server.op.txn.IdempotencyTokens<ClusterRouter.Reply> transactionTokens =
            new io.partita.server.op.txn.IdempotencyTokens<>(java.time.Clock.systemUTC());

    /**
     * Runs a restore whose source is in a table's own group, which the restored table stays in ({@link
     * Placing#restoreHere}), from here: a table of the account's own group (made before the cluster had table groups)
     * is named by no record, so when no record names the target either, a DescribeTable of it goes to the account's
     * group first, and a table there is {@code TableAlreadyExistsException}, as on a single node. Then the restore goes
     * to its source's group as sent. The account's group makes no new table of its own (its CreateTable places new
     * names elsewhere): a name not there now is not there later, but for a restore of one of its own tables.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runRestore(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller, String target) {
        String account = caller.accountId();
        Object[] read;
        String restored;
        byte[] describe;
        try {
            TableRoute named = TableRoute.of(target, new java.io.ByteArrayInputStream(request.body()));
            com.fasterxml.jackson.databind.JsonNode name =
                    JSON.readTree(request.body()).get("TargetTableName");
            restored = name != null && name.isTextual() ? name.asText() : null;
            describe = JSON.writeValueAsBytes(JSON.createObjectNode().put("TableName", restored));
            read = membersReplica.unlessInstalling(store -> new Object[] {
                named.tables().isEmpty()
                        ? null
                        : tableGroupOf(store, account, named.tables().get(0)),
                restored == null ? null : tableGroupOf(store, account, restored)
            });
        } catch (IOException | RuntimeException e) {
            return sendTo(request, caller, HOME, target, request.body()); // the account's group answers its error
        }
        if (read == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("the cluster's map of tables is being replaced; send it again"));
        }
        UUID source = read[0] == null ? HOME : (UUID) read[0];
        if (source.equals(HOME) || restored == null || read[1] != null) {
            return sendTo(request, caller, source, target, request.body());
        }
        return sendTo(request, caller, HOME, "DynamoDB_20120810.DescribeTable", describe)
                .thenComposeAsync(
                        found -> {
                            if (found.status() == 200) {
                                return refused(alreadyExists(restored));
                            }
                            if (found.status() >= 500) {
                                return java.util.concurrent.CompletableFuture.completedFuture(BatchSpread.unavailable(
                                        "the account's Raft group did not answer; send it again"));
                            }
                            return sendTo(request, caller, source, target, request.body()); // not there, or a bad name
                        },
                        batches);
    }

    /**
     * Who sent {@code request}, checked as a single node checks it before it reads the body: its content type, then its
     * signature (strict mode) or the shape of its {@code Authorization} (open mode).
     */
    private io.partita.server.auth.Credentials callerOf(ClusterRouter.Sent request) {
        io.partita.server.route.Dispatcher.checkContentType(
                request.headers().get(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE));
        if (verifier != null) {
            return verifier.verify(request);
        }
        String date = request.headers().get("x-amz-date");
        return new io.partita.server.auth.OpenAuthenticator()
                .authenticate(
                        request.headers().get(io.netty.handler.codec.http.HttpHeaderNames.AUTHORIZATION),
                        date != null ? date : request.headers().get(io.netty.handler.codec.http.HttpHeaderNames.DATE));
    }

    private static java.util.concurrent.CompletableFuture<ClusterRouter.Reply> refused(
            io.partita.protocol.error.ApiException e) {
        return java.util.concurrent.CompletableFuture.completedFuture(refusal(e));
    }

    /** The answer of refusal {@code e}, as a server answers it. */
    static ClusterRouter.Reply refusal(io.partita.protocol.error.ApiException e) {
        return new ClusterRouter.Reply(e.code().httpStatus(), io.partita.server.http.ErrorBody.of(e));
    }

    /**
     * Sends {@code body} as {@code target} for {@code caller}'s {@code request} to group {@code group} ({@link #HOME}:
     * the caller's account's own), once it has a node that serves it ({@link ClusterRouter#call}).
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> sendTo(
            ClusterRouter.Sent request,
            io.partita.server.auth.Credentials caller,
            UUID group,
            String target,
            byte[] body) {
        return sendTo(request, caller, group, target, body, null);
    }

    /**
     * As {@link #sendTo(ClusterRouter.Sent, io.partita.server.auth.Credentials, UUID, String, byte[])}, marked, when
     * {@code mark} is not null, as a request on a table cut by ranges ({@link io.partita.server.op.CutTables#HEADER}
     * with that value): one its handler checks and then refuses, or a restore's share ({@link
     * io.partita.server.op.CutTables#RANGE}).
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> sendTo(
            ClusterRouter.Sent request,
            io.partita.server.auth.Credentials caller,
            UUID group,
            String target,
            byte[] body,
            String mark) {
        ClusterRouter via = router;
        if (via == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("this node is starting; send it again"));
        }
        Group home = groups.size() == 1 ? primary : groups.getOrDefault(caller.accountId(), primary);
        return via.call(
                () -> {
                    Group g = group.equals(HOME) ? home : tableGroups.get(group);
                    if (g == null) {
                        nudge(); // recorded, and not known to this node yet
                        return null;
                    }
                    return target(g);
                },
                mark != null
                        ? shareHeaders(request, caller, target, body).set(io.partita.server.op.CutTables.HEADER, mark)
                        : shareHeaders(request, caller, target, body),
                body);
    }

    /**
     * Runs a list over every table of the caller's account ({@link ListSpread}): the request as the client sent it
     * (but for a NextToken, {@link ListSpread#checkBody}) to the account's own group first (its checks, and its
     * errors), then every page of each of the account's groups (at most {@link #LIST_LANES} asked at once), and the
     * client's page of the whole. A group that does not answer makes the list a 503: a list changes nothing.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runList(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller, ListSpread.Kind kind) {
        return sendTo(request, caller, HOME, kind.target, ListSpread.checkBody(kind, request.body()))
                .thenComposeAsync(
                        checked -> {
                            if (checked.status() >= 500) {
                                return java.util.concurrent.CompletableFuture.completedFuture(BatchSpread.unavailable(
                                        "the account's Raft group did not answer; send it again"));
                            }
                            com.fasterxml.jackson.databind.node.ObjectNode asked;
                            try {
                                asked = checked.status() == 200
                                                && JSON.readTree(request.body())
                                                        instanceof com.fasterxml.jackson.databind.node.ObjectNode o
                                        ? o
                                        : null;
                            } catch (IOException e) {
                                asked = null;
                            }
                            if (asked == null) {
                                return java.util.concurrent.CompletableFuture.completedFuture(checked); // its refusal
                            }
                            com.fasterxml.jackson.databind.node.ObjectNode body = asked;
                            // The barrier may wait for the members' group's leader: on the lists' own threads.
                            return java.util.concurrent.CompletableFuture.supplyAsync(
                                            () -> accountGroups(caller.accountId(), kind == ListSpread.Kind.BACKUPS),
                                            lists)
                                    .thenCompose(groupsOf -> listAll(request, caller, kind, body, groupsOf))
                                    .thenApplyAsync(all -> ListSpread.answer(kind, body, all), batches)
                                    .exceptionally(e -> e.getCause() instanceof NotListed n
                                            ? n.reply
                                            : BatchSpread.unavailable(
                                                    "the account's Raft groups could not be listed; send it"
                                                            + " again"));
                        },
                        batches);
    }

    /** How many of an account's groups a list asks at once. */
    private static final int LIST_LANES = 16;

    /**
     * Every entry of each of {@code groupsOf}, a list per group in their order: the groups dealt over at most {@link
     * #LIST_LANES} lanes, each asking its groups one after another.
     */
    private java.util.concurrent.CompletableFuture<List<List<com.fasterxml.jackson.databind.JsonNode>>> listAll(
            ClusterRouter.Sent request,
            io.partita.server.auth.Credentials caller,
            ListSpread.Kind kind,
            com.fasterxml.jackson.databind.node.ObjectNode asked,
            List<UUID> groupsOf) {
        List<List<com.fasterxml.jackson.databind.JsonNode>> byGroup = new java.util.ArrayList<>();
        for (int i = 0; i < groupsOf.size(); i++) {
            byGroup.add(new java.util.ArrayList<>());
        }
        List<java.util.concurrent.CompletableFuture<?>> lanes = new java.util.ArrayList<>();
        for (int lane = 0; lane < Math.min(LIST_LANES, groupsOf.size()); lane++) {
            java.util.concurrent.CompletableFuture<?> done =
                    java.util.concurrent.CompletableFuture.completedFuture(null);
            for (int i = lane; i < groupsOf.size(); i += LIST_LANES) {
                int at = i;
                done = done.thenCompose(
                        v -> pages(request, caller, kind, asked, groupsOf.get(at), null, byGroup.get(at), 0));
            }
            lanes.add(done);
        }
        return java.util.concurrent.CompletableFuture.allOf(
                        lanes.toArray(java.util.concurrent.CompletableFuture[]::new))
                .thenApply(v -> byGroup);
    }

    /**
     * A group's answer to a page of a list that is not a page: the list answers it instead, a 503 for a 5xx or an
     * answer that is no list.
     */
    private static final class NotListed extends RuntimeException {
        private static final long serialVersionUID = 1;
        final transient ClusterRouter.Reply reply;

        NotListed(ClusterRouter.Reply reply) {
            super(null, null, false, false);
            this.reply = reply.status() >= 500 || reply.status() == 200
                    ? BatchSpread.unavailable("a Raft group of the account did not list its own; send it again")
                    : reply;
        }
    }

    /** Every page of group {@code group}'s list from {@code cursor} on, added to {@code into}. */
    private java.util.concurrent.CompletableFuture<List<com.fasterxml.jackson.databind.JsonNode>> pages(
            ClusterRouter.Sent request,
            io.partita.server.auth.Credentials caller,
            ListSpread.Kind kind,
            com.fasterxml.jackson.databind.node.ObjectNode asked,
            UUID group,
            String cursor,
            List<com.fasterxml.jackson.databind.JsonNode> into,
            int read) {
        return sendTo(request, caller, group, kind.target, ListSpread.pageBody(kind, asked, cursor))
                .thenComposeAsync(
                        reply -> {
                            ListSpread.Page page = reply.status() == 200 ? ListSpread.read(kind, reply.body()) : null;
                            if (page == null) {
                                throw new NotListed(reply);
                            }
                            into.addAll(page.entries());
                            if (page.next() == null) {
                                return java.util.concurrent.CompletableFuture.completedFuture(into);
                            }
                            if (page.next().equals(cursor) || read + 1 >= ListSpread.MAX_PAGES) {
                                // A group that pages without end: no list rather than part of one.
                                throw new NotListed(new ClusterRouter.Reply(500, new byte[0]));
                            }
                            return pages(request, caller, kind, asked, group, page.next(), into, read + 1);
                        },
                        batches);
    }

    /**
     * The groups of {@code account}: its own ({@link #HOME}), then each of its tables' (a table deleted and kept for
     * its backups too), once this node's replica of the records has every record committed before (a barrier, as
     * ListTables takes). With {@code every}, each range's group of its tables cut by ranges too, and each group a
     * record of a backup of such a table names (one no table's record may name any more): a part of a backup may be in
     * any of those.
     */
    private List<UUID> accountGroups(String account, boolean every) {
        byte[] never = {0};
        membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
        String prefix = TABLE_RECORD + account + "/";
        List<UUID> out = membersReplica.unlessInstalling(store -> {
            java.util.Set<UUID> in = new java.util.LinkedHashSet<>();
            in.add(HOME);
            if (every) {
                // Each range's group of each table cut by ranges, and each group a backup's record names.
                java.util.SortedMap<String, byte[]> tables = membersReplica.recordedUnder(prefix);
                java.util.SortedMap<String, byte[]> backups =
                        membersReplica.recordedUnder(BACKUP_RECORD + account + "/");
                if (tables == null || backups == null) {
                    return null;
                }
                for (String key : tables.keySet()) {
                    String name = key.substring(prefix.length());
                    TableRanges ranges = tableRangesOf(store, account, name);
                    UUID id = tableGroupOf(store, account, name);
                    if (id != null) {
                        in.add(id);
                    }
                    if (ranges != null) {
                        ranges.groups().stream()
                                .filter(g -> meta(store, GROUP_RECORD + g) != null)
                                .forEach(in::add);
                    }
                }
                for (String key : backups.keySet()) {
                    BackupRecord b = backupOf(store, account, key.substring(key.lastIndexOf('/') + 1));
                    if (b != null) {
                        b.ranges().groups().stream()
                                .filter(g -> meta(store, GROUP_RECORD + g) != null)
                                .forEach(in::add);
                    }
                }
                return List.copyOf(in);
            }
            for (String key : membersReplica.recordedUnder(prefix).keySet()) {
                UUID id = tableGroupOf(store, account, key.substring(prefix.length()));
                if (id != null) {
                    in.add(id);
                }
            }
            return List.copyOf(in);
        });
        if (out == null) {
            throw new io.partita.storage.StorageUnavailableException(
                    "a checkpoint replaces this node's replica of the records", null, false);
        }
        return out;
    }

    /**
     * A share's headers: the batch's, as its operation {@code target}; in strict mode signed anew by {@code caller}
     * (verified) now, over its own body.
     */
    private io.netty.handler.codec.http.HttpHeaders shareHeaders(
            ClusterRouter.Sent batch, io.partita.server.auth.Credentials caller, String target, byte[] body) {
        io.netty.handler.codec.http.HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        for (java.util.Map.Entry<String, String> e : batch.headers()) {
            if (!NOT_SHARED.contains(e.getKey().toLowerCase(java.util.Locale.ROOT))) {
                h.add(e.getKey(), e.getValue());
            }
        }
        h.set("X-Amz-Target", target);
        if (verifier == null) {
            return h; // open mode: the batch's own Authorization, of which only the shape is checked
        }
        h.remove(io.netty.handler.codec.http.HttpHeaderNames.AUTHORIZATION);
        h.remove(io.netty.handler.codec.http.HttpHeaderNames.DATE);
        String date = io.partita.server.auth.SigV4Verifier.amzDate(java.time.Instant.now());
        h.set("X-Amz-Date", date);
        List<String> signed = new java.util.ArrayList<>();
        for (String name : List.of("content-type", "host", "x-amz-date", "x-amz-target")) {
            if (h.contains(name)) {
                signed.add(name);
            }
        }
        h.set(
                io.netty.handler.codec.http.HttpHeaderNames.AUTHORIZATION,
                verifier.authorization(caller, new ClusterRouter.Sent("POST", "/", h, body), date, signed));
        return h;
    }

    /**
     * The groups of {@code tables} of {@code account} that are in groups of their own, as this node's replica of the
     * records has them, read with no checkpoint replacing it meanwhile; null while one does. {@code withHome} adds
     * {@link #HOME} for a table in none (in the account's own group, or none at all).
     */
    private java.util.Set<UUID> groupsOf(String account, List<String> tables, boolean withHome) {
        return membersReplica.unlessInstalling(store -> {
            java.util.Set<UUID> in = new java.util.LinkedHashSet<>();
            for (String t : tables) {
                UUID id = tableGroupOf(store, account, t);
                if (id != null) {
                    in.add(id);
                } else if (withHome) {
                    in.add(HOME);
                }
            }
            return in;
        });
    }

    /** The group a node that forwarded {@code request} chose for it ({@link ClusterRouter#GROUP}), or null. */
    private static UUID chosenGroup(io.netty.handler.codec.http.FullHttpRequest request) {
        String chosen = request.headers().get(ClusterRouter.GROUP);
        if (chosen == null || !request.headers().contains(ClusterRouter.FORWARDED)) {
            return null;
        }
        try {
            return UUID.fromString(chosen);
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }

    private ClusterRouter.Target target(Group g) {
        PartitaServer own = g.serving;
        if (own != null) {
            return new ClusterRouter.Target("127.0.0.1:" + own.port(), true);
        }
        // Each read once: a group moving onto or off this node changes them. A node added to the group, and not yet
        // among its members, still routes by its locator.
        ClusterNode node = g.node;
        io.partita.cluster.GroupLocator locator = g.locator;
        String leader = null;
        try {
            leader = node != null ? node.leaderId() : null;
        } catch (IllegalStateException gone) {
            // Taken off this node a moment ago.
        }
        if (leader == null && locator != null) {
            leader = locator.leader();
        }
        String api = leader == null || leader.equals(cluster.nodeId()) ? null : apiOf(leader);
        return api == null
                ? null
                : new ClusterRouter.Target(api, false, null, g.table == null ? null : g.id.toString());
    }

    /** The leader of group {@code g} as this node knows it, its own part's or its locator's; null for none. */
    private static String leaderOf(Group g) {
        ClusterNode node = g.node;
        io.partita.cluster.GroupLocator locator = g.locator;
        try {
            if (node != null) {
                return node.leaderId();
            }
        } catch (IllegalStateException gone) {
            // Taken off this node a moment ago.
        }
        return locator == null ? null : locator.leader();
    }

    /** Where a change of the members goes, with {@code --cluster-replicas}: the members' group's leader's port. */
    private ClusterRouter.Target membersTarget() {
        String leader = membersGroup.leaderId();
        String api = leader == null || leader.equals(cluster.nodeId()) ? null : apiOf(leader);
        return api == null ? null : new ClusterRouter.Target(api, false);
    }

    /** Where an eventually consistent read goes: this follower's reader while it is recent enough, else null. */
    private ClusterRouter.Target readTarget(Group g) {
        Reader r = g.reader;
        return r == null || !g.readable
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
        if (membersGroup != null) {
            for (ClusterNode.Peer p : membersGroup.members()) {
                if (p.id().equals(id) && p.api() != null) {
                    return p.api();
                }
            }
        }
        Group home = home();
        for (ClusterNode.Peer p : home == null ? List.<ClusterNode.Peer>of() : home.node.members()) {
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
     * {@code POST /cluster/members} on the first group's leader: {@code {"add": "id=host:raftPort:apiPort"}} adds a
     * member (started with {@code --cluster-join}), {@code {"remove": "id"}} removes one; one change at a time, and at
     * least three members stay. In strict mode the request is signed by a key of one of the credentials' {@code
     * clusterAdmins}, and the change is made to every group, one after the other (a group that already has it is left
     * as it is, so the same change sent again finishes one made in part). Answers the members once every group has
     * committed the change; 400 for a change that cannot be made, 503 when a group did not make it (it may still
     * complete: {@code GET /cluster} shows each group's members).
     */
    ClusterRouter.Made changeMembers(ClusterRouter.Sent request) {
        AdminRequest asked = adminRequest(request, "change the cluster's members");
        if (asked.refused() != null) {
            return asked.refused();
        }
        com.fasterxml.jackson.databind.JsonNode in = asked.body();
        if (in == null
                || !in.isObject()
                || in.size() != 1
                || !(in.has("add") || in.has("remove"))
                || !in.elements().next().isTextual()) {
            return problem(400, "expected {\"add\": \"id=host:raftPort:apiPort\"} or {\"remove\": \"id\"}");
        }
        ClusterConfig.Member added = null;
        String removed = null;
        if (in.has("add")) {
            try {
                added = ClusterConfig.parseMember(in.get("add").asText().trim());
            } catch (IllegalArgumentException e) {
                return problem(400, e.getMessage());
            }
        } else {
            removed = in.get("remove").asText().trim();
        }
        ClusterConfig.Member add = added;
        String remove = removed;
        java.util.function.UnaryOperator<List<ClusterNode.Peer>> change = now -> changed(now, add, remove);
        if (membersGroup != null) {
            return changePlaced(change, added, removed);
        }
        // First whether the change can be made, to each group's members as this node knows them (the groups agree,
        // unless a change was made to some of them only): a refusal changes nothing.
        boolean any = false;
        try {
            for (Group g : groups.values()) {
                any |= change.apply(g.node.members()) != null;
            }
        } catch (IllegalArgumentException e) {
            return problem(400, e.getMessage());
        }
        if (!any) {
            return added != null
                    ? problem(400, "node " + added.id() + " is already a member")
                    : problem(400, "node " + removed + " is not a member");
        }
        String elsewhere = knownElsewhere(added);
        if (elsewhere != null) {
            return problem(400, elsewhere);
        }
        // Then to each group in turn, from its members as they are then (a compare-and-set: ClusterNode.changeMembers).
        long deadline = System.nanoTime() + membersChangeLimit().toNanos();
        boolean made = false;
        for (Group g : groups.values()) {
            List<ClusterNode.Peer> after;
            try {
                after = g.node.changeMembers(
                        change, java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (RuntimeException e) {
                // Unavailable (the time ran out, no leader), or the members changed meanwhile so that this change no
                // longer applies.
                String done = made ? "; the groups before it have the change: send it again to finish it" : "";
                return problem(
                        e instanceof IllegalArgumentException ? 400 : 503,
                        (groups.size() == 1 ? "" : g.name() + ": ") + e.getMessage() + done);
            }
            made = true;
            log.info(
                    "node {}: {}'s members are {}",
                    cluster.nodeId(),
                    g.name(),
                    after.stream().map(ClusterNode.Peer::id).toList());
        }
        com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
        putMembers(out, primary.node.members());
        return new ClusterRouter.Made(200, out.toString());
    }

    /**
     * Why adding {@code added} is refused, or null (also for a removal, {@code added} null): this node's Raft server
     * or clients were given its id at another Raft address ({@link ClusterNode.Host#knownAddresses}: a former member,
     * or a change tried before), and would go on sending to that address, so the new member would never catch up and
     * the change never complete. An addition that goes on is noted as it is made, so that one retried at another
     * address is refused as well.
     */
    private String knownElsewhere(ClusterConfig.Member added) {
        if (added == null) {
            return null;
        }
        String asked = added.host() + ":" + added.raftPort();
        List<String> other = host.knownAddresses(added.id()).stream()
                .filter(a -> !a.equals(asked))
                .sorted()
                .toList();
        if (other.isEmpty()) {
            return null; // ClusterNode.changeMembers notes the address as it gives it to Ratis
        }
        return "node " + added.id() + " is known to this node's Raft server at " + String.join(" and ", other)
                + " (a former member, or a change tried before), where it sends to that id for as long as it runs: add"
                + " the node at " + asked + " with a new id";
    }

    /**
     * A group the members' group decided where to make ({@link #decideLate}): how it is named, the members it is made
     * on, and the leader this node knows of it now (null for none).
     */
    record Decided(String name, List<String> on, java.util.function.Supplier<String> leader) {}

    /**
     * Why removing member {@code removed} is refused, or null when it may be made: a group of {@code decided} made on
     * it has no known leader, having waited up to {@code waitNanos} for one. Without that member, those that made a
     * group new to the cluster (whose other members have not made it yet) might never be a majority of its members. A
     * group between two leaders (an election, or a move: the locator made as the group left this node learns its
     * leader within a second) has one again within the wait. The time is {@code nanoTime}'s; it looks every 50 ms.
     */
    static String refusedRemoval(
            String removed, List<Decided> decided, long waitNanos, java.util.function.LongSupplier nanoTime)
            throws InterruptedException {
        long waitUntil = nanoTime.getAsLong() + waitNanos;
        for (Decided d : decided) {
            if (!d.on().contains(removed)) {
                continue;
            }
            String leader;
            while ((leader = d.leader().get()) == null && nanoTime.getAsLong() - waitUntil < 0) {
                Thread.sleep(50);
            }
            if (leader == null) {
                return d.name() + "'s group, made on " + d.on() + ", has no leader (a group new to the cluster that"
                        + " its members have not made, or a long election): removing " + removed + " could leave it"
                        + " unable to elect one; try again once GET /cluster shows its leader";
            }
        }
        return null;
    }

    /**
     * With {@code --cluster-replicas}: makes the change to the members' group, whose members are the cluster's, then
     * waits for each group to be on the members the new members place it on, as its leader moves it ({@link
     * #moveGroups}). Answers the members once every group is where it belongs; 503 when the members' group did not
     * make the change, or a group has not moved in the time (it goes on moving: {@code GET /cluster} shows where each
     * group is).
     */
    private ClusterRouter.Made changePlaced(
            java.util.function.UnaryOperator<List<ClusterNode.Peer>> change,
            ClusterConfig.Member added,
            String removed) {
        java.util.function.UnaryOperator<List<ClusterNode.Peer>> keepingR = now -> {
            List<ClusterNode.Peer> next = change.apply(now);
            if (next != null && next.size() < cluster.replicas()) {
                throw new IllegalArgumentException("each group is on " + cluster.replicas()
                        + " members (--cluster-replicas): add a node before removing " + removed);
            }
            return next;
        };
        try {
            if (keepingR.apply(membersGroup.members()) == null) {
                return added != null
                        ? problem(400, "node " + added.id() + " is already a member")
                        : problem(400, "node " + removed + " is not a member");
            }
        } catch (IllegalArgumentException e) {
            return problem(400, e.getMessage());
        }
        String elsewhere = knownElsewhere(added);
        if (elsewhere != null) {
            return problem(400, elsewhere);
        }
        if (removed != null) {
            String refused;
            try {
                List<Decided> decided = new java.util.ArrayList<>();
                for (Group g : all()) {
                    List<ClusterNode.Peer> on = decidedOn(g);
                    if (on != null) {
                        decided.add(new Decided(g.name(), ids(on), () -> leaderOf(g)));
                    }
                }
                refused = refusedRemoval(removed, decided, leaderWaitNanos, System::nanoTime);
            } catch (IOException e) {
                return problem(503, "the members' group's records cannot be read: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return problem(503, "this node is stopping");
            }
            if (refused != null) {
                return problem(400, refused);
            }
        }
        long deadline = System.nanoTime() + membersChangeLimit().toNanos();
        List<ClusterNode.Peer> after;
        try {
            after = membersGroup.changeMembers(
                    keepingR, java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        } catch (RuntimeException e) {
            return problem(e instanceof IllegalArgumentException ? 400 : 503, e.getMessage());
        }
        log.info("node {}: the cluster's members are {}", cluster.nodeId(), ids(after));
        List<String> moving = List.of();
        while (System.nanoTime() < deadline) {
            moving = all().stream()
                    .filter(g -> !membersOf(g).equals(sorted(placement(g, ids(after)))))
                    .map(g -> g.account)
                    .toList();
            if (moving.isEmpty()) {
                com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
                putMembers(out, after);
                return new ClusterRouter.Made(200, out.toString());
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return problem(
                503,
                "the members changed, and the groups of " + moving + " are still moving to the members they are now"
                        + " placed on: GET /cluster shows where each group is");
    }

    /**
     * The group's members as this node knows them, in the order of their ids: its own, or as its locator last heard
     * them from the group's leader (none before; not the members the locator was made with, which are those the group
     * is placed on, moved there or not).
     */
    private static List<String> membersOf(Group g) {
        ClusterNode node = g.node;
        if (node != null) {
            try {
                return ids(node.members());
            } catch (IllegalStateException gone) {
                return List.of(); // taken off this node a moment ago
            }
        }
        io.partita.cluster.GroupLocator locator = g.locator;
        List<String> led = locator == null ? null : locator.leaderMembers();
        return led == null ? List.of() : led;
    }

    private static List<String> ids(List<ClusterNode.Peer> peers) {
        return peers.stream().map(ClusterNode.Peer::id).sorted().toList();
    }

    private static List<String> sorted(List<String> ids) {
        return ids.stream().sorted().toList();
    }

    /** The members {@code memberIds} place group {@code g} on, its preferred leader first. */
    private List<String> placement(Group g, List<String> memberIds) {
        return io.partita.cluster.Placement.of(memberIds, g.place, cluster.replicas());
    }

    /**
     * How long a change of the members may take, every group's ({@link #MEMBERS_CHANGE} each): the router waits as long
     * for the answer to one it forwards.
     */
    java.time.Duration membersChangeLimit() {
        return MEMBERS_CHANGE.multipliedBy(all().size());
    }

    /**
     * What adding {@code added} (or removing {@code removed}) makes of a group's members {@code now}: null when they
     * already have it.
     *
     * @throws IllegalArgumentException when it cannot be made: another member has the new one's id or Raft address, or
     *     fewer than three would stay
     */
    private List<ClusterNode.Peer> changed(List<ClusterNode.Peer> now, ClusterConfig.Member added, String removed) {
        List<ClusterNode.Peer> next = new java.util.ArrayList<>();
        for (ClusterNode.Peer p : now) {
            next.add(p.api() != null ? p : new ClusterNode.Peer(p.id(), p.host(), p.port(), apiOf(p.id())));
        }
        if (added != null) {
            for (ClusterNode.Peer p : now) {
                boolean sameAddress = (p.host() + ":" + p.port()).equals(added.host() + ":" + added.raftPort());
                if (p.id().equals(added.id()) && sameAddress) {
                    return null;
                } else if (p.id().equals(added.id())) {
                    throw new IllegalArgumentException(
                            "node " + added.id() + " is already a member, at " + p.host() + ":" + p.port());
                } else if (sameAddress) {
                    throw new IllegalArgumentException(
                            "member " + p.id() + " already listens on " + added.host() + ":" + added.raftPort());
                }
            }
            next.add(peer(added));
            return next;
        }
        if (!next.removeIf(p -> p.id().equals(removed))) {
            return null;
        }
        if (next.size() < 3) {
            throw new IllegalArgumentException("a cluster keeps at least 3 members (to lose one and keep a majority):"
                    + " add a node before removing " + removed);
        }
        return next;
    }

    /** A request of a cluster's administrator: its JSON body, or why it is refused. */
    private record AdminRequest(com.fasterxml.jackson.databind.JsonNode body, ClusterRouter.Made refused) {}

    /**
     * The JSON body of {@code request}, a change of the cluster ({@code what} it does, for a refusal's words): in
     * strict mode refused unless signed by an administrator ({@link #refuseUnlessAdmin}); a body that is not JSON, 400.
     */
    private AdminRequest adminRequest(ClusterRouter.Sent request, String what) {
        if (accounts != null) {
            ClusterRouter.Made refused = refuseUnlessAdmin(request, what);
            if (refused != null) {
                return new AdminRequest(null, refused);
            }
        }
        try {
            return new AdminRequest(JSON.readTree(request.body()), null);
        } catch (IOException e) {
            return new AdminRequest(null, problem(400, "the body is not JSON: " + e.getMessage()));
        }
    }

    /**
     * In strict mode, the refusal of a change of the cluster ({@code what} the caller may not) that is not signed by
     * one of the credentials' {@code clusterAdmins} (DynamoDB's errors for a missing or bad signature; {@code
     * AccessDeniedException} for another account's); null for one that is.
     */
    private ClusterRouter.Made refuseUnlessAdmin(ClusterRouter.Sent request, String what) {
        io.partita.server.auth.Credentials caller;
        try {
            caller = verifier.verify(request);
        } catch (io.partita.protocol.error.ApiException e) {
            return new ClusterRouter.Made(
                    e.code().httpStatus(),
                    new String(io.partita.server.http.ErrorBody.of(e), java.nio.charset.StandardCharsets.UTF_8));
        }
        if (accounts.isClusterAdmin(caller.accountId())) {
            return null;
        }
        io.partita.protocol.error.ApiException denied = new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.ACCESS_DENIED,
                "User: arn:aws:iam::" + caller.accountId() + ":root is not authorized to " + what + ":"
                        + (accounts.hasClusterAdmins()
                                ? " only the accounts the credentials file lists in clusterAdmins are"
                                : " the credentials file lists no account in clusterAdmins"));
        return new ClusterRouter.Made(
                denied.code().httpStatus(),
                new String(io.partita.server.http.ErrorBody.of(denied), java.nio.charset.StandardCharsets.UTF_8));
    }

    private static ClusterRouter.Made problem(int status, String message) {
        return new ClusterRouter.Made(
                status, JSON.createObjectNode().put("message", message).toString());
    }

    /**
     * The first hash of the range group {@code g} holds now, as this node's replica of its table's record says
     * ({@code hashStart}, in hex as the admin view gives it), when its table is cut by ranges and names it.
     */
    private void putHashStart(com.fasterxml.jackson.databind.node.ObjectNode out, Group g) {
        if (g.table == null || membersReplica == null) {
            return;
        }
        byte[] recorded = membersReplica.recorded(TABLE_RECORD + g.account + "/" + g.table);
        try {
            TableRanges r = recorded == null ? null : TableRanges.of(JSON.readTree(recorded));
            if (r != null && r.has(g.id)) {
                out.put("hashStart", String.format("%016x", r.rangeOf(g.id).first()));
            }
        } catch (IOException | RuntimeException unreadable) {
            // The view goes without it.
        }
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
        long membersSeenAt = 0;
        while (!closed) {
            if (membersGroup == null && System.nanoTime() - membersSeenAt > 1_000_000_000L) {
                membersSeenAt = System.nanoTime();
                recordMembers();
            }
            for (Group g : all()) {
                ClusterNode node = g.node;
                if (node == null) {
                    continue; // its locator learns where it is led
                }
                if (!node.present()) {
                    stopReading(g, "it was taken off this node");
                    continue; // a moment before the host forgets it
                }
                try {
                    if (g.serving == null && node.canServe()) {
                        stopReading(g, "it leads");
                        serve(g);
                    } else if (g.serving != null && !node.isLeaderReady()) {
                        retire(g, "it no longer leads");
                    }
                    if (g.serving != null && (groups.size() > 1 || g.placed != null)) {
                        prefer(g, node);
                    }
                    if (cluster.followerReads()) {
                        followReads(g);
                    }
                } catch (RuntimeException e) {
                    if (!node.present()) {
                        stopReading(g, "it was taken off this node"); // while this pass looked at it
                        continue;
                    }
                    log.error("node {} could not change its part in {}", cluster.nodeId(), g.name(), e);
                    retire(g, "it failed");
                    stopReading(g, "it failed");
                }
            }
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Without {@code --cluster-replicas}: records the cluster's members (the first group's, every group being on every
     * member) once they have changed since the flags named them, so that a later start refuses an account new to the
     * node, whose group it would make on the members the flags name.
     */
    private void recordMembers() {
        ClusterNode node = primary.node;
        try {
            if (node != null && node.membersSettled()) {
                List<String> now = ids(node.members());
                // A node that joined and is not among the members yet has none (or those before it): nothing changed.
                if (now.contains(nodeId())) {
                    placementRecord.members(now);
                }
            }
            membersUnrecorded = false;
        } catch (IOException | RuntimeException e) {
            if (!membersUnrecorded) {
                log.warn("node {} could not record the cluster's members (tried every second): {}", nodeId(), e);
            }
            membersUnrecorded = true;
        }
    }

    /** Whether {@link #recordMembers} failed last time (its failures are logged once in a row). */
    private boolean membersUnrecorded;

    /**
     * As the leader of one of several groups, once a term and after each change of its members: makes the member at the
     * group's place in the accounts' order (modulo the members, in the order of their ids) the group's preferred
     * leader, when the group's configuration prefers another or none (a group an open cluster made, a group whose
     * place moved when an account was added). Ratis then hands the leadership to that member once it is up to date,
     * and the groups' leaders stay spread over the nodes.
     */
    private void prefer(Group g, ClusterNode node) {
        java.util.Map<String, Integer> now = node.priorities();
        String checking = node.term() + " " + now.keySet() + " " + g.placed;
        if (checking.equals(g.preferredFor)
                || System.nanoTime() < g.preferAgainAt
                || !now.containsKey(cluster.nodeId())
                || !node.membersSettled()) {
            // Checked; or a leader that removed itself, which steps down (Ratis would hold a change it is given until
            // then, whatever the time allowed); or a change of the members under way, which would refuse another.
            return;
        }
        g.preferredFor = checking;
        // The members in the order of their ids (priorities() is sorted): every node counts the same, whatever order
        // its flags list them in, so that no two leaders hand a group to and fro.
        List<String> order = new java.util.ArrayList<>(now.keySet());
        if (order.isEmpty()) {
            return;
        }
        List<String> placed = g.placed;
        String want = placed != null ? placed.get(0) : order.get(g.place % order.size());
        boolean already = now.entrySet().stream()
                .allMatch(e -> e.getValue() == (e.getKey().equals(want) ? 1 : 0));
        if (already || (placed != null && !sorted(placed).equals(List.copyOf(now.keySet())))) {
            return; // preferred already; or the group is moving, and is preferred once on its members (moveGroup)
        }
        try {
            node.prefer(want, java.time.Duration.ofSeconds(5));
            log.info("node {}: {} now prefers {} as its leader", cluster.nodeId(), g.name(), want);
        } catch (io.partita.storage.StorageUnavailableException e) {
            log.warn(
                    "node {}: {} could not be made to prefer {} (tried again in a second): {}",
                    cluster.nodeId(),
                    g.name(),
                    want,
                    e.getMessage());
            g.preferredFor = null;
            g.preferAgainAt = System.nanoTime() + 1_000_000_000L;
        }
    }

    /** Worker threads of the leader's own server: writes the cluster may commit at once. */
    static final int WRITERS = 64;

    /**
     * How this node's own server for group {@code g} runs: on loopback only (clients reach it through the router),
     * over the group's account's store, in strict mode verifying that account's keys alone.
     */
    private ServerConfig own(Group g, int workers) {
        ServerConfig own = new ServerConfig("127.0.0.1", 0, g.storage, server.region(), workers, server.transport())
                .withLimits(server.limits())
                .withFaults(server.faults());
        if (cluster.tableGroups()) {
            own = own.withTables(new Placing(g));
        }
        return accounts == null ? own : own.strict(accounts.only(g.account));
    }

    private void serve(Group g) {
        synchronized (g) {
            serveLocked(g);
        }
    }

    private void serveLocked(Group g) {
        if (closed || g.node == null) {
            return; // closed, or the group was taken off this node
        }
        java.util.concurrent.CompletableFuture<Void> retired = g.retiring;
        if (retired != null) {
            if (!retired.isDone()) {
                // The server it had when it last led still closes: a later pass serves.
                warnIfRetiring(g, "leads " + g.name() + " but cannot serve it");
                return;
            }
            g.retiring = null;
        }
        long started = System.nanoTime();
        if (g.table != null) {
            // A leader before this one closed it, empty: it refuses new tables, and the mover finishes the close.
            g.closing = g.replica.marked(CLOSED) != null;
            g.emptySince = 0;
            g.held.clear();
        }
        StorageEngine engine = g.replica.unlessInstalling(store -> StorageEngine.openOn(store, g.storage));
        if (engine == null) {
            return;
        }
        // Every write holds a worker while the group commits it (a Raft round trip, mostly waiting): the pool bounds
        // how many writes the cluster commits at once, so it is larger than a single node's (docs/PERFORMANCE.md).
        PartitaServer opened = PartitaServer.startOn(own(g, Math.max(server.workerThreads(), WRITERS)), engine);
        onServe.accept(opened);
        g.serving = opened;
        log.info(
                "node {} leads {} (term {}) and serves it, ready in {} ms",
                cluster.nodeId(),
                g.name(),
                g.node.term(),
                (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * While this node follows group {@code g}, keeps its reader open on the replica's current store and catalog, and
     * says whether the router may send it reads: while the node knows a leader (a node cut off from the others soon
     * knows none) and has at most {@link #READER_MAX_LAG} committed entries left to apply.
     */
    private void followReads(Group g) {
        ClusterNode node = g.node;
        ReplicaStore replica = g.replica;
        if (node == null || replica == null) {
            return; // the group was taken off this node
        }
        if (g.serving != null || !"FOLLOWER".equals(node.role())) {
            stopReading(g, "it does not follow");
            return;
        }
        java.util.concurrent.CompletableFuture<Void> retired = g.retiring;
        if (retired != null && !retired.isDone()) {
            g.readable = false; // its engine of when it led still closes: a later pass opens a reader
            warnIfRetiring(g, "follows " + g.name() + " but cannot read its replica");
            return;
        }
        if (replica.installing()) {
            // Its hook closed the reader; the next pass after the install opens one on the new store.
            g.readable = false;
            return;
        }
        Reader r = g.reader;
        Boolean current = r == null
                ? Boolean.FALSE
                : replica.unlessInstalling(store -> store == r.store() && store.catalogChanges() == r.catalogChanges());
        if (!Boolean.TRUE.equals(current)) {
            try {
                openReader(g, r);
            } catch (RuntimeException e) {
                // Not left on the reader of the catalog before, which refuses every read of a table cut by ranges once
                // the catalog moved: the next pass opens one.
                stopReading(g, "its reader could not open again on the changed tables: " + e);
                throw e;
            }
        }
        g.readable = g.reader != null
                && node.leaderId() != null
                // Not while added to the group and catching up, before it is among its members.
                && node.members().stream().anyMatch(p -> p.id().equals(nodeId()))
                && node.commitIndex() - node.lastAppliedIndex() <= READER_MAX_LAG;
    }

    /**
     * Opens a reader on the group's store as it is now, then closes {@code previous} (one on an older catalog, or a
     * store an install replaced): reads go on, to one or the other, meanwhile.
     */
    /** Under the group's lock: one group's slow open holds up no other group's change. */
    private void openReader(Group g, Reader previous) {
        synchronized (g) {
            openReaderLocked(g, previous);
        }
    }

    private void openReaderLocked(Group g, Reader previous) {
        if (closed || g.serving != null || g.reader != previous || g.replica == null) {
            return; // closed, or changed (an install closed it) since the caller looked: the next pass decides
        }
        long started = System.nanoTime();
        Reader opened = g.replica.unlessInstalling(store -> {
            long changes = store.catalogChanges();
            StorageEngine engine = StorageEngine.openReader(store, g.storage);
            return new Reader(PartitaServer.startOn(own(g, server.workerThreads()), engine), store, changes);
        });
        if (opened == null) {
            return; // an install runs: the next watch opens one on the new store
        }
        g.reader = opened;
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (previous == null) {
            log.info(
                    "node {} answers eventually consistent reads of {} from its replica, ready in {} ms",
                    nodeId(),
                    g.name(),
                    millis);
        } else {
            log.debug(
                    "node {}: its reader of {} opened again on the changed tables in {} ms",
                    nodeId(),
                    g.name(),
                    millis);
            // On a thread of its own: it lets its reads in flight finish, and the watch goes on meanwhile.
            Thread closing = new Thread(previous.server()::close, "partita-cluster-" + nodeId() + "-reader-close");
            closing.setDaemon(true);
            closing.start();
        }
    }

    private void stopReading(Group g, String why) {
        synchronized (g) {
            stopReadingLocked(g, why);
        }
    }

    private void stopReadingLocked(Group g, String why) {
        g.readable = false;
        Reader r = g.reader;
        if (r == null) {
            return;
        }
        g.reader = null;
        log.info("node {} stops answering reads of {} from its replica: {}", cluster.nodeId(), g.name(), why);
        r.server().close();
    }

    private void stopServing(Group g, String why) {
        synchronized (g) {
            stopServingLocked(g, why);
        }
    }

    /**
     * Closes this node's server for {@code g}, and waits for one {@link #retire} closes: the caller then closes or
     * replaces the store under it, or stops.
     */
    private void stopServingLocked(Group g, String why) {
        PartitaServer own = g.serving;
        if (own != null) {
            g.serving = null;
            log.info("node {} stops serving {}: {}", cluster.nodeId(), g.name(), why);
            own.close();
        }
        java.util.concurrent.CompletableFuture<Void> retired = g.retiring;
        if (retired != null) {
            retired.join(); // its thread takes no lock
            g.retiring = null;
        }
    }

    /** How long a server that stopped leading may take to close before the node warns that it cannot serve. */
    private static final long RETIRE_WARN_NANOS = 30_000_000_000L;

    /**
     * Warns, once for each {@link #retire}, of a server that has not closed in {@link #RETIRE_WARN_NANOS}. A close can
     * take the 10 s a write waits for its entry and the 8 s its server waits for such requests; one that never ends (a
     * request stuck on a worker) keeps the node from serving the group, or reading it.
     */
    private void warnIfRetiring(Group g, String what) {
        if (!g.retiringWarned && System.nanoTime() - g.retiringSince > RETIRE_WARN_NANOS) {
            g.retiringWarned = true;
            log.warn(
                    "node {} {}: its server of when it last led has not closed in {} s",
                    nodeId(),
                    what,
                    RETIRE_WARN_NANOS / 1_000_000_000L);
        }
    }

    /**
     * Stops this node's server for {@code g}, which no longer leads (or failed), without waiting for it to close: it
     * lets its requests in flight finish, on a thread of its own (it waits 8 s for them, then for its workers to end
     * the requests they run, such as writes waiting up to 10 s on an entry the group may not commit). So the watch
     * goes on meanwhile with the node's other groups, one of which it may just have been elected to lead. The router
     * sends the group's requests to its new leader at once.
     */
    private void retire(Group g, String why) {
        synchronized (g) {
            PartitaServer own = g.serving;
            if (own == null) {
                return;
            }
            g.serving = null;
            log.info("node {} stops serving {}: {}", cluster.nodeId(), g.name(), why);
            java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
            g.retiring = closed;
            g.retiringSince = System.nanoTime();
            g.retiringWarned = false;
            Thread closing = new Thread(
                    () -> {
                        try {
                            own.close();
                        } catch (RuntimeException e) {
                            log.warn("node {}: closing its server for {}", nodeId(), g.name(), e);
                        } finally {
                            closed.complete(null);
                        }
                    },
                    "partita-cluster-" + nodeId() + "-server-close");
            closing.setDaemon(true);
            closing.start();
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** How often the mover looks at the groups. */
    private static final long MOVE_MILLIS = 500;
    /** How often the members a move left are asked again to take the group off, and a stray replica checked. */
    private static final long RECHECK_NANOS = 5_000_000_000L;
    /** How long a move onto a member whose id this node knows at another address waits before it looks again. */
    private static final long KNOWN_ELSEWHERE_NANOS = 60_000_000_000L;
    /** How long after a member could not be added to a group it is asked again. */
    private static final long ADD_AGAIN_NANOS = 2_000_000_000L;
    /** How long the members a move left are asked to take the group off, when they cannot be reached. */
    private static final long LEFT_ASKED_NANOS = 60_000_000_000L;
    /** How long a follower of a group this node leads has not answered before it is asked whether it lost the group. */
    private static final long SILENT_MILLIS = 2_000;
    /** How long a member must say on end that it has no copy of a group before it is taken out of the group. */
    private static final long LOST_NANOS = 5_000_000_000L;
    /** How often the followers that stopped answering are asked whether they lost the group. */
    private static final long LOST_CHECK_NANOS = 1_000_000_000L;
    /** How long a group added to this node may wait to be among its members before it is taken for a stray. */
    private static final long JOINING_NANOS = MEMBERS_CHANGE.multipliedBy(2).toNanos();

    /**
     * With {@code --cluster-replicas}, on every node: keeps each group on the members the cluster's members (the
     * members' group's) place it on now, one group at a time ({@link #moveGroup}).
     */
    private void moveGroups() {
        while (!closed) {
            List<String> memberIds = List.of();
            boolean settled = false;
            try {
                memberIds = ids(membersGroup.members());
                // A node a change removes may never learn that the change was committed, nor even see its end (the
                // leader stops sending to it): the new members, without it, are then taken as they are. At worst a
                // change that did not commit moves its groups off it and back, each move safe.
                settled = (membersGroup.membersSettled() || !memberIds.contains(nodeId()))
                        && memberIds.size() >= cluster.replicas();
                if (settled) {
                    placementRecord.members(memberIds);
                }
            } catch (IOException | RuntimeException e) {
                log.warn("node {} could not read the cluster's members", nodeId(), e);
            }
            try {
                decideLate(memberIds, settled);
            } catch (IOException | RuntimeException e) {
                log.warn("node {} could not record where new groups are made (tried again soon): {}", nodeId(), e);
            }
            if (cluster.tableGroups()) {
                try {
                    syncTables();
                } catch (IOException | RuntimeException e) {
                    log.warn(
                            "node {} could not read the tables' groups (tried again soon): {}", nodeId(), e.toString());
                }
            }
            for (Group g : all()) {
                if (closed) {
                    return;
                }
                try {
                    moveGroup(g, memberIds, settled);
                    if (g.table != null && g.serving != null) {
                        collect(g);
                    }
                } catch (IOException | RuntimeException e) {
                    log.warn("node {} could not move {} to its members", nodeId(), g.name(), e);
                }
                try {
                    resolve(g);
                } catch (RuntimeException e) {
                    log.warn("node {} could not look for transactions left behind in {}", nodeId(), g.name(), e);
                }
                try {
                    moveRange(g);
                    splitGrownRange(g);
                } catch (RuntimeException e) {
                    log.warn("node {} could not look for a move of {}'s range", nodeId(), g.name(), e);
                }
            }
            try {
                // Sooner when a request waits for a table's group this node does not know yet (nudge).
                if (wake.tryAcquire(MOVE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    wake.drainPermits();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Wakes the mover before its next pass is due ({@link #nudge}). */
    private final java.util.concurrent.Semaphore wake = new java.util.concurrent.Semaphore(0);

    /** Has the mover look at the tables' groups now: a request waits for one this node does not know yet. */
    private void nudge() {
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    /**
     * Brings group {@code g}, on this node, closer to where {@code memberIds} place it. As its leader, when the
     * group's members differ from those: adds the group to each member it now belongs on (through that node's Raft
     * port: it joins, and catches up from the leader, from the log or a checkpoint), changes the group's members
     * (Raft's joint consensus; a leader that leaves steps down once that is committed), then takes the group off each
     * member it left, itself last (their Raft storage and replica deleted); a member that could not be reached is
     * asked again every few seconds while this node leads. As a member that knows no leader, or whose members no
     * longer include it: asks the members for the group's leader, and takes the group off itself once that leader's
     * members do not include it (a member a move left while it was down, or whose leader could not tell it). A group
     * another member added to this node gets this node's part in it; a group not on this node a locator.
     */
    private void moveGroup(Group g, List<String> memberIds, boolean settled) {
        UUID id = g.id;
        if (settled) {
            g.placed = placement(g, memberIds);
        }
        if (g.late && g.table == null) {
            try {
                formLate(g); // a table's group is made by syncTables
            } catch (IOException | RuntimeException e) {
                log.warn("node {} could not make {} yet (tried again soon): {}", nodeId(), g.name(), e.toString());
            }
        }
        if (g.dropped) {
            return; // a table's group closed, which syncTables took off this node
        }
        ClusterNode node;
        synchronized (g) {
            node = g.node;
            if (node == null && g.replica != null) {
                // Added by another member: the host made this node's part in it.
                node = host.groups().stream()
                        .filter(n -> n.groupId().equals(id) && n.present())
                        .findFirst()
                        .orElse(null);
                if (node == null) {
                    return;
                }
                g.node = node;
                g.joinedAt = System.nanoTime();
                g.memberSeen = false;
                log.info("node {} now holds {}, added to it by another member", nodeId(), g.name());
            }
        }
        if (node == null) {
            synchronized (g) {
                if (g.dropped) {
                    return;
                }
                io.partita.cluster.GroupLocator locator = g.locator;
                if (locator == null) {
                    g.locator = host.locate(id, g.placed);
                } else if (locator.leader() == null
                        && !sorted(locator.members()).equals(sorted(g.placed))) {
                    // It finds no leader among the members it asks (most of them left the group since): the members
                    // the group is placed on now, once it has moved there, know it.
                    host.stopLocating(locator);
                    g.locator = host.locate(id, g.placed);
                }
            }
            return;
        }
        if (!node.present()) {
            return; // taken off this node by another member a moment ago: the host forgets it
        }
        List<String> has = ids(node.members());
        if (has.contains(nodeId())) {
            g.memberSeen = true;
        }
        io.partita.cluster.GroupLocator locator = g.locator;
        if (locator != null && has.contains(nodeId())) {
            // Among the group's members now: its own part knows the leader, and routes by it.
            host.stopLocating(locator);
            g.locator = null;
        }
        if (!node.isLeaderReady()) {
            dropIfStray(g, node, has);
            return;
        }
        if (!settled || !node.membersSettled()) {
            return; // the cluster's members, or the group's, are changing
        }
        List<String> target = g.placed;
        if (!has.equals(sorted(target))) {
            move(g, node, has, target);
        } else {
            dropLost(g, node, has);
        }
        tellLeft(g, node);
    }

    /** Where the members' group records the members a late group ({@link Group#late}) is made on, by account. */
    private static final String LATE_GROUP = "cluster/late-group/";

    /** The accounts whose decision this node has seen recorded ({@link #decideLate}); used by the mover only. */
    private final java.util.Set<String> decided = new java.util.HashSet<>();

    /** Decisions this node proposed whose outcome it does not know, by account ({@link #decideLate}). */
    private final java.util.Map<String, byte[]> unsure = new java.util.HashMap<>();

    /**
     * As the members' group's leader, with the cluster's members settled ({@code memberIds}): records, for each account
     * of its file that has none yet, the members a group made for it now is made on: those its place among the groups
     * gives it among the members now, its preferred leader first, with their addresses, as JSON. Any node to which the
     * account is new makes its group on them ({@link #formLate}), whatever members the flags gave it, so every node
     * makes it with the same members. Recorded once, through the group: only while this node has applied every entry
     * of its log (no record of its own in flight, and, as the leader, every entry committed before its term), and
     * still none is recorded. An account whose group was made at the cluster's first start gets one too, which no node
     * uses.
     */
    private void decideLate(List<String> memberIds, boolean settled) throws IOException {
        for (Group g : groups.values()) {
            if (decided.contains(g.account)) {
                continue;
            }
            // First: every entry of its log applied, so the read below sees any record of its own that committed.
            boolean leads = settled && memberIds.contains(nodeId()) && membersGroup.appliedAll();
            String key = LATE_GROUP + g.account;
            if (membersReplica.recorded(key) != null) {
                decided.add(g.account);
                unsure.remove(g.account);
                continue;
            }
            if (!leads) {
                return; // not the leader, or a record or a change of the members in flight
            }
            // A record whose outcome was not known may still be proposed late: the same bytes are recorded again.
            byte[] value = unsure.get(g.account);
            if (value == null) {
                com.fasterxml.jackson.databind.node.ArrayNode on = peersOf(placement(g, memberIds));
                if (on == null) {
                    return; // the members changed since memberIds were read: the next pass
                }
                value = JSON.writeValueAsBytes(on);
            }
            unsure.put(g.account, value);
            membersReplica.record(key, value);
            unsure.remove(g.account);
            decided.add(g.account);
            log.info(
                    "node {}: a group made for {} from now on is made on {}", nodeId(), g.name(), ids(decision(value)));
        }
    }

    /**
     * Members {@code ids}, in that order, with their addresses as the members' group has them, as JSON; null when one
     * is not among its members (they changed since the ids were read).
     */
    private com.fasterxml.jackson.databind.node.ArrayNode peersOf(List<String> ids) {
        java.util.Map<String, ClusterNode.Peer> byId = new java.util.HashMap<>();
        membersGroup.members().forEach(p -> byId.put(p.id(), p));
        com.fasterxml.jackson.databind.node.ArrayNode on = JSON.createArrayNode();
        for (String m : ids) {
            ClusterNode.Peer p = byId.get(m);
            if (p == null) {
                return null;
            }
            on.addObject()
                    .put("id", p.id())
                    .put("host", p.host())
                    .put("port", p.port())
                    .put("api", p.api() != null ? p.api() : apiOf(p.id()));
        }
        return on;
    }

    /**
     * The members, with their addresses, the members' group decided group {@code g} is made on: a late account's
     * ({@link #decideLate}), or a table's ({@link #placeTable}); null for none.
     */
    private List<ClusterNode.Peer> decidedOn(Group g) throws IOException {
        if (g.table == null) {
            return decision(membersReplica.recorded(LATE_GROUP + g.account));
        }
        byte[] recorded = membersReplica.recorded(GROUP_RECORD + g.id);
        return recorded == null
                ? null
                : decision(JSON.writeValueAsBytes(JSON.readTree(recorded).get("on")));
    }

    /** The members, with their addresses, that a record of {@link #decideLate} names; null for no record. */
    private static List<ClusterNode.Peer> decision(byte[] recorded) throws IOException {
        if (recorded == null) {
            return null;
        }
        List<ClusterNode.Peer> on = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode p : JSON.readTree(recorded)) {
            on.add(new ClusterNode.Peer(
                    p.get("id").asText(),
                    p.get("host").asText(),
                    p.get("port").asInt(),
                    p.get("api").isNull() ? null : p.get("api").asText()));
        }
        return on;
    }

    /**
     * Makes late group {@code g} ({@link Group#late}) on the members the members' group decided ({@link #decideLate}),
     * once this node's replica of the members' group has the decision. A node among them records that it makes it
     * ({@link PlacementRecord#recordFormed}), then makes it: its storage formatted, empty, with those members; the
     * group elects its first leader once a majority of them has. One not among them routes to it. The mover then keeps
     * it on the members the cluster's members place it on, as any other.
     */
    private void formLate(Group g) throws IOException {
        List<ClusterNode.Peer> on = decidedOn(g);
        if (on == null) {
            return;
        }
        if (!ids(on).contains(nodeId())) {
            g.late = false; // routed to by its locator
            return;
        }
        UUID id = g.id;
        ReplicaStore replica;
        synchronized (g) {
            if (g.replica != null || placementRecord.adopted(g.recordKey)) {
                g.late = false; // another member added it to this node meanwhile (and perhaps took it off again)
                return;
            }
            placementRecord.recordFormed(g.recordKey);
            ReplicaStore.delete(g.storage);
            replica = ReplicaStore.open(g.storage);
            holdReplica(g, replica);
        }
        ClusterNode node;
        try {
            node = host.addGroup(id, replica, on, false);
        } catch (IOException | RuntimeException e) {
            synchronized (g) {
                if (g.replica == replica) {
                    g.replica = null;
                    replica.close();
                }
            }
            throw e; // made again at the next pass: formed is recorded, but the group's folder is not there
        }
        synchronized (g) {
            if (g.replica != replica) {
                g.late = false;
                return; // taken off this node again meanwhile
            }
            g.node = node;
            g.joinedAt = System.nanoTime();
            g.memberSeen = true;
        }
        g.late = false;
        log.info("node {} made {} on {}, as the members' group decided", nodeId(), g.name(), ids(on));
    }

    /** Where the members' group records each table's group: its account, first table, place and members, by id. */
    private static final String GROUP_RECORD = "cluster/table-group/";

    /** Where the members' group records which group each table is in, by account and table: {@code <account>/<t>}. */
    private static final String TABLE_RECORD = "cluster/table/";

    /**
     * Into how many hash ranges, each a group, a new table of {@code layout} is cut ({@code
     * --cluster-partition-groups}): one per partition it needs at its creation, at least {@link
     * ClusterConfig#minRanges} when it can be cut at all (it names its partition key), and at most {@link
     * ClusterConfig#MAX_RANGES}: a table that needs more partitions has several in each range's group (each group's
     * store cuts its partitions as a single node's does), so that a CreateTable stays within a few new groups'
     * elections. One, kept whole, without a group per partition.
     */
    private int rangesOf(io.partita.server.op.table.TablePlacement.Layout layout) {
        if (!cluster.partitionGroups() || layout.partitionKey() == null) {
            return 1;
        }
        return Math.min(ClusterConfig.MAX_RANGES, Math.max(layout.partitions(), cluster.minRanges()));
    }

    /** A key the members' group never records: a compare-and-set that expects a value there changes nothing. */
    private static final String BARRIER = "cluster/barrier";

    /** Marked in a table's group's own store once its leader closes it, empty ({@link #closeEmpty}). */
    private static final String CLOSED = "cluster/closed";

    /** How often a table's group's leader compares its tables with the cluster's records. */
    private static final long COLLECT_NANOS = 1_000_000_000L;

    /**
     * How long after a table was placed its group may lack it before its record says it is gone: a CreateTable waits
     * for the group's first leader (an election) before the group makes the table.
     */
    private static final long PLACED_GRACE_MILLIS = 30_000;

    /** How long a compare-and-set through the members' group may take. */
    private static final java.time.Duration RECORD_TIME = java.time.Duration.ofSeconds(10);

    /** Every group: the accounts', in their order, then the tables' ({@code --cluster-table-groups}). */
    private List<Group> all() {
        List<Group> out = new java.util.ArrayList<>(groups.values());
        out.addAll(tableGroups.values());
        return out;
    }

    /** Where a table's group keeps its replica on this node: {@code table-groups/<id>} in the data directory. */
    private StorageConfig tableStorage(UUID id) {
        return server.storage()
                .withDataDir(server.storage().dataDir().resolve("table-groups").resolve(id.toString()));
    }

    /**
     * A table's group as record {@code recorded} of the members' group names it ({@link #placeTable}); null for one of
     * an account strict mode no longer has (its requests find no account), which this node neither holds nor routes.
     */
    private Group tableGroup(UUID id, byte[] recorded) throws IOException {
        com.fasterxml.jackson.databind.JsonNode r = JSON.readTree(recorded);
        String account = r.get("account").asText();
        if (accounts != null && !accounts.accountIds().contains(account)) {
            return null;
        }
        List<String> on = new java.util.ArrayList<>();
        r.get("on").forEach(p -> on.add(p.get("id").asText()));
        Group g = new Group(
                account,
                tableStorage(id),
                List.copyOf(on),
                id,
                "table-" + id,
                r.get("place").asInt(),
                r.get("table").asText());
        g.range = r.path("range").asInt(0);
        return g;
    }

    /**
     * With {@code --cluster-table-groups}, on every node, each pass of the mover: makes this node's tables' groups
     * those the members' group records. A group new to it is made here once this node is among the members it was
     * placed on ({@link #formLate}), and found by a locator otherwise; one whose record is gone (its leader closed it,
     * {@link #closeEmpty}) is taken off this node and forgotten.
     */
    private synchronized void syncTables() throws IOException {
        java.util.SortedMap<String, byte[]> records = membersReplica.recordedUnder(GROUP_RECORD);
        if (records == null) {
            return; // a checkpoint replaces this node's replica of the records: unknown now, not gone
        }
        java.util.Set<UUID> recorded = new java.util.HashSet<>();
        for (var e : records.entrySet()) {
            UUID id = UUID.fromString(e.getKey().substring(GROUP_RECORD.length()));
            recorded.add(id);
            if (tableGroups.containsKey(id)) {
                continue;
            }
            Group g = tableGroup(id, e.getValue());
            if (g != null) {
                g.late = g.placed.contains(nodeId()) && !placementRecord.ownMembers(g.recordKey);
                tableGroups.put(id, g);
            }
        }
        for (Group g : List.copyOf(tableGroups.values())) {
            if (!recorded.contains(g.id)) {
                dropTableGroup(g);
            } else if (g.late && ready) {
                // Made at once on its members (only here, under this lock, never while it is dropped): the group
                // elects its first leader once a majority has made it.
                try {
                    formLate(g);
                } catch (IOException | RuntimeException failed) {
                    log.warn(
                            "node {} could not make {} yet (tried again soon): {}",
                            nodeId(),
                            g.name(),
                            failed.toString());
                }
            }
        }
    }

    /**
     * Runs {@link #syncTables} each time this node's replica of the members' group has applied entries since the last
     * time, looking every {@value #WATCH_MILLIS} ms: a table placed a moment ago is made on its members, and found by
     * the other nodes, without waiting for the mover's next pass.
     */
    private void watchTables() {
        long seen = -1;
        while (!closed) {
            try {
                long applied = membersGroup.lastAppliedIndex();
                if (applied != seen) {
                    seen = applied;
                    syncTables();
                }
            } catch (IOException | RuntimeException e) {
                log.warn("node {} could not read the tables' groups (tried again soon): {}", nodeId(), e.toString());
            }
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Takes a table's group whose record is gone off this node, and forgets it. When the Raft server still has the
     * group (its removal failed), the next pass tries again: the group is kept until then.
     */
    private void dropTableGroup(Group g) throws IOException {
        synchronized (g) {
            g.dropped = true; // no locator is made for it from now on (moveGroup)
            g.late = false;
        }
        takeOff(g, "its leader closed it, empty");
        if (host.groups().stream().anyMatch(n -> n.groupId().equals(g.id))) {
            try {
                host.removeGroup(g.id); // takeOff's removal failed, or it was not among the node's own parts yet
            } catch (IllegalArgumentException gone) {
                // Removed meanwhile.
            } catch (IOException | RuntimeException e) {
                log.warn(
                        "node {} could not take {} off itself (tried again soon): {}",
                        nodeId(),
                        g.name(),
                        e.toString());
                return;
            }
        }
        synchronized (g) {
            ReplicaStore replica = g.replica;
            if (replica != null) {
                droppedLocked(g, replica, "its leader closed it, empty"); // added to this node, not yet joined
            }
            io.partita.cluster.GroupLocator locator = g.locator;
            if (locator != null) {
                host.stopLocating(locator);
                g.locator = null;
            }
        }
        deleteTree(g.storage.dataDir()); // its folder, which its store's deletion leaves
        tableGroups.remove(g.id);
        placementRecord.forget(g.recordKey);
    }

    /**
     * As the server of {@code account}'s own group, for a CreateTable (or ImportTable) that passed every check: places
     * table {@code name} in a Raft group of its own. The group's record first (its account, table, place and members,
     * the members its place among the groups gives it now), then the table's (its group; {@code live}, as ListTables
     * lists it from now on), each a compare-and-set through the members' group: a table another request placed first
     * keeps its group, and this one's record is taken back. Every node then makes the group, or finds it
     * ({@link #syncTables}); the request goes there.
     */
    private void placeTable(String account, String name, io.partita.server.op.table.TablePlacement.Layout layout) {
        // A record gone meanwhile (its group's close removed it): placed again, a few times at most.
        for (int attempt = 0; attempt < 3 && !placeTableOnce(account, name, layout); attempt++) {
            log.debug("node {}: table {} of account {} is placed again", nodeId(), name, account);
        }
    }

    /** One attempt of {@link #placeTable}: false when the table's record was gone by the time it was placed. */
    private boolean placeTableOnce(
            String account, String name, io.partita.server.op.table.TablePlacement.Layout layout) {
        String key = TABLE_RECORD + account + "/" + name;
        try {
            // After a barrier, so that a record placed or deleted through another node a moment ago is seen.
            byte[] never = {0};
            membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
            // Read together, with no checkpoint replacing the store in between: a record absent is absent.
            Object[] read = membersReplica.unlessInstalling(store -> new Object[] {
                membersReplica.recordedUnder(TABLE_RECORD + account + "/"),
                membersReplica.recordedUnder(GROUP_RECORD),
                tableGroupOf(store, account, name)
            });
            if (read == null || read[0] == null || read[1] == null) {
                throw new io.partita.storage.StorageUnavailableException(
                        "a checkpoint replaces this node's replica of the records", null, false);
            }
            @SuppressWarnings("unchecked")
            java.util.SortedMap<String, byte[]> tables = (java.util.SortedMap<String, byte[]>) read[0];
            @SuppressWarnings("unchecked")
            java.util.SortedMap<String, byte[]> groupRecords = (java.util.SortedMap<String, byte[]>) read[1];
            byte[] was = tables.get(key);
            TableRanges deleted = was == null ? null : TableRanges.of(JSON.readTree(was));
            if (deleted != null && !deleted.live() && deleted.moving() != null) {
                // A move of the deleted table's range still ends (its source's leader deletes the new group's table,
                // which the record names only until then): placed anew once it has, or that group would stay.
                throw new io.partita.storage.StorageUnavailableException(
                        "a move of the deleted table's range is ending", null, false);
            }
            if (was != null && read[2] != null) {
                // Placed already: a retry, or a table of a group kept for its backups (or restored there). A record
                // not live is made live anew, so that collect, which drops a restored table's record once it is gone,
                // finds it changed, and the table is made in that group before the grace ends.
                com.fasterxml.jackson.databind.JsonNode record = JSON.readTree(was);
                if (record.get("live").asBoolean()) {
                    return true;
                }
                // A deleted table cut by ranges is placed anew (as its new definition says), below: its groups, which
                // no record names then, close.
                if (TableRanges.of(record) == null) {
                    byte[] revived = tableRecord((UUID) read[2], true, System.currentTimeMillis());
                    return java.util.Arrays.equals(
                            membersGroup.recordIf(membersReplica, key, was, revived, RECORD_TIME), revived);
                }
            }
            // With --cluster-partition-groups, each of the table's partitions at its creation is a group of its own,
            // its hash range's, each placed as a table's group is (the next places spread their leaders); the first
            // is the table's own group.
            int ranges = rangesOf(layout);
            int place = groups.size() + groupRecords.size();
            List<UUID> ids = new java.util.ArrayList<>(ranges);
            List<byte[]> groupValues = new java.util.ArrayList<>(ranges);
            com.fasterxml.jackson.databind.node.ArrayNode on = null;
            for (int i = 0; i < ranges; i++) {
                com.fasterxml.jackson.databind.node.ArrayNode members = peersOf(
                        io.partita.cluster.Placement.of(ids(membersGroup.members()), place + i, cluster.replicas()));
                if (members == null) {
                    throw new io.partita.storage.StorageUnavailableException("the members are changing", null, false);
                }
                on = on == null ? members : on;
                com.fasterxml.jackson.databind.node.ObjectNode group = JSON.createObjectNode()
                        .put("account", account)
                        .put("table", name)
                        .put("place", place + i);
                if (i > 0) {
                    group.put("range", i);
                }
                group.set("on", members);
                ids.add(UUID.randomUUID());
                groupValues.add(JSON.writeValueAsBytes(group));
            }
            for (int i = 0; i < ranges; i++) {
                membersGroup.recordIf(membersReplica, GROUP_RECORD + ids.get(i), null, groupValues.get(i), RECORD_TIME);
            }
            com.fasterxml.jackson.databind.node.ObjectNode record = (com.fasterxml.jackson.databind.node.ObjectNode)
                    JSON.readTree(tableRecord(ids.get(0), true, System.currentTimeMillis()));
            if (ranges > 1) {
                record.put("key", layout.partitionKey());
                record.set(
                        "ranges", TableRanges.even(layout.partitionKey(), ids).toJson());
            }
            byte[] table = JSON.writeValueAsBytes(record);
            // Expecting the record there was: none, or one whose group is gone (a close that stopped midway).
            byte[] now = membersGroup.recordIf(membersReplica, key, was, table, RECORD_TIME);
            if (!java.util.Arrays.equals(now, table)) {
                // Placed by another request meanwhile (or its record removed by a close): these groups hold nothing,
                // and go (a group record the delete misses is closed by its leader, empty).
                for (int i = 0; i < ranges; i++) {
                    membersGroup.recordIf(
                            membersReplica, GROUP_RECORD + ids.get(i), groupValues.get(i), null, RECORD_TIME);
                }
                return now != null && JSON.readTree(now).path("live").asBoolean(false);
            }
            log.info(
                    "node {} placed table {} of account {} on {}{}",
                    nodeId(),
                    name,
                    account,
                    on,
                    ranges > 1 ? ", its " + ranges + " partitions each a group of its own" : "");
            return true;
        } catch (IOException | io.partita.storage.StorageUnavailableException e) {
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "the cluster could not record where table " + name + " goes (try again): " + e.getMessage());
        }
    }

    /**
     * Records table {@code name} of {@code account}, a restore of table {@code source} cut by ranges ({@link
     * RestoreSpread}), as cut by the source's {@code ranges} in the same groups, live and marked {@code restored} (its
     * groups' leaders move their own table's ranges alone), after a barrier through the members' group: a
     * compare-and-set over no record (or one whose group is gone, as {@link #tableGroupOf} reads it), or over the
     * record of a deleted table cut by ranges (whose groups, named by no record then, close as when its name is placed
     * anew by a CreateTable). The source's record must still be live with those ranges, no move under way; or, for a
     * restore of backup {@code backup} (not null: {@link BackupSpread}), the backup's record must still name those
     * ranges. Returns what takes the record back.
     *
     * @throws io.partita.protocol.error.ApiException {@code TableAlreadyExistsException} for a table of that name; a
     *     {@code ValidationException} for a deleted table of that name kept whole in a group (for its backups, or
     *     closing), as a restore of a whole table refuses it; a 503 when the source's (or backup's) record changed, or
     *     the records cannot be read or written now
     */
    private Runnable placeCutRestore(String account, String name, String source, String backup, TableRanges ranges) {
        String key = TABLE_RECORD + account + "/" + name;
        try {
            for (int attempt = 0; ; attempt++) {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                Object[] read = membersReplica.unlessInstalling(store -> new Object[] {
                    meta(store, key),
                    tableGroupOf(store, account, name),
                    java.util.Optional.ofNullable(
                            backup == null
                                    ? tableRangesOf(store, account, source)
                                    : backupRangesOf(store, account, backup))
                });
                if (read == null) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "a checkpoint replaces this node's replica of the records", null, false);
                }
                @SuppressWarnings("unchecked")
                TableRanges now = ((java.util.Optional<TableRanges>) read[2]).orElse(null);
                if (now == null
                        || !now.live()
                        || now.moving() != null
                        || !now.groups().equals(ranges.groups())
                        || !java.util.Arrays.equals(now.starts(), ranges.starts())) {
                    throw new io.partita.storage.StorageUnavailableException(
                            (backup == null ? "table " + source : "backup " + backup) + "'s record changed meanwhile",
                            null,
                            false);
                }
                byte[] was = (byte[]) read[0];
                boolean there = read[1] != null; // a record whose group is gone counts as none
                if (there) {
                    com.fasterxml.jackson.databind.JsonNode old = JSON.readTree(was);
                    TableRanges deleted = TableRanges.of(old);
                    if (old.path("live").asBoolean(false)) {
                        throw alreadyExists(name);
                    }
                    if (deleted == null) {
                        throw io.partita.protocol.error.ApiException.validation("A deleted table " + name + " is"
                                + " still recorded in another Raft group (--cluster-table-groups), kept for its"
                                + " backups or closing: restore into another name, or delete its backups and try"
                                + " again in a minute");
                    }
                    if (deleted.moving() != null) {
                        throw new io.partita.storage.StorageUnavailableException(
                                "a move of the deleted table's range is ending", null, false);
                    }
                }
                com.fasterxml.jackson.databind.node.ObjectNode record = (com.fasterxml.jackson.databind.node.ObjectNode)
                        JSON.readTree(tableRecord(ranges.groups().get(0), true, System.currentTimeMillis()));
                record.put("key", ranges.key()).put(RESTORED, true);
                record.set("ranges", new TableRanges(ranges.key(), ranges.starts(), ranges.groups(), true).toJson());
                byte[] placed = JSON.writeValueAsBytes(record);
                byte[] after = membersGroup.recordIf(membersReplica, key, was, placed, RECORD_TIME);
                if (java.util.Arrays.equals(after, placed)) {
                    log.info(
                            "node {} placed table {} of account {}, restored from {}, in the {} groups of its ranges",
                            nodeId(),
                            name,
                            account,
                            backup == null ? source : "backup " + backup,
                            ranges.groups().size());
                    byte[] back = there ? was : null; // a record whose group is gone is not put back
                    return () -> {
                        try {
                            membersGroup.recordIf(membersReplica, key, placed, back, RECORD_TIME);
                        } catch (RuntimeException e) {
                            // Its first group's leader makes it not live, and then removes it (collect).
                            log.warn(
                                    "node {} could not take back the record of table {}: {}",
                                    nodeId(),
                                    name,
                                    e.toString());
                        }
                    };
                }
                if (attempt >= 2) {
                    throw alreadyExists(name); // placed by another request meanwhile
                }
            }
        } catch (IOException | io.partita.storage.StorageUnavailableException e) {
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "the cluster could not record where table " + name + " goes (try again): " + e.getMessage());
        }
    }

    /**
     * In a table's record: a table restored into the groups of its source's ranges ({@link #placeCutRestore}), which
     * keeps its ranges.
     */
    private static final String RESTORED = "restored";

    static io.partita.protocol.error.ApiException alreadyExists(String name) {
        return new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.TABLE_ALREADY_EXISTS, "Table already exists: " + name);
    }

    /** A table's record: its group, whether it is there now ({@code live}), and since when it is placed. */
    private static byte[] tableRecord(UUID group, boolean live, long placedAt) throws IOException {
        return JSON.writeValueAsBytes(JSON.createObjectNode()
                .put("group", group.toString())
                .put("live", live)
                .put("at", placedAt));
    }

    /** Table record {@code was} with {@code live} as given: its group, ranges and time as they were. */
    private static byte[] withLive(byte[] was, boolean live) throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode r =
                (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(was);
        r.put("live", live);
        return JSON.writeValueAsBytes(r);
    }

    /**
     * The hash ranges of table {@code name} of {@code account}, when its partitions are groups of their own ({@code
     * --cluster-partition-groups}), as the members' group's store {@code records} (this node's replica) has them; or
     * null for a table in one group, or none.
     */
    private static TableRanges tableRangesOf(RocksStore records, String account, String name) {
        byte[] r = meta(records, TABLE_RECORD + account + "/" + name);
        if (r == null) {
            return null;
        }
        try {
            TableRanges ranges = TableRanges.of(JSON.readTree(r));
            // A table's record whose first group is gone (a close that stopped between the two): placed anew when made.
            return ranges == null
                            || meta(records, GROUP_RECORD + ranges.groups().get(0)) == null
                    ? null
                    : ranges;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Where the members' group records which groups hold the parts of a backup of a table cut by ranges ({@link
     * BackupSpread}), by account and backup id ({@code <account>/<id>}): the table's name, its partition key, and the
     * ranges each group backed up.
     */
    private static final String BACKUP_RECORD = "cluster/backup/";

    /** The operations that name a backup by its ARN. */
    private static final Set<String> NAMES_BACKUP =
            Set.of(BackupSpread.DESCRIBE, BackupSpread.DELETE, BackupSpread.RESTORE);

    /**
     * A backup's record ({@link #BACKUP_RECORD}), as read: its ARN, the ranges of its parts and the groups that hold
     * them, and the whole record.
     */
    private record BackupRecord(String arn, TableRanges ranges, com.fasterxml.jackson.databind.node.ObjectNode json) {}

    /** Backup {@code id} of {@code account}'s record, as {@code records} has it; null for none (or unreadable). */
    private static BackupRecord backupOf(RocksStore records, String account, String id) {
        byte[] r = meta(records, BACKUP_RECORD + account + "/" + id);
        try {
            if (r == null || !(JSON.readTree(r) instanceof com.fasterxml.jackson.databind.node.ObjectNode json)) {
                return null;
            }
            TableRanges ranges = TableRanges.of(json);
            return ranges == null ? null : new BackupRecord(json.path("arn").asText(""), ranges, json);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The ranges of the parts of backup {@code id} of {@code account} as {@code records} has them, or null. */
    private static TableRanges backupRangesOf(RocksStore records, String account, String id) {
        BackupRecord b = backupOf(records, account, id);
        return b == null ? null : b.ranges();
    }

    /** The {@code BackupArn} of JSON request {@code body}, or null for a body that names none. */
    private static String backupArnOf(java.io.InputStream body) {
        try {
            com.fasterxml.jackson.databind.JsonNode arn = JSON.readTree(body).path("BackupArn");
            return arn.isTextual() ? arn.asText() : null;
        } catch (IOException | RuntimeException malformed) {
            return null;
        }
    }

    /** The id in backup ARN {@code arn} ({@code …/backup/<id>}), or null. */
    private static String backupIdOf(String arn) {
        int at = arn == null ? -1 : arn.lastIndexOf("/backup/");
        return at < 0 || at + "/backup/".length() == arn.length() ? null : arn.substring(at + "/backup/".length());
    }

    /**
     * Where a DescribeBackup, DeleteBackup or RestoreTableFromBackup goes in a cluster with a group per table, or null
     * for any other request. A client's runs from here ({@link #runBackup}), which looks, after a barrier, for a
     * backup of a table cut by ranges (one the members' group records: {@link BackupSpread}). A share names its
     * group: a DescribeBackup or DeleteBackup is served in any group of the account this node knows (it reads or
     * deletes that group's part, or backup, alone), a restore's share of such a backup only in a group its record
     * names (any other request by its tables, as any).
     */
    private Routed backupRouted(io.netty.handler.codec.http.FullHttpRequest request, String target, Group home) {
        if (!NAMES_BACKUP.contains(target)) {
            return null;
        }
        UUID named = chosenGroup(request);
        Group known = named == null ? null : tableGroups.get(named);
        if (known != null && known.account.equals(home.account) && !target.equals(BackupSpread.RESTORE)) {
            return new Routed(known, null);
        }
        if (named != null) {
            String id = backupIdOf(backupArnOf(
                    new io.netty.buffer.ByteBufInputStream(request.content().duplicate())));
            java.util.Optional<TableRanges> parts = id == null
                    ? java.util.Optional.empty()
                    : membersReplica.unlessInstalling(
                            store -> java.util.Optional.ofNullable(backupRangesOf(store, home.account, id)));
            if (parts == null) {
                return new Routed(null, null); // a checkpoint replaces the records this moment: it waits
            }
            if (parts.isEmpty()
                    && target.equals(BackupSpread.RESTORE)
                    && request.headers().contains(io.partita.server.op.CutTables.HEADER)) {
                // A share of a restore of a backup whose record this node has not applied yet: it waits (503 after a
                // while, sent again), never taken for a restore of a table cut by ranges and refused as not cut yet.
                nudge();
                return new Routed(null, null);
            }
            if (parts.isEmpty() || !parts.get().groups().contains(named)) {
                return null;
            }
            if (known == null) {
                nudge(); // recorded, and not known to this node yet
                return new Routed(null, null);
            }
            return known.account.equals(home.account) ? new Routed(known, null) : null;
        }
        boolean whole = request.method().equals(io.netty.handler.codec.http.HttpMethod.POST)
                && !io.partita.server.admin.AdminRoutes.handles(request.uri())
                && !request.headers().contains(ClusterRouter.FORWARDED);
        return whole ? new Routed(null, null, true) : null;
    }

    /**
     * Runs a client's DescribeBackup, DeleteBackup or RestoreTableFromBackup from here; null for any other request.
     * After a barrier through the members' group (a backup recorded through another node a moment ago is seen), a
     * backup of a table cut by ranges goes over the groups of its parts that are still there ({@link BackupSpread}),
     * once the request's ARN is its record's (else {@code BackupNotFoundException}, as a single node answers an ARN
     * that is not its backup's); any other backup's DescribeBackup or DeleteBackup goes to its table's group (or the
     * account's), a RestoreTableFromBackup on to {@link #runRestore}.
     */
    private java.util.concurrent.CompletableFuture<ClusterRouter.Reply> runBackup(
            ClusterRouter.Sent request, io.partita.server.auth.Credentials caller, String target) {
        if (!NAMES_BACKUP.contains(target)) {
            return null;
        }
        String arn = backupArnOf(new java.io.ByteArrayInputStream(request.body()));
        String id = backupIdOf(arn);
        String table = TableRoute.tableOfArn(arn);
        String account = caller.accountId();
        Object[] read;
        try {
            byte[] never = {0};
            membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
            read = membersReplica.unlessInstalling(store -> {
                BackupRecord b = id == null ? null : backupOf(store, account, id);
                List<UUID> held = new java.util.ArrayList<>();
                if (b != null) {
                    for (UUID g : b.ranges().groups()) {
                        if (meta(store, GROUP_RECORD + g) != null) {
                            held.add(g); // a group closed held no part
                        }
                    }
                }
                UUID own = table == null ? null : tableGroupOf(store, account, table);
                return new Object[] {java.util.Optional.ofNullable(b), held, java.util.Optional.ofNullable(own)};
            });
        } catch (RuntimeException e) {
            read = null;
        }
        if (read == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    BatchSpread.unavailable("the cluster's record of the backups cannot be read now; send it again"));
        }
        @SuppressWarnings("unchecked")
        BackupRecord b = ((java.util.Optional<BackupRecord>) read[0]).orElse(null);
        @SuppressWarnings("unchecked")
        List<UUID> held = (List<UUID>) read[1];
        if (b == null) {
            if (target.equals(BackupSpread.RESTORE)) {
                return null;
            }
            @SuppressWarnings("unchecked")
            UUID own = ((java.util.Optional<UUID>) read[2]).orElse(HOME);
            return sendTo(request, caller, own, target, request.body());
        }
        BackupSpread.Records records = backupRecords(caller);
        io.partita.protocol.error.ApiException notFound = new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.BACKUP_NOT_FOUND, "Backup not found: " + arn);
        if (!backupArn(caller, b.json().path("table").asText(), id).equals(arn)) {
            return refused(notFound); // another table's, account's or region's ARN, as a single node refuses it
        }
        if (held.isEmpty()) {
            try {
                records.forget(id); // every part's group is gone, and its part with it
            } catch (RuntimeException e) {
                log.warn("node {} could not remove the record of backup {}: {}", nodeId(), id, e.toString());
            }
            return refused(notFound);
        }
        boolean deleting = b.json().path("state").asText().equals(BACKUP_DELETING);
        RestoreSpread.Sender sender =
                (group, shareTarget, body, mark) -> sendTo(request, caller, group, shareTarget, body, mark);
        return switch (target) {
            case BackupSpread.DESCRIBE ->
                deleting ? refused(notFound) : BackupSpread.describe(request.body(), held, sender);
            case BackupSpread.DELETE -> BackupSpread.delete(request.body(), id, held, sender, records, batches);
            default ->
                deleting || held.size() < b.ranges().groups().size()
                        ? refused(notFound)
                        : BackupSpread.restore(request.body(), id, b.ranges(), sender, records, batches);
        };
    }

    /**
     * Backup {@code id} of table {@code table}'s ARN as {@code caller} names it (its account's, in its region), as a
     * single node names a backup (its own region's).
     */
    private static String backupArn(io.partita.server.auth.Credentials caller, String table, String id) {
        return "arn:aws:dynamodb:" + caller.region() + ":" + caller.accountId() + ":table/" + table + "/backup/" + id;
    }

    /**
     * Record {@code key} as this node's replica of the members' group has it, or null for none.
     *
     * @throws io.partita.storage.StorageUnavailableException a checkpoint replaces the replica this moment
     */
    private byte[] recordedNow(String key) {
        java.util.Optional<byte[]> read =
                membersReplica.unlessInstalling(store -> java.util.Optional.ofNullable(meta(store, key)));
        if (read == null) {
            throw new io.partita.storage.StorageUnavailableException(
                    "a checkpoint replaces this node's replica of the records", null, false);
        }
        return read.orElse(null);
    }

    /** The states of a backup's record ({@link BackupSpread.Records}); one made is {@code available}. */
    private static final String BACKUP_CREATING = "creating";

    private static final String BACKUP_DELETING = "deleting";

    /**
     * The cluster's records as {@link BackupSpread} needs them, for {@code caller}'s backups (its account's, the ARN
     * of a new one in its region, as a single node names it).
     */
    private BackupSpread.Records backupRecords(io.partita.server.auth.Credentials caller) {
        String account = caller.accountId();
        return new BackupSpread.Records() {
            @Override
            public Runnable record(String id, String table, TableRanges ranges) {
                String key = BACKUP_RECORD + account + "/" + id;
                try {
                    if (!unchanged(table, ranges)) {
                        throw new io.partita.storage.StorageUnavailableException(
                                "table " + table + "'s record changed meanwhile", null, false);
                    }
                    com.fasterxml.jackson.databind.node.ObjectNode json = JSON.createObjectNode()
                            .put("table", table)
                            .put("arn", backupArn(caller, table, id))
                            .put("key", ranges.key())
                            .put("state", BACKUP_CREATING)
                            .put("at", System.currentTimeMillis());
                    json.set("ranges", ranges.toJson());
                    byte[] value = JSON.writeValueAsBytes(json);
                    byte[] now = membersGroup.recordIf(membersReplica, key, null, value, RECORD_TIME);
                    if (!java.util.Arrays.equals(now, value)) {
                        throw new io.partita.storage.StorageUnavailableException(
                                "backup " + id + " is recorded already", null, false);
                    }
                    return () -> {
                        try {
                            forget(id);
                        } catch (RuntimeException e) {
                            log.warn(
                                    "node {} could not take back the record of backup {}: {}",
                                    nodeId(),
                                    id,
                                    e.toString());
                        }
                    };
                } catch (IOException | io.partita.storage.StorageUnavailableException e) {
                    throw new io.partita.protocol.error.ApiException(
                            io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                            "the cluster could not record the backup of table " + table + " (try again): "
                                    + e.getMessage());
                }
            }

            @Override
            public boolean unchanged(String table, TableRanges ranges) {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                java.util.Optional<TableRanges> read = membersReplica.unlessInstalling(
                        store -> java.util.Optional.ofNullable(tableRangesOf(store, account, table)));
                if (read == null) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "a checkpoint replaces this node's replica of the records", null, false);
                }
                TableRanges now = read.orElse(null);
                return now != null
                        && now.live()
                        && now.moving() == null
                        && now.groups().equals(ranges.groups())
                        && java.util.Arrays.equals(now.starts(), ranges.starts());
            }

            @Override
            public boolean made(String id) {
                return Boolean.TRUE.equals(changeBackup(account, id, json -> {
                    if (!json.path("state").asText().equals(BACKUP_CREATING)) {
                        return null;
                    }
                    return json.put("state", "available").put("at", System.currentTimeMillis());
                }));
            }

            @Override
            public void deleting(String id, String arn) {
                Boolean found = changeBackup(account, id, json -> {
                    if (busy(json, BACKUP_CREATING)) {
                        throw new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.BACKUP_IN_USE, "Backup is being created: " + arn);
                    }
                    com.fasterxml.jackson.databind.JsonNode restoring = json.path("restoring");
                    if (System.currentTimeMillis() - restoring.path("at").asLong(0) < BackupSpread.BUSY_MILLIS) {
                        // As a single node refuses it (DeleteBackupHandler): the restored table's ARN.
                        throw new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.BACKUP_IN_USE,
                                "Backup is being used to restore table: "
                                        + arn.substring(0, arn.indexOf(":table/") + ":table/".length())
                                        + restoring.path("table").asText());
                    }
                    return json.put("state", BACKUP_DELETING).put("at", System.currentTimeMillis());
                });
                if (found == null) {
                    throw new io.partita.protocol.error.ApiException(
                            io.partita.protocol.error.ErrorCode.BACKUP_NOT_FOUND, "Backup not found: " + arn);
                }
            }

            @Override
            public void forget(String id) {
                String key = BACKUP_RECORD + account + "/" + id;
                byte[] was = recordedNow(key);
                // A compare-and-set over what this node's replica has: one behind answers what the record is now.
                for (int attempt = 0; was != null && attempt < 3; attempt++) {
                    was = membersGroup.recordIf(membersReplica, key, was, null, RECORD_TIME);
                }
                if (was != null) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "backup " + id + "'s record changes meanwhile", null, false);
                }
            }

            @Override
            public Runnable place(String name, String id, TableRanges ranges) {
                Boolean found = changeBackup(account, id, json -> {
                    String arn = backupArn(caller, json.path("table").asText(), id);
                    if (json.path("state").asText().equals(BACKUP_DELETING)) {
                        throw new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.BACKUP_NOT_FOUND, "Backup not found: " + arn);
                    }
                    if (busy(json, BACKUP_CREATING)) {
                        throw new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.BACKUP_IN_USE, "Backup is being created: " + arn);
                    }
                    if (System.currentTimeMillis()
                                    - json.path("restoring").path("at").asLong(0)
                            < BackupSpread.BUSY_MILLIS) {
                        // As a single node refuses a second restore of one backup (RestoreTableFromBackupHandler).
                        throw new io.partita.protocol.error.ApiException(
                                io.partita.protocol.error.ErrorCode.BACKUP_IN_USE,
                                "Backup is being used to restore another table: " + arn);
                    }
                    json.putObject("restoring").put("table", name).put("at", System.currentTimeMillis());
                    return json;
                });
                if (found == null) {
                    throw new io.partita.protocol.error.ApiException(
                            io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                            "backup " + id + "'s record changed meanwhile: try again");
                }
                try {
                    return placeCutRestore(account, name, null, id, ranges);
                } catch (RuntimeException e) {
                    try {
                        restored(id);
                    } catch (RuntimeException taking) {
                        e.addSuppressed(taking); // the mark is heeded no longer after BUSY_MILLIS
                    }
                    throw e;
                }
            }

            @Override
            public void restored(String id) {
                changeBackup(account, id, json -> json.remove("restoring") == null ? null : json);
            }
        };
    }

    /**
     * Whether backup record {@code json} is in state {@code state}, since less than {@link BackupSpread#BUSY_MILLIS}.
     */
    private static boolean busy(com.fasterxml.jackson.databind.node.ObjectNode json, String state) {
        return json.path("state").asText().equals(state)
                && System.currentTimeMillis() - json.path("at").asLong(0) < BackupSpread.BUSY_MILLIS;
    }

    /**
     * Changes the record of backup {@code id} of {@code account} as {@code change} makes it of the record as it is
     * (null: no change), a compare-and-set through the members' group, tried again over what it answers while another
     * change gets in between (three times at most). Null when there is no record; else whether it changed.
     *
     * @throws io.partita.protocol.error.ApiException what {@code change} throws; a 503 when the records cannot be
     *     written now
     */
    private Boolean changeBackup(
            String account,
            String id,
            java.util.function.UnaryOperator<com.fasterxml.jackson.databind.node.ObjectNode> change) {
        String key = BACKUP_RECORD + account + "/" + id;
        try {
            byte[] was = recordedNow(key);
            for (int attempt = 0; attempt < 3; attempt++) {
                if (was == null) {
                    return null;
                }
                com.fasterxml.jackson.databind.node.ObjectNode changed =
                        change.apply((com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(was));
                if (changed == null) {
                    return false;
                }
                byte[] value = JSON.writeValueAsBytes(changed);
                byte[] now = membersGroup.recordIf(membersReplica, key, was, value, RECORD_TIME);
                if (java.util.Arrays.equals(now, value)) {
                    return true;
                }
                was = now;
            }
            throw new io.partita.storage.StorageUnavailableException(
                    "backup " + id + "'s record changes meanwhile", null, false);
        } catch (IOException | RuntimeException e) {
            if (e instanceof io.partita.protocol.error.ApiException refusal) {
                throw refusal;
            }
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "the cluster could not change the record of backup " + id + " (try again): " + e.getMessage());
        }
    }

    /**
     * The group table {@code name} of {@code account} is in, as the members' group's store {@code records} (this node's
     * replica) has it; or null. For a table whose partitions are groups of their own, its first range's.
     */
    private static UUID tableGroupOf(RocksStore records, String account, String name) {
        byte[] r = meta(records, TABLE_RECORD + account + "/" + name);
        if (r == null) {
            return null;
        }
        try {
            UUID id = UUID.fromString(JSON.readTree(r).get("group").asText());
            // A table's record whose group is gone (a close that stopped between the two): placed anew when made.
            return meta(records, GROUP_RECORD + id) == null ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Record {@code key} of the members' group's store {@code records}, read as given (by {@link
     * ReplicaStore#unlessInstalling}, so no checkpoint replaces the store while the reads go on).
     */
    private static byte[] meta(RocksStore records, String key) {
        return records.get(records.family(RocksStore.META), key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The tables of {@code account} in groups of their own that are there now ({@code live}), in order: for
     * ListTables. First a compare-and-set that changes nothing through the members' group, so this node's replica has
     * every record committed before (a table placed through another node a moment ago included).
     */
    private java.util.SortedSet<String> tableNames(String account) {
        byte[] never = {0};
        try {
            membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
            java.util.SortedSet<String> out = new java.util.TreeSet<>();
            String prefix = TABLE_RECORD + account + "/";
            java.util.SortedMap<String, byte[]> tables = membersReplica.recordedUnder(prefix);
            if (tables == null) {
                throw new io.partita.storage.StorageUnavailableException(
                        "a checkpoint replaces this node's replica of the records", null, false);
            }
            for (var e : tables.entrySet()) {
                if (JSON.readTree(e.getValue()).get("live").asBoolean()) {
                    out.add(e.getKey().substring(prefix.length()));
                }
            }
            return out;
        } catch (IOException | io.partita.storage.StorageUnavailableException e) {
            throw new io.partita.protocol.error.ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "the cluster's record of the tables cannot be read now (try again): " + e.getMessage());
        }
    }

    /** What a server of group {@code g} asks before it makes a table ({@link TablePlacement}). */
    private final class Placing implements TablePlacement {
        private final Group g;

        Placing(Group g) {
            this.g = g;
        }

        @Override
        public Placed place(String account, String name, io.partita.server.op.table.TablePlacement.Layout layout) {
            if (g.table != null) {
                return placedHere(account, name, layout);
            }
            g.naming.lock();
            try {
                PartitaServer own = g.serving;
                // Restored here meanwhile, or being restored: made here, or refused as any table that exists.
                if (g.restoring.contains(name)
                        || (own != null && own.storage().tables().find(name) != null)) {
                    return Placed.HERE;
                }
                placeTable(account, name, layout);
                return Placed.ELSEWHERE;
            } finally {
                g.naming.unlock();
            }
        }

        /**
         * Before this table's group makes table {@code name} of {@code account}: after a barrier through the members'
         * group, the table's record must name this group, as its group, or, live, as one of its ranges' with the
         * partition key and the cut {@code layout} gives; else a 503. A node that sent the CreateTable here had not
         * applied a newer record (the name deleted and placed anew meanwhile): sent again, it goes where the table is
         * placed now, and a deleted table's groups never make a table of another definition. The table is made here
         * whole, or, as one of its ranges, holding the items of that range alone ({@link TableRanges#rangeOf}).
         */
        private Placed placedHere(
                String account, String name, io.partita.server.op.table.TablePlacement.Layout layout) {
            boolean here;
            TableRanges ranges = null;
            try {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                byte[] r = membersReplica.recorded(TABLE_RECORD + account + "/" + name);
                com.fasterxml.jackson.databind.JsonNode record = r == null ? null : JSON.readTree(r);
                ranges = record == null ? null : TableRanges.of(record);
                // A whole table's record may be not live: a table deleted here and made again (its group kept for its
                // backups, or not closed yet), which collect then records live again.
                here = record != null
                        && (ranges == null
                                ? record.path("group").asText().equals(g.id.toString())
                                : ranges.live()
                                        && ranges.has(g.id)
                                        && layout.partitionKey() != null
                                        && ranges.key().equals(layout.partitionKey()));
            } catch (IOException | RuntimeException e) {
                here = false;
            }
            if (!here) {
                throw new io.partita.protocol.error.ApiException(
                        io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                        "table " + name + " is not placed in this Raft group now (its record changed): try again");
            }
            return ranges == null ? Placed.HERE : new Placed(false, ranges.rangeOf(g.id));
        }

        @Override
        public <T> T makeHere(String name, java.util.function.Supplier<T> make) {
            if (g.table == null) {
                return make.get(); // a table of the account's group, made before it had table groups: refused there
            }
            java.util.concurrent.locks.Lock making = g.fence.readLock();
            making.lock();
            try {
                ReplicaStore replica = g.replica;
                if (g.closing || replica == null || replica.marked(CLOSED) != null) {
                    throw new io.partita.protocol.error.ApiException(
                            io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                            "table " + name + "'s group is closing, empty: try again in a moment");
                }
                return make.get();
            } finally {
                making.unlock();
            }
        }

        @Override
        public <T> T restoreHere(String account, String name, java.util.function.Supplier<T> restore) {
            if (g.table == null) {
                // The account's own group: its tables are those no record names. The name is reserved under the lock
                // CreateTable places a new name elsewhere under, so the two never make one name in two groups through
                // this leader; a CreateTable meanwhile is made, or refused, here.
                g.naming.lock();
                try {
                    placeRestored(account, name);
                    if (!g.restoring.add(name)) {
                        throw alreadyExists(name);
                    }
                } finally {
                    g.naming.unlock();
                }
                try {
                    return restore.get();
                } finally {
                    g.restoring.remove(name);
                }
            }
            Runnable undo = placeRestored(account, name);
            try {
                return makeHere(name, restore);
            } catch (io.partita.protocol.error.ApiException e) {
                PartitaServer own = g.serving;
                if (e.code().httpStatus() < 500
                        && own != null
                        && own.storage().tables().find(name) == null) {
                    undo.run(); // refused, nothing made (the backup in use, say): the name is free again
                }
                throw e; // else the outcome may be unknown: collect makes the record say what is there
            }
        }

        /**
         * Checks that the account has no table {@code name} in another group, after a barrier through the members'
         * group, and on a table's group records it there (a compare-and-set); returns what takes that record back.
         */
        private Runnable placeRestored(String account, String name) {
            for (int attempt = 0; ; attempt++) {
                Runnable undo = placeRestoredOnce(account, name, attempt < 2);
                if (undo != null) {
                    return undo;
                }
            }
        }

        /**
         * One attempt of {@link #placeRestored}: null when the record changed between the look and the
         * compare-and-set and {@code again} (a record taken away by collect, say), to look again.
         */
        private Runnable placeRestoredOnce(String account, String name, boolean again) {
            String key = TABLE_RECORD + account + "/" + name;
            try {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                Object[] read = membersReplica.unlessInstalling(
                        store -> new Object[] {meta(store, key), tableGroupOf(store, account, name)});
                if (read == null) {
                    throw new io.partita.storage.StorageUnavailableException(
                            "a checkpoint replaces this node's replica of the records", null, false);
                }
                byte[] was = (byte[]) read[0];
                UUID in = (UUID) read[1];
                if (in != null && JSON.readTree(was).get("live").asBoolean()) {
                    throw alreadyExists(name);
                }
                if (in != null && !in.equals(g.id)) {
                    throw io.partita.protocol.error.ApiException.validation("A deleted table " + name + " is still"
                            + " recorded in another Raft group (--cluster-table-groups), kept for its backups or"
                            + " closing: restore into another name, or delete its backups and try again in a minute");
                }
                if (g.table == null) {
                    return () -> {};
                }
                byte[] table = tableRecord(g.id, true, System.currentTimeMillis());
                g.held.remove(name); // a table of that name deleted here before: not taken for gone while restored
                if (!java.util.Arrays.equals(
                        membersGroup.recordIf(membersReplica, key, was, table, RECORD_TIME), table)) {
                    if (again) {
                        return null; // changed meanwhile: looked at again
                    }
                    throw alreadyExists(name); // placed by another request meanwhile
                }
                log.info("node {} placed restored table {} of account {} in {}", nodeId(), name, account, g.name());
                return () -> {
                    try {
                        membersGroup.recordIf(membersReplica, key, table, was, RECORD_TIME);
                    } catch (RuntimeException e) {
                        // The leader's pass makes it not live within a while (collect).
                        log.warn(
                                "node {} could not take back the record of table {}: {}", nodeId(), name, e.toString());
                    }
                };
            } catch (IOException | io.partita.storage.StorageUnavailableException e) {
                throw new io.partita.protocol.error.ApiException(
                        io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                        "the cluster could not record where table " + name + " goes (try again): " + e.getMessage());
            }
        }

        @Override
        public void deleted(String account, String name) {
            if (g.table != null) {
                markGone(g, account, name);
            }
        }

        @Override
        public java.util.SortedSet<String> names(String account) {
            return g.table == null ? tableNames(account) : new java.util.TreeSet<>();
        }
    }

    /**
     * Records that table {@code name} of {@code account}, in table group {@code g}, is no longer there: its record,
     * when it names {@code g}, no longer {@code live}. A failure is logged: {@link #collect} makes it within a second.
     */
    private void markGone(Group g, String account, String name) {
        String key = TABLE_RECORD + account + "/" + name;
        try {
            byte[] was = membersReplica.recorded(key);
            if (was == null) {
                return;
            }
            com.fasterxml.jackson.databind.JsonNode r = JSON.readTree(was);
            if (r.get("group").asText().equals(g.id.toString()) && r.get("live").asBoolean()) {
                membersGroup.recordIf(membersReplica, key, was, withLive(was, false), RECORD_TIME);
            }
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "node {} could not record that table {} is deleted (its group's leader does soon): {}",
                    nodeId(),
                    name,
                    e.toString());
        }
    }

    /**
     * As the leader of group {@code g}, every second, from the mover: ends the parts of transactions over several
     * groups ({@link TransactWriteSpread}) prepared here whose {@code Deadline} has passed, their coordinator gone or
     * late. A part of the deciding group is aborted (its decision ABORTED: a late commit finds it); another asks the
     * deciding group to abort, which answers the decision it made, and commits or aborts its part as it says. Each
     * through the group's own server, on {@link #batches}; a part not ended (a group that does not answer) is tried
     * again a second later. Decisions older than a day are forgotten.
     */
    private void resolve(Group g) {
        PartitaServer own = g.serving;
        long now = System.currentTimeMillis();
        if (own == null || now - g.resolvedAt < 1_000) {
            return;
        }
        g.resolvedAt = now;
        io.partita.storage.write.PreparedTransactions prepared =
                own.storage().writes().prepared();
        prepared.forgetDecisions(now);
        List<io.partita.storage.write.PreparedTransactions.Part> parts = prepared.prepared();
        java.util.Set<String> ids = new java.util.HashSet<>();
        parts.forEach(p -> ids.add(p.id()));
        undecidable.entrySet().removeIf(e -> e.getValue().equals(g.id) && !ids.contains(e.getKey()));
        closedLookAt.keySet().retainAll(undecidable.keySet());
        for (io.partita.storage.write.PreparedTransactions.Part part : parts) {
            com.fasterxml.jackson.databind.JsonNode body;
            try {
                body = JSON.readTree(part.body());
            } catch (IOException e) {
                log.warn("node {} cannot read transaction {}'s part in {}", nodeId(), part.id(), g.name());
                continue;
            }
            if (body.path("Deadline").asLong() > now || !resolving.add(part.id())) {
                continue;
            }
            try {
                java.util.concurrent.CompletableFuture.runAsync(
                                () -> {
                                    try {
                                        resolveOne(g, part, body);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                        throw new java.util.concurrent.CompletionException(e);
                                    } catch (Exception e) {
                                        throw new java.util.concurrent.CompletionException(e);
                                    }
                                },
                                resolver)
                        .whenComplete((done, failed) -> {
                            resolving.remove(part.id());
                            if (failed != null) {
                                log.warn(
                                        "node {} could not end transaction {}'s part in {} (tried again soon): {}",
                                        nodeId(),
                                        part.id(),
                                        g.name(),
                                        failed.toString());
                            }
                        });
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                resolving.remove(part.id());
            }
        }
    }

    /**
     * As the leader of table group {@code g}, every pass of the mover: runs the move of part of its range to a new
     * group that its table's record names ({@link RangeMove}), on {@link #moves}, one at a time per group. The record
     * is read here from this node's replica; the move reads it again after a barrier.
     */
    private void moveRange(Group g) {
        PartitaServer own = g.serving;
        if (own == null || g.table == null || !cluster.partitionGroups() || movingFrom.contains(g.id)) {
            return;
        }
        String key = TABLE_RECORD + g.account + "/" + g.table;
        byte[] r = membersReplica.recorded(key);
        TableRanges ranges;
        try {
            ranges = r == null ? null : TableRanges.of(JSON.readTree(r));
        } catch (IOException | RuntimeException unreadable) {
            return;
        }
        if (ranges == null
                || ranges.moving() == null
                || !ranges.moving().source().equals(g.id)) {
            return;
        }
        io.partita.server.auth.Credentials caller = resolverCaller(g.account, "us-east-1");
        if (caller == null || !movingFrom.add(g.id)) {
            return; // strict mode, and the account has no key any more: nobody can ask for anything in its name
        }
        ClusterRouter.Sent asked = resolverRequest(caller);
        RangeMove.Records records = new RangeMove.Records() {
            @Override
            public byte[] read(String recordKey) {
                byte[] never = {0};
                membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                return membersReplica.recorded(recordKey);
            }

            @Override
            public byte[] recordIf(String recordKey, byte[] was, byte[] now) {
                return membersGroup.recordIf(membersReplica, recordKey, was, now, RECORD_TIME);
            }
        };
        RangeMove move = new RangeMove(
                g.table,
                key,
                g.id,
                own.storage(),
                records,
                (group, target, body) -> sendTo(asked, caller, group, target, body));
        onMoves(g, "move a part of", move::run, () -> {});
    }

    /** How often each range's leader reports what its table consumed to the table's other groups. */
    private static final long CHARGE_MILLIS = 500;

    static final String CHARGE_TABLE = io.partita.server.route.OperationRegistry.PARTITA_PREFIX + "ChargeTable";

    /**
     * What a range's leader on this node last reported of its table ({@link #reportConsumption}): the table's
     * cumulative consumption, and each global secondary index's by name.
     */
    private record Reported(Seen table, java.util.Map<String, Seen> indexes) {}

    /**
     * The cumulative read and write units of {@code counts} (a table's or an index's, in its store) when they were
     * read.
     */
    private record Seen(io.partita.storage.capacity.Consumption counts, double read, double write) {
        static Seen of(io.partita.storage.capacity.Consumption c) {
            return new Seen(c, c.consumedReadUnits(), c.consumedWriteUnits());
        }

        /**
         * The half units read and written since {@code last}, the look before: all of these counts' if that was of
         * other counts (a table or index made again, a change of billing mode, a new engine under a leader that came
         * back within a look), which came to be since; none at a first look (of a new leader, or a table newly cut),
         * which counts from here.
         */
        long[] since(Seen last) {
            if (last == null) {
                return new long[2];
            }
            return last.counts() != counts
                    ? new long[] {halves(read), halves(write)}
                    : new long[] {halves(read - last.read()), halves(write - last.write())};
        }
    }

    /**
     * A table's range in a group: a group holds its own table's range, and the same range of each table restored from
     * it ({@link RestoreSpread}).
     */
    private record RangeOf(UUID group, String table) {}

    /** By range this node leads: what it reported last. */
    private final java.util.Map<RangeOf, Reported> reported = new java.util.concurrent.ConcurrentHashMap<>();

    /** By range: whether its last reports are still on their way (the next waits, and carries theirs too). */
    private final java.util.Set<RangeOf> reporting = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * On the {@link #charges} thread, every {@link #CHARGE_MILLIS}: as the leader of each range of a table cut by
     * ranges (a group's own table's, and each table restored into its groups: {@link RangeOf}), tells every other group
     * of the table what this range consumed of it since the last report (of the table, and of each global secondary
     * index), {@code Partita.ChargeTable} (docs/CLUSTER.md, "Capacity over ranges"). Each group has the budgets of the
     * whole table and of each whole index, charged its own consumption as it happens and the others' as they report it:
     * a hot key in one range may use the table's unused capacity, and the ranges together no more than the table's. A
     * report lost (a group without a leader a moment) is not sent again: its units go uncharged there. A leader's first
     * look at a range (a new leader, a table newly cut) reports nothing, and counts from there; counts that changed
     * object since the last look are reported whole ({@link Seen#since}).
     */
    private void reportConsumption() {
        while (!closed) {
            java.util.Set<UUID> ids = new java.util.HashSet<>();
            for (Group g : all()) {
                ids.add(g.id);
                try {
                    reportConsumption(g);
                } catch (RuntimeException e) {
                    log.debug("node {} could not report the consumption of {}", nodeId(), g.name(), e);
                }
            }
            reported.keySet().removeIf(r -> !ids.contains(r.group())); // a group closed, or taken off this node
            try {
                Thread.sleep(CHARGE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void reportConsumption(Group g) {
        PartitaServer own = g.serving;
        List<String> names = own == null || g.table == null
                ? List.of()
                : own.storage().tables().names();
        // Not led here (any more), or a table gone from the group: counted anew from a first look.
        reported.keySet().removeIf(r -> r.group().equals(g.id) && !names.contains(r.table()));
        for (String table : names) {
            reportConsumption(g, own, new RangeOf(g.id, table));
        }
    }

    /** {@link #reportConsumption(Group)} of one table's {@code range} in group {@code g}, served by {@code own}. */
    private void reportConsumption(Group g, PartitaServer own, RangeOf range) {
        if (reporting.contains(range)) {
            return;
        }
        byte[] r = membersReplica.recorded(TABLE_RECORD + g.account + "/" + range.table());
        TableRanges ranges;
        try {
            ranges = r == null ? null : TableRanges.of(JSON.readTree(r));
        } catch (IOException | RuntimeException unreadable) {
            return;
        }
        io.partita.storage.table.TableCatalog.Table t = own.storage().tables().find(range.table());
        if (ranges == null
                || !ranges.live()
                || !ranges.has(g.id)
                || ranges.groups().size() < 2
                || t == null
                || t.metadata().hashRange() == null) {
            reported.remove(range);
            return;
        }
        io.partita.storage.capacity.TableThroughput throughput = t.partitions().throughput();
        java.util.Map<String, Seen> indexes = new java.util.TreeMap<>();
        java.util.Map<String, io.partita.storage.capacity.TableThroughput> indexThroughputs = new java.util.TreeMap<>();
        for (io.partita.storage.index.LiveIndex index : t.indexes().globals()) {
            if (index.partitions() != null) {
                io.partita.storage.capacity.TableThroughput it =
                        index.partitions().throughput();
                indexThroughputs.put(index.name(), it);
                indexes.put(index.name(), Seen.of(it.consumption()));
            }
        }
        Reported now = new Reported(Seen.of(throughput.consumption()), indexes);
        Reported last = reported.put(range, now); // whatever is sent, the next report counts from here
        long[] table = now.table().since(last == null ? null : last.table());
        com.fasterxml.jackson.databind.node.ObjectNode body = units(
                JSON.createObjectNode().put("TableName", range.table()).put("From", g.id.toString()),
                table,
                throughput);
        boolean any = table[0] > 0 || table[1] > 0;
        com.fasterxml.jackson.databind.node.ObjectNode perIndex = body.putObject("Indexes");
        for (var e : indexes.entrySet()) {
            Seen was = last == null ? null : last.indexes().get(e.getKey());
            // An index new since the last look: all of its counts (an index made meanwhile).
            long[] index = last != null && was == null
                    ? e.getValue().since(new Seen(null, 0, 0))
                    : e.getValue().since(was);
            if (index[0] > 0 || index[1] > 0) {
                any = true;
                units(perIndex.putObject(e.getKey()), index, indexThroughputs.get(e.getKey()));
            }
        }
        io.partita.server.auth.Credentials caller = any ? resolverCaller(g.account, "us-east-1") : null;
        if (caller == null) {
            return; // nothing consumed; or strict mode, and the account has no key any more to ask anything with
        }
        ClusterRouter.Sent asked = resolverRequest(caller);
        byte[] bytes = RangeSpread.bytes(body);
        List<java.util.concurrent.CompletableFuture<ClusterRouter.Reply>> sent = new java.util.ArrayList<>();
        for (UUID other : ranges.groups()) {
            if (!other.equals(g.id)) {
                sent.add(sendTo(asked, caller, other, CHARGE_TABLE, bytes));
            }
        }
        reporting.add(range);
        java.util.concurrent.CompletableFuture.allOf(sent.toArray(java.util.concurrent.CompletableFuture[]::new))
                .whenComplete((done, e) -> reporting.remove(range));
    }

    /**
     * {@code to} with the half units {@code consumed} (read, written) and the peaks of {@code throughput} (its own
     * highest one-second consumption: an on-demand table's rate follows every group's, summed).
     */
    private static com.fasterxml.jackson.databind.node.ObjectNode units(
            com.fasterxml.jackson.databind.node.ObjectNode to,
            long[] consumed,
            io.partita.storage.capacity.TableThroughput throughput) {
        double[] peaks = throughput.peaks();
        return to.put("ReadHalfUnits", consumed[0])
                .put("WriteHalfUnits", consumed[1])
                .put("ReadPeakHalfUnits", halves(peaks[0]))
                .put("WritePeakHalfUnits", halves(peaks[1]));
    }

    /** {@code units} (units consumed, or a peak) in half units, as a report carries them: none if negative. */
    private static long halves(double units) {
        return Math.max(0, Math.round(units * 2));
    }

    /** Work of a range's move on the {@link #moves} thread. */
    @FunctionalInterface
    private interface MoveWork {
        void run() throws Exception;
    }

    /**
     * Runs {@code work} for range group {@code g} on the {@link #moves} thread, {@code g} in {@link #movingFrom} (which
     * the caller added it to) until it ends; a failure is logged as what could not be done ({@code what} of {@code g}'s
     * range) and calls {@code failed}: the mover's next pass tries again.
     */
    private void onMoves(Group g, String what, MoveWork work, Runnable failed) {
        try {
            moves.execute(() -> {
                try {
                    work.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    failed.run();
                    log.warn(
                            "node {} could not {} {}'s range (tried again soon): {}",
                            nodeId(),
                            what,
                            g.name(),
                            e.toString());
                } finally {
                    movingFrom.remove(g.id);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            movingFrom.remove(g.id);
        }
    }

    /** Whether table record {@code recorded} is of a table restored into its source's groups ({@link #RESTORED}). */
    private static boolean recordedRestored(byte[] recorded) {
        try {
            return JSON.readTree(recorded).path(RESTORED).asBoolean(false);
        } catch (IOException e) {
            return true; // unreadable: not moved
        }
    }

    /** The groups whose range move runs on this node now ({@link #moveRange}). */
    private final java.util.Set<UUID> movingFrom = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * {@code POST /cluster/ranges}, on any node of a cluster with {@code --cluster-partition-groups}: {@code {"table":
     * "T", "split": i}} moves the upper half of table T's range {@code i} (in hash order, from 0) to a new Raft group
     * of its own ({@link RangeMove}), as a split of a DynamoDB partition makes two. In strict mode the request is
     * signed by a key of an account the credentials file lists in {@code clusterAdmins}, and names the table's {@code
     * "account"}. Records the move, then waits for it for up to two minutes: 200 with the table's ranges once it is
     * over; 202 while it goes on (its source group's leader finishes it, {@code GET /cluster} shows the new group); 400
     * for a request that cannot be made, 409 while another move of the table is under way or for a move given up.
     */
    ClusterRouter.Made splitRange(ClusterRouter.Sent request) {
        try {
            return splitRangeChecked(request);
        } catch (RuntimeException e) {
            // Not a refusal of the request's own (the members changing, this node stopping): nothing may have been
            // recorded, or the move may go on; GET /cluster shows which.
            return problem(503, "the move could not be recorded (try again): " + e);
        }
    }

    private ClusterRouter.Made splitRangeChecked(ClusterRouter.Sent request) {
        if (membersGroup == null || !cluster.partitionGroups()) {
            return problem(400, "a table's ranges are groups of their own with --cluster-partition-groups only");
        }
        AdminRequest asked = adminRequest(request, "move a table's range to a new Raft group");
        if (asked.refused() != null) {
            return asked.refused();
        }
        com.fasterxml.jackson.databind.JsonNode in = asked.body();
        if (in == null
                || !in.isObject()
                || !in.path("table").isTextual()
                || !in.path("split").isIntegralNumber()
                || !in.path("split").canConvertToInt()
                || (in.has("account") && !in.get("account").isTextual())
                || in.size() != (in.has("account") ? 3 : 2)) {
            return problem(
                    400,
                    "expected {\"table\": \"name\", \"split\": <the range's place, from 0>} (and in strict mode"
                            + " \"account\": \"<the table's account id>\")");
        }
        String account =
                in.has("account") ? in.get("account").asText() : io.partita.server.auth.Credentials.OPEN_ACCOUNT;
        if (accounts != null && !in.has("account")) {
            return problem(400, "strict mode: name the table's account (\"account\": \"<its id>\")");
        }
        if (accounts == null && !account.equals(io.partita.server.auth.Credentials.OPEN_ACCOUNT)) {
            return problem(400, "open mode has one account, " + io.partita.server.auth.Credentials.OPEN_ACCOUNT);
        }
        String table = in.get("table").asText();
        int split = in.get("split").asInt();
        String key = TABLE_RECORD + account + "/" + table;
        try {
            byte[] never = {0};
            membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
            byte[] was = membersReplica.recorded(key);
            com.fasterxml.jackson.databind.JsonNode record = was == null ? null : JSON.readTree(was);
            if (record == null || !record.path("live").asBoolean(false)) {
                return problem(400, "Requested resource not found: Table: " + table + " not found");
            }
            TableRanges r = TableRanges.of(record);
            if (r == null) {
                return problem(
                        400,
                        "table " + table + " is kept whole, in one group: only a table cut by hash ranges at its"
                                + " creation (--cluster-partition-groups) moves a range");
            }
            if (r.moving() != null) {
                return problem(409, "a move of a range of table " + table + " is under way: try again once it is over");
            }
            byte[] own = membersReplica.recorded(GROUP_RECORD + r.groups().get(0));
            if (record.path(RESTORED).asBoolean(false)
                    || own == null
                    || !JSON.readTree(own).path("table").asText().equals(table)) {
                // Restored into its source's groups (RestoreSpread): their leaders move their own table's ranges alone.
                return problem(
                        409,
                        "table " + table + " was restored into the Raft groups of its source's ranges, and keeps its"
                                + " ranges");
            }
            if (split < 0 || split >= r.groups().size()) {
                return problem(
                        400,
                        "table " + table + " has " + r.groups().size() + " ranges, 0 to "
                                + (r.groups().size() - 1) + ": there is no range " + split);
            }
            if (r.groups().size() >= MAX_MOVED_RANGES) {
                return problem(400, "table " + table + " has " + MAX_MOVED_RANGES + " ranges, the most it may have");
            }
            UUID source = r.groups().get(split);
            io.partita.storage.table.HashRange range = r.rangeOf(source);
            if (range.first() == range.last()) {
                return problem(400, "range " + split + " of table " + table + " holds one hash: it cannot be split");
            }
            long from = r.splitPoint(split);
            MoveRecorded recorded = recordMove(account, table, was, record, r, split, from);
            if (recorded.refused() != null) {
                return recorded.refused();
            }
            UUID id = recorded.id();
            long until = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
            while (System.nanoTime() < until) {
                Thread.sleep(200);
                byte[] seen = membersReplica.recorded(key);
                TableRanges after = seen == null ? null : TableRanges.of(JSON.readTree(seen));
                if (after == null || !after.live() || !after.has(id)) {
                    // Ended without the new group: the table deleted meanwhile, one with a stream or PITR, or
                    // stores that record no range.
                    return problem(
                            409,
                            "the move of table " + table + "'s range was given up: the table was deleted, it has a"
                                    + " stream or point-in-time recovery enabled (such a table keeps its ranges), or"
                                    + " its stores record no range (it was cut before 2026-12-07)");
                }
                if (after.moving() == null) {
                    com.fasterxml.jackson.databind.node.ObjectNode out =
                            JSON.createObjectNode().put("table", table);
                    out.set("ranges", after.toJson());
                    return new ClusterRouter.Made(200, out.toString());
                }
            }
            com.fasterxml.jackson.databind.node.ObjectNode out =
                    JSON.createObjectNode().put("table", table);
            out.set("moving", new TableRanges.Moving(from, id, source, false).toJson());
            return new ClusterRouter.Made(202, out.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return problem(503, "this node is stopping");
        } catch (IOException | io.partita.storage.StorageUnavailableException e) {
            return problem(503, "the cluster could not record the move (try again): " + e.getMessage());
        }
    }

    /** The most ranges a table's moves may cut it into. */
    static final int MAX_MOVED_RANGES = 64;

    /** A move recorded ({@link #recordMove}): its new group's id; or, when it was not, the answer that says why. */
    private record MoveRecorded(UUID id, ClusterRouter.Made refused) {}

    /**
     * Records, in the members' group, a move of table {@code table}'s hashes from {@code from} to the end of its range
     * {@code split} to a new group: the new group's record, placed as a new table's group is, then the table's record
     * {@code was} (read as {@code record}, its ranges {@code r}) with the move (a compare-and-set: the new group's
     * record is taken back when it fails). The source group's leader runs the move ({@link #moveRange}).
     */
    private MoveRecorded recordMove(
            String account,
            String table,
            byte[] was,
            com.fasterxml.jackson.databind.JsonNode record,
            TableRanges r,
            int split,
            long from)
            throws IOException {
        UUID id = UUID.randomUUID();
        UUID source = r.groups().get(split);
        java.util.SortedMap<String, byte[]> groupRecords = membersReplica.recordedUnder(GROUP_RECORD);
        if (groupRecords == null) {
            return new MoveRecorded(
                    null, problem(503, "a checkpoint replaces this node's replica of the records: try again"));
        }
        int place = groups.size() + groupRecords.size();
        com.fasterxml.jackson.databind.node.ArrayNode on =
                peersOf(io.partita.cluster.Placement.of(ids(membersGroup.members()), place, cluster.replicas()));
        if (on == null) {
            return new MoveRecorded(null, problem(503, "the members are changing: try again"));
        }
        com.fasterxml.jackson.databind.node.ObjectNode group = JSON.createObjectNode()
                .put("account", account)
                .put("table", table)
                .put("place", place)
                .put("range", split + 1);
        group.set("on", on);
        byte[] groupValue = JSON.writeValueAsBytes(group);
        membersGroup.recordIf(membersReplica, GROUP_RECORD + id, null, groupValue, RECORD_TIME);
        byte[] now = new TableRanges(
                        r.key(), r.starts(), r.groups(), true, new TableRanges.Moving(from, id, source, false))
                .into(record);
        String key = TABLE_RECORD + account + "/" + table;
        if (!java.util.Arrays.equals(membersGroup.recordIf(membersReplica, key, was, now, RECORD_TIME), now)) {
            membersGroup.recordIf(membersReplica, GROUP_RECORD + id, groupValue, null, RECORD_TIME);
            return new MoveRecorded(
                    null, problem(409, "table " + table + "'s record changed meanwhile: send it again"));
        }
        log.info(
                "node {}: table {}'s hashes from {} of range {} move to a new group {}",
                nodeId(),
                table,
                Long.toUnsignedString(from),
                split,
                id);
        nudge();
        return new MoveRecorded(id, null);
    }

    /**
     * As the leader of range group {@code g}, every pass of the mover, with {@link ClusterConfig#autoSplit}: once the
     * group's store has split a partition of the table inside the group's range (for its size, its heat, or a raise of
     * the table's throughput: {@code TablePartitions}), records a move of the range from that cut on to a new group
     * ({@link #recordMove}), as DynamoDB's split of a partition makes two; the move then runs as one asked for does
     * ({@link #moveRange}). Of several cuts, the highest: the others stay in the range, to move in turn. Not while a
     * move of the table is under way (the next pass looks again), nor past {@link #MAX_MOVED_RANGES}; after a move
     * that could not be recorded, not for {@link #GROWN_RETRY_MILLIS}.
     */
    private void splitGrownRange(Group g) {
        PartitaServer own = g.serving;
        if (own == null
                || g.table == null
                || !cluster.partitionGroups()
                || !cluster.autoSplit()
                || movingFrom.contains(g.id)) {
            return;
        }
        Long after = grownRetry.get(g.id);
        if (after != null && System.nanoTime() - after < 0) {
            return;
        }
        String key = TABLE_RECORD + g.account + "/" + g.table;
        if (grownCut(g, own, membersReplica.recorded(key)) == null
                // Strict mode, and the account has no key any more: its moves are not run (moveRange).
                || resolverCaller(g.account, "us-east-1") == null
                || !movingFrom.add(g.id)) {
            return;
        }
        onMoves(
                g,
                "record the move of",
                () -> {
                    // Again after a barrier: the record this node's replica had may be behind.
                    byte[] never = {0};
                    membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
                    byte[] was = membersReplica.recorded(key);
                    Long cut = grownCut(g, own, was);
                    if (cut != null) {
                        com.fasterxml.jackson.databind.JsonNode record = JSON.readTree(was);
                        TableRanges r = TableRanges.of(record);
                        MoveRecorded recorded = recordMove(
                                g.account, g.table, was, record, r, r.groups().indexOf(g.id), cut);
                        if (recorded.refused() != null) {
                            retryGrownLater(g);
                            log.info(
                                    "node {}: {}'s store split a partition at {}; its range's move was not recorded"
                                            + " (tried again soon): {}",
                                    nodeId(),
                                    g.name(),
                                    Long.toUnsignedString(cut),
                                    recorded.refused().json());
                        }
                    }
                },
                () -> retryGrownLater(g));
    }

    /** Group {@code g}'s grown range looked at again only after {@link #GROWN_RETRY_MILLIS}. */
    private void retryGrownLater(Group g) {
        grownRetry.put(
                g.id, System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(GROWN_RETRY_MILLIS));
    }

    /** How long a range group whose grown range's move could not be recorded waits before it tries again. */
    private static final long GROWN_RETRY_MILLIS = 10_000;

    /** When each range group whose grown range's move could not be recorded may try again ({@link System#nanoTime}). */
    private final java.util.Map<UUID, Long> grownRetry = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Where range group {@code g}'s range splits by itself ({@link #splitGrownRange}) as its table's record {@code
     * recorded} and its store {@code own} stand now: the highest cut a split of the store's partitions made inside the
     * range; or null for none, or when the range cannot move now (a move under way, the record and the
     * store not agreeing on the range, the most ranges reached).
     */
    private static Long grownCut(Group g, PartitaServer own, byte[] recorded) {
        TableRanges r;
        try {
            r = recorded == null ? null : TableRanges.of(JSON.readTree(recorded));
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
        if (r == null
                || !r.live()
                || r.moving() != null
                || !r.groups().contains(g.id)
                || r.groups().size() >= MAX_MOVED_RANGES
                || recordedRestored(recorded)) {
            return null;
        }
        io.partita.storage.table.TableCatalog.Table t = own.storage().tables().find(g.table);
        io.partita.storage.table.HashRange held =
                t == null ? null : t.metadata().hashRange();
        io.partita.storage.table.HashRange range = r.rangeOf(g.id);
        if (held == null
                || held.frozenFrom() != null
                || held.receiving()
                || held.first() != range.first()
                || held.last() != range.last()
                || t.metadata().stream() != null
                || t.metadata().pitrEnabled()) {
            return null; // (a table with a stream or PITR keeps its ranges: RangeMove gives its moves up)
        }
        // The highest: a cut whose halves split again no longer shows (PartitionMap.splitCuts); moving from the
        // highest keeps the lower ones in the range, seen by the next pass, rather than in a new group whose store
        // makes the table anew.
        Long best = null;
        for (long cut : t.partitions().map().splitCuts(held.first(), held.last())) {
            if (best == null || Long.compareUnsigned(cut, best) > 0) {
                best = cut;
            }
        }
        return best;
    }

    /** The transactions whose part a resolver is ending now, by id. */
    private final java.util.Set<String> resolving = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Ends one part left behind ({@link #resolve}). The deciding group ({@code DecidingGroup}) is asked by its id. One
     * the members' group no longer records closed (its tables deleted) once it had told the groups of every decision
     * COMMITTED it kept ({@link #holdsTransactions}): the part, which names its groups ({@code Participants}), was not
     * committed, and is aborted. A part that names none (its coordinator older), or whose deciding group is not known
     * here yet, stays held rather than guess (logged once).
     */
    private void resolveOne(
            Group g,
            io.partita.storage.write.PreparedTransactions.Part part,
            com.fasterxml.jackson.databind.JsonNode body)
            throws Exception {
        io.partita.server.auth.Credentials caller =
                resolverCaller(g.account, body.path("Region").asText("us-east-1"));
        if (caller == null) {
            return; // strict mode, and the account has no key any more: nobody can ask for anything in its name
        }
        ClusterRouter.Sent asked = resolverRequest(caller);
        UUID here = g.table == null ? HOME : g.id;
        String decision;
        if (body.path("Decides").asBoolean()) {
            decision = io.partita.storage.write.PreparedTransactions.Decision.ABORTED.name();
        } else {
            UUID deciding;
            try {
                deciding = UUID.fromString(body.path("DecidingGroup").asText());
            } catch (IllegalArgumentException none) {
                deciding = null;
            }
            if (deciding == null || (!deciding.equals(HOME) && !tableGroups.containsKey(deciding))) {
                if (deciding == null || !body.has("Participants") || !closedNow(part.id(), deciding)) {
                    // Not known here yet, or closed by a node that kept no groups with its decisions: held, not
                    // guessed.
                    if (undecidable.putIfAbsent(part.id(), g.id) == null) {
                        log.warn(
                                "node {}: transaction {}'s part in {} stays held: its deciding group {} is not known",
                                nodeId(),
                                part.id(),
                                g.name(),
                                body.path("DecidingGroup").asText());
                    }
                    return;
                }
                // Closed (its tables deleted), having told every group of each decision COMMITTED it kept
                // (holdsTransactions): this part's transaction was not committed.
                decision = io.partita.storage.write.PreparedTransactions.Decision.ABORTED.name();
            } else {
                decision = ask(asked, caller, deciding, part.id());
            }
        }
        String target = decision.equals(io.partita.storage.write.PreparedTransactions.Decision.COMMITTED.name())
                ? TransactWriteSpread.COMMIT
                : TransactWriteSpread.ABORT;
        ClusterRouter.Reply ended = sendTo(asked, caller, here, target, part.body())
                .get(RESOLVE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        String how = ended.status() == 200
                ? BatchSpread.object(ended.body()).path("Decision").asText("")
                : "";
        if (how.isEmpty()) {
            throw new IllegalStateException("its group answered " + ended.status());
        }
        log.info("node {} ended transaction {}'s part in {}: {}", nodeId(), part.id(), g.name(), how);
    }

    /** The decision deciding group {@code deciding} made on transaction {@code id}, asked to abort it. */
    private String ask(ClusterRouter.Sent asked, io.partita.server.auth.Credentials caller, UUID deciding, String id)
            throws Exception {
        // Asked by the group's id, naming no table: wherever its tables are now, the decision is the group's.
        ClusterRouter.Reply r = sendTo(
                        asked,
                        caller,
                        deciding,
                        TransactWriteSpread.ABORT,
                        BatchSpread.bytes(TransactWriteSpread.ending(id, true)))
                .get(RESOLVE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        String decision = r.status() == 200
                ? BatchSpread.object(r.body()).path("Decision").asText("")
                : "";
        if (decision.isEmpty()) {
            throw new IllegalStateException("the deciding group answered " + r.status());
        }
        return decision;
    }

    /**
     * Whether table group {@code id} is recorded: the members' group, once this node's replica of it has every record
     * committed before (a barrier), records it (true) or not (false: closed, as a group a part names was made before
     * it); null while a checkpoint replaces that replica (unknown).
     */
    private Boolean recordedGroup(UUID id) {
        byte[] never = {0};
        membersGroup.recordIf(membersReplica, BARRIER, never, never, RECORD_TIME);
        byte[] k = (GROUP_RECORD + id).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return membersReplica.unlessInstalling(
                store -> store.get(store.family(io.partita.storage.rocks.RocksStore.META), k) != null);
    }

    /**
     * Whether deciding group {@code deciding} of part {@code id} is closed ({@link #recordedGroup} false), looked at
     * most every 10 s for each part (each look is a barrier through the members' group).
     */
    private boolean closedNow(String id, UUID deciding) {
        long now = System.nanoTime();
        Long next = closedLookAt.get(id);
        if (next != null && now - next < 0) {
            return false;
        }
        closedLookAt.put(id, now + 10_000_000_000L); // dropped once the part is no longer held (resolve)
        return Boolean.FALSE.equals(recordedGroup(deciding));
    }

    /** When a resolver may next look whether a part's deciding group is closed ({@link #closedNow}), by part. */
    private final java.util.Map<String, Long> closedLookAt = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether table group {@code g}, which its server {@code own} serves and which holds no table and no backup, still
     * holds what transactions over several groups need: a part prepared here (its resolver ends it), or a decision
     * COMMITTED whose groups it has not told yet ({@link io.partita.storage.write.PreparedTransactions#untold}). It
     * tells them (a commit of their part, which one that ended it answers as committed) on the resolvers' thread, and
     * keeps the decisions; the group closes once it holds neither, so that a part whose deciding group is gone was not
     * committed ({@link #resolveOne}).
     */
    private boolean holdsTransactions(Group g, PartitaServer own) {
        io.partita.storage.write.PreparedTransactions prepared =
                own.storage().writes().prepared();
        if (!prepared.prepared().isEmpty()) {
            return true;
        }
        List<io.partita.storage.write.PreparedTransactions.Untold> untold = prepared.untold(100);
        if (untold.isEmpty()) {
            return false;
        }
        if (telling.add(g.id)) {
            try {
                resolver.execute(() -> {
                    try {
                        tell(g, prepared, untold);
                    } catch (Exception e) {
                        log.warn(
                                "node {}: {} could not tell its decisions (tried again in a second): {}",
                                nodeId(),
                                g.name(),
                                e.toString());
                    } finally {
                        telling.remove(g.id);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                telling.remove(g.id);
            }
        }
        return true;
    }

    /** The groups telling their decisions now ({@link #holdsTransactions}), by id. */
    private final java.util.Set<UUID> telling = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Tells the groups of each of {@code untold} (decisions of group {@code g}'s {@code prepared}) that their
     * transaction committed, then notes it told. A group not known here is skipped once the members' group confirms
     * it is closed (with its part); else, and when a group does not answer within 5 s, that decision waits for the
     * next pass.
     */
    private void tell(
            Group g,
            io.partita.storage.write.PreparedTransactions prepared,
            List<io.partita.storage.write.PreparedTransactions.Untold> untold)
            throws Exception {
        io.partita.server.auth.Credentials caller = resolverCaller(g.account, "us-east-1");
        if (caller == null) {
            return; // strict mode, and the account has no key any more: nobody can ask for anything in its name
        }
        ClusterRouter.Sent asked = resolverRequest(caller);
        java.util.Set<UUID> closed = new java.util.HashSet<>();
        Exception failed = null;
        for (var decision : untold) {
            try {
                for (String participant : decision.participants()) {
                    UUID other = UUID.fromString(participant);
                    if (other.equals(g.id) || closed.contains(other)) {
                        continue;
                    }
                    if (!other.equals(HOME) && !tableGroups.containsKey(other)) {
                        if (Boolean.FALSE.equals(recordedGroup(other))) {
                            closed.add(other); // closed, with its part; a closed group is never made again
                            continue;
                        }
                        throw new IllegalStateException("group " + other + " is not known here yet");
                    }
                    ClusterRouter.Reply r = sendTo(
                                    asked,
                                    caller,
                                    other,
                                    TransactWriteSpread.COMMIT,
                                    BatchSpread.bytes(TransactWriteSpread.ending(decision.id(), false)))
                            .get(TELL_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
                    if (r.status() != 200) {
                        throw new IllegalStateException("group " + other + " answered " + r.status());
                    }
                }
                prepared.told(decision.id());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw e;
            } catch (Exception e) {
                failed = e; // the next decisions are told all the same; this one again at the next pass
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** How long a closing group waits for each group it tells a decision ({@link #tell}). */
    private static final long TELL_WAIT_SECONDS = 5;

    /** How long a resolver waits for each answer. */
    private static final long RESOLVE_WAIT_SECONDS = 30;

    /**
     * The parts a resolver found it cannot end yet (their deciding group not known here), logged once each, with their
     * group's id.
     */
    private final java.util.Map<String, UUID> undecidable = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whom a resolver asks as: a key of the group's account in strict mode (null if it has none), any key in open
     * mode, where the account is every caller's.
     */
    private io.partita.server.auth.Credentials resolverCaller(String account, String region) {
        if (verifier == null) {
            return new io.partita.server.auth.Credentials("PARTITARESOLVER", region, account);
        }
        io.partita.server.auth.Accounts.Key key = accounts.keyOf(account);
        return key == null ? null : new io.partita.server.auth.Credentials(key.accessKeyId(), region, account);
    }

    /**
     * A request of the resolver's own, as {@link #sendTo} takes one: its headers are the shares' ({@link
     * #shareHeaders}).
     */
    private static ClusterRouter.Sent resolverRequest(io.partita.server.auth.Credentials caller) {
        io.netty.handler.codec.http.HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        h.set(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE, "application/x-amz-json-1.0");
        h.set(io.netty.handler.codec.http.HttpHeaderNames.HOST, "partita");
        String date = io.partita.server.auth.SigV4Verifier.amzDate(java.time.Instant.now());
        h.set("X-Amz-Date", date);
        // Open mode checks only the shape; strict mode signs the shares anew.
        h.set(
                io.netty.handler.codec.http.HttpHeaderNames.AUTHORIZATION,
                "AWS4-HMAC-SHA256 Credential=" + caller.accessKeyId() + "/" + date.substring(0, 8) + "/"
                        + caller.region() + "/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;"
                        + "x-amz-target, Signature=" + "0".repeat(64));
        return new ClusterRouter.Sent("POST", "/", h, new byte[0]);
    }

    /** Whether {@code engine} has a backup of a table named {@code table}. */
    private static boolean backedUp(StorageEngine engine, String table) {
        return engine.backups().all().stream().anyMatch(b -> b.source().name().equals(table));
    }

    /**
     * As the leader of table group {@code g}, every second, from the mover: makes the records of its tables say
     * whether each is there ({@code live}, as ListTables lists them): one deleted is no longer; one made again in a
     * group kept for its backups is again. A table placed a moment ago that the group has not made yet stays live
     * ({@link #PLACED_GRACE_MILLIS}). A group that has held no table and no backup for {@link #emptyNanos} (its table
     * deleted, or a placement whose CreateTable never came) is closed ({@link #closeEmpty}). The record of a table
     * restored here (not the group's first) that is gone, was placed over {@link #PLACED_GRACE_MILLIS} ago and has no
     * backup here goes.
     */
    private void collect(Group g) throws IOException {
        PartitaServer own = g.serving;
        long now = System.nanoTime();
        if (own == null || now - g.collectedAt < COLLECT_NANOS) {
            return;
        }
        g.collectedAt = now;
        String prefix = TABLE_RECORD + g.account + "/";
        java.util.SortedMap<String, byte[]> records = membersReplica.recordedUnder(prefix);
        if (records == null) {
            return; // a checkpoint replaces this node's replica of the records
        }
        StorageEngine engine = own.storage();
        List<String> names = engine.tables().names();
        boolean kept = !names.isEmpty() || !engine.backups().all().isEmpty();
        for (var e : records.entrySet()) {
            com.fasterxml.jackson.databind.JsonNode r = JSON.readTree(e.getValue());
            if (!r.get("group").asText().equals(g.id.toString())) {
                continue;
            }
            String table = e.getKey().substring(prefix.length());
            boolean live = r.get("live").asBoolean();
            boolean there = names.contains(table);
            long at = r.get("at").asLong();
            if (there) {
                g.held.put(table, at);
            }
            Long heldAt = g.held.get(table);
            boolean gone = !there
                    && ((heldAt != null && heldAt >= at) || System.currentTimeMillis() - at > PLACED_GRACE_MILLIS);
            if (live && !gone) {
                kept = true;
            } else if (live || there) {
                membersGroup.recordIf(
                        membersReplica, e.getKey(), e.getValue(), withLive(e.getValue(), there), RECORD_TIME);
                kept |= there;
            } else if (!table.equals(g.table)
                    && System.currentTimeMillis() - at > PLACED_GRACE_MILLIS
                    && !backedUp(engine, table)) {
                // A table restored here and deleted, with no backup of its own: its name is free again in any group.
                membersGroup.recordIf(membersReplica, e.getKey(), e.getValue(), null, RECORD_TIME);
            }
        }
        if (!kept && g.range > 0) {
            // A group of one of a table's hash ranges but its first: kept while the table's record is there and names
            // it (a CreateTable that did not reach it yet is sent again, and makes it here).
            byte[] record = records.get(prefix + g.table);
            com.fasterxml.jackson.databind.JsonNode r = record == null ? null : JSON.readTree(record);
            TableRanges ranges = r == null ? null : TableRanges.of(r);
            kept = ranges != null && ranges.has(g.id) && r.get("live").asBoolean();
        }
        if (!kept && holdsTransactions(g, own)) {
            kept = true;
        }
        if (kept) {
            g.emptySince = 0;
            if (g.closing) {
                reopen(g); // a close that found a table (under a leader before this one): it stays
            }
        } else if (g.emptySince == 0 && !g.closing) {
            g.emptySince = now;
        } else if (g.closing || now - g.emptySince > emptyNanos) {
            closeEmpty(g, own);
        }
    }

    /**
     * Closes table group {@code g}, which this node leads and which holds nothing, through its server {@code own}:
     * <ol>
     *   <li>refuses new tables from now on, once every table being made in it is made ({@link Group#fence});
     *   <li>records that it closes in the group's own log, through this node as its leader: a record committed then
     *       means this node still led when it was, so no other leader served the group before it (and a next leader
     *       refuses new tables too, and finishes the close);
     *   <li>looks again, on its server's engine, that it holds nothing, and still leads with that server;
     *   <li>removes its records from the members' group, each a compare-and-set: the tables' (a table placed here
     *       again meanwhile stops the close), then the group's.
     * </ol>
     * Every node then takes it off ({@link #syncTables}). A group that holds something again is opened again.
     */
    private void closeEmpty(Group g, PartitaServer own) throws IOException {
        ReplicaStore replica = g.replica;
        ClusterNode node = g.node;
        if (replica == null || node == null) {
            return;
        }
        java.util.concurrent.locks.Lock closing = g.fence.writeLock();
        closing.lock();
        try {
            g.closing = true;
        } finally {
            closing.unlock();
        }
        if (replica.marked(CLOSED) == null) {
            replica.mark(
                    CLOSED,
                    Long.toString(System.currentTimeMillis()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        StorageEngine engine = own.storage();
        if (g.serving != own || !node.isLeaderReady()) {
            return; // no longer leads: the next leader finishes the close
        }
        if (!engine.tables().names().isEmpty() || !engine.backups().all().isEmpty() || holdsTransactions(g, own)) {
            reopen(g);
            return;
        }
        String prefix = TABLE_RECORD + g.account + "/";
        java.util.SortedMap<String, byte[]> records = membersReplica.recordedUnder(prefix);
        if (records == null) {
            return;
        }
        for (var e : records.entrySet()) {
            com.fasterxml.jackson.databind.JsonNode r = JSON.readTree(e.getValue());
            TableRanges ranges = TableRanges.of(r);
            if (g.range > 0 && ranges != null && ranges.live() && ranges.has(g.id)) {
                reopen(g); // one of a live table's ranges: it stays
                return;
            }
            if (r.get("group").asText().equals(g.id.toString())
                    && membersGroup.recordIf(membersReplica, e.getKey(), e.getValue(), null, RECORD_TIME) != null) {
                return; // changed meanwhile (placed here again): looked at again at the next pass
            }
        }
        byte[] group = membersReplica.recorded(GROUP_RECORD + g.id);
        if (group != null) {
            membersGroup.recordIf(membersReplica, GROUP_RECORD + g.id, group, null, RECORD_TIME);
        }
        log.info("node {} closed {}: it held nothing for {} ms", nodeId(), g.name(), emptyNanos / 1_000_000L);
    }

    /** Opens a group being closed again, which this node leads: it holds a table after all. */
    private void reopen(Group g) {
        ReplicaStore replica = g.replica;
        if (replica != null && replica.marked(CLOSED) != null) {
            replica.mark(CLOSED, null);
        }
        g.closing = false;
        g.emptySince = 0;
        log.info("node {}: {} holds a table again, and stays", nodeId(), g.name());
    }

    /**
     * As the leader of group {@code g}, on the members it is placed on: takes out of the group's members a member
     * that has answered no append for {@link #SILENT_MILLIS} and has said on its Raft port, for {@link #LOST_NANOS} on
     * end, that it has no such group. Its copy is gone (its Raft storage deleted, or a first start that failed before
     * the group was made there); the group runs on the others meanwhile, and would stay one replica short. The next
     * pass then moves the group back onto it ({@link #move}): it gets an empty replica and catches up before it votes
     * again. Made a member again at once, with an empty log, it could elect a leader that lacks acknowledged entries.
     */
    private void dropLost(Group g, ClusterNode node, List<String> has) {
        java.util.Map<String, Long> silence = node.followerSilence();
        g.lostSince.keySet().retainAll(silence.keySet());
        long sinceChecked = System.nanoTime() - g.lostCheckedAt;
        if (sinceChecked < LOST_CHECK_NANOS) {
            return;
        }
        if (sinceChecked > 3 * LOST_CHECK_NANOS) {
            // Not checked on end (this node did not lead, or the group moved): a member's silence counts from now.
            g.lostSince.clear();
        }
        g.lostCheckedAt = System.nanoTime();
        java.util.Map<String, ClusterNode.Peer> byId = new java.util.HashMap<>();
        node.members().forEach(p -> byId.put(p.id(), p));
        for (var f : silence.entrySet()) {
            String member = f.getKey();
            ClusterNode.Peer peer = byId.get(member);
            if (f.getValue() < SILENT_MILLIS || peer == null || !host.lacks(peer, g.id)) {
                g.lostSince.remove(member); // answering, or down: nothing a new copy would change
                continue;
            }
            long since = g.lostSince.computeIfAbsent(member, k -> System.nanoTime());
            if (System.nanoTime() - since < LOST_NANOS) {
                continue;
            }
            List<String> without = has.stream().filter(m -> !m.equals(member)).toList();
            log.warn(
                    "node {}: {}'s member {} is up but has no copy of it; it leaves the group's members, and the"
                            + " group is then moved back onto it",
                    nodeId(),
                    g.name(),
                    member);
            try {
                node.changeMembers(
                        now -> ids(now).equals(has)
                                ? now.stream()
                                        .filter(p -> !p.id().equals(member))
                                        .toList()
                                : null,
                        MEMBERS_CHANGE);
                log.info("node {}: {} is on {}", nodeId(), g.name(), without);
            } catch (RuntimeException e) {
                log.warn("node {} could not take {} out of {} (tried again soon): {}", nodeId(), member, g.name(), e);
            }
            g.lostSince.clear();
            return;
        }
    }

    /**
     * Takes group {@code g} off this node, which does not lead it, once the group's leader, asked on the members'
     * Raft ports, has members without this node: this node knows no leader, or its members no longer include it, or
     * it was added to the group long ago and is still not among its members. While this node is among the leader's
     * members, or no leader answers, it keeps the group.
     */
    private void dropIfStray(Group g, ClusterNode node, List<String> has) {
        // One being added catches up first, from the log (whose members are the group's before) or a checkpoint,
        // while the leader's members do not include it yet.
        // It hears from the leader while it is caught up, whatever time that takes: only one that knows no leader is
        // suspect then.
        boolean suspect = !g.memberSeen
                ? System.nanoTime() - g.joinedAt > JOINING_NANOS && node.leaderId() == null
                : node.leaderId() == null || !has.contains(nodeId());
        if (!suspect || System.nanoTime() - g.checkedAt < RECHECK_NANOS) {
            return;
        }
        g.checkedAt = System.nanoTime();
        java.util.Map<String, ClusterNode.Peer> ask = new java.util.LinkedHashMap<>();
        node.members().forEach(p -> ask.put(p.id(), p));
        java.util.Map<String, ClusterNode.Peer> cluster = peersById();
        for (String m : g.placed) {
            if (cluster.containsKey(m)) {
                ask.putIfAbsent(m, cluster.get(m));
            }
        }
        List<String> leaderHas = host.leaderMembers(g.id, ask.values());
        if (leaderHas != null && !leaderHas.contains(nodeId())) {
            takeOff(g, "the group's leader has it on " + leaderHas);
        }
    }

    /** The cluster's members, by id, with their addresses: the members' group's. */
    private java.util.Map<String, ClusterNode.Peer> peersById() {
        java.util.Map<String, ClusterNode.Peer> out = new java.util.HashMap<>();
        membersGroup.members().forEach(p -> out.put(p.id(), p));
        return out;
    }

    /** Moves group {@code g}, which this node leads, from {@code has} onto {@code target}; see {@link #moveGroup}. */
    private void move(Group g, ClusterNode node, List<String> has, List<String> target) {
        UUID id = g.id;
        java.util.Map<String, ClusterNode.Peer> byId = new java.util.HashMap<>();
        node.members().forEach(p -> byId.put(p.id(), p));
        byId.putAll(peersById());
        if (!byId.keySet().containsAll(target)) {
            return; // a member it is placed on that the members' group does not list yet
        }
        // A member it goes back to is no longer one to take it off.
        g.leftOn.keySet().removeAll(target);
        if (!target.contains(nodeId())) {
            // Leaving it: the group first prefers a member that stays, and this node hands it the leadership (no
            // election timeout passes with no leader, and the leadership does not come back); that member's mover then
            // moves the group, this node a follower.
            // The most up to date of them: Ratis hands over only to a member that has every entry.
            java.util.Map<String, Long> matched = node.followerMatchIndexes();
            String stays = target.stream()
                    .filter(has::contains)
                    .max(java.util.Comparator.comparingLong(m -> matched.getOrDefault(m, -1L)))
                    .orElse(null);
            if (stays != null) {
                try {
                    node.prefer(stays, java.time.Duration.ofSeconds(5));
                    node.handOver(stays, java.time.Duration.ofSeconds(5));
                    log.info("node {} handed {} to {}, which stays on it, to move it", nodeId(), g.name(), stays);
                } catch (IOException | RuntimeException e) {
                    log.warn("node {} could not hand {} to {} yet: {}", nodeId(), g.name(), stays, e.toString());
                }
                return;
            }
        }
        // One step a pass: a member added, else the members it leaves removed. Ratis refuses a change that adds as
        // many members as it keeps (RaftConfigurationImpl.changeMajority), which a move replacing two of three would.
        String adding =
                target.stream().filter(m -> !has.contains(m)).findFirst().orElse(null);
        List<String> step = new java.util.ArrayList<>(adding == null ? target : has);
        if (adding != null) {
            step.add(adding);
        }
        List<String> stepIds = sorted(step);
        if (System.nanoTime() - g.addAgainAt < 0) {
            return;
        }
        if (adding != null) {
            ClusterNode.Peer peer = byId.get(adding);
            String at = peer.host() + ":" + peer.port();
            List<String> other = host.knownAddresses(adding).stream()
                    .filter(a -> !a.equals(at))
                    .sorted()
                    .toList();
            if (!other.isEmpty()) {
                // Its Raft server would send to the address it first knew (knownElsewhere): the member would never
                // catch up. An operator restarts this node, or removes the member and adds it with a new id.
                g.addAgainAt = System.nanoTime() + KNOWN_ELSEWHERE_NANOS;
                log.error(
                        "node {} cannot move {} onto {} at {}: its Raft server knows that id at {} (a former member),"
                                + " and would send there; restart this node, or give the member a new id",
                        nodeId(),
                        g.name(),
                        adding,
                        at,
                        String.join(" and ", other));
                return;
            }
        }
        log.info("node {} moves {} from {} towards {}: to {}", nodeId(), g.name(), has, target, stepIds);
        if (adding != null) {
            try {
                host.addTo(byId.get(adding), id);
            } catch (IOException | RuntimeException e) {
                // Down, or it does not know the account yet (its credentials file is older).
                g.addAgainAt = System.nanoTime() + ADD_AGAIN_NANOS;
                log.warn(
                        "node {} could not add {} to {} (tried again soon): {}",
                        nodeId(),
                        g.name(),
                        adding,
                        e.toString());
                return;
            }
        }
        List<ClusterNode.Peer> next = stepIds.stream().map(byId::get).toList();
        try {
            node.changeMembers(now -> ids(now).equals(stepIds) ? null : next, MEMBERS_CHANGE);
        } catch (RuntimeException e) {
            log.warn("node {} could not move {} (tried again soon): {}", nodeId(), g.name(), e.getMessage());
            return;
        }
        for (String m : has) {
            if (!stepIds.contains(m)) {
                g.leftOn.put(m, new Left(byId.get(m), System.nanoTime()));
            }
        }
        g.leftAskedAt = 0;
        log.info("node {}: {} is on {}", nodeId(), g.name(), stepIds);
    }

    /**
     * Takes group {@code g}, which this node leads, off the members its last move here left and that are still not
     * among its members, every few seconds until each has; this node last, once the others have.
     */
    private void tellLeft(Group g, ClusterNode node) {
        if (g.leftOn.isEmpty() || System.nanoTime() - g.leftAskedAt < RECHECK_NANOS) {
            return;
        }
        g.leftAskedAt = System.nanoTime();
        if (!node.isLeaderReady() || !node.membersSettled()) {
            return; // no longer the leader, or its members changing: the members' own checks take over
        }
        g.leftOn.keySet().removeAll(ids(node.members())); // back among them: not to be taken off
        for (var left : List.copyOf(g.leftOn.entrySet())) {
            if (left.getKey().equals(nodeId())) {
                continue;
            }
            try {
                host.removeFrom(left.getValue().peer(), g.id);
                g.leftOn.remove(left.getKey());
            } catch (IOException | RuntimeException e) {
                if (System.nanoTime() - left.getValue().since() > LEFT_ASKED_NANOS) {
                    // Down since, most likely stopped for good (a removed node): one that comes back finds the
                    // group's leader without it, and takes the group off itself (dropIfStray).
                    g.leftOn.remove(left.getKey());
                    log.info(
                            "node {} no longer asks {} to take {} off: not reached for {} s; it does so itself when"
                                    + " back",
                            nodeId(),
                            left.getKey(),
                            g.name(),
                            LEFT_ASKED_NANOS / 1_000_000_000L);
                } else {
                    log.debug("node {} could not take {} off {} yet", nodeId(), g.name(), left.getKey(), e);
                }
            }
        }
        if (g.leftOn.containsKey(nodeId()) && g.leftOn.size() == 1) {
            takeOff(g, "it moved to " + g.placed);
        }
    }

    /**
     * Takes group {@code g} off this node: its server and reader close and nothing uses its part in the Raft group any
     * more, which then leaves the Raft server; then its replica is closed and deleted.
     */
    private void takeOff(Group g, String why) {
        synchronized (g) {
            stopServingLocked(g, why);
            stopReadingLocked(g, why);
            if (g.node == null) {
                return;
            }
            g.node = null;
            // Routed by a locator from now on.
        }
        try {
            host.removeGroup(g.id);
        } catch (IllegalArgumentException gone) {
            // Taken off already.
        } catch (IOException | RuntimeException e) {
            // The next pass finds the host's part in the group again (as one another member added), and tries again.
            log.warn("node {} could not take {} off itself (tried again soon): {}", nodeId(), g.name(), e.toString());
            return;
        }
        synchronized (g) {
            ReplicaStore replica = g.replica;
            if (replica != null) {
                droppedLocked(g, replica, why);
            }
        }
    }

    /**
     * Under the group's lock, once the group is off this node: its server and reader close, and the replica is closed
     * and deleted (an adoption of the group again waits for the lock). The mover then gives the group a locator.
     */
    private void droppedLocked(Group g, ReplicaStore replica, String why) {
        stopServingLocked(g, why);
        stopReadingLocked(g, why);
        g.node = null;
        g.replica = null;
        g.leftOn.clear();
        replica.close();
        try {
            ReplicaStore.delete(g.storage);
        } catch (IOException e) {
            log.warn("node {} could not delete its replica of {}", nodeId(), g.name(), e);
        }
        log.info("node {} no longer holds {}: {}", nodeId(), g.name(), why);
    }

    /** The group of the account whose group's id is {@code id}, or null. */
    private Group byGroupId(UUID id) {
        for (Group g : all()) {
            if (g.id.equals(id)) {
                return g;
            }
        }
        return null;
    }

    /** A member that a move of a group by this node left, and since when ({@link System#nanoTime}). */
    private record Left(ClusterNode.Peer peer, long since) {}

    /**
     * Gives the groups other members add to this node a replica, and forgets those they take off. Refuses groups
     * until this node has started (the leader asks again).
     */
    private final class Adopting implements ClusterNode.Adoption {
        @Override
        public ReplicaStore adopt(UUID id) {
            Group g = byGroupId(id);
            if (g == null || !ready || closed) {
                log.info("node {} does not take group {} (yet)", nodeId(), id);
                return null;
            }
            synchronized (g) {
                if (g.replica != null) {
                    return null;
                }
                try {
                    // Recorded first: at a restart the group has the members its log has, not its flags'.
                    placementRecord.recordAdopted(g.recordKey);
                    // Whatever a store left there holds, the group's leader sends the group's state from its start.
                    ReplicaStore.delete(g.storage);
                    holdReplica(g, ReplicaStore.open(g.storage));
                    return g.replica;
                } catch (IOException | RuntimeException e) {
                    log.warn("node {} cannot open a replica of {}", nodeId(), g.name(), e);
                    return null;
                }
            }
        }

        @Override
        public void removed(UUID id, ReplicaStore replica) {
            Group g = byGroupId(id);
            if (g == null) {
                replica.close();
                return;
            }
            synchronized (g) {
                if (g.replica == replica) {
                    droppedLocked(g, replica, "another member took it off");
                } // else taken off by this node, which closed it
            }
        }
    }

    /**
     * The first group placed on this node (the first group, unless {@code --cluster-replicas} placed it elsewhere), or
     * null when none is.
     */
    private Group home() {
        for (Group g : groups.values()) {
            if (g.here()) {
                return g;
            }
        }
        return null;
    }

    /**
     * This node's view of the cluster, as JSON: what {@code GET /cluster} answers. Its role, leader, term and indexes
     * are those of the first group placed on it (open mode's only one; {@code NONE} for the role of a node no group
     * is placed on), and its members the group's (every member's, with {@code --cluster-replicas}); {@code groups} has
     * each such group's figures and members, and {@code elsewhere} each group placed on other members, with those
     * members and its leader as this node last learned it. With {@code --cluster-replicas}, {@code membersGroup} has
     * the members' group's figures.
     */
    String status() {
        com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
        out.put("cluster", cluster.name());
        out.put("node", cluster.nodeId());
        Group home = home();
        ClusterNode homeNode = home == null ? null : home.node;
        try {
            if (homeNode != null) {
                putGroup(out, home, homeNode);
            } else {
                out.put("role", "NONE");
            }
        } catch (IllegalStateException gone) {
            out.put("role", "NONE"); // taken off this node a moment ago
        }
        // The group's members as this node knows them (none yet on a node that waits to be added); with the groups on
        // some members, the cluster's, as the members' group has them.
        putMembers(
                out,
                membersGroup != null
                        ? membersGroup.members()
                        : homeNode != null
                                ? homeNode.members()
                                : cluster.members().stream()
                                        .map(ClusterMember::peer)
                                        .toList());
        if (membersGroup != null) {
            // Its leader makes the changes of the members, and decides where a group new to the cluster is made.
            out.putObject("membersGroup")
                    .put("group", membersGroup.groupId().toString())
                    .put("role", membersGroup.role())
                    .put("leader", membersGroup.leaderId())
                    .put("term", membersGroup.term())
                    .put("commitIndex", membersGroup.commitIndex())
                    .put("appliedIndex", membersGroup.lastAppliedIndex());
        }
        com.fasterxml.jackson.databind.node.ArrayNode each = out.putArray("groups");
        java.util.List<Group> away = new java.util.ArrayList<>();
        for (Group g : all()) {
            ClusterNode node = g.node;
            if (node == null) {
                away.add(g);
                continue;
            }
            com.fasterxml.jackson.databind.node.ObjectNode one = JSON.createObjectNode()
                    .put("account", g.account)
                    .put("group", node.groupId().toString());
            if (g.table != null) {
                one.put("table", g.table);
            }
            if (g.range > 0) {
                one.put("range", g.range);
            }
            putHashStart(one, g);
            try {
                putGroup(one, g, node);
                // Each group's own: they differ while a change of the members is made to one group after another.
                putMembers(one, node.members());
            } catch (IllegalStateException gone) {
                continue; // taken off this node a moment ago
            }
            if (g.placed != null) {
                g.placed.forEach(one.putArray("placed")::add);
            }
            each.add(one);
        }
        if (cluster.placed()) {
            com.fasterxml.jackson.databind.node.ArrayNode elsewhere = out.putArray("elsewhere");
            for (Group g : away) {
                io.partita.cluster.GroupLocator locator = g.locator;
                com.fasterxml.jackson.databind.node.ObjectNode one = elsewhere
                        .addObject()
                        .put("account", g.account)
                        .put("group", g.id.toString())
                        .put("leader", locator == null ? null : locator.leader());
                if (g.table != null) {
                    one.put("table", g.table);
                }
                if (g.range > 0) {
                    one.put("range", g.range);
                }
                putHashStart(one, g);
                g.placed.forEach(one.putArray("placed")::add);
            }
        }
        return out.toString();
    }

    private static void putGroup(com.fasterxml.jackson.databind.node.ObjectNode out, Group g, ClusterNode node) {
        out.put("role", node.role());
        out.put("leader", node.leaderId());
        out.put("serving", g.serving != null);
        out.put("term", node.term());
        out.put("commitIndex", node.commitIndex());
        out.put("appliedIndex", node.lastAppliedIndex());
        out.put("snapshotIndex", node.snapshotIndex());
        out.put("logStartIndex", node.logStartIndex());
        java.util.Map<String, Long> matched = node.followerMatchIndexes();
        if (!matched.isEmpty()) {
            com.fasterxml.jackson.databind.node.ObjectNode followers = out.putObject("followerMatchIndexes");
            matched.forEach(followers::put);
        }
    }

    private io.partita.server.metrics.ClusterMetrics.View view() {
        List<io.partita.server.metrics.ClusterMetrics.GroupView> each = new java.util.ArrayList<>();
        for (Group g : all()) {
            ClusterNode node = g.node;
            if (node == null) {
                continue; // placed on other members: they report it
            }
            long[] joined = node.groupCommits();
            long[] reads = node.consistentReads();
            try {
                each.add(new io.partita.server.metrics.ClusterMetrics.GroupView(
                        g.table == null ? g.account : g.account + "/" + g.table,
                        node.role().equals("LEADER"),
                        g.serving != null,
                        node.term(),
                        node.commitIndex(),
                        node.lastAppliedIndex(),
                        node.followerMatchIndexes(),
                        joined[0],
                        joined[1],
                        reads[0],
                        reads[1]));
            } catch (IllegalStateException gone) {
                // Taken off this node a moment ago.
            }
        }
        return new io.partita.server.metrics.ClusterMetrics.View(cluster.nodeId(), each, router.followerReads());
    }

    /** The first group's strongly consistent reads on this node: within its read lease, and after a barrier. */
    long[] consistentReads() {
        ClusterNode node = primary.node;
        return node != null ? node.consistentReads() : new long[2];
    }

    /** Whether this node answers the requests of the first group (open mode's only one) now: it leads it. */
    public boolean serving() {
        return primary.serving != null;
    }

    /** Whether this node answers the requests of {@code account}'s group now: it leads it. */
    public boolean serving(String account) {
        Group g = groups.get(account);
        return g != null && g.serving != null;
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
        for (Thread t : java.util.Arrays.asList(watch, mover, tablesWatch, charges)) {
            if (t == null) {
                continue;
            }
            t.interrupt();
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Its own servers first, which answer the requests they have; the router then answers 503 (retried
        // elsewhere) until it closes.
        for (Group g : all()) {
            stopServing(g, "it is stopping");
            stopReading(g, "it is stopping");
        }
        router.close();
        batches.shutdownNow();
        lists.shutdownNow();
        resolver.shutdownNow();
        moves.shutdownNow();
        try {
            host.close();
        } catch (IOException e) {
            log.warn("node {}: closing its Raft server", cluster.nodeId(), e);
        }
        for (Group g : all()) {
            ReplicaStore replica = g.replica;
            if (replica != null) {
                replica.close();
            }
        }
        if (membersReplica != null) {
            membersReplica.close();
        }
    }
}
