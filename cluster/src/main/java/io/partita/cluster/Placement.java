package io.partita.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which members of a cluster each of its groups is placed on, the same on every node: given the members and a group's
 * place in the cluster's order of groups, every node computes the same members, whatever order it was given them in.
 */
public final class Placement {
    private Placement() {}

    /**
     * The members group number {@code index} (from 0) is placed on, its preferred leader first: {@code replicas}
     * members in a row of the members sorted by id, starting at member {@code index} (modulo their number) and going
     * on round the end. With as many groups as members, each member is the preferred leader of one group and holds
     * {@code replicas} of them; with {@code replicas} equal to the members' number, every group is on every member.
     *
     * @throws IllegalArgumentException when {@code replicas} is not from 1 to the members' number, or a member is
     *     named twice
     */
    public static List<String> of(Collection<String> members, int index, int replicas) {
        List<String> byId = new ArrayList<>(members);
        byId.sort(null);
        for (int i = 1; i < byId.size(); i++) {
            if (byId.get(i).equals(byId.get(i - 1))) {
                throw new IllegalArgumentException("member " + byId.get(i) + " is named twice");
            }
        }
        if (replicas < 1 || replicas > byId.size()) {
            throw new IllegalArgumentException(
                    "a group is placed on 1 to " + byId.size() + " members (the cluster's), not " + replicas);
        }
        if (index < 0) {
            throw new IllegalArgumentException("a group's place is from 0, not " + index);
        }
        List<String> placed = new ArrayList<>(replicas);
        for (int i = 0; i < replicas; i++) {
            placed.add(byId.get((index + i) % byId.size()));
        }
        return List.copyOf(placed);
    }
}
