package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

class ReadLeaseTest {
    private static final long MS = 1_000_000L;
    /** A reading of System.nanoTime far from zero, as real ones are: the lease works on differences. */
    private static final long T = 987_654_321_000L;

    /** The wall clock's reading at the same moment as {@code nanoTime}'s: it runs alongside. */
    private static long ms(long nanoTime) {
        return 1_700_000_000_000L + nanoTime / MS;
    }

    @Test
    void coversTheHalfOpenWindowAfterTheProposalOnly() {
        ReadLease lease = new ReadLease(Duration.ofMillis(500));
        assertThat(lease.covers(0, 0, T, ms(T))).as("before any entry").isFalse();
        lease.extend(3, 7, T, ms(T));
        assertThat(lease.covers(3, 7, T, ms(T))).isTrue();
        assertThat(lease.covers(3, 7, T + 499 * MS, ms(T + 499 * MS))).isTrue();
        assertThat(lease.covers(3, 7, T + 500 * MS, ms(T + 500 * MS))).isFalse();
        assertThat(lease.covers(3, 7, T + 60_000 * MS, ms(T + 60_000 * MS))).isFalse();
    }

    @Test
    void belongsToItsTermAndItsMembers() {
        ReadLease lease = new ReadLease(Duration.ofMillis(500));
        lease.extend(3, 7, T, ms(T));
        assertThat(lease.covers(4, 7, T + MS, ms(T + MS))).as("a later term").isFalse();
        assertThat(lease.covers(2, 7, T + MS, ms(T + MS))).as("an earlier term").isFalse();
        assertThat(lease.covers(3, 9, T + MS, ms(T + MS))).as("other members").isFalse();

        // An entry of the term's new members renews it for them alone.
        lease.extend(3, 9, T + 100 * MS, ms(T + 100 * MS));
        assertThat(lease.covers(3, 9, T + 200 * MS, ms(T + 200 * MS))).isTrue();
        assertThat(lease.covers(3, 7, T + 200 * MS, ms(T + 200 * MS))).isFalse();
    }

    @Test
    void theLatestProposalOfTheLatestTermCounts() {
        ReadLease lease = new ReadLease(Duration.ofMillis(500));
        lease.extend(3, 7, T + 100 * MS, ms(T + 100 * MS));
        // An entry proposed earlier, answered later, does not shorten it.
        lease.extend(3, 7, T, ms(T));
        assertThat(lease.covers(3, 7, T + 550 * MS, ms(T + 550 * MS))).isTrue();
        // A later term's entry replaces it, even proposed earlier by the clock.
        lease.extend(4, 7, T + 50 * MS, ms(T + 50 * MS));
        assertThat(lease.covers(3, 7, T + 120 * MS, ms(T + 120 * MS))).isFalse();
        assertThat(lease.covers(4, 7, T + 120 * MS, ms(T + 120 * MS))).isTrue();
        // An older term's late answer changes nothing.
        lease.extend(3, 7, T + 400 * MS, ms(T + 400 * MS));
        assertThat(lease.covers(4, 7, T + 560 * MS, ms(T + 560 * MS))).isFalse();
        assertThat(lease.covers(3, 7, T + 560 * MS, ms(T + 560 * MS))).isFalse();
    }

    @Test
    void aLeaseOfNothingCoversNothing() {
        ReadLease lease = new ReadLease(Duration.ZERO);
        lease.extend(1, 1, T, ms(T));
        assertThat(lease.covers(1, 1, T, ms(T))).isFalse();
        assertThatThrownBy(() -> new ReadLease(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWallClockSetForwardEndsIt() {
        // A suspended host's System.nanoTime stands still while it sleeps; its wall clock is set forward on waking.
        ReadLease lease = new ReadLease(Duration.ofMillis(500));
        lease.extend(3, 7, T, ms(T));
        assertThat(lease.covers(3, 7, T + MS, ms(T) + 60_000)).isFalse();
        // A wall clock set back changes nothing: the monotonic reading still counts.
        assertThat(lease.covers(3, 7, T + MS, ms(T) - 60_000)).isTrue();
        assertThat(lease.covers(3, 7, T + 500 * MS, ms(T) - 60_000)).isFalse();
    }

    @Test
    void aRevokedTermHoldsNoLeaseAgain() {
        ReadLease lease = new ReadLease(Duration.ofMillis(500));
        lease.extend(3, 7, T, ms(T));
        lease.revoke(3);
        assertThat(lease.covers(3, 7, T + MS, ms(T + MS))).isFalse();
        lease.extend(3, 7, T + 10 * MS, ms(T + 10 * MS));
        assertThat(lease.covers(3, 7, T + 11 * MS, ms(T + 11 * MS)))
                .as("renewed in the revoked term")
                .isFalse();
        lease.extend(4, 7, T + 20 * MS, ms(T + 20 * MS));
        assertThat(lease.covers(4, 7, T + 21 * MS, ms(T + 21 * MS)))
                .as("the next term's")
                .isTrue();
        lease.revoke(2);
        assertThat(lease.covers(4, 7, T + 22 * MS, ms(T + 22 * MS)))
                .as("an older term's revocation")
                .isTrue();
    }

    private static RaftPeer peer(String id, int priority) {
        return RaftPeer.newBuilder()
                .setId(id)
                .setAddress("127.0.0.1:9000")
                .setPriority(priority)
                .build();
    }

    @Test
    void aLeaseMayHoldOnlyForAMemberOfTheTopPriorityWhileTheMembersStay() {
        RaftPeerId n1 = RaftPeerId.valueOf("n1");
        List<RaftPeer> equal = List.of(peer("n1", 0), peer("n2", 0), peer("n3", 0));
        assertThat(ClusterNode.leaseMayHold(equal, List.of(), n1)).isTrue();
        assertThat(ClusterNode.prefersAnother(List.of(peer("n1", 1), peer("n2", 0), peer("n3", 0)), n1))
                .as("preferred itself")
                .isFalse();
        assertThat(ClusterNode.prefersAnother(List.of(peer("n1", 0), peer("n2", 1), peer("n3", 0)), n1))
                .as("another member is preferred: Ratis hands it the leadership")
                .isTrue();
        assertThat(ClusterNode.leaseMayHold(List.of(peer("n2", 0), peer("n3", 0)), List.of(), n1))
                .as("removed")
                .isFalse();
        assertThat(ClusterNode.leaseMayHold(equal, List.of(peer("n1", 0), peer("n2", 0), peer("n4", 0)), n1))
                .as("the members are changing")
                .isFalse();
        assertThat(ClusterNode.prefersAnother(equal, n1)).isFalse();
        assertThat(ClusterNode.prefersAnother(List.of(peer("n1", 0), peer("n2", 1)), n1))
                .isTrue();
        assertThat(ClusterNode.prefersAnother(List.of(peer("n1", 1), peer("n2", 0)), n1))
                .isFalse();
    }
}
