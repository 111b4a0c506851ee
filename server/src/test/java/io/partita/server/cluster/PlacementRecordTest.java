package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's record of how its groups are placed ({@code raft/placement}), and the starts it refuses. */
class PlacementRecordTest {
    private static final List<ClusterConfig.Member> FOUR =
            ClusterConfig.parseMembers("n0=h:1:2,n1=h:3:4,n2=h:5:6,n3=h:7:8");

    @TempDir
    Path raft;

    private static ClusterConfig placed(int replicas) {
        return new ClusterConfig("c", "n1", FOUR).withReplicas(replicas);
    }

    private String record() throws Exception {
        return Files.readString(raft.resolve(PlacementRecord.FILE));
    }

    @Test
    void aFirstStartRecordsBeforeAnyGroupAndTheSamePlacementStartsAgain() throws Exception {
        PlacementRecord first = PlacementRecord.check(raft, placed(3), List.of("a", "b"));
        assertThat(record()).isEqualTo("replicas=3\nmembers=n0,n1,n2,n3\ngroup.a=n0,n1,n2\ngroup.b=n1,n2,n3\n");
        first.write();
        // The same flags, the members in another order: the same placement.
        List<ClusterConfig.Member> shuffled = List.of(FOUR.get(2), FOUR.get(0), FOUR.get(3), FOUR.get(1));
        PlacementRecord.check(raft, new ClusterConfig("c", "n1", shuffled).withReplicas(3), List.of("a", "b"))
                .write();
        // An account added after the others places no group anew. New to the node, its group is made where the
        // members' group decides, until the node made it.
        PlacementRecord withC = PlacementRecord.check(raft, placed(3), List.of("a", "b", "c"));
        withC.write();
        assertThat(record()).endsWith("group.c=n2,n3,n0\nnew.c=true\n");
        assertThat(withC.late("c")).isTrue();
        assertThat(withC.late("a")).isFalse();
        assertThat(withC.ownMembers("c")).isFalse();
        PlacementRecord again = PlacementRecord.check(raft, placed(3), List.of("a", "b", "c"));
        assertThat(again.late("c")).isTrue();
        again.recordFormed("c");
        assertThat(record()).endsWith("new.c=true\nformed.c=true\n");
        PlacementRecord formed = PlacementRecord.check(raft, placed(3), List.of("a", "b", "c"));
        assertThat(formed.late("c")).isFalse();
        assertThat(formed.formed("c")).isTrue();
        assertThat(formed.ownMembers("c")).isTrue();
        // One another member added to the node is its copy too: never made anew, even once it is gone.
        PlacementRecord.check(raft, placed(3), List.of("a", "b", "c", "d")).write();
        PlacementRecord added = PlacementRecord.check(raft, placed(3), List.of("a", "b", "c", "d"));
        assertThat(added.late("d")).isTrue();
        added.recordAdopted("d");
        assertThat(added.late("d")).isFalse();
        assertThat(added.formed("d")).isFalse();
        assertThat(PlacementRecord.check(raft, placed(3), List.of("a", "b", "c", "d"))
                        .late("d"))
                .isFalse();
    }

    @Test
    void withEveryGroupOnEveryMemberTheMembersNowAreRecordedOnceTheyDifferFromTheFlags() throws Exception {
        ClusterConfig every = new ClusterConfig("c", "n1", FOUR);
        PlacementRecord first = PlacementRecord.check(raft, every, List.of("a"));
        assertThat(first.first()).isTrue();
        first.members(List.of("n3", "n2", "n1", "n0"));
        assertThat(first.membersChanged()).isFalse();
        assertThat(record()).isEqualTo("replicas=all\n");
        first.members(List.of("n1", "n2", "n3", "n4"));
        PlacementRecord again = PlacementRecord.check(raft, every, List.of("a", "b"));
        assertThat(again.first()).isFalse();
        assertThat(again.membersChanged()).isTrue();
        assertThat(again.late("b")).isFalse(); // no members' group to decide: such a start is refused
    }

    @Test
    void theMembersRecordedNowAreKeptAcrossAStart() throws Exception {
        PlacementRecord first = PlacementRecord.check(raft, placed(3), List.of("a"));
        first.write();
        assertThat(first.membersChanged()).isFalse();
        first.members(List.of("n4", "n1", "n2", "n3"));
        // Kept across a start with the same flags: an account new to the node then cannot be placed by them.
        PlacementRecord again = PlacementRecord.check(raft, placed(3), List.of("a", "b"));
        assertThat(again.membersChanged()).isTrue();
        assertThat(again.membersEverChanged()).isTrue();
        assertThat(again.recorded("a")).isTrue();
        assertThat(again.recorded("b")).isFalse();
    }

