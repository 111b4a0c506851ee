package io.partita.server.op.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.op.KeyedTables;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityKind;
import io.partita.storage.capacity.TableThroughput;
import io.partita.storage.table.HashRange;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code Partita.ChargeTable}: what the other groups of a table cut by ranges consumed, charged to this group's budgets
 * of the whole table and of each whole global secondary index; refused on a table kept whole, and, malformed, charging
 * nothing.
 */
class ChargeTableHandlerTest {
    private static final HashRange LOWER = new HashRange(0, Long.MAX_VALUE);

    private static void charge(StorageEngine storage, String json) {
        ChargeTableHandler handler = new ChargeTableHandler(storage);
        RequestContext context = new RequestContext(
                "r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), "Partita.ChargeTable", false);
        handler.handle(context, DynamoJson.decode(json.getBytes(StandardCharsets.UTF_8), handler.inputType()));
    }

    /** The capacity's clock, which stands still: no bucket refills while the test runs. */
    private static final Clock STILL = Clock.fixed(java.time.Instant.ofEpochMilli(1_000_000), java.time.ZoneOffset.UTC);

    private static double writeTokens(TableThroughput t) {
        return t.table(CapacityKind.WRITE).tokens(STILL.millis());
    }

    @Test
    void theOtherGroupsConsumptionDrainsTheWholeTablesAndIndexesBudgets() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory()
                .withCapacity(
                        io.partita.storage.capacity.CapacityConfig.defaults().withClock(STILL)))) {
            storage.tables()
                    .create(KeyedTables.byId("cut")
                            .withIndexes(List.of(KeyedTables.globalIndex("byG", "g", null)))
                            .withHashRange(LOWER));
            storage.tables().create(KeyedTables.byId("whole"));
            TableThroughput table = storage.tables().find("cut").partitions().throughput();
            TableThroughput index = storage.tables()
                    .find("cut")
                    .indexes()
                    .find("byG")
                    .partitions()
                    .throughput();
            // On demand, each a new table's 4,000 writes a second: the whole table's, not this group's half.
            assertThat(writeTokens(table)).isEqualTo(4000);

            charge(
                    storage,
                    "{\"TableName\":\"cut\",\"From\":\"g2\",\"ReadHalfUnits\":21,\"WriteHalfUnits\":6000,"
                            + "\"WritePeakHalfUnits\":6000,"
                            + "\"Indexes\":{\"byG\":{\"WriteHalfUnits\":5000,\"WritePeakHalfUnits\":10000},"
                            + "\"gone\":{\"WriteHalfUnits\":9}}}");
            assertThat(writeTokens(table)).isEqualTo(1000);
            assertThat(writeTokens(index)).isEqualTo(1500);
            assertThat(table.elsewhere().consumedWriteUnits()).isEqualTo(3000);
            assertThat(table.elsewhere().consumedReadUnits()).isEqualTo(10.5);
            assertThat(index.elsewhere().consumedWriteUnits()).isEqualTo(2500);
            // Its peak, 3,000 writes a second: the table takes double that sum of every group's peaks.
            assertThat(table.table(CapacityKind.WRITE).ratePerSecond()).isEqualTo(6000.0);
            assertThat(index.table(CapacityKind.WRITE).ratePerSecond()).isEqualTo(10000.0);
            assertThat(table.consumption().consumedWriteUnits())
                    .as("not this group's consumption")
                    .isZero();

            // Malformed: refused, nothing charged (the table's part neither, though it came first).
            for (String bad : List.of(
                    "{\"TableName\":\"cut\",\"WriteHalfUnits\":-1}",
                    "{\"TableName\":\"cut\",\"WriteHalfUnits\":5,\"Indexes\":{\"byG\":{\"ReadHalfUnits\":-2}}}",
                    "{\"TableName\":\"cut\",\"WriteHalfUnits\":5,\"Indexes\":{\"byG\":null}}",
                    "{\"TableName\":\"cut\",\"WriteHalfUnits\":1000000000001}",
                    "{\"TableName\":\"cut\",\"WriteHalfUnits\":5,\"WritePeakHalfUnits\":-4}",
                    "{\"TableName\":\"cut\",\"From\":\"\",\"WriteHalfUnits\":5}")) {
                assertThatThrownBy(() -> charge(storage, bad))
                        .as(bad)
                        .isInstanceOfSatisfying(
                                ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION));
            }
            assertThat(table.elsewhere().consumedWriteUnits()).isEqualTo(3000);

            // A table kept whole (a single node's): refused, its budget untouched.
            assertThatThrownBy(() -> charge(storage, "{\"TableName\":\"whole\",\"WriteHalfUnits\":100}"))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION));
            TableThroughput whole = storage.tables().find("whole").partitions().throughput();
            assertThat(whole.elsewhere().consumedWriteUnits()).isZero();
            assertThatThrownBy(() -> charge(storage, "{\"TableName\":\"nope\",\"WriteHalfUnits\":1}"))
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_NOT_FOUND));
        }
    }
}
