package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's cluster settings from its flags' forms and from a properties file ({@code --cluster-config}). */
class ClusterConfigTest {
    private static final String MEMBERS = "members=n1=10.0.0.1:9000:8000,n2=10.0.0.2:9000:8000,n3=10.0.0.3:9000:8000\n";

    @TempDir
    Path dir;

    private ClusterConfig load(String properties, String nodeId) throws Exception {
        Path file = dir.resolve("cluster.properties");
        Files.writeString(file, properties);
        return ClusterConfig.load(file, nodeId);
    }

    @Test
    void aFileNamesTheClusterItsMembersAndWhetherFollowersRead() throws Exception {
        ClusterConfig c = load("cluster.name=prod\nnode.id=n2\n" + MEMBERS + "follower.reads=true\n", null);
        assertThat(c.name()).isEqualTo("prod");
        assertThat(c.nodeId()).isEqualTo("n2");
        assertThat(c.self().apiAddress()).isEqualTo("10.0.0.2:8000");
        assertThat(c.followerReads()).isTrue();
        assertThat(c.join()).isFalse();

        // Without follower.reads every request goes to the leader; --node-id overrides the file's node.
        ClusterConfig defaults = load("node.id=n2\n" + MEMBERS, "n3");
        assertThat(defaults.name()).isEqualTo("partita");
        assertThat(defaults.nodeId()).isEqualTo("n3");
        assertThat(defaults.followerReads()).isFalse();
        // Joining keeps follower reads, and the other way round.
        assertThat(c.joining(true).followerReads()).isTrue();
        assertThat(defaults.withFollowerReads(true).joining(true).join()).isTrue();
    }

    @Test
    void theReadLeaseIsOnUnlessTheFileTurnsItOff() throws Exception {
        assertThat(load("node.id=n2\n" + MEMBERS, null).readLease()).isTrue();
        ClusterConfig off = load("node.id=n2\n" + MEMBERS + "read.lease=false\n", null);
        assertThat(off.readLease()).isFalse();
        assertThat(off.joining(true).withFollowerReads(true).readLease()).isFalse();
        assertThat(off.withReadLease(true).readLease()).isTrue();
        assertThatThrownBy(() -> load("node.id=n1\n" + MEMBERS + "read.lease=off\n", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("read.lease is true or false, not off");
    }

    @Test
    void groupsAreOnEveryMemberUnlessReplicasPlacesThemOnSome() throws Exception {
        String five = MEMBERS.strip() + ",n4=10.0.0.4:9000:8000,n5=10.0.0.5:9000:8000\n";
        ClusterConfig every = load("node.id=n2\n" + five, null);
        assertThat(every.replicas()).isZero();
        assertThat(every.placed()).isFalse();
        ClusterConfig three = load("node.id=n2\n" + five + "replicas=3\n", null);
        assertThat(three.replicas()).isEqualTo(3);
        assertThat(three.placed()).isTrue();
        assertThat(three.withFollowerReads(true).withReadLease(false).replicas())
                .isEqualTo(3);
        assertThat(load("node.id=n2\n" + five + "replicas=5\n", null).replicas())
                .isEqualTo(5);
        // A group of fewer than three cannot lose a member; one of more than the members cannot be placed.
        assertThatThrownBy(() -> load("node.id=n2\n" + five + "replicas=2\n", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("placed on 3 to 5 members")
                .hasMessageContaining("not 2");
        assertThatThrownBy(() -> every.withReplicas(6)).hasMessageContaining("not 6");
        assertThatThrownBy(() -> load("node.id=n2\n" + five + "replicas=three\n", null))
                .hasMessageContaining("replicas is a number of members, not three");
        // A node may join such a cluster: its groups come to it as they move.
        assertThat(three.joining(true).join()).isTrue();
        assertThat(three.joining(true).replicas()).isEqualTo(3);
    }

    @Test
    void everyTableMayBeCutIntoSeveralRangesOnlyWithAGroupPerPartition() throws Exception {
        String four = MEMBERS.strip() + ",n4=10.0.0.4:9000:8000\nreplicas=3\n";
        assertThat(load("node.id=n2\n" + four, null).minRanges()).isEqualTo(1);
        ClusterConfig cut = load(
                "node.id=n2\n" + four + "table.groups=true\ntable.partition-groups=true\ntable.min-ranges=3\n", null);
        assertThat(cut.minRanges()).isEqualTo(3);
        assertThat(cut.withReplicas(4).minRanges()).as("kept by another change").isEqualTo(3);
        assertThatThrownBy(() -> cut.withMinRanges(9)).hasMessageContaining("1 to 8 hash ranges at least, not 9");
        assertThatThrownBy(() -> cut.withMinRanges(0)).hasMessageContaining("not 0");
        assertThatThrownBy(() -> load("node.id=n2\n" + four + "table.groups=true\ntable.min-ranges=2\n", null))
                .hasMessageContaining("give --cluster-partition-groups too");
        assertThatThrownBy(() -> load("node.id=n2\n" + four + "table.min-ranges=two\n", null))
                .hasMessageContaining("table.min-ranges is a number of hash ranges, not two");
        // A range moves by itself once its store split a partition inside it, unless the file says not to.
        assertThat(cut.autoSplit()).isTrue();
        ClusterConfig asked = load(
                "node.id=n2\n" + four + "table.groups=true\ntable.partition-groups=true\ntable.auto-split=false\n",
                null);
        assertThat(asked.autoSplit()).isFalse();
        assertThat(asked.withMinRanges(2).autoSplit())
                .as("kept by another change")
                .isFalse();
        assertThatThrownBy(() -> load("node.id=n2\n" + four + "table.auto-split=sometimes\n", null))
                .hasMessageContaining("table.auto-split");
    }

    @Test
    void aGroupPerTableIsOffUnlessTheFileTurnsItOnAndNeedsReplicas() throws Exception {
        String five = MEMBERS.strip() + ",n4=10.0.0.4:9000:8000,n5=10.0.0.5:9000:8000\n";
        assertThat(load("node.id=n2\n" + five + "replicas=3\n", null).tableGroups())
                .isFalse();
        ClusterConfig tables = load("node.id=n2\n" + five + "replicas=3\ntable.groups=true\n", null);
        assertThat(tables.tableGroups()).isTrue();
        assertThat(tables.joining(true).withFollowerReads(true).tableGroups()).isTrue();
        assertThatThrownBy(() -> load("node.id=n2\n" + five + "table.groups=true\n", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give --cluster-replicas too");
        assertThatThrownBy(() -> load("node.id=n2\n" + five + "replicas=3\ntable.groups=on\n", null))
                .hasMessageContaining("table.groups is true or false, not on");
    }

    @Test
    void aFollowerReadsSettingThatIsNotABooleanIsRefused() {
        assertThatThrownBy(() -> load("node.id=n1\n" + MEMBERS + "follower.reads=yes\n", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("follower.reads is true or false, not yes");
    }

    @Test
    void membersAreIdHostAndTwoPortsAndThereAreAtLeastThree() {
        assertThat(ClusterConfig.parseMember("n1=h:1:2")).isEqualTo(new ClusterConfig.Member("n1", "h", 1, 2));
        assertThatThrownBy(() -> ClusterConfig.parseMember("n1=h:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id=host:raftPort:apiPort");
        assertThatThrownBy(() -> ClusterConfig.parseMember("n1=h:1:70000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from 1 to 65535");
        assertThatThrownBy(() -> new ClusterConfig("c", "n1", ClusterConfig.parseMembers("n1=h:1:2,n2=h:3:4")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3 members");
    }
}
