package io.partita.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Marker;

/**
 * Lets a few warnings of a kind (their logger and message pattern) through per interval from the loggers under a
 * prefix, holds the rest back, and says how many it held back once the interval is over. Ratis warns once per failed
 * request: a leader whose follower is down logged a "Follower failed" line for every append it tried, over a hundred a
 * second under load (docs/REFERENCE.md). The first few of a burst pass, so the warnings Ratis gives once per follower
 * or per group at the same moment are seen. Errors, and every other level and logger, pass as they are.
 */
final class RepeatedWarnings extends TurboFilter {
    /** The logger the counts of held-back warnings go to. */
    static final String SUMMARY_LOGGER = RepeatedWarnings.class.getName();

    private final String prefix;
    private final long intervalNanos;
    private final int burst;
    private final LongSupplier clock;
    private final Map<String, Kind> kinds = new ConcurrentHashMap<>();
    private ScheduledFuture<?> flushing;

    /** One kind's interval under way: when it began, how many passed, how many were held back. */
    private static final class Kind {
        final String logger;
        final String format;
        long since;
        int passed;
        long held;
        boolean gone;

        Kind(String logger, String format, long since) {
            this.logger = logger;
            this.format = format;
            this.since = since;
        }
    }

    RepeatedWarnings(String prefix, Duration interval, int burst, LongSupplier nanoClock) {
        this.prefix = prefix;
        this.intervalNanos = interval.toNanos();
        this.burst = burst;
        this.clock = nanoClock;
    }

    /** Counts held back are told every interval, on the logging context's scheduler, whether more come or not. */
    @Override
    public void start() {
        flushing = getContext()
                .getScheduledExecutorService()
                .scheduleAtFixedRate(this::flush, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        getContext().addScheduledFuture(flushing);
        super.start();
    }

    @Override
    public void stop() {
        if (flushing != null) {
            flushing.cancel(false);
        }
        flush();
        super.stop();
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level != Level.WARN || format == null || !logger.getName().startsWith(prefix)) {
            return FilterReply.NEUTRAL;
        }
        // Logback asks before it checks the level: a warning the logger would drop anyway counts for nothing.
        if (logger.getEffectiveLevel().levelInt > Level.WARN_INT) {
            return FilterReply.NEUTRAL;
        }
        String key = logger.getName() + '\u0000' + format;
        while (true) {
            long now = clock.getAsLong();
            Kind kind = kinds.computeIfAbsent(key, k -> new Kind(logger.getName(), format, now));
            long told;
            synchronized (kind) {
                if (kind.gone) {
                    continue; // flushed away meanwhile: a new one
                }
                told = closeIfOver(kind, now);
                if (kind.passed >= burst) {
                    kind.held++;
                    return FilterReply.DENY;
                }
                kind.passed++;
            }
            tell(kind, told);
            return FilterReply.NEUTRAL;
        }
    }

    /** Starts a new interval for {@code kind} if its own is over; answers how many it had held back, to be told. */
    private long closeIfOver(Kind kind, long now) {
        if (now - kind.since < intervalNanos) {
            return 0;
        }
        long held = kind.held;
        kind.since = now;
        kind.passed = 0;
        kind.held = 0;
        return held;
    }

    /** Tells the counts of the intervals that are over, and forgets the kinds with nothing held back. */
    void flush() {
        long now = clock.getAsLong();
        for (Map.Entry<String, Kind> e : kinds.entrySet()) {
            Kind kind = e.getValue();
            long told;
            synchronized (kind) {
                if (now - kind.since < intervalNanos) {
                    continue;
                }
                told = kind.held;
                kind.gone = true;
                kinds.remove(e.getKey(), kind);
            }
            tell(kind, told);
        }
    }

    private void tell(Kind kind, long held) {
        if (held > 0 && getContext() instanceof ch.qos.logback.classic.LoggerContext context) {
            // Under a logger this filter leaves alone, so it cannot hold this back.
            context.getLogger(SUMMARY_LOGGER)
                    .warn(
                            "held back {} more warnings like \"{}\" from {} in {} s",
                            held,
                            kind.format,
                            kind.logger,
                            TimeUnit.NANOSECONDS.toSeconds(intervalNanos));
        }
    }
}
