package io.partita.server.fault;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One fault to inject: which requests it applies to (a table, an operation, or any), what it does, how often (a share
 * of the matching requests, drawn from its own seeded generator, so that a run repeats) and how many times at most.
 */
public final class FaultRule {
    /** What an injected fault does to a request. */
    public enum Kind {
        /** ProvisionedThroughputExceededException, as a throttled table answers. */
        THROTTLE,
        /** ThrottlingException, as a throttled control plane or account answers. */
        THROTTLING,
        /** 500 InternalServerError. */
        INTERNAL,
        /** 503 ServiceUnavailableException. */
        UNAVAILABLE,
        /** BatchWriteItem's and BatchGetItem's items left unprocessed, each with the rule's chance. */
        UNPROCESSED,
        /** A transaction cancelled with TransactionConflict; a single-item write's TransactionConflictException. */
        CONFLICT,
        /** The answer delayed by {@code latencyMillis}. */
        LATENCY;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Kind parse(String text) {
            for (Kind k : values()) {
                if (k.wire().equals(text)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown fault '" + text
                    + "': throttle, throttling, internal, unavailable, unprocessed, conflict or latency");
        }
    }

    /**
     * What a rule asks for, before it has an id.
     *
     * @param table the table it applies to, or null for any
     * @param operation the operation ({@code PutItem}), or null for any
     * @param rate the share of matching requests (or, for {@code unprocessed}, of items) it applies to, 0 to 1
     * @param count how many times at most; -1 for no limit
     * @param latencyMillis the delay of a {@code latency} fault
     * @param seed its generator's seed; null for one derived from the injector's seed and the rule's id
     */
    public record Spec(
            String table, String operation, Kind kind, double rate, long count, long latencyMillis, Long seed) {
        public Spec {
            if (kind == null) {
                throw new IllegalArgumentException("a fault needs its kind (fault=...)");
            }
            if (!(rate >= 0 && rate <= 1)) {
                throw new IllegalArgumentException("a fault's rate is a share of requests, 0 to 1: " + rate);
            }
            if (count < -1 || count == 0) {
                throw new IllegalArgumentException("a fault's count is at least 1 (or absent for no limit): " + count);
            }
            if (kind == Kind.LATENCY ? latencyMillis < 1 || latencyMillis > 60_000 : latencyMillis != 0) {
                throw new IllegalArgumentException(
                        kind == Kind.LATENCY
                                ? "a latency fault needs latency=… between 1 ms and 60 s"
                                : "latency=… belongs to a latency fault only");
            }
        }

        /** {@code fault=throttle,table=orders,operation=PutItem,rate=0.5,count=3,latency=200ms,seed=7}. */
        public static Spec parse(String text) {
            String table = null;
            String operation = null;
            Kind kind = null;
            double rate = 1;
            long count = -1;
            long latency = 0;
            Long seed = null;
            for (String part : text.split(",")) {
                int eq = part.indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("expected name=value in '" + part + "' of fault '" + text + "'");
                }
                String name = part.substring(0, eq).strip();
                String value = part.substring(eq + 1).strip();
                switch (name) {
                    case "fault" -> kind = Kind.parse(value);
                    case "table" -> table = value.equals("*") ? null : value;
                    case "operation" -> operation = value.equals("*") ? null : value;
                    case "rate" -> rate = number(name, value);
                    case "count" -> count = (long) number(name, value);
                    case "latency" -> latency = millis(value);
                    case "seed" -> seed = (long) number(name, value);
                    default ->
                        throw new IllegalArgumentException("unknown setting '" + name + "' of fault '" + text
                                + "': fault, table, operation, rate, count, latency, seed");
                }
            }
            return new Spec(table, operation, kind, rate, count, latency, seed);
        }

        private static double number(String name, String value) {
            try {
                return Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a fault's " + name + " is a number: '" + value + "'");
            }
        }

        private static long millis(String value) {
            String v = value.endsWith("ms") ? value.substring(0, value.length() - 2) : value;
            try {
                return Long.parseLong(v.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a fault's latency is a number of milliseconds: '" + value + "'");
            }
        }
    }

    private final int id;
    private final Spec spec;
    private final SplittableRandom random;
    /** Injections left; negative for no limit. */
    private final AtomicLong remaining;

    private final LongAdder injected = new LongAdder();

    FaultRule(int id, Spec spec, long injectorSeed) {
        this.id = id;
        this.spec = spec;
        this.random = new SplittableRandom(spec.seed() != null ? spec.seed() : injectorSeed * 31 + id);
        this.remaining = new AtomicLong(spec.count());
    }

    public int id() {
        return id;
    }

    public Spec spec() {
        return spec;
    }

    /** How many times it has fired. */
    public long injected() {
        return injected.sum();
    }

    /** Injections left, or -1 for no limit. */
    public long remaining() {
        return Math.max(-1, remaining.get());
    }

    boolean matches(String operation, java.util.Collection<String> tables) {
        return (spec.operation() == null || spec.operation().equals(operation))
                && (spec.table() == null || tables.contains(spec.table()));
    }

    /** Draws whether it fires now, and counts it if it does; a rule whose count is spent never fires again. */
    boolean fires() {
        boolean hit;
        synchronized (random) {
            hit = spec.rate() >= 1 || random.nextDouble() < spec.rate();
        }
        if (!hit) {
            return false;
        }
        if (spec.count() > 0 && remaining.getAndDecrement() <= 0) {
            remaining.incrementAndGet();
            return false;
        }
        injected.increment();
        return true;
    }

    /** Whether it still may fire (its count not spent). */
    boolean live() {
        return spec.count() < 0 || remaining.get() > 0;
    }

    String describe() {
        return spec.kind().wire() + " on " + (spec.operation() == null ? "any operation" : spec.operation()) + " of "
                + (spec.table() == null ? "any table" : spec.table());
    }
}
