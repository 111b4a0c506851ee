package io.partita.bench.hotkey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One table's cumulative counters as the server's {@code GET /admin/metrics?table=<name>} reports them (counted since
 * the server started). Two snapshots make a step's rates: see {@link StepRates#between}.
 *
 * <pre>
 * {"tables":[{"tableName":"hotkey-sim","billingMode":"PROVISIONED",
 *   "provisionedReadCapacityUnits":6000,"provisionedWriteCapacityUnits":2000,
 *   "consumedReadCapacityUnits":12.5,"consumedWriteCapacityUnits":3.0,
 *   "readThrottleEvents":0,"writeThrottleEvents":0,"throttledRequests":0,
 *   "itemCount":10,"tableSizeBytes":1234,"partitionCount":4,"partitionSplits":0,
 *   "partitions":[{"partitionId":"0","hashStart":"0000000000000000","hashEnd":"3fffffffffffffff",
 *      "consumedReadCapacityUnits":0.0,"consumedWriteCapacityUnits":3.0,
 *      "readThrottleEvents":0,"writeThrottleEvents":0,"sizeBytes":1234,
 *      "readCeiling":3000,"writeCeiling":1000}]}]}
 * </pre>
 *
 * Absent fields read as zero, so a server that reports fewer counters still parses.
 */
public record MetricsSnapshot(
        String tableName,
        String billingMode,
        double provisionedRead,
        double provisionedWrite,
        double consumedRead,
        double consumedWrite,
        long readThrottleEvents,
        long writeThrottleEvents,
        long throttledRequests,
        long itemCount,
        long tableSizeBytes,
        int partitionCount,
        long partitionSplits,
        List<Partition> partitions) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public MetricsSnapshot {
        partitions = List.copyOf(partitions);
    }

    /** One partition's cumulative counters and its hard per-partition ceilings (units per second). */
    public record Partition(
            String partitionId,
            String hashStart,
            String hashEnd,
            double consumedRead,
            double consumedWrite,
            long readThrottleEvents,
            long writeThrottleEvents,
            long sizeBytes,
            double readCeiling,
            double writeCeiling) {

        double consumed(Op op) {
            return op == Op.READ ? consumedRead : consumedWrite;
        }

        long throttleEvents(Op op) {
            return op == Op.READ ? readThrottleEvents : writeThrottleEvents;
        }

        double ceiling(Op op) {
            return op == Op.READ ? readCeiling : writeCeiling;
        }
    }

    double provisioned(Op op) {
        return op == Op.READ ? provisionedRead : provisionedWrite;
    }

    double consumed(Op op) {
        return op == Op.READ ? consumedRead : consumedWrite;
    }

    long throttleEvents(Op op) {
        return op == Op.READ ? readThrottleEvents : writeThrottleEvents;
    }

    /**
     * The entry of {@code table} in an {@code /admin/metrics} answer.
     *
     * @throws IllegalArgumentException if the answer is not JSON or does not list the table
     */
    public static MetricsSnapshot parse(String json, String table) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("admin metrics are not JSON: " + abbreviate(json), e);
        }
        for (JsonNode t : root.path("tables")) {
            if (table.equals(t.path("tableName").asText())) return of(t);
        }
        throw new IllegalArgumentException("admin metrics do not list table " + table + ": " + abbreviate(json));
    }

    private static MetricsSnapshot of(JsonNode t) {
        List<Partition> partitions = new ArrayList<>();
        for (JsonNode p : t.path("partitions")) {
            partitions.add(new Partition(
                    p.path("partitionId").asText(),
                    p.path("hashStart").asText(""),
                    p.path("hashEnd").asText(""),
                    p.path("consumedReadCapacityUnits").asDouble(),
                    p.path("consumedWriteCapacityUnits").asDouble(),
                    p.path("readThrottleEvents").asLong(),
                    p.path("writeThrottleEvents").asLong(),
                    p.path("sizeBytes").asLong(),
                    p.path("readCeiling").asDouble(),
                    p.path("writeCeiling").asDouble()));
        }
        return new MetricsSnapshot(
                t.path("tableName").asText(),
                t.path("billingMode").asText(""),
                t.path("provisionedReadCapacityUnits").asDouble(),
                t.path("provisionedWriteCapacityUnits").asDouble(),
                t.path("consumedReadCapacityUnits").asDouble(),
                t.path("consumedWriteCapacityUnits").asDouble(),
                t.path("readThrottleEvents").asLong(),
                t.path("writeThrottleEvents").asLong(),
                t.path("throttledRequests").asLong(),
                t.path("itemCount").asLong(),
                t.path("tableSizeBytes").asLong(),
                t.path("partitionCount").asInt(partitions.size()),
                t.path("partitionSplits").asLong(),
                partitions);
    }

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }
}
