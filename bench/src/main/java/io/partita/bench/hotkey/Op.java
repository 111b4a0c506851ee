package io.partita.bench.hotkey;

import java.util.Locale;

/** What the scenario sends: PutItem (priced in write units) or strongly consistent GetItem (read units). */
public enum Op {
    WRITE("PutItem", "WCU"),
    READ("GetItem", "RCU");

    /** The X-Amz-Target suffix. */
    final String target;
    /** The capacity unit the offered load and all rates are counted in. */
    final String unit;

    Op(String target, String unit) {
        this.target = target;
        this.unit = unit;
    }

    /**
     * Units one request of an {@code itemBytes} item consumes: a write is charged per started 1 KB, a strongly
     * consistent read per started 4 KB (AWS docs, "Read/write capacity mode", capacity unit consumption).
     */
    int unitsPerRequest(int itemBytes) {
        int block = this == WRITE ? 1024 : 4096;
        return Math.max(1, (itemBytes + block - 1) / block);
    }

    /** Lower-case name as the command line spells it. */
    String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
