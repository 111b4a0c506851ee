package io.partita.cluster;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * Ratis's gRPC transport, but for one decision of a leader's log appender: when to send a follower the latest
 * checkpoint ({@link PartitaLogAppender#shouldInstallSnapshot}). A node's Ratis server names it by class in its
 * settings ({@code raft.rpc.type}), as Ratis takes an {@link RpcType} of one's own; its clients use Ratis's own gRPC.
 */
public final class PartitaRpc implements RpcType {
    /** Made by Ratis, by reflection, from the class's name. */
    public PartitaRpc() {}

    @Override
    public String name() {
        return PartitaRpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(parameters);
    }

    /** Ratis's gRPC factory, whose leaders' log appenders are {@link PartitaLogAppender}s. */
    static final class Factory extends GrpcFactory {
        Factory(Parameters parameters) {
            super(parameters);
        }

        @Override
        public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            return new PartitaLogAppender(server, state, follower);
        }
    }

    /**
     * Ratis 3.2.2's gRPC log appender, which also sends the latest checkpoint to a follower whose next entry is the
     * first of the leader's log.
     *
     * <p>The appender sends a follower the entries from its next index on, with the entry before them, which it must
     * find in its log or as its latest snapshot's last. Ratis sends the snapshot instead only when the follower's next
     * index is below the first entry of the leader's log. A follower whose next index is that first entry gets
     * neither: Ratis fails the appender ("Previous TermIndex not found for firstIndex"), and the follower never catches
     * up. That is the usual case of a leader killed and away for long: a new term begins a new log segment, its log
     * ended just before it, and while it was away the new leader took checkpoints and purged every segment before it
     * (after 2 × {@code --cluster-snapshot-entries} entries). Seen on a {@code cluster/run-local.sh} cluster with a
     * checkpoint every 300 entries: the killed leader, back after 5,600 writes, stayed at its entry 119 for good.
     */
    static final class PartitaLogAppender extends GrpcLogAppender {
        PartitaLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            super(server, state, follower);
        }

        @Override
        public SnapshotInfo shouldInstallSnapshot() {
            SnapshotInfo ratis = super.shouldInstallSnapshot();
            if (ratis != null && ratis.getFiles().isEmpty()) {
                // The store's position with no checkpoint (one could not be taken at a start: StoreStateMachine),
                // which Ratis would offer a new member and fail to send, without end. The member takes the log
                // instead; a follower that needs entries already purged waits for the next checkpoint.
                getFollower().setAttemptedToInstallSnapshot();
                return null;
            }
            if (ratis != null) {
                return ratis;
            }
            long next = getFollower().getNextIndex();
            if (getFollower().getSnapshotIndex() + 1 == next) {
                return null; // just installed a checkpoint: Ratis appends after it with no entry before
            }
            SnapshotInfo latest = getServer().getStateMachine().getLatestSnapshot();
            RaftLog log = getRaftLog();
            boolean needed = latest != null
                    && !latest.getFiles().isEmpty()
                    && needsSnapshot(next, i -> log.getTermIndex(i) != null, latest.getIndex());
            return needed ? latest : null;
        }
    }

    /**
     * Whether a follower whose next entry is {@code next} must be sent the latest snapshot, which ends with entry
     * {@code snapshotIndex}, before any entry: the entry before {@code next} is neither in the leader's log ({@code
     * inLog}) nor the snapshot's last, and the snapshot goes past it.
     */
    static boolean needsSnapshot(long next, java.util.function.LongPredicate inLog, long snapshotIndex) {
        if (next <= RaftLog.LEAST_VALID_LOG_INDEX) {
            return false;
        }
        long previous = next - 1;
        return snapshotIndex > previous && !inLog.test(previous);
    }
}
