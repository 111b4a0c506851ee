package io.partita.server.metrics;

import io.partita.server.fault.FaultInjector;
import io.partita.server.fault.FaultRule;
import io.partita.server.netty.Admission;
import io.partita.server.op.partiql.PartiqlScans;
import io.partita.storage.StorageEngine;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One account's {@code /metrics}, through the Prometheus Java client: its registry holds the tables' metrics (read
 * from storage when scraped), the requests' (recorded by the dispatcher), the server's bounds and injected faults,
 * RocksDB's statistics and the JVM's; its writers answer in Prometheus' text format or, when the scraper asks for it
 * in {@code Accept}, in OpenMetrics.
 */
public final class PartitaMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ExpositionFormatWriter prometheus = PrometheusTextFormatWriter.create();
    private final ExpositionFormatWriter openMetrics = OpenMetricsTextFormatWriter.create();

    /**
     * @param admission the server's request bounds; null where no server counts them
     * @param faults the faults injected into this account's operations
     */
    public PartitaMetrics(
            StorageEngine storage,
            PartiqlScans partiqlScans,
            RequestMetrics requests,
            Admission admission,
            FaultInjector faults) {
        registry.register(new TableMetrics(storage, partiqlScans));
        requests.register(registry);
        registry.register(() -> server(admission, faults));
        registry.register(() -> rocks(storage));
        JvmMetrics.builder().register(registry);
    }

    /** A scrape's answer: its content type and body. */
    public record Scrape(String contentType, byte[] body) {}

    /** The metrics now, in the format {@code accept} (the request's {@code Accept} header, or null) asks for. */
    public Scrape scrape(String accept) {
        ExpositionFormatWriter writer = openMetrics.accepts(accept) ? openMetrics : prometheus;
        ByteArrayOutputStream out = new ByteArrayOutputStream(16384);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Scrape(writer.getContentType(), out.toByteArray());
    }

    private static MetricSnapshots server(Admission admission, FaultInjector faults) {
        List<MetricSnapshot> out = new ArrayList<>();
        if (admission != null) {
            out.add(Family.gauge("partita_requests_in_flight", "Requests read and not yet answered.")
                    .add(admission.inFlight())
                    .build());
            out.add(Family.counter(
                            "partita_requests_shed",
                            "Requests refused with ThrottlingException: the server was at its bound on requests in"
                                    + " flight or on the memory of request bodies (--max-in-flight, --request-memory).")
                    .add(admission.shed())
                    .build());
            out.add(Family.gauge(
                            "partita_request_body_bytes",
                            "Memory held by request bodies over 64 KB, received or waiting to run.")
                    .add(admission.buffered())
                    .build());
        }
        Family injected =
                Family.counter("partita_faults_injected", "Faults injected on purpose (--fault, /admin/faults).");
        for (FaultRule r : faults.rules()) {
            FaultRule.Spec s = r.spec();
            injected.add(
                    r.injected(),
                    "rule",
                    Integer.toString(r.id()),
                    "fault",
                    s.kind().name().toLowerCase(Locale.ROOT),
                    "table",
                    s.table() == null ? "*" : s.table(),
                    "operation",
                    s.operation() == null ? "*" : s.operation());
        }
        out.add(injected.build());
        return new MetricSnapshots(out);
    }

    /** RocksDB's properties, each a gauge: {@code rocksdb.estimate-num-keys} is {@code partita_rocksdb_estimate_num_keys}. */
    private static MetricSnapshots rocks(StorageEngine storage) {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Map.Entry<String, Long> p : storage.rocksProperties().entrySet()) {
            String name = "partita_" + p.getKey().replace('.', '_').replace('-', '_');
            out.add(Family.gauge(
                            name, "RocksDB's " + p.getKey() + " property, over every column family of the account.")
                    .add(p.getValue())
                    .build());
        }
        return new MetricSnapshots(out);
    }
}
