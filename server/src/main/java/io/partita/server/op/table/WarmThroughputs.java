package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.TableWarmThroughputDescription;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.partition.TablePartitions;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;

/**
 * A table's warm throughput: what it can serve at once ("Understanding DynamoDB warm throughput", developer guide).
 * An on-demand table is warm for what its first four partitions serve at their ceilings (12,000 reads and 4,000
 * writes a second), or all of them once traffic has split it further (DynamoDB's "automatically adjusts to higher
 * values"), a provisioned one for its capacity; each never falls below the highest it has reported
 * (capacity lowered, a switch of billing mode), and {@code WarmThroughput} on CreateTable or UpdateTable raises it,
 * splitting partitions to serve it as DynamoDB pre-warms them.
 */
final class WarmThroughputs {
    static final String READ = "ReadUnitsPerSecond";
    static final String WRITE = "WriteUnitsPerSecond";

    private WarmThroughputs() {}

    /** What {@code m} (of {@code table}, whose partitions may have split further) is warm for: reads, writes. */
    static long[] of(TableMetadata m, Table table) {
        long read;
        long write;
        if (m.onDemand()) {
            // Its first four partitions' worth, or more once traffic has split it past what its settings ask for.
            int partitions = table.partitions().map().size();
            int counted = partitions > TablePartitions.initialCount(m) ? partitions : 4;
            read = (long) (counted * CapacityConfig.PARTITION_READ_CEILING);
            write = (long) (counted * CapacityConfig.PARTITION_WRITE_CEILING);
        } else {
            read = m.readCapacityUnits();
            write = m.writeCapacityUnits();
        }
        return new long[] {Math.max(read, orZero(m.warmReadUnits())), Math.max(write, orZero(m.warmWriteUnits()))};
    }

    static TableWarmThroughputDescription describe(TableMetadata m, Table table, String status) {
        long[] w = of(m, table);
        return new TableWarmThroughputDescription(w[0], w[1], status);
    }

    /** {@code m} remembering what it reported before a change, so that the change cannot lower it. */
    static TableMetadata keep(TableMetadata m, long[] before) {
        return m.withWarmThroughput(
                Math.max(before[0], orZero(m.warmReadUnits())), Math.max(before[1], orZero(m.warmWriteUnits())));
    }

    /** True when {@code warmThroughput} asks for something (null, JSON null and {@code {}} ask for nothing). */
    static boolean given(JsonNode warmThroughput) {
        return warmThroughput != null
                && !warmThroughput.isNull()
                && !(warmThroughput.isObject() && warmThroughput.isEmpty());
    }

    /** One member, or null when absent. */
    static Long member(JsonNode warmThroughput, String member) {
        if (!given(warmThroughput)) {
            return null;
        }
        if (!warmThroughput.isObject()) {
            throw ApiException.serialization("Unexpected value type in payload");
        }
        JsonNode v = warmThroughput.get(member);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw ApiException.serialization("NUMBER_VALUE cannot be converted to Long");
        }
        return v.asLong();
    }

    /**
     * CreateTable's {@code WarmThroughput}: no lower than what the new table is warm for anyway (DynamoDB's words,
     * from answers captured in 2026).
     */
    static void checkCreate(Long read, Long write, TableMetadata m) {
        if (m.onDemand()) {
            if (read != null && read < 4 * CapacityConfig.PARTITION_READ_CEILING) {
                throw belowOnDemand(READ);
            }
            if (write != null && write < 4 * CapacityConfig.PARTITION_WRITE_CEILING) {
                throw belowOnDemand(WRITE);
            }
            return;
        }
        if (read != null && read < m.readCapacityUnits()) {
            throw ApiException.invalidParameter("Requested " + READ
                    + " for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput");
        }
        if (write != null && write < m.writeCapacityUnits()) {
            throw ApiException.invalidParameter("Requested " + WRITE
                    + " for WarmThroughput for table is lower than WriteCapacityUnits of ProvisionedThroughput");
        }
    }

    private static ApiException belowOnDemand(String member) {
        return ApiException.invalidParameter("Requested " + member
                + " for WarmThroughput for table is lower than initial throughput for OnDemand. See:"
                + " https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html"
                + "#on-demand-capacity-mode-initial");
    }

    /** UpdateTable's: never lower than what the table is warm for now ("decreasing ... is not supported"). */
    static void checkUpdate(Long read, Long write, long[] current) {
        if (read != null && read < current[0]) {
            throw lowerThanCurrent(READ);
        }
        if (write != null && write < current[1]) {
            throw lowerThanCurrent(WRITE);
        }
    }

    private static ApiException lowerThanCurrent(String member) {
        return ApiException.invalidParameter("Requested " + member
                + " for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not"
                + " supported");
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }
}
