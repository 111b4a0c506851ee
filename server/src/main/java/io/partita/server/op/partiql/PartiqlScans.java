package io.partita.server.op.partiql;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** How many PartiQL SELECTs became a full Scan, per table: {@code partita_partiql_scans_total} in /metrics. */
public final class PartiqlScans {
    private final Map<String, LongAdder> byTable = new ConcurrentHashMap<>();

    void count(String table) {
        byTable.computeIfAbsent(table, t -> new LongAdder()).increment();
    }

    /** The counts so far, by table name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        byTable.forEach((t, n) -> out.put(t, n.sum()));
        return out;
    }
}
