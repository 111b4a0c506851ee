package io.partita.cluster;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Where a group this node takes no part in is led: learned by asking its members, on their Raft ports (over the peers'
 * TLS), which of them leads. A member that leads names itself, and a follower names the leader it knows. The leader is
 * the member that a majority of the group's members names: a leader cut off from the others, which still believes it
 * leads, names only itself, and a dead one is named by nobody once the others have elected another. While no member
 * has a majority (an election, or this node cut off), none is known. {@link ClusterNode.Host#locate} asks again every
 * half second, through one Ratis client of the host's for every group.
 *
 * <p>The members asked follow the group's: when the member a round settles on answered as the leader, its
 * configuration gives the members the next round asks, and their Raft addresses, so that a locator keeps finding a
 * group whose members changed (moved to other nodes) after it was made.
 */
public final class GroupLocator {
    /** How long a member that did not answer is not asked again, by any group's locator. */
    static final long DOWN_NANOS = 2_000_000_000L;

    private final RaftGroupId id;
    /** The members a round asks: those given, then those of the latest leader's configuration. */
    private volatile List<String> members;

    private final RaftClient client;
    /** Until when ({@link System#nanoTime}) a member that did not answer is not asked; a host's locators share it. */
    private final Map<String, Long> downUntil;

    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile String leader;
    /** The members as the latest leader that answered gave them (its configuration); null before one did. */
    private volatile List<String> leaderMembers;

    GroupLocator(UUID id, List<String> members, RaftClient client, Map<String, Long> downUntil) {
        this.id = RaftGroupId.valueOf(id);
        this.members = List.copyOf(members);
        this.client = client;
        this.downUntil = downUntil;
    }

    /** The group's id. */
    public UUID groupId() {
        return id.getUuid();
    }

    /** The ids of the members this node asks now. */
    public List<String> members() {
        return members;
    }

    /**
     * The group's members as the latest leader that answered this node gave them (during a change, the old and new
     * together), in the order of their ids; null before any did. Unlike {@link #members}, never those the locator was
     * made with: a locator made again with the members the group is placed on now does not take them for the
     * group's.
     */
    public List<String> leaderMembers() {
        return leaderMembers;
    }

    /** The id of the member a majority named as the leader when last asked, or null while none is known. */
    public String leader() {
        return leader;
    }

    /**
     * Asks every member at once, on {@code pool}, and learns the leader as soon as a majority names the same member,
     * or learns that none is known once every member has answered or failed without one; does nothing while the
     * previous round is still out. A member that cannot be reached holds up no round a majority decides, and is not
     * asked again, by any group's locator, for {@link #DOWN_NANOS}: its calls, each waiting out its deadline, would
     * take the pool's threads from the members that answer.
     */
    void ask(Executor pool) {
        if (!asking.compareAndSet(false, true)) {
            return;
        }
        List<String> asked = members;
        Votes votes = new Votes(asked.size());
        // The configuration each member that answered as the leader gave: the round's leader's becomes the members.
        Map<String, List<RaftPeer>> confs = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.function.Consumer<String> count = named -> {
            if (votes.count(named)) {
                String decided = votes.leader();
                leader = decided;
                try {
                    if (decided != null) {
                        follow(asked, confs.get(decided));
                    }
                } finally {
                    asking.set(false); // whatever happens, the next round may start
                }
            }
        };
        java.util.function.BiConsumer<String, List<RaftPeer>> leads = (member, conf) -> {
            confs.put(member, conf);
            if (member.equals(votes.leader())) {
                follow(asked, conf); // the round was decided before the leader's own answer came
            }
        };
        for (String member : asked) {
            Long down = downUntil.get(member);
            if (down != null && System.nanoTime() - down < 0) {
                count.accept(null);
                continue;
            }
            try {
                CompletableFuture.supplyAsync(() -> leaderNamedBy(member, leads), pool)
                        .whenComplete((named, failed) -> count.accept(failed == null ? named : null));
            } catch (RuntimeException rejected) {
                count.accept(null); // the pool is closing: the round still ends
            }
        }
    }

    /**
     * One round's answers from a group's {@code size} members: the first member that more than half of them name is
     * the leader; once every member has answered without such a majority, none is.
     */
    static final class Votes {
        private final int size;
        private final Map<String, Integer> named = new HashMap<>();
        private int answers;
        private boolean decided;
        private String leader;

        Votes(int size) {
            this.size = size;
        }

        /** Counts one answer (null: it named none, or failed); true when it is the one that decides the round. */
        synchronized boolean count(String name) {
            answers++;
            if (decided) {
                return false;
            }
            if (name != null && named.merge(name, 1, Integer::sum) > size / 2) {
                decided = true;
                leader = name;
            } else if (answers == size) {
                decided = true;
            }
            return decided;
        }

        /** The leader the round decided on, or null: none yet, or none had a majority. */
        synchronized String leader() {
            return leader;
        }
    }

    /**
     * Makes the members of {@code conf} (a leader's configuration; null: none came) those the next round asks, if the
     * members were still those the round asked, and tells the client their addresses.
     */
    private synchronized void follow(List<String> asked, List<RaftPeer> conf) {
        if (conf == null || conf.isEmpty() || members != asked) {
            return;
        }
        List<String> ids = conf.stream().map(p -> p.getId().toString()).sorted().toList();
        leaderMembers = ids;
        if (ids.equals(asked.stream().sorted().toList())) {
            return;
        }
        client.getClientRpc()
                .addRaftPeers(conf.stream()
                        .map(p -> RaftPeer.newBuilder()
                                .setId(p.getId())
                                .setAddress(p.getAddress())
                                .build())
                        .toList());
        members = ids;
    }

    /**
     * The leader {@code member} names (itself, if it leads, when it also gives {@code leads} its configuration), or
     * null if it names none or cannot be asked.
     */
    private String leaderNamedBy(String member, java.util.function.BiConsumer<String, List<RaftPeer>> leads) {
        try {
            GroupInfoReply reply =
                    client.getGroupManagementApi(RaftPeerId.valueOf(member)).info(id);
            if (!reply.isSuccess()) {
                return null;
            }
            RoleInfoProto role = reply.getRoleInfoProto();
            if (role.getRole() == RaftPeerRole.LEADER) {
                // Its members as its configuration has them: while a change is under way, the old and the new
                // together; the next round follows the change's end. (Ratis 3.2.2 leaves the reply's configuration
                // itself out.) A locator that the change left with no majority of members naming a leader finds
                // none, and is made again with the members the group is placed on now (ClusterMember).
                leads.accept(member, List.copyOf(reply.getGroup().getPeers()));
                return member;
            }
            if (role.getRole() == RaftPeerRole.FOLLOWER
                    && role.getFollowerInfo().hasLeaderInfo()) {
                String named =
                        role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
                return named.isEmpty() ? null : named;
            }
            return null;
        } catch (IOException | RuntimeException e) {
            // Down or unreachable: no word from it, and none asked of it for a while. One that answers it has not the
            // group (it moved off it) is up, and asked for the other groups as before.
            String message = String.valueOf(e.getMessage());
            if (!(message.contains(id.toString()) && message.contains("not found"))) {
                downUntil.put(member, System.nanoTime() + DOWN_NANOS);
            }
            return null;
        }
    }
}
