package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Which leader a group's members' answers name ({@link GroupLocator#majority}); the asking itself is in ITs. */
class GroupLocatorTest {
    @Test
    void theLeaderIsWhomMoreThanHalfOfTheMembersName() {
        // The leader names itself and its followers name it.
        assertThat(GroupLocator.majority(Arrays.asList("n1", "n1", "n1"), 3)).isEqualTo("n1");
        // A leader cut off still names itself; the two others elected n2.
        assertThat(GroupLocator.majority(Arrays.asList("n1", "n2", "n2"), 3)).isEqualTo("n2");
        // One member down, the two others agree.
        assertThat(GroupLocator.majority(Arrays.asList(null, "n3", "n3"), 3)).isEqualTo("n3");
        // An election: nobody knows, or the answers split.
        assertThat(GroupLocator.majority(Arrays.asList(null, null, "n1"), 3)).isNull();
        assertThat(GroupLocator.majority(Arrays.asList("n1", "n2", null), 3)).isNull();
        // Half of an even group is not a majority.
        assertThat(GroupLocator.majority(Arrays.asList("n1", "n1", "n2", "n2"), 4))
                .isNull();
        assertThat(GroupLocator.majority(Arrays.asList("n1", "n1", "n1", null), 4))
                .isEqualTo("n1");
    }
}
