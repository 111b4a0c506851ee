package io.partita.server.cluster;

import io.partita.cluster.Placement;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * How a node's groups are placed, as its {@code raft/placement} file records it: {@code replicas=all} when every group
 * is on every member; with {@code --cluster-replicas}, R, the members' ids and each account's group's members (kept
 * for an account removed since). A node placing a group on other members than the others do would make a group of its
 * own under the group's id, so a start that would place a recorded group otherwise is refused ({@link #check}). An
 * account new to a node that started before is marked {@code new.<account>}: its group is made where the members'
 * group decides ({@link #late}), and {@code formed.<account>} once this node made it.
 */
final class PlacementRecord {
    /** The line that says the cluster makes each table a group of its own ({@code --cluster-table-groups}). */
    private static final String TABLE_GROUPS = "table.groups";

    /** The file, in a node's {@code raft} folder. */
    static final String FILE = "placement";

    private final Path raftDir;
    private final Map<String, String> lines;
    /** Whether this start wrote the node's first record, before any group was made. */
    private final boolean first;
    /** The accounts whose group the record had before this start. */
    private final java.util.Set<String> recorded;
    /** The members' ids the flags name, sorted and joined by commas. */
    private final String flags;

    private PlacementRecord(
            Path raftDir, Map<String, String> lines, boolean first, java.util.Set<String> recorded, String flags) {
        this.raftDir = raftDir;
        this.lines = lines;
        this.first = first;
        this.recorded = recorded;
        this.flags = flags;
    }

    /** Whether this is the node's first start: it had no record before. */
    boolean first() {
        return first;
    }

    /**
     * Whether the cluster's members, as the node last recorded them ({@link #members}), differ from those its flags
     * name.
     */
    synchronized boolean membersChanged() {
        String current = lines.get("current");
        return current != null && !current.equals(flags);
    }

    /**
     * Records the cluster's members now ({@code current=}), changed since the flags named the first ones: a node
     * started with an account new to it then cannot place its group by its flags.
     */
    synchronized void members(List<String> ids) throws IOException {
        String now = String.join(",", ids.stream().sorted().toList());
        if (!now.equals(lines.getOrDefault("current", flags))) {
            lines.put("current", now);
            write();
        }
    }

    /** Whether the cluster's members ever changed since the flags named them: the groups may have moved. */
    synchronized boolean membersEverChanged() {
        return lines.containsKey("current");
    }

    /**
     * Records that another member added {@code account}'s group to this node ({@code adopted.<account>=true}): at a
     * restart it has the members its Raft log has, never those its flags would give it.
     */
    synchronized void recordAdopted(String account) throws IOException {
        boolean changed = lines.put("adopted." + account, "true") == null;
        // Its copy is the one added now, whose members come from the group's leader, not one this node made.
        changed |= lines.remove("formed." + account) != null;
        if (changed) {
            write();
        }
    }

    /**
     * Whether {@code account}'s group has the members its Raft log has on this node, never those its flags would give
     * it: another member added it to this node ({@link #recordAdopted}), or this node made it where the members' group
     * decided ({@link #recordFormed}).
     */
    synchronized boolean ownMembers(String account) {
        return lines.containsKey("adopted." + account) || lines.containsKey("formed." + account);
    }

    /** Whether another member added {@code account}'s group to this node once ({@link #recordAdopted}). */
    synchronized boolean adopted(String account) {
        return lines.containsKey("adopted." + account);
    }

    /**
     * Whether {@code account}'s group is to be made where the members' group decides, and this node has not made it
     * yet, nor was it added to this node by another member: the account was new to this node at a start after its
     * first ({@code new.<account>=true}), when the members may have changed since the flags named them.
     */
    synchronized boolean late(String account) {
        return lines.containsKey("new." + account) && !ownMembers(account);
    }

    /**
     * Whether this node's copy of {@code account}'s group is one it made where the members' group decided ({@link
     * #recordFormed}), not one another member added since.
     */
    synchronized boolean formed(String account) {
        return lines.containsKey("formed." + account);
    }

    /**
     * Records that this node makes {@code account}'s group, a late one ({@link #late}), on the members the members'
     * group decided ({@code formed.<account>=true}), before it does: from then on the group is this node's own copy,
     * and one that is gone at a restart was lost (its leader moves it back), never made again.
     */
    synchronized void recordFormed(String account) throws IOException {
        if (lines.put("formed." + account, "true") == null) {
            write();
        }
    }

    /**
     * The tables' groups this node holds or held a copy of ({@code --cluster-table-groups}), by their record keys
     * ({@code table-<id>}): those it made or another member added to it.
     */
    synchronized java.util.Set<String> tableKeys() {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (String line : lines.keySet()) {
            for (String kind : List.of("adopted.", "formed.")) {
                if (line.startsWith(kind + "table-")) {
                    out.add(line.substring(kind.length()));
                }
            }
        }
        return out;
    }

    /** Forgets group {@code key} (a table's group that closed): this node holds no copy of it any more. */
    synchronized void forget(String key) throws IOException {
        boolean changed = lines.remove("adopted." + key) != null;
        changed |= lines.remove("formed." + key) != null;
        changed |= lines.remove("new." + key) != null;
        if (changed) {
            write();
        }
    }

    /** Whether the record had {@code account}'s group before this start: the group was made then. */
    boolean recorded(String account) {
        return recorded.contains(account);
    }

    /** How {@code cluster}'s groups, one per account of {@code owners} in that order, are placed now. */
    static Map<String, String> of(ClusterConfig cluster, List<String> owners) {
        Map<String, String> now = new LinkedHashMap<>();
        if (!cluster.placed()) {
            now.put("replicas", "all");
            return now;
        }
        List<String> ids =
                cluster.members().stream().map(ClusterConfig.Member::id).toList();
        now.put("replicas", Integer.toString(cluster.replicas()));
        now.put("members", String.join(",", ids.stream().sorted().toList()));
        for (int k = 0; k < owners.size(); k++) {
            now.put("group." + owners.get(k), String.join(",", Placement.of(ids, k, cluster.replicas())));
        }
        if (cluster.tableGroups()) {
            now.put(TABLE_GROUPS, "on");
        }
        return now;
    }

    /**
     * Checks the placement of {@code cluster}'s groups (one per account of {@code owners}) against the record in
     * {@code raftDir}: R and the members must be as recorded, and each recorded account's group on the same members.
     * An account added with an id after every other's places no group anew; one added before another, one removed
     * from before others, or a removed one given again at another place, would. A folder with groups and no record was
     * made with every group on every member. A node with neither is starting for the first time: the record is
     * written now, before Ratis makes any group's folder, so that a start that fails after making one is not taken
     * for a folder from before records were kept.
     *
     * @return the record to {@link #write} once the groups have started: the placement now, with the lines of
     *     accounts no longer given kept
     * @throws IllegalArgumentException naming what would be placed otherwise
     */
    static PlacementRecord check(Path raftDir, ClusterConfig cluster, List<String> owners) throws IOException {
        Map<String, String> now = of(cluster, owners);
        Path file = raftDir.resolve(FILE);
        Map<String, String> before = new LinkedHashMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    before.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } else if (hasGroups(raftDir)) {
            before.put("replicas", "all");
        } else {
            PlacementRecord first = new PlacementRecord(raftDir, now, true, java.util.Set.of(), flags(cluster));
            first.write();
            return first;
        }
        String refusal = null;
        if (!Objects.equals(before.get("replicas"), now.get("replicas"))
                || !Objects.equals(before.get("members"), now.get("members"))) {
            refusal = "its groups were placed with " + describe(before) + ", and would now be with " + describe(now);
        } else {
            for (var e : now.entrySet()) {
                String was = before.get(e.getKey());
                if (e.getKey().startsWith("group.") && was != null && !was.equals(e.getValue())) {
                    refusal = "account " + e.getKey().substring("group.".length()) + "'s group is on " + was
                            + ", and would now be on " + e.getValue()
                            + " (accounts added before another, or removed, move the groups after them)";
                    break;
                }
            }
        }
        if (refusal != null) {
            throw new IllegalArgumentException("this node cannot start: " + refusal + ", as " + file + " records."
                    + " R and the order of the accounts cannot change yet: give every node the --cluster-replicas,"
                    + " members and accounts it was made with (POST /cluster/members changes the members)");
        }
        if (before.containsKey(TABLE_GROUPS) && !now.containsKey(TABLE_GROUPS)) {
            // The tables made in groups of their own would be found by no request.
            throw new IllegalArgumentException(
                    "this node cannot start: its cluster makes each table a group of its own," + " as " + file
                            + " records: give it --cluster-table-groups (table.groups=true) again");
        }
        java.util.Set<String> recorded = new java.util.HashSet<>();
        before.keySet().stream()
                .filter(k -> k.startsWith("group."))
                .forEach(k -> recorded.add(k.substring("group.".length())));
        if (cluster.placed()) {
            // An account new to a node that has started before: the members may have changed since the flags named
            // them, so its group is made where the members' group decides, not where the flags would place it.
            for (String owner : owners) {
                if (!recorded.contains(owner)) {
                    now.put("new." + owner, "true");
                }
            }
        }
        before.forEach(now::putIfAbsent);
        return new PlacementRecord(raftDir, now, false, recorded, flags(cluster));
    }

    private static String flags(ClusterConfig cluster) {
        return String.join(
                ",",
                cluster.members().stream()
                        .map(ClusterConfig.Member::id)
                        .sorted()
                        .toList());
    }

    private static String describe(Map<String, String> placement) {
        String members = placement.get("members");
        return "replicas=" + placement.get("replicas") + (members == null ? "" : " of members " + members);
    }

    /** Whether {@code raftDir} holds a group's folder (named by its id), as Ratis makes one. */
    static boolean hasGroups(Path raftDir) throws IOException {
        if (!Files.isDirectory(raftDir)) {
            return false;
        }
        try (var dirs = Files.list(raftDir)) {
            return dirs.filter(Files::isDirectory).anyMatch(d -> {
                try {
                    UUID.fromString(d.getFileName().toString());
                    return true;
                } catch (IllegalArgumentException e) {
                    return false;
                }
            });
        }
    }

    /**
     * Writes the record, unless the file has it already: whole or not at all, and forced to disk with the folder's
     * entry, since a record half written or lost to a power cut would refuse the next start.
     */
    synchronized void write() throws IOException {
        StringBuilder text = new StringBuilder();
        lines.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Path file = raftDir.resolve(FILE);
        if (Files.exists(file) && Files.readString(file).contentEquals(text)) {
            return;
        }
        Files.createDirectories(raftDir);
        Path written = raftDir.resolve(FILE + ".new");
        try (FileChannel out = FileChannel.open(
                written, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
            out.force(true);
        }
        Files.move(written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel folder = FileChannel.open(raftDir, StandardOpenOption.READ)) {
            folder.force(true);
        }
    }

    /**
     * After a start that failed: a first record under which no group was made is deleted, so that the next start
     * records its own.
     */
    void failed(Exception why) {
        try {
            if (first && !hasGroups(raftDir)) {
                Files.deleteIfExists(raftDir.resolve(FILE));
            }
        } catch (IOException e) {
            why.addSuppressed(e);
        }
    }
}