    @Test
    void aClusterWithAGroupPerTableKeepsItAndKnowsTheTablesGroupsItHolds() throws Exception {
        // Turned on in a cluster that had it off: the tables made before stay in their account's group.
        PlacementRecord.check(raft, placed(3), List.of("a")).write();
        PlacementRecord on = PlacementRecord.check(raft, placed(3).withTableGroups(true), List.of("a"));
        on.write();
        assertThat(record()).contains("table.groups=on\n");
        on.recordFormed("table-1d87cc18-3735-4fe4-b73a-d5cb831b065b");
        on.recordAdopted("table-769f7925-ba25-4d65-94c1-a36e51bf1f8a");
        on.recordFormed("a");
        assertThat(on.tableKeys())
                .containsExactly(
                        "table-1d87cc18-3735-4fe4-b73a-d5cb831b065b", "table-769f7925-ba25-4d65-94c1-a36e51bf1f8a");
        on.forget("table-1d87cc18-3735-4fe4-b73a-d5cb831b065b");
        assertThat(on.tableKeys()).containsExactly("table-769f7925-ba25-4d65-94c1-a36e51bf1f8a");
        assertThat(record()).doesNotContain("1d87cc18");
        String before = record();
        // Turned off again, the tables in groups of their own would be found by no request.
        assertThatThrownBy(() -> PlacementRecord.check(raft, placed(3), List.of("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give it --cluster-table-groups");
        assertThat(record()).isEqualTo(before);
    }

    @Test
    void aFirstStartThatMadeNoGroupLeavesNoRecord() throws Exception {
        PlacementRecord first = PlacementRecord.check(raft, placed(3), List.of("a"));
        first.failed(new IllegalStateException("the Raft port is taken"));
        assertThat(raft.resolve(PlacementRecord.FILE)).doesNotExist();
        // One that made a group keeps it: the next start with other flags is refused.
        first = PlacementRecord.check(raft, placed(3), List.of("a"));
        Files.createDirectories(raft.resolve("3f1c2a4e-0000-0000-0000-000000000000"));
        first.failed(new IllegalStateException("a group did not start"));
        assertThatThrownBy(() -> PlacementRecord.check(raft, placed(4), List.of("a")))
                .hasMessageContaining("replicas=3 of members n0,n1,n2,n3")
                .hasMessageContaining("replicas=4 of members n0,n1,n2,n3");
    }

    @Test
    void aPlacementThatMovesARecordedGroupIsRefused() throws Exception {
        PlacementRecord.check(raft, placed(3), List.of("b", "c")).write();
        // An account before the others moves every group after it.
        assertThatThrownBy(() -> PlacementRecord.check(raft, placed(3), List.of("a", "b", "c")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("account b's group is on n0,n1,n2, and would now be on n1,n2,n3");
        // Removing the last account moves none; its line stays, so it cannot come back at another place.
        PlacementRecord.check(raft, placed(3), List.of("b")).write();
        assertThat(record()).contains("group.c=n1,n2,n3");
        assertThatThrownBy(() -> PlacementRecord.check(raft, placed(3), List.of("b", "b2", "c")))
                .hasMessageContaining("account c's group is on n1,n2,n3, and would now be on n2,n3,n0");
        // Other members are refused too.
        assertThatThrownBy(() -> PlacementRecord.check(
                        raft, new ClusterConfig("c", "n1", FOUR.subList(0, 3)).withReplicas(3), List.of("b", "c")))
                .hasMessageContaining("would now be with replicas=3 of members n0,n1,n2");
    }

    @Test
    void groupsWithoutARecordWereMadeOnEveryMember(@TempDir Path empty) throws Exception {
        Files.createDirectories(raft.resolve("3f1c2a4e-0000-0000-0000-000000000000"));
        ClusterConfig every = new ClusterConfig("c", "n1", FOUR);
        PlacementRecord.check(raft, every, List.of("a")).write();
        assertThat(record()).isEqualTo("replicas=all\n");
        assertThatThrownBy(() -> PlacementRecord.check(raft, placed(3), List.of("a")))
                .hasMessageContaining("placed with replicas=all, and would now be with replicas=3");
        // A folder with no group (a start that made none) records nothing yet: any placement may start.
        PlacementRecord.check(empty, placed(3), List.of("a"));
        assertThat(Files.readString(empty.resolve(PlacementRecord.FILE))).startsWith("replicas=3\n");
    }
}
