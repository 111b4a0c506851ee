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
    public record View(
            String node,
            boolean leader,
            boolean serving,
            long term,
            long commitIndex,
            long appliedIndex,
            Map<String, Long> followerMatchIndexes,
            long groupCommitEntries,
            long groupCommitWrites,
            long followerReads) {}

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ExpositionFormatWriter writer = PrometheusTextFormatWriter.create();

    public ClusterMetrics(Supplier<View> view) {
        registry.register(() -> snapshots(view.get()));
    }

    private static MetricSnapshots snapshots(View v) {
        String[] node = {"node", v.node()};
        Family lag = Family.gauge(
                "partita_cluster_follower_lag_entries",
                "On the leader: log entries the leader has that a follower is not known to have.");
        v.followerMatchIndexes()
                .forEach((follower, match) ->
                        lag.add(Math.max(0, v.commitIndex() - match), "node", v.node(), "follower", follower));
        return new MetricSnapshots(List.of(
                Family.gauge("partita_cluster_leader", "1 if this node leads the cluster's Raft group.")
                        .add(v.leader() ? 1 : 0, node)
                        .build(),
                Family.gauge(
                                "partita_cluster_serving",
                                "1 if this node answers the cluster's requests now (it leads and has applied every"
                                        + " committed entry).")
                        .add(v.serving() ? 1 : 0, node)
                        .build(),
                Family.gauge("partita_cluster_term", "The Raft term this node is in.")
                        .add(v.term(), node)
                        .build(),
                Family.gauge("partita_cluster_commit_index", "The last log index this node knows to be committed.")
                        .add(v.commitIndex(), node)
                        .build(),
                Family.gauge("partita_cluster_applied_index", "The last log index this node's replica has applied.")
                        .add(v.appliedIndex(), node)
                        .build(),
                lag.build(),
                Family.counter(
                                "partita_cluster_group_commit_entries",
                                "Log entries of writes this node proposed while it led (group commit: one entry carries"
                                        + " the writes that waited for the one before).")
                        .add(v.groupCommitEntries(), node)
                        .build(),
                Family.counter(
                                "partita_cluster_group_commit_writes",
                                "Writes those entries carried; divided by the entries, the writes each Raft round"
                                        + " committed.")
                        .add(v.groupCommitWrites(), node)
                        .build(),
                Family.counter(
                                "partita_cluster_follower_reads",
                                "Eventually consistent reads this node answered from its own replica as a follower"
                                        + " (--cluster-follower-reads), not forwarded to the leader.")
                        .add(v.followerReads(), node)
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
