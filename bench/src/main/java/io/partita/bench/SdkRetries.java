package io.partita.bench;

import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import software.amazon.awssdk.core.metrics.CoreMetric;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricPublisher;

/**
 * What the AWS SDK did under a benchmark's calls, from its own metrics ({@link CoreMetric#RETRY_COUNT} of each call,
 * {@link CoreMetric#ERROR_TYPE} {@code Throttling} of each attempt): the SDK retries a throttled request without a
 * word, so a latency alone can hide it. Reported by JMH beside each benchmark's score, as events a second
 * ({@link Counters}): {@code throttled} attempts and {@code retries}.
 */
public final class SdkRetries implements MetricPublisher {
    /** The one publisher of the benchmark JVM: every client of a benchmark publishes here. */
    public static final SdkRetries PUBLISHER = new SdkRetries();

    private final LongAdder retries = new LongAdder();
    private final LongAdder throttled = new LongAdder();

    private SdkRetries() {}

    @Override
    public void publish(MetricCollection call) {
        call.metricValues(CoreMetric.RETRY_COUNT).forEach(retries::add);
        count(call);
    }

    /** Each attempt is a child collection of the call's. */
    private void count(MetricCollection c) {
        for (String type : c.metricValues(CoreMetric.ERROR_TYPE)) {
            if ("Throttling".equals(type)) {
                throttled.increment();
            }
        }
        c.children().forEach(this::count);
    }

    public long retries() {
        return retries.sum();
    }

    public long throttled() {
        return throttled.sum();
    }

    @Override
    public void close() {}

    /**
     * JMH's secondary results: the retries and throttled attempts of an iteration, per second. The counters are the
     * JVM's, so a benchmark of several threads should read them as the run's total, not a thread's.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        private long retriesAtStart;
        private long throttledAtStart;

        @Setup(Level.Iteration)
        public void start() {
            retriesAtStart = PUBLISHER.retries();
            throttledAtStart = PUBLISHER.throttled();
        }

        public long retries() {
            return PUBLISHER.retries() - retriesAtStart;
        }

        public long throttled() {
            return PUBLISHER.throttled() - throttledAtStart;
        }
    }
}
