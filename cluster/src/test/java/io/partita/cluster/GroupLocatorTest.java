package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a round of the members' answers names a group's leader ({@link GroupLocator.Votes}); the asking is in ITs. */
class GroupLocatorTest {
    /** The answers counted in order: the index of the one that decided the round (-1 if none), and its leader. */
    private static Object[] round(int size, String... answers) {
        GroupLocator.Votes votes = new GroupLocator.Votes(size);
        int decidedBy = -1;
        for (int i = 0; i < answers.length; i++) {
            if (votes.count(answers[i])) {
                assertThat(decidedBy).as("decided twice").isEqualTo(-1);
                decidedBy = i;
            }
        }
        return new Object[] {decidedBy, votes.leader()};
    }

    @Test
    void theLeaderIsWhomMoreThanHalfOfTheMembersNameAsSoonAsTheyDo() {
        // The leader names itself and its followers name it: two of three decide, the third is not waited for.
        assertThat(round(3, "n1", "n1")).containsExactly(1, "n1");
        assertThat(round(3, "n1", "n1", "n1")).containsExactly(1, "n1");
        // A leader cut off still names itself; the two others elected n2.
        assertThat(round(3, "n1", "n2", "n2")).containsExactly(2, "n2");
        // One member down (no answer counts as none), the two others agree.
        assertThat(round(3, null, "n3", "n3")).containsExactly(2, "n3");
        // An election: nobody knows, or the answers split; the last answer decides that none is known.
        assertThat(round(3, null, null, "n1")).containsExactly(2, null);
        assertThat(round(3, "n1", "n2", null)).containsExactly(2, null);
        assertThat(round(3, "n1", null)).containsExactly(-1, null);
        // Half of an even group is not a majority.
        assertThat(round(4, "n1", "n1", "n2", "n2")).containsExactly(3, null);
        assertThat(round(4, "n1", null, "n1", "n1")).containsExactly(3, "n1");
        assertThat(round(5, "a", "b", "a", "a")).containsExactly(3, "a");
    }
}
