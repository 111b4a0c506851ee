package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class ClusterNodeTest {
    /** A node's Ratis settings with the default timings and log retention. */
    private static RaftProperties defaults() {
        return ClusterNode.properties(
                new ClusterNode.Peer("n1", "127.0.0.1", 9001, "127.0.0.1:8001"),
                Path.of("raft"),
                ClusterNode.Timings.defaults(),
                false,
                ClusterNode.LogRetention.defaults());
    }

    @Test
    void followersAppendEveryRequestTheyAcknowledge() {
        RaftProperties properties = defaults();
        // Ratis's default is true, under which a follower acknowledged entries it had not written (docs/CLUSTER.md).
        assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(properties))
                .isFalse();
        // and runs the appends on one thread, one at a time, in order.
        assertThat(RaftServerConfigKeys.ThreadPool.serverCached(properties)).isFalse();
        assertThat(RaftServerConfigKeys.ThreadPool.serverSize(properties)).isEqualTo(1);
        // Its leaders' appenders are Partita's, which send a checkpoint in one more case
        // (PartitaRpc.PartitaLogAppender).
        assertThat(org.apache.ratis.RaftConfigKeys.Rpc.type(properties, message -> {}))
                .isInstanceOf(PartitaRpc.class);
        assertThat(new PartitaRpc().newFactory(new org.apache.ratis.conf.Parameters()))
                .isInstanceOf(PartitaRpc.Factory.class);
    }

    @Test
    void aGroupsFirstElectionIsSoonerButNeverBeforeAnyReadLeaseEnds() {
        RaftProperties properties = defaults();
        // The defaults: 1 to 2 s, a lease of 500 ms: the first election no sooner than the longest lease.
        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(properties).toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(500);
        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(properties).toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(1000);
        assertThat(RaftServerConfigKeys.Rpc.timeoutMin(properties).toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(1000);
        // With no lease of its own, the same: another node's leader may hold one (a rolling change of the setting).
        ClusterNode.Timings noLease = new ClusterNode.Timings(
                Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofSeconds(10), Duration.ZERO);
        assertThat(ClusterNode.firstElection(noLease)).isEqualTo(Duration.ofMillis(500));
    }
}
