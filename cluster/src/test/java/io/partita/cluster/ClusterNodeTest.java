package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class ClusterNodeTest {
    @Test
    void followersAppendEveryRequestTheyAcknowledge() {
        RaftProperties properties = ClusterNode.properties(
                new ClusterNode.Peer("n1", "127.0.0.1", 9001, "127.0.0.1:8001"),
                Path.of("raft"),
                ClusterNode.Timings.defaults(),
                false,
                ClusterNode.LogRetention.defaults());
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
}
