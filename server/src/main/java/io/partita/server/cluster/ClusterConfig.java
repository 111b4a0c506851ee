package io.partita.server.cluster;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * A node's place in a cluster: the cluster's name (every node of one cluster gives the same), this node's id, and
 * every member with the two ports it listens on: Raft's, between the nodes, and the DynamoDB API's, for clients.
 *
 * @param name the cluster's name; the Raft group's id is derived from it
 * @param nodeId this node's id, one of {@code members}
 * @param members every node of the cluster, this one included
 * @param join whether this node is new to a running cluster: it starts with no configuration of its own the first
 *     time, and waits for the leader to add it ({@code POST /cluster/members}, docs/CLUSTER.md)
 * @param followerReads whether this node, while it follows, answers eventually consistent reads from its own replica
 *     instead of forwarding them to the leader ({@code --cluster-follower-reads}, docs/CLUSTER.md)
 * @param readLease whether this node, while it leads, answers strongly consistent reads within its read lease without
 *     a barrier through the log (the default; {@code --no-cluster-read-lease} turns it off, docs/CLUSTER.md)
 * @param replicas on how many members each group is placed ({@code --cluster-replicas}, from 3 to the number of
 *     members), or 0 for every member (the default)
 * @param tableGroups whether each table an account makes is a Raft group of its own, placed on {@code replicas}
 *     members ({@code --cluster-table-groups}, docs/CLUSTER.md); only with {@code replicas}
 * @param partitionGroups whether each partition of a new table (with no global secondary index and no stream) is a Raft
 *     group of its own, its hash range's ({@code --cluster-partition-groups}, docs/CLUSTER.md); only with {@code
 *     tableGroups}
 * @param minRanges into how many hash ranges (each a group) at least each new table that can be cut is cut, whatever
 *     its throughput needs ({@code --cluster-min-ranges}, 1 to 8; 1, the default, cuts only a table whose declared
 *     throughput needs several partitions): a way to run any test suite's small tables over several groups; only with
 *     {@code partitionGroups}
 * @param autoSplit whether a range's group moves part of its range to a new group by itself once its store has split a
 *     partition inside the range, for size, heat or a raise of the table's throughput, as DynamoDB splits a partition
 *     ({@code --no-cluster-auto-split} turns it off; docs/CLUSTER.md "Moving a range"); it matters with
 *     {@code partitionGroups} only
 */
