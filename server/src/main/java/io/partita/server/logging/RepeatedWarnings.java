package io.partita.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Marker;

/**
 * Lets one warning of a kind (its logger and message pattern) through per interval from the loggers under a prefix,
 * and says how many it held back when it lets the next one through. Ratis warns once per failed request: a leader
 * whose follower is down logged a "Follower failed" line for every append it tried, over a hundred a second under
 * load (docs/CLUSTER.md). Errors, and every other level and logger, pass as they are.
 */
final class RepeatedWarnings extends TurboFilter {
    private final String prefix;
    private final long intervalNanos;
    private final LongSupplier clock;

    private static final class Kind {
        boolean seen;
        long lastNanos;
        long held;
    }

    private final ConcurrentHashMap<String, Kind> kinds = new ConcurrentHashMap<>();

    RepeatedWarnings(String prefix, java.time.Duration interval, LongSupplier nanoClock) {
        this.prefix = prefix;
        this.intervalNanos = interval.toNanos();
        this.clock = nanoClock;
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level != Level.WARN || format == null || !logger.getName().startsWith(prefix)) {
            return FilterReply.NEUTRAL;
        }
        // Logback asks before it checks the level: a warning the logger would drop anyway counts for nothing.
        if (!logger.isEnabledFor(Level.WARN)) {
            return FilterReply.NEUTRAL;
        }
        Kind kind = kinds.computeIfAbsent(logger.getName() + '\u0000' + format, k -> new Kind());
        long now = clock.getAsLong();
        long held;
        synchronized (kind) {
            if (kind.seen && now - kind.lastNanos < intervalNanos) {
                kind.held++;
                return FilterReply.DENY;
            }
            kind.seen = true;
            kind.lastNanos = now;
            held = kind.held;
            kind.held = 0;
        }
        if (held > 0) {
            // Through the same context, under a logger this filter leaves alone.
            logger.getLoggerContext()
                    .getLogger(RepeatedWarnings.class)
                    .warn("{} more like the next from {} held back", held, logger.getName());
        }
        return FilterReply.NEUTRAL;
    }
}
