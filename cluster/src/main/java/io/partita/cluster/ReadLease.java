package io.partita.cluster;

import java.time.Duration;

/**
 * A leader's lease on strongly consistent reads: for a while after it proposed an entry that the group then
 * committed, no other node can have been elected, so the leader may answer a read from its own state without
 * confirming its leadership again.
 *
 * <p>Why it holds (the leases of section 6.4.1 of Ongaro's Raft thesis): an entry of the leader's term proposed at
 * time {@code t} and committed is held by a majority, each of which received it after {@code t}. A node that lacks it
 * cannot be elected, since every majority includes a node holding it, which refuses a candidate whose log is behind
 * its own. A node that holds it starts an election only once it has heard nothing from the leader for its election
 * timeout, at least the minimum, after it received the entry: not before {@code t} plus that minimum. The lease lasts
 * half of it, which leaves the clocks' drift and the time a read takes to be checked a wide margin.
 *
 * <p>A node's first election after its start waits half the usual minimum, the longest lease ({@link
 * ClusterNode#firstElection}): a node that received the entry and restarted stands no sooner than {@code t} plus the
 * lease, and then only if the pre-vote passes, which a majority still hearing from the leader refuses. On that path
 * the margin is the restart's own time, not another half timeout.
 *
 * <p>It assumes that every node has the same election timeouts, and that the leader's clock counts the time it was
 * frozen. {@link System#nanoTime} counts a process's pauses (a GC, SIGSTOP) but not a suspended host's or a paused
 * VM's, so the time passed is the greater of its reading's and the wall clock's, which a resumed host sets forward.
 * Where VMs are paused or moved without their wall clock being set, the lease is to be turned off.
 *
 * <p>Ways of moving the leadership that skip the timeout void it: a leader handing its part to a member of higher
 * priority (Ratis asks that member to stand at once, and the request may arrive late), and a change of the members,
 * whose majorities differ. {@link ClusterNode} checks the members, and {@linkplain #revoke revokes} the lease for the
 * rest of a term in which another member was preferred (seen by a read, a proposal, a change of preference, or the
 * state machine applying a configuration) or a proposal was refused as the leader stepped down. A transfer asked of
 * Ratis directly (on the Raft port; Partita asks none) is not allowed for while no proposal is refused: the lease is
 * to be turned off before using tools that ask one.
 *
 * <p>The lease belongs to a term and a configuration (the log index of the members' entry): an entry proposed in an
 * older term, or under other members, extends nothing now.
 */
final class ReadLease {
    private final long nanos;
    private final long millis;
    private long term = -1;
    private long configuration = -1;
    private long since;
    private long sinceMillis;
    private long revoked = -1;

    ReadLease(Duration length) {
        if (length.isNegative()) {
            throw new IllegalArgumentException("a lease lasts zero or more: " + length);
        }
        this.nanos = length.toNanos();
        this.millis = length.toMillis();
    }

    /**
     * Records that an entry proposed at {@code proposedAt} (a {@link System#nanoTime} reading taken before it was
     * proposed, and the wall clock's {@code proposedAtMillis}), in {@code term}, under the members' configuration at
     * {@code configuration}, was committed. A later term replaces the lease; within a term, the latest proposal does.
     */
    synchronized void extend(long term, long configuration, long proposedAt, long proposedAtMillis) {
        if (term > this.term || (term == this.term && proposedAt - since > 0)) {
            this.term = term;
            this.configuration = configuration;
            this.since = proposedAt;
            this.sinceMillis = proposedAtMillis;
        }
    }

    /** Holds no lease in {@code term}, or any before it, from now on. */
    synchronized void revoke(long term) {
        revoked = Math.max(revoked, term);
    }

    /**
     * Whether at {@code now} (and the wall clock's {@code nowMillis}) the leader of {@code term}, under the
     * configuration at {@code configuration}, still holds the lease: a read may then be answered from its state.
     */
    synchronized boolean covers(long term, long configuration, long now, long nowMillis) {
        return term > revoked
                && term == this.term
                && configuration == this.configuration
                && now - since < nanos
                && nowMillis - sinceMillis < millis;
    }
}
