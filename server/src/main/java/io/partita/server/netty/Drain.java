package io.partita.server.netty;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * What a graceful stop waits for: the requests the server has started to read and not yet answered. Counted with two
 * adders (no counter shared between event loops on the request path). Once {@link #begin} is called, every answer
 * closes its connection, so clients move on instead of sending more on it.
 */
public final class Drain {
    private final LongAdder started = new LongAdder();
    private final LongAdder finished = new LongAdder();
    private volatile boolean draining;

    void started() {
        started.increment();
    }

    void finished() {
        finished.increment();
    }

    boolean draining() {
        return draining;
    }

    /** Requests started and not answered (or abandoned by their client). */
    public long inFlight() {
        return started.sum() - finished.sum();
    }

    /** From now on every answer closes its connection. */
    public void begin() {
        draining = true;
    }

    /**
     * Waits until nothing is in flight and no request has started for {@code quiet}, or {@code timeout} has passed.
     *
     * @return true when drained, false at the timeout
     */
    public boolean await(Duration quiet, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long seen = started.sum();
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = started.sum();
            if (now != seen) {
                seen = now;
                quietSince = System.nanoTime();
            }
            if (inFlight() <= 0 && System.nanoTime() - quietSince >= quiet.toNanos()) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return false;
    }
}
