package io.partita.server.netty;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Load shedding: a bound on the requests in flight and on the memory their bodies hold, so that a flood of requests or
 * of large bodies is refused the way DynamoDB refuses too many requests — {@code ThrottlingException}, which every AWS
 * SDK retries with backoff — instead of exhausting the heap. Only bodies larger than the inline limit (64 KB) are
 * counted against the memory bound: the in-flight bound already caps what the small ones hold.
 */
public final class Admission {
    /** DynamoDB's words for too many requests ("Error handling with DynamoDB", common errors). */
    static final String SHED_MESSAGE = "Rate of requests exceeds the allowed throughput.";

    /**
     * @param maxInFlight requests read and not yet answered, beyond which a new one is refused
     * @param bodyBytes memory for large request bodies being received or waiting to run, beyond which a new one is
     *     refused
     * @param requestTimeout the longest a request may take to arrive, from its first byte to its last: a slower sender
     *     is disconnected
     */
    public record Limits(int maxInFlight, long bodyBytes, Duration requestTimeout) {
        public Limits {
            if (maxInFlight < 1 || bodyBytes < 0 || requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("limits must be positive");
            }
        }

        /** 4,096 requests, a quarter of the heap for bodies, 60 s to send a request. */
        public static Limits defaults() {
            return new Limits(4096, Runtime.getRuntime().maxMemory() / 4, Duration.ofSeconds(60));
        }
    }

    private final Limits limits;
    private final Drain drain;
    private final LongAdder buffered = new LongAdder();
    private final LongAdder shed = new LongAdder();

    public Admission(Limits limits, Drain drain) {
        this.limits = limits;
        this.drain = drain;
    }

    Limits limits() {
        return limits;
    }

    /** Whether a request just started (and counted by the {@link Drain}) may go on. */
    boolean admit() {
        return drain.inFlight() <= limits.maxInFlight();
    }

    /** Reserves {@code bytes} more of body memory, or refuses; a refusal reserves nothing. */
    boolean reserve(long bytes) {
        if (buffered.sum() + bytes > limits.bodyBytes()) {
            return false;
        }
        buffered.add(bytes);
        return true;
    }

    void release(long bytes) {
        if (bytes != 0) {
            buffered.add(-bytes);
        }
    }

    /** Counts a refused request and gives its error. */
    ApiException refuse() {
        shed.increment();
        return new ApiException(ErrorCode.THROTTLING, SHED_MESSAGE);
    }

    /** Requests read and not yet answered. */
    public long inFlight() {
        return drain.inFlight();
    }

    /** Requests refused so far. */
    public long shed() {
        return shed.sum();
    }

    /** Body memory held now. */
    public long buffered() {
        return buffered.sum();
    }
}
