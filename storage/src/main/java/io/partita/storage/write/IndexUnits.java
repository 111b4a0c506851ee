package io.partita.storage.write;

import java.util.Map;

/**
 * How a write's capacity units divide between the table and its secondary indexes, for {@code ReturnConsumedCapacity}
 * {@code INDEXES}. LSI units are consumed from the table's capacity, GSI units from each GSI's own (when its applier
 * writes them).
 */
public record IndexUnits(double table, Map<String, Double> local, Map<String, Double> global) {
    public IndexUnits {
        local = Map.copyOf(local);
        global = Map.copyOf(global);
    }
}