public record ClusterConfig(
        String name,
        String nodeId,
        List<Member> members,
        boolean join,
        boolean followerReads,
        boolean readLease,
        int replicas,
        boolean tableGroups,
        boolean partitionGroups,
        int minRanges,
        boolean autoSplit) {
    /** A node: its id, its host, and its Raft and API ports. */
    public record Member(String id, String host, int raftPort, int apiPort) {
        public String apiAddress() {
            return host + ":" + apiPort;
        }
    }

    public ClusterConfig {
        members = List.copyOf(members);
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("the cluster needs a name");
        }
        Set<String> ids = new HashSet<>();
        for (Member m : members) {
            if (!ids.add(m.id())) {
                throw new IllegalArgumentException("two members are called " + m.id());
            }
        }
        if (!ids.contains(nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is not one of the members " + ids);
        }
        if (members.size() < 3) {
            // One node is single-node mode; two cannot lose one and keep a majority.
            throw new IllegalArgumentException("a cluster has at least 3 members, not " + members.size());
        }
        if (replicas != 0 && (replicas < 3 || replicas > members.size())) {
            // A group of fewer than three cannot lose a member and keep a majority.
            throw new IllegalArgumentException(
                    "a group is placed on 3 to " + members.size() + " members (the cluster's), not " + replicas);
        }
        if (tableGroups && replicas == 0) {
            throw new IllegalArgumentException("a group per table (--cluster-table-groups) is placed on some of the"
                    + " members: give --cluster-replicas too");
        }
        if (partitionGroups && !tableGroups) {
            throw new IllegalArgumentException("a group per partition (--cluster-partition-groups) is a table's group"
                    + " cut by hash ranges: give --cluster-table-groups too");
        }
        if (minRanges < 1 || minRanges > MAX_RANGES) {
            throw new IllegalArgumentException(
                    "a table is cut into 1 to " + MAX_RANGES + " hash ranges at least, not " + minRanges);
        }
        if (minRanges > 1 && !partitionGroups) {
            throw new IllegalArgumentException("cutting every table into hash ranges (--cluster-min-ranges) needs a"
                    + " group per partition: give --cluster-partition-groups too");
        }
    }

    /** The most hash ranges (each a Raft group) a table is cut into at its creation. */
    public static final int MAX_RANGES = 8;

    public ClusterConfig(String name, String nodeId, List<Member> members) {
        this(name, nodeId, members, false, false, true, 0, false, false, 1, true);
    }

    /** The same node, new to a running cluster ({@code --cluster-join}). */
    public ClusterConfig joining(boolean join) {
        return with(c -> c.join = join);
    }

    /** The same node, answering eventually consistent reads itself while it follows ({@code followerReads}). */
    public ClusterConfig withFollowerReads(boolean followerReads) {
        return with(c -> c.followerReads = followerReads);
    }

    /** The same node, with its read lease on or off ({@code readLease}). */
    public ClusterConfig withReadLease(boolean readLease) {
        return with(c -> c.readLease = readLease);
    }

    /** The same node, its cluster's groups each placed on {@code replicas} members (0: on every member). */
    public ClusterConfig withReplicas(int replicas) {
        return with(c -> c.replicas = replicas);
    }

    /** The same node, each new table of its cluster a group of its own ({@code tableGroups}), or not. */
    public ClusterConfig withTableGroups(boolean tableGroups) {
        return with(c -> c.tableGroups = tableGroups);
    }

    /** The same node, each partition of its cluster's new tables a group of its own ({@code partitionGroups}). */
    public ClusterConfig withPartitionGroups(boolean partitionGroups) {
        return with(c -> c.partitionGroups = partitionGroups);
    }

    /** The same node, each new table that can be cut cut into {@code minRanges} hash ranges at least. */
    public ClusterConfig withMinRanges(int minRanges) {
        return with(c -> c.minRanges = minRanges);
    }

    /**
     * The same node, its range groups moving part of their range to a new group by themselves after their store split a
     * partition inside it ({@code autoSplit}), or only when asked.
     */
    public ClusterConfig withAutoSplit(boolean autoSplit) {
        return with(c -> c.autoSplit = autoSplit);
    }

    private ClusterConfig with(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return new ClusterConfig(
                name,
                nodeId,
                members,
                c.join,
                c.followerReads,
                c.readLease,
                c.replicas,
                c.tableGroups,
                c.partitionGroups,
                c.minRanges,
                c.autoSplit);
    }

    /** The settings a {@code with…} may change, so that each names only its own. */
    private static final class Copy {
        boolean join;
        boolean followerReads;
        boolean readLease;
        int replicas;
        boolean tableGroups;
        boolean partitionGroups;
        int minRanges;
        boolean autoSplit;

        Copy(ClusterConfig c) {
            join = c.join;
            followerReads = c.followerReads;
            readLease = c.readLease;
            replicas = c.replicas;
            tableGroups = c.tableGroups;
            partitionGroups = c.partitionGroups;
            minRanges = c.minRanges;
            autoSplit = c.autoSplit;
        }
    }

    /** Whether each group is placed on some of the members only, as {@link #replicas} says, rather than on all. */
    public boolean placed() {
        return replicas != 0;
    }

    public Member self() {
        return member(nodeId);
    }

    public Member member(String id) {
        return members.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
    }

    /**
     * Reads {@code n1=host:raftPort:apiPort,n2=…}: each member's id, host, Raft port and API port.
     *
     * @throws IllegalArgumentException naming the part that is not of that form
     */
    public static List<Member> parseMembers(String spec) {
        List<Member> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) {
                out.add(parseMember(p));
            }
        }
        return out;
    }

    /** Reads one member, {@code id=host:raftPort:apiPort}. */
    public static Member parseMember(String p) {
        int eq = p.indexOf('=');
        String[] address = eq < 0 ? new String[0] : p.substring(eq + 1).split(":");
        if (eq <= 0 || address.length != 3 || address[0].isEmpty()) {
            throw new IllegalArgumentException("a member is id=host:raftPort:apiPort, not " + p);
        }
        try {
            int raft = Integer.parseInt(address[1]);
            int api = Integer.parseInt(address[2]);
            if (raft < 1 || raft > 65535 || api < 1 || api > 65535) {
                throw new IllegalArgumentException("a member's ports are from 1 to 65535: " + p);
            }
            return new Member(p.substring(0, eq), address[0], raft, api);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a member's ports are numbers: " + p, e);
        }
    }

    /**
     * Reads a properties file with {@code cluster.name}, {@code node.id}, {@code members} (in {@link
     * #parseMembers}'s form) and, optionally, {@code follower.reads} ({@code true} or {@code false}, the default),
     * {@code read.lease} ({@code true}, the default, or {@code false}), {@code replicas} (on how many members each
     * group is placed; every member by default), {@code table.groups} (a group per table, {@code false} by
     * default), {@code table.partition-groups} (a group per partition, {@code false} by default) and {@code
     * table.min-ranges} (into how many ranges at least each new table is cut, 1 by default) and {@code
     * table.auto-split} ({@code true}, the default, or {@code false}: {@link #autoSplit}); {@code nodeId}, when not
     * null, overrides the file's.
     */
    public static ClusterConfig load(Path file, String nodeId) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        String members = p.getProperty("members");
        if (members == null) {
            throw new IllegalArgumentException(file + " names no members (members=id=host:raftPort:apiPort,…)");
        }
        return new ClusterConfig(
                        p.getProperty("cluster.name", "partita"),
                        nodeId != null ? nodeId : p.getProperty("node.id"),
                        parseMembers(members))
                .withFollowerReads(flag(p, file, "follower.reads", false))
                .withReadLease(flag(p, file, "read.lease", true))
                .withReplicas(replicas(p, file))
                .withTableGroups(flag(p, file, "table.groups", false))
                .withPartitionGroups(flag(p, file, "table.partition-groups", false))
                .withMinRanges(number(p, file, "table.min-ranges", "a number of hash ranges", 1))
                .withAutoSplit(flag(p, file, "table.auto-split", true));
    }

    private static int replicas(Properties p, Path file) {
        return number(p, file, "replicas", "a number of members", 0);
    }

    private static int number(Properties p, Path file, String key, String what, int otherwise) {
        String value = p.getProperty(key);
        if (value == null) {
            return otherwise;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": " + key + " is " + what + ", not " + value.trim(), e);
        }
    }

    private static boolean flag(Properties p, Path file, String key, boolean otherwise) {
        String value = p.getProperty(key, Boolean.toString(otherwise)).trim();
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(file + ": " + key + " is true or false, not " + value);
        }
        return value.equals("true");
    }
}
