package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MetricsSnapshotTest {
    static final String EXAMPLE = """
            {"tables":[{"tableName":"other","partitions":[]},
              {"tableName":"hotkey-sim","billingMode":"PROVISIONED",
              "provisionedReadCapacityUnits":6000,"provisionedWriteCapacityUnits":2000,
              "consumedReadCapacityUnits":12.5,"consumedWriteCapacityUnits":3.0,
              "readThrottleEvents":1,"writeThrottleEvents":2,"throttledRequests":3,
              "itemCount":10,"tableSizeBytes":1234,"partitionCount":4,"partitionSplits":0,
              "partitions":[{"partitionId":"0","hashStart":"0000000000000000","hashEnd":"3fffffffffffffff",
                 "consumedReadCapacityUnits":0.5,"consumedWriteCapacityUnits":3.0,
                 "readThrottleEvents":0,"writeThrottleEvents":2,"sizeBytes":1234,
                 "readCeiling":3000,"writeCeiling":1000}]}]}
            """;

    @Test
    void readsTheNamedTableOfTheDocumentedShape() {
        MetricsSnapshot m = MetricsSnapshot.parse(EXAMPLE, "hotkey-sim");

        assertThat(m.tableName()).isEqualTo("hotkey-sim");
        assertThat(m.billingMode()).isEqualTo("PROVISIONED");
        assertThat(m.provisioned(Op.READ)).isEqualTo(6000);
        assertThat(m.provisioned(Op.WRITE)).isEqualTo(2000);
        assertThat(m.consumed(Op.READ)).isEqualTo(12.5);
        assertThat(m.consumed(Op.WRITE)).isEqualTo(3.0);
        assertThat(m.throttleEvents(Op.READ)).isEqualTo(1);
        assertThat(m.throttleEvents(Op.WRITE)).isEqualTo(2);
        assertThat(m.throttledRequests()).isEqualTo(3);
        assertThat(m.itemCount()).isEqualTo(10);
        assertThat(m.tableSizeBytes()).isEqualTo(1234);
        assertThat(m.partitionCount()).isEqualTo(4);
        assertThat(m.partitions()).singleElement().satisfies(p -> {
            assertThat(p.partitionId()).isEqualTo("0");
            assertThat(p.hashEnd()).isEqualTo("3fffffffffffffff");
            assertThat(p.consumed(Op.WRITE)).isEqualTo(3.0);
            assertThat(p.consumed(Op.READ)).isEqualTo(0.5);
            assertThat(p.throttleEvents(Op.WRITE)).isEqualTo(2);
            assertThat(p.ceiling(Op.WRITE)).isEqualTo(1000);
            assertThat(p.ceiling(Op.READ)).isEqualTo(3000);
        });
    }

    @Test
    void missingCountersReadAsZeroAndThePartitionCountDefaultsToTheList() {
        MetricsSnapshot m = MetricsSnapshot.parse(
                "{\"tables\":[{\"tableName\":\"t\",\"partitions\":[{\"partitionId\":\"a\"},{\"partitionId\":\"b\"}]}]}",
                "t");

        assertThat(m.consumed(Op.WRITE)).isZero();
        assertThat(m.partitionCount()).isEqualTo(2);
        assertThat(m.partitions().get(1).ceiling(Op.WRITE)).isZero();
    }

    @Test
    void rejectsAnAnswerWithoutTheTableOrNotJson() {
        assertThatThrownBy(() -> MetricsSnapshot.parse(EXAMPLE, "absent"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("absent");
        assertThatThrownBy(() -> MetricsSnapshot.parse("<html>404</html>", "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not JSON");
    }
}
