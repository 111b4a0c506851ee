package io.partita.server.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * One metric family read at scrape time from the server's own counters: a counter or a gauge and its samples, each
 * with its labels. A counter's name is given without {@code _total}, which the exposition formats add.
 */
final class Family {
    private final boolean counter;
    private final String name;
    private final String help;
    private final List<double[]> values = new ArrayList<>();
    private final List<Labels> labels = new ArrayList<>();

    private Family(boolean counter, String name, String help) {
        this.counter = counter;
        this.name = name;
        this.help = help;
    }

    static Family counter(String name, String help) {
        return new Family(true, name, help);
    }

    static Family gauge(String name, String help) {
        return new Family(false, name, help);
    }

    /** A sample; {@code labelPairs} alternate names and values. */
    Family add(double value, String... labelPairs) {
        values.add(new double[] {value});
        labels.add(Labels.of(labelPairs));
        return this;
    }

    MetricSnapshot build() {
        if (counter) {
            CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
            for (int i = 0; i < values.size(); i++) {
                b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(values.get(i)[0])
                        .labels(labels.get(i))
                        .build());
            }
            return b.build();
        }
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (int i = 0; i < values.size(); i++) {
            b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .value(values.get(i)[0])
                    .labels(labels.get(i))
                    .build());
        }
        return b.build();
    }
}
