package io.partita.protocol.model;

/**
 * DynamoDB's capacity-unit arithmetic ("Read/write capacity mode", HowItWorks.ReadWriteCapacityMode): a read unit
 * covers 4 KB read strongly consistently (half a unit eventually consistently), a write unit 1 KB; every request
 * costs at least one unit, and a write is charged on the larger of the old and new item.
 */
public final class CapacityUnits {
    private CapacityUnits() {}

    public static double read(long itemBytes, boolean consistent) {
        long units = Math.max(1, (itemBytes + 4095) / 4096);
        return consistent ? units : units / 2.0;
    }

    public static double write(long oldBytes, long newBytes) {
        return Math.max(1, (Math.max(oldBytes, newBytes) + 1023) / 1024);
    }
}
