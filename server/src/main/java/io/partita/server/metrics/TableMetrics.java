package io.partita.server.metrics;

import io.partita.server.op.partiql.PartiqlScans;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.Consumption;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.partition.Partition;
import io.partita.storage.table.TableCatalog.Table;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * The tables' metrics, read from storage when scraped, under CloudWatch's names ("DynamoDB Metrics and dimensions")
 * in Prometheus' style: {@code ConsumedReadCapacityUnits} is {@code partita_consumed_read_capacity_units_total}. The
 * dimensions are labels: {@code table}, {@code index} (a GSI's own capacity, beside its table's), {@code partition}.
 *
 * <p>A table's total and its partitions' parts are families of their own ({@code partita_partition_…}), so that a
 * {@code sum()} over one family never counts a unit twice; a GSI's consumption is its own, so the table's family
 * sums to what the account consumed.
 */
final class TableMetrics implements MultiCollector {
    private final StorageEngine storage;
    private final PartiqlScans partiqlScans;

    TableMetrics(StorageEngine storage, PartiqlScans partiqlScans) {
        this.storage = storage;
        this.partiqlScans = partiqlScans;
    }

    /** A metric of each table and GSI, and of each of their partitions. */
    private record Capacity(
            String name, boolean counter, String help, Function<Consumption, Double> value, boolean perPartition) {}

    private static final List<Capacity> CAPACITY = List.of(
            new Capacity(
                    "consumed_read_capacity_units",
                    true,
                    "Read capacity units consumed (ConsumedReadCapacityUnits).",
                    c -> c.consumedReadUnits(),
                    true),
            new Capacity(
                    "consumed_write_capacity_units",
                    true,
                    "Write capacity units consumed (ConsumedWriteCapacityUnits).",
                    c -> c.consumedWriteUnits(),
                    true),
            new Capacity(
                    "read_throttle_events",
                    true,
                    "Read requests refused or reported as throttled (ReadThrottleEvents).",
                    c -> (double) c.readThrottleEvents(),
                    true),
            new Capacity(
                    "write_throttle_events",
                    true,
                    "Write requests refused or reported as throttled (WriteThrottleEvents).",
                    c -> (double) c.writeThrottleEvents(),
                    true));

    @Override
    public MetricSnapshots collect() {
        Collection<Table> tables = storage.tables().snapshot().values();
        List<MetricSnapshot> out = new ArrayList<>();
        for (Capacity c : CAPACITY) {
            Family table =
                    c.counter ? Family.counter("partita_" + c.name, c.help) : Family.gauge("partita_" + c.name, c.help);
            Family partition = Family.counter(
                    "partita_partition_" + c.name, c.help + " Per partition; they add up to the table's or index's.");
            for (Table t : tables) {
                String name = t.metadata().name();
                table.add(c.value.apply(t.partitions().throughput().consumption()), "table", name);
                for (Partition p : t.partitions().map().partitions()) {
                    partition.add(c.value.apply(p.throughput().consumption()), "table", name, "partition", p.id());
                }
                for (LiveIndex i : t.indexes().globals()) {
                    if (i.partitions() != null) {
                        table.add(
                                c.value.apply(i.partitions().throughput().consumption()),
                                "table",
                                name,
                                "index",
                                i.name());
                    }
                }
            }
            out.add(table.build());
            out.add(partition.build());
        }
        out.add(perTable(
                tables,
                Family.counter(
                        "partita_throttled_requests", "Requests with at least one throttle event (ThrottledRequests)."),
                t -> t.partitions().throughput().throttledRequests()));
        out.add(provisioned(tables, true));
        out.add(provisioned(tables, false));
        out.add(perTable(
                tables,
                Family.gauge("partita_item_count", "Items in the table (ItemCount, exact and live)."),
                t -> t.stats().itemCount()));
        Family size = Family.gauge(
                "partita_table_size_bytes",
                "Size of the table's items by DynamoDB's item-size rules (TableSizeBytes).");
        Family partitionSize = Family.gauge(
                "partita_partition_size_bytes", "Size of a partition's items; they add up to the table's.");
        Family partitions = Family.gauge("partita_partitions", "Partitions of the table or GSI.");
        for (Table t : tables) {
            String name = t.metadata().name();
            size.add(t.stats().sizeBytes(), "table", name);
            partitions.add(t.partitions().map().size(), "table", name);
            for (Partition p : t.partitions().map().partitions()) {
                partitionSize.add(p.sizeBytes(), "table", name, "partition", p.id());
            }
            for (LiveIndex i : t.indexes().globals()) {
                if (i.partitions() != null) {
                    partitions.add(i.partitions().map().size(), "table", name, "index", i.name());
                }
            }
        }
        out.add(size.build());
        out.add(partitionSize.build());
        out.add(partitions.build());
        indexes(tables, out);
        streams(tables, out);
        ttl(tables, out);
        Family scans = Family.counter(
                "partita_partiql_scans",
                "PartiQL SELECTs that became a full Scan because their WHERE did not bind the partition key.");
        partiqlScans.snapshot().forEach((table, n) -> scans.add(n, "table", table));
        out.add(scans.build());
        return new MetricSnapshots(out);
    }

