package io.partita.server.console;

/**
 * Where the hot-key simulator's hot partition must start to throttle, from the partition math alone.
 *
 * <p>A fixed total load of {@code offered} units a second goes to the table; a share {@code s} of the requests goes
 * to one partition key, the rest spreads evenly over the hash space. The hot key's partition covers a fraction
 * {@code w} of that space, so it receives {@code s·offered + (1 − s)·offered·w}. Adaptive capacity lends it the
 * table's unused capacity, but never past the partition's hard ceiling (1,000 write or 3,000 read units a second),
 * so while the table's total stays under what is provisioned, that ceiling is the only limit: throttling starts at
 * {@code s* = (ceiling − offered·w) / (offered·(1 − w))}.
 */
public record HotKeyPrediction(double offered, double hotWidth, double ceiling) {
    /** The units a second the hot partition is asked for at share {@code share} (0..1). */
    public double demand(double share) {
        return share * offered + (1 - share) * offered * hotWidth;
    }

    /**
     * The smallest share (0..1) at which the hot partition's demand passes its ceiling; 0 when it is past it at
     * once, and {@code NaN} when no share reaches it (the whole load is below one partition's ceiling).
     */
    public double throttleShare() {
        if (offered <= ceiling) {
            return Double.NaN;
        }
        if (demand(0) > ceiling) {
            return 0;
        }
        return (ceiling - offered * hotWidth) / (offered * (1 - hotWidth));
    }
}
