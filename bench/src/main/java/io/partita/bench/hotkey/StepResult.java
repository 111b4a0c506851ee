package io.partita.bench.hotkey;

/**
 * One step of the sweep: the hot key's share of requests, the load offered, and what the client and the server saw.
 *
 * @param sharePercent the hot key's share of the requests, 0 to 100
 * @param offered the offered load in capacity units per second (constant across the sweep)
 * @param unitsPerRequest capacity units one successful request consumes
 * @param server the server's rates, or null when its admin metrics could not be read
 */
public record StepResult(
        double sharePercent, double offered, int unitsPerRequest, ClientCounts client, StepRates server) {

    /**
     * Units/s the client's successful requests account for, over the same time as the server's rates when there are
     * any (the sending window plus the wait for the last answers), so the two can be compared.
     */
    public double clientConsumed() {
        double seconds = server != null ? server.seconds() : client.seconds();
        return client.ok() * (double) unitsPerRequest / seconds;
    }

    /** The server's table consumption, or NaN without server metrics. */
    public double tableConsumed() {
        return server == null ? Double.NaN : server.tableConsumed();
    }

    public double provisioned() {
        return server == null ? Double.NaN : server.provisioned();
    }

    public double hotConsumed() {
        return server == null ? Double.NaN : server.hotConsumed();
    }

    public double hotCeiling() {
        return server == null ? Double.NaN : server.hotCeiling();
    }
}
