package io.partita.conformance.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock a test moves by hand, for an {@link IsolatedPartita} whose throughput must not depend on real time. */
public final class TestClock extends Clock {
    private final AtomicLong millis;

    public TestClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
