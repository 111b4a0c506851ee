package io.partita.storage.capacity;

/**
 * A token bucket refilled on demand from the caller's clock reading: no thread, so a table can have thousands.
 *
 * <p>Admission and charge are separate, as in DynamoDB: a request is admitted while the balance is positive and is
 * then charged what it actually consumed, which may take the balance below zero (a 400 KB write on a table with one
 * write unit). The debt is repaid by refill before anything else is admitted.
 */
public final class TokenBucket {
    private double ratePerSecond;
    private double capacity;
    private double tokens;
    private long lastMillis;

    /**
     * @param ratePerSecond units added per second
     * @param capacity the most the balance can hold (rate × seconds of burst)
     * @param initial the starting balance
     */
    public TokenBucket(double ratePerSecond, double capacity, double initial, long nowMillis) {
        this.ratePerSecond = ratePerSecond;
        this.capacity = capacity;
        this.tokens = Math.min(initial, capacity);
        this.lastMillis = nowMillis;
    }

    /** True when the balance is positive, that is when a request may start. */
    public synchronized boolean available(long nowMillis) {
        refill(nowMillis);
        return tokens > 0;
    }

    /** Takes {@code units}; the balance may go negative. */
    public synchronized void consume(double units, long nowMillis) {
        refill(nowMillis);
        tokens -= units;
    }

    /**
     * Takes {@code units} only while the balance is positive: for {@code --throughput report}, where a request that
     * would have been throttled is served, but must not run up a debt that a refused request would not have.
     */
    public synchronized void consumeIfAvailable(double units, long nowMillis) {
        refill(nowMillis);
        if (tokens > 0) {
            tokens -= units;
        }
    }

    /** {@link #consume} or, with {@code onlyIfAvailable}, {@link #consumeIfAvailable}. */
    public void consume(double units, long nowMillis, boolean onlyIfAvailable) {
        if (onlyIfAvailable) {
            consumeIfAvailable(units, nowMillis);
        } else {
            consume(units, nowMillis);
        }
    }

    public synchronized double tokens(long nowMillis) {
        refill(nowMillis);
        return tokens;
    }

    public synchronized double ratePerSecond() {
        return ratePerSecond;
    }

    /** Changes the rate and capacity, keeping the balance (clamped to the new capacity). */
    public synchronized void reconfigure(double newRate, double newCapacity, long nowMillis) {
        refill(nowMillis);
        ratePerSecond = newRate;
        capacity = newCapacity;
        tokens = Math.min(tokens, capacity);
    }

    private void refill(long nowMillis) {
        if (nowMillis > lastMillis) {
            tokens = Math.min(capacity, tokens + ratePerSecond * (nowMillis - lastMillis) / 1000.0);
            lastMillis = nowMillis;
        }
    }
}
