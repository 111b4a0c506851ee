package io.partita.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;

/**
 * Where a group this node takes no part in is led: learned by asking its members, on their Raft ports (over the peers'
 * TLS), which of them leads. A member that leads names itself, and a follower names the leader it knows. The leader is
 * the member that a majority of the group's members names: a leader cut off from the others, which still believes it
 * leads, names only itself, and a dead one is named by nobody once the others have elected another. While no member
 * has a majority (an election, or this node cut off), none is known. {@link ClusterNode.Host#locate} asks again every
 * half second.
 */
public final class GroupLocator implements AutoCloseable {
    private final RaftGroupId id;
    private final List<RaftPeer> members;
    private final RaftClient client;
    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile String leader;

    GroupLocator(UUID id, List<ClusterNode.Peer> members, Parameters parameters, Duration timeout) {
        this.id = RaftGroupId.valueOf(id);
        // Without the API address the members carry as their client address: a Ratis client would send there.
        this.members = members.stream()
                .map(p -> RaftPeer.newBuilder()
                        .setId(p.id())
                        .setAddress(p.address())
                        .build())
                .toList();
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(
                properties, TimeDuration.valueOf(timeout.toMillis(), TimeUnit.MILLISECONDS));
        this.client = RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(this.id, this.members))
                .setProperties(properties)
                .setParameters(parameters)
                .setRetryPolicy(RetryPolicies.noRetry())
                .build();
    }

    /** The group's id. */
    public UUID groupId() {
        return id.getUuid();
    }

    /** The members this node asks, by id. */
    public List<String> members() {
        return members.stream().map(p -> p.getId().toString()).toList();
    }

    /** The id of the member a majority named as the leader when last asked, or null while none is known. */
    public String leader() {
        return leader;
    }

    /**
     * Asks every member at once, on {@code pool}, and learns the leader from their answers once all have answered or
     * failed; does nothing while the previous round is still out.
     */
    void ask(Executor pool) {
        if (!asking.compareAndSet(false, true)) {
            return;
        }
        List<CompletableFuture<String>> answers = new ArrayList<>();
        for (RaftPeer member : members) {
            answers.add(CompletableFuture.supplyAsync(() -> leaderNamedBy(member), pool));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((done, failed) -> {
            leader = majority(answers.stream().map(a -> a.getNow(null)).toList(), members.size());
            asking.set(false);
        });
    }

    /** The leader {@code member} names (itself, if it leads), or null if it names none or cannot be asked. */
    private String leaderNamedBy(RaftPeer member) {
        try {
            GroupInfoReply reply = client.getGroupManagementApi(member.getId()).info(id);
            if (!reply.isSuccess()) {
                return null;
            }
            RoleInfoProto role = reply.getRoleInfoProto();
            if (role.getRole() == RaftPeerRole.LEADER) {
                return member.getId().toString();
            }
            if (role.getRole() == RaftPeerRole.FOLLOWER
                    && role.getFollowerInfo().hasLeaderInfo()) {
                String named =
                        role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
                return named.isEmpty() ? null : named;
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // down, unreachable, or no longer holding the group: no word from it
        }
    }

    /** The id that more than half of a group of {@code size} named, or null. */
    static String majority(List<String> named, int size) {
        Map<String, Integer> votes = new HashMap<>();
        for (String n : named) {
            if (n != null && votes.merge(n, 1, Integer::sum) > size / 2) {
                return n;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
