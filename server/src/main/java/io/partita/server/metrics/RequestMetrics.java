package io.partita.server.metrics;

import io.partita.protocol.error.ErrorCode;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What CloudWatch counts per operation ("DynamoDB Metrics and dimensions"), for one account's requests: the latency
 * of the successful ones ({@code SuccessfulRequestLatency}), {@code UserErrors} (a 4xx answer other than a failed
 * condition, which CloudWatch counts apart as {@code ConditionalCheckFailedRequests}), {@code SystemErrors} (a 5xx)
 * and {@code TransactionConflict}. The dispatcher records each request once it is answered; a request that moves to
 * a worker is recorded there.
 *
 * <p>Recording a success costs two clock reads, a map lookup and a histogram observation: within the noise of the
 * GetItem and PutItem A/B runs (docs/PERFORMANCE.md). Each operation's data points are made once and kept.
 */
public final class RequestMetrics {
    /**
     * Bucket bounds in seconds: from 50 µs (a GetItem on this machine takes about 15) to 10 s, roughly 1-2.5-5 a
     * decade.
     */
    static final double[] LATENCY_BOUNDS = {
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
    };

    private final Histogram latency = Histogram.builder()
            .name("partita_successful_request_latency_seconds")
            .help("Time from a request's decoding to its answer's encoding, for the requests that succeeded"
                    + " (SuccessfulRequestLatency).")
            .unit(Unit.SECONDS)
            .labelNames("operation")
            .classicUpperBounds(LATENCY_BOUNDS)
            .classicOnly()
            .withoutExemplars()
            .build();
    private final Counter userErrors = counter(
            "partita_user_errors", "Requests answered with a 4xx error, other than a failed condition (UserErrors).");
    private final Counter systemErrors =
            counter("partita_system_errors", "Requests answered with a 5xx error (SystemErrors).");
    private final Counter conditionalCheckFailed = counter(
            "partita_conditional_check_failed_requests",
            "Writes whose condition failed: ConditionalCheckFailedException (ConditionalCheckFailedRequests).");
    private final Counter transactionConflicts = counter(
            "partita_transaction_conflict",
            "Requests refused or transactions cancelled because a transaction held an item (TransactionConflict).");

    private final ConcurrentHashMap<String, Operation> operations = new ConcurrentHashMap<>();

    private static Counter counter(String name, String help) {
        return Counter.builder()
                .name(name)
                .help(help)
                .labelNames("operation")
                .withoutExemplars()
                .build();
    }

    /**
     * The data points of the operation of {@code target} ({@code DynamoDB_20120810.GetItem}, labelled {@code
     * GetItem}), made on first use. Keyed by the target as the request gave it: its hash is already computed by the
     * registry's lookup, and the label is cut out of it only once.
     */
    public Operation of(String target) {
        Operation o = operations.get(target);
        return o != null ? o : operations.computeIfAbsent(target, t -> new Operation(t.substring(t.indexOf('.') + 1)));
    }

    /** Adds these metrics to {@code registry}. */
    public void register(PrometheusRegistry registry) {
        registry.register(latency);
        registry.register(userErrors);
        registry.register(systemErrors);
        registry.register(conditionalCheckFailed);
        registry.register(transactionConflicts);
    }

    /** One operation's data points. */
    public final class Operation {
        private final DistributionDataPoint latency;
        private final CounterDataPoint user;
        private final CounterDataPoint system;
        private final CounterDataPoint conditional;
        private final CounterDataPoint conflict;

        private Operation(String name) {
            this.latency = RequestMetrics.this.latency.labelValues(name);
            this.user = userErrors.labelValues(name);
            this.system = systemErrors.labelValues(name);
            this.conditional = conditionalCheckFailed.labelValues(name);
            this.conflict = transactionConflicts.labelValues(name);
        }

        /** A success answered {@code nanos} after its decoding began. */
        public void succeeded(long nanos) {
            latency.observe(nanos / 1e9);
        }

        /** A request answered with {@code code}. */
        public void failed(ErrorCode code, String message) {
            if (code.httpStatus() >= 500) {
                system.inc();
                return;
            }
            if (code == ErrorCode.CONDITIONAL_CHECK_FAILED) {
                conditional.inc();
                return;
            }
            if (code == ErrorCode.TRANSACTION_CONFLICT
                    || (code == ErrorCode.TRANSACTION_CANCELED && message.contains("TransactionConflict"))) {
                conflict.inc();
            }
            user.inc();
        }

        /** A request that failed inside the server: answered 500 or 503. */
        public void failedInside() {
            system.inc();
        }
    }
}
