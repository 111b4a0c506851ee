package io.partita.server.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A cluster node's own metrics ({@code GET /cluster/metrics}, answered by the node itself, not forwarded): its role,
 * the Raft term, its commit and applied indexes, on the leader how many entries each follower lags behind, and its
 * group commit's entries and the writes they carried, and the reads it answered from its own replica as a follower.
 */
public final class ClusterMetrics {
    /** A node's figures at one moment. */
    public record View(String node, List<GroupView> groups, long followerReads) {}

    /**
     * A node's figures for one Raft group at one moment: the group's name (in strict mode its account's id; open
     * mode's one group is account {@code 000000000000}'s), whether the node leads it and serves its requests, its
     * term and indexes, on its leader each follower's match index, its group commit's entries and writes, and the
     * strongly consistent reads it answered as leader within its read lease and after a read barrier.
     */
    public record GroupView(
            String group,
            boolean leader,
            boolean serving,
            long term,
            long commitIndex,
            long appliedIndex,
            Map<String, Long> followerMatchIndexes,
            long groupCommitEntries,
            long groupCommitWrites,
            long leaseReads,
            long barrierReads) {}

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ExpositionFormatWriter writer = PrometheusTextFormatWriter.create();

    public ClusterMetrics(Supplier<View> view) {
        registry.register(() -> snapshots(view.get()));
    }

    private static MetricSnapshots snapshots(View v) {
        Family leader = Family.gauge("partita_cluster_leader", "1 if this node leads the Raft group.");
        Family serving = Family.gauge(
                "partita_cluster_serving",
                "1 if this node answers the group's requests now (it leads and has applied every committed entry).");
        Family term = Family.gauge("partita_cluster_term", "The Raft term this node is in, in the group.");
        Family commit =
                Family.gauge("partita_cluster_commit_index", "The last log index this node knows the group committed.");
        Family applied = Family.gauge(
                "partita_cluster_applied_index", "The last log index of the group this node's replica has applied.");
        Family lag = Family.gauge(
                "partita_cluster_follower_lag_entries",
                "On the group's leader: log entries the leader has that a follower is not known to have.");
        Family entries = Family.counter(
                "partita_cluster_group_commit_entries",
                "Log entries of writes this node proposed while it led the group (group commit: one entry carries the"
                        + " writes that waited for the one before).");
        Family writes = Family.counter(
                "partita_cluster_group_commit_writes",
                "Writes those entries carried; divided by the entries, the writes each Raft round committed.");
        Family leased = Family.counter(
                "partita_cluster_lease_reads",
                "Strongly consistent reads this node answered as the leader within its read lease, with no entry in the"
                        + " log (half the shortest election timeout after it proposed an entry the group committed).");
        Family barriers = Family.counter(
                "partita_cluster_barrier_reads",
                "Strongly consistent reads this node answered as the leader after a read barrier: an empty entry"
                        + " committed through the group, joined with the entries in flight.");
        for (GroupView g : v.groups()) {
            String[] labels = {"group", g.group(), "node", v.node()};
            leader.add(g.leader() ? 1 : 0, labels);
            serving.add(g.serving() ? 1 : 0, labels);
            term.add(g.term(), labels);
            commit.add(g.commitIndex(), labels);
            applied.add(g.appliedIndex(), labels);
            g.followerMatchIndexes()
                    .forEach((follower, match) -> lag.add(
                            Math.max(0, g.commitIndex() - match),
                            "follower",
                            follower,
                            "group",
                            g.group(),
                            "node",
                            v.node()));
            entries.add(g.groupCommitEntries(), labels);
            writes.add(g.groupCommitWrites(), labels);
            leased.add(g.leaseReads(), labels);
            barriers.add(g.barrierReads(), labels);
        }
        return new MetricSnapshots(List.of(
                leader.build(),
                serving.build(),
                term.build(),
                commit.build(),
                applied.build(),
                lag.build(),
                entries.build(),
                writes.build(),
                leased.build(),
                barriers.build(),
                Family.counter(
                                "partita_cluster_follower_reads",
                                "Eventually consistent reads this node answered from its own replica as a follower"
                                        + " (--cluster-follower-reads), not forwarded to the leader.")
                        .add(v.followerReads(), "node", v.node())
                        .build()));
    }

    /** The metrics now, in Prometheus' text format. */
    public PartitaMetrics.Scrape scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new PartitaMetrics.Scrape(writer.getContentType(), out.toByteArray());
    }
}