    private static MetricSnapshot perTable(Collection<Table> tables, Family f, ToDoubleFunction<Table> value) {
        for (Table t : tables) {
            f.add(value.applyAsDouble(t), "table", t.metadata().name());
        }
        return f.build();
    }

    /** A table's provisioned capacity and each of its GSIs' (0 on demand). */
    private static MetricSnapshot provisioned(Collection<Table> tables, boolean read) {
        String kind = read ? "read" : "write";
        Family f = Family.gauge(
                "partita_provisioned_" + kind + "_capacity_units",
                "Provisioned " + kind + " capacity, 0 on demand (Provisioned" + (read ? "Read" : "Write")
                        + "CapacityUnits).");
        for (Table t : tables) {
            String name = t.metadata().name();
            f.add(read ? t.metadata().readCapacityUnits() : t.metadata().writeCapacityUnits(), "table", name);
            for (LiveIndex i : t.indexes().globals()) {
                f.add(
                        read
                                ? i.definition().readCapacityUnits()
                                : i.definition().writeCapacityUnits(),
                        "table",
                        name,
                        "index",
                        i.name());
            }
        }
        return f.build();
    }

    /** Each GSI's replication lag (the age of its oldest unapplied change) and backlog. */
    private void indexes(Collection<Table> tables, List<MetricSnapshot> out) {
        Family lag = Family.gauge(
                "partita_gsi_replication_lag_milliseconds",
                "Age of the oldest change a GSI has not applied yet (0 when it has caught up).");
        Family backlog = Family.gauge("partita_gsi_backlog", "Changes a GSI has not applied yet.");
        for (Table t : tables) {
            if (t.indexes().globals().isEmpty()) {
                continue;
            }
            for (var l : storage.globalIndexes().lag(t)) {
                lag.add(l.oldestUnappliedMillis(), "table", t.metadata().name(), "index", l.index());
                backlog.add(l.backlog(), "table", t.metadata().name(), "index", l.index());
            }
        }
        out.add(lag.build());
        out.add(backlog.build());
    }

    /** Each stream shard's iterator age, as its last GetRecords left it. */
    private void streams(Collection<Table> tables, List<MetricSnapshot> out) {
        Family age = Family.gauge(
                "partita_stream_iterator_age_milliseconds",
                "Age of the last record the latest GetRecords of a stream shard returned (0 when it was caught up).");
        for (Table t : tables) {
            for (var d : t.metadata().streams()) {
                storage.streams()
                        .readerAges(t, d)
                        .forEach((shard, a) -> age.add(
                                a.ageMillis(), "table", t.metadata().name(), "stream", d.label(), "shard", shard));
            }
        }
        out.add(age.build());
    }

    /** Items TTL deleted, and how late after their expiry (DynamoDB's deletions are late too). */
    private void ttl(Collection<Table> tables, List<MetricSnapshot> out) {
        Family deleted = Family.counter(
                "partita_time_to_live_deleted_item_count",
                "Items the TTL reaper deleted (TimeToLiveDeletedItemCount).");
        SummarySnapshot.Builder lateness = SummarySnapshot.builder()
                .name("partita_time_to_live_deletion_lateness_milliseconds")
                .help("How long after its expiry time the TTL reaper deleted an item.");
        for (Table t : tables) {
            if (t.metadata().ttl() == null) {
                continue;
            }
            String id = t.metadata().id();
            deleted.add(storage.ttl().deletedCount(id), "table", t.metadata().name());
            SynchronizedHistogram h = storage.ttl().lateness(id);
            if (h != null) {
                lateness.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                        .labels(io.prometheus.metrics.model.snapshots.Labels.of(
                                "table", t.metadata().name()))
                        .count(h.getTotalCount())
                        .sum(h.getMean() * h.getTotalCount())
                        .quantiles(Quantiles.of(
                                new Quantile(0.5, h.getValueAtPercentile(50)),
                                new Quantile(0.99, h.getValueAtPercentile(99))))
                        .build());
            }
        }
        out.add(deleted.build());
        out.add(lateness.build());
    }
}
