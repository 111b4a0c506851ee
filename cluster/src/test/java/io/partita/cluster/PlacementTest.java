package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PlacementTest {
    private static List<String> members(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add("n" + i);
        }
        return out;
    }

    @Test
    void groupsTakeMembersInARowFromTheirPlaceRoundTheEnd() {
        List<String> five = List.of("n3", "n1", "n5", "n2", "n4");
        assertThat(Placement.of(five, 0, 3)).containsExactly("n1", "n2", "n3");
        assertThat(Placement.of(five, 3, 3)).containsExactly("n4", "n5", "n1");
        assertThat(Placement.of(five, 4, 3)).containsExactly("n5", "n1", "n2");
        assertThat(Placement.of(five, 7, 3)).containsExactly("n3", "n4", "n5");
        // On every member, each group preferring member (place modulo the members), as before placement.
        assertThat(Placement.of(List.of("b", "c", "a"), 1, 3)).containsExactly("b", "c", "a");
    }

    @Test
    void refusesWhatCannotBePlaced() {
        assertThatThrownBy(() -> Placement.of(members(3), 0, 4)).hasMessageContaining("1 to 3 members");
        assertThatThrownBy(() -> Placement.of(members(3), 0, 0)).hasMessageContaining("not 0");
        assertThatThrownBy(() -> Placement.of(List.of("a", "b", "a"), 0, 2)).hasMessageContaining("twice");
        assertThatThrownBy(() -> Placement.of(members(3), -1, 2)).hasMessageContaining("from 0");
    }

    @Property
    void everyNodeComputesTheSamePlacementAndGroupsSpreadEvenly(
            @ForAll @IntRange(min = 3, max = 12) int n,
            @ForAll @IntRange(min = 3, max = 12) int r,
            @ForAll @IntRange(min = 1, max = 40) int groups,
            @ForAll long seed) {
        if (r > n) {
            return;
        }
        List<String> members = members(n);
        List<String> shuffled = new ArrayList<>(members);
        Collections.shuffle(shuffled, new java.util.Random(seed));
        Map<String, Integer> held = new HashMap<>();
        Map<String, Integer> preferred = new HashMap<>();
        for (int g = 0; g < groups; g++) {
            List<String> placed = Placement.of(members, g, r);
            assertThat(Placement.of(shuffled, g, r)).isEqualTo(placed);
            assertThat(placed).hasSize(r).doesNotHaveDuplicates().isSubsetOf(members);
            placed.forEach(m -> held.merge(m, 1, Integer::sum));
            preferred.merge(placed.get(0), 1, Integer::sum);
        }
        // The groups beyond a multiple of the members' number are the only ones a member may hold more of than
        // another; no member is preferred by more than one group over any other.
        int most = 0;
        int least = Integer.MAX_VALUE;
        int mostPreferred = 0;
        int leastPreferred = Integer.MAX_VALUE;
        for (String m : members) {
            most = Math.max(most, held.getOrDefault(m, 0));
            least = Math.min(least, held.getOrDefault(m, 0));
            mostPreferred = Math.max(mostPreferred, preferred.getOrDefault(m, 0));
            leastPreferred = Math.min(leastPreferred, preferred.getOrDefault(m, 0));
        }
        assertThat(most - least).isLessThanOrEqualTo(Math.min(r, groups % n));
        assertThat(mostPreferred - leastPreferred).isLessThanOrEqualTo(1);
        if (groups % n == 0) {
            assertThat(most).isEqualTo(least).isEqualTo(groups / n * r);
        }
    }
}
