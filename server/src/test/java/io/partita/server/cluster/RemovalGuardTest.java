package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Removing a member that a group the members' group decided is made on ({@link ClusterMember#refusedRemoval}): refused
 * while the group has no leader this node knows of, after a wait for one.
 */
class RemovalGuardTest {
    private static final long SECOND = 1_000_000_000L;

    /** A clock that a second passes on at each reading. */
    private final AtomicLong now = new AtomicLong();

    private long tick() {
        return now.getAndAdd(SECOND);
    }

    @Test
    void aGroupThatHasALeaderOrIsNotMadeOnTheMemberDoesNotHoldUpItsRemoval() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        List<ClusterMember.Decided> decided = List.of(
                new ClusterMember.Decided("account 1", List.of("n1", "n2", "n3"), () -> {
                    asked.incrementAndGet();
                    return "n2";
                }),
                new ClusterMember.Decided("account 2", List.of("n2", "n3", "n4"), () -> {
                    throw new AssertionError("a group not made on n1 is not looked at");
                }));

        assertThat(ClusterMember.refusedRemoval("n1", decided, 3 * SECOND, this::tick))
                .isNull();
        assertThat(asked).hasValue(1);
    }

    @Test
    void aGroupBetweenTwoLeadersIsWaitedFor() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        // No leader for the first two askings (an election, or a locator that has not asked yet), then one.
        List<ClusterMember.Decided> decided = List.of(new ClusterMember.Decided(
                "account 1", List.of("n1", "n2", "n3"), () -> asked.incrementAndGet() > 2 ? "n3" : null));

        assertThat(ClusterMember.refusedRemoval("n2", decided, 3 * SECOND, this::tick))
                .isNull();
        assertThat(asked.get()).isGreaterThan(2);
    }

    @Test
    void aGroupWithNoLeaderForTheWholeWaitRefusesTheRemovalNamingIt() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        List<ClusterMember.Decided> decided = List.of(
                new ClusterMember.Decided("account 1", List.of("n1", "n2", "n3"), () -> "n1"),
                new ClusterMember.Decided("account 5", List.of("n1", "n2", "n3"), () -> {
                    asked.incrementAndGet();
                    return null;
                }));

        String refused = ClusterMember.refusedRemoval("n3", decided, 3 * SECOND, this::tick);

        assertThat(refused)
                .startsWith("account 5's group, made on [n1, n2, n3], has no leader")
                .contains("removing n3 could leave it unable to elect one");
        // Asked until the wait ran out on the clock, not for ever.
        assertThat(asked.get()).isBetween(2, 5);
        assertThat(now.get()).isBetween(3 * SECOND, 6 * SECOND);
    }
}
