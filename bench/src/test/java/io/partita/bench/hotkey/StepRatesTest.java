package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepRatesTest {
    static MetricsSnapshot.Partition partition(String id, double wcu, long writeThrottles) {
        return new MetricsSnapshot.Partition(id, "", "", 0, wcu, 0, writeThrottles, 0, 3000, 1000);
    }

    static MetricsSnapshot table(double wcu, long throttles, long splits, MetricsSnapshot.Partition... partitions) {
        return new MetricsSnapshot(
                "t",
                "PROVISIONED",
                6000,
                2000,
                0,
                wcu,
                0,
                throttles,
                throttles,
                0,
                0,
                partitions.length,
                splits,
                List.of(partitions));
    }

    @Test
    void ratesAreDifferencesOverTheElapsedTime() {
        MetricsSnapshot before = table(
                1000,
                5,
                0,
                partition("0", 100, 0),
                partition("1", 200, 5),
                partition("2", 300, 0),
                partition("3", 400, 0));
        MetricsSnapshot after = table(
                1000 + 2 * 1400,
                5 + 2 * 30,
                0,
                partition("0", 100 + 2 * 100, 0),
                partition("1", 200 + 2 * 1000, 5 + 2 * 30),
                partition("2", 300 + 2 * 150, 0),
                partition("3", 400 + 2 * 150, 0));

        StepRates r = StepRates.between(before, after, 2.0, Op.WRITE);

        assertThat(r.tableConsumed()).isCloseTo(1400, within(1e-9));
        assertThat(r.provisioned()).isEqualTo(2000);
        assertThat(r.throttleEventsPerSecond()).isCloseTo(30, within(1e-9));
        assertThat(r.throttledRequestsPerSecond()).isCloseTo(30, within(1e-9));
        assertThat(r.partitionConsumed())
                .containsExactly(entry("0", 100.0), entry("1", 1000.0), entry("2", 150.0), entry("3", 150.0));
        assertThat(r.hotPartitionId()).isEqualTo("1");
        assertThat(r.hotConsumed()).isEqualTo(1000);
        assertThat(r.hotCeiling()).isEqualTo(1000);
        assertThat(r.hotThrottleEventsPerSecond()).isEqualTo(30);
        assertThat(r.partitionSum()).isCloseTo(1400, within(1e-9));
        assertThat(r.inconsistencies(1400)).isEmpty();
    }

    @Test
    void readsCountReadUnitsAndReadCeilings() {
        MetricsSnapshot.Partition b = new MetricsSnapshot.Partition("p", "", "", 10, 99, 1, 0, 0, 3000, 1000);
        MetricsSnapshot.Partition a = new MetricsSnapshot.Partition("p", "", "", 610, 99, 4, 0, 0, 3000, 1000);
        MetricsSnapshot before =
                new MetricsSnapshot("t", "PROVISIONED", 6000, 2000, 10, 99, 1, 0, 1, 0, 0, 1, 0, List.of(b));
        MetricsSnapshot after =
                new MetricsSnapshot("t", "PROVISIONED", 6000, 2000, 610, 99, 4, 0, 4, 0, 0, 1, 0, List.of(a));

        StepRates r = StepRates.between(before, after, 3.0, Op.READ);

        assertThat(r.tableConsumed()).isEqualTo(200);
        assertThat(r.provisioned()).isEqualTo(6000);
        assertThat(r.hotCeiling()).isEqualTo(3000);
        assertThat(r.throttleEventsPerSecond()).isEqualTo(1);
    }

    @Test
    void aSplitRetiresAnIdAndNewIdsCountFromZero() {
        MetricsSnapshot before = table(1000, 0, 0, partition("0", 400, 0), partition("1", 600, 0));
        MetricsSnapshot after =
                table(1000 + 500, 0, 1, partition("0", 400 + 100, 0), partition("1a", 250, 0), partition("1b", 50, 0));

        StepRates r = StepRates.between(before, after, 1.0, Op.WRITE);

        assertThat(r.appeared()).containsExactlyInAnyOrder("1a", "1b");
        assertThat(r.vanished()).containsExactly("1");
        assertThat(r.splits()).isEqualTo(1);
        assertThat(r.hotPartitionId()).isEqualTo("1a");
        assertThat(r.hotConsumed()).isEqualTo(250);
        // 100 + 250 + 50 = 400 of the table's 500: what partition 1 did before it split is lost, and that is reported.
        assertThat(r.partitionSum()).isEqualTo(400);
        assertThat(r.inconsistencies(500))
                .singleElement()
                .asString()
                .contains("vanished")
                .contains("[1]");
    }

    @Test
    void aCounterThatWentBackwardsWasReset() {
        assertThat(StepRates.counterDelta(30, 10)).isEqualTo(20);
        assertThat(StepRates.counterDelta(7, 10)).isEqualTo(7);
    }

    @Test
    void noPartitionsMeansNoHotPartition() {
        StepRates r = StepRates.between(table(0, 0, 0), table(100, 0, 0), 1.0, Op.WRITE);

        assertThat(r.hotPartitionId()).isNull();
        assertThat(r.hotConsumed()).isNaN();
        assertThat(r.hotCeiling()).isNaN();
    }

    @Test
    void flagsConsumptionTheClientCannotExplainAndPartitionsAboveTheirCeiling() {
        MetricsSnapshot before = table(0, 0, 0, partition("0", 0, 0));
        MetricsSnapshot after = table(1200, 0, 0, partition("0", 1200, 0));

        List<String> notes = StepRates.between(before, after, 1.0, Op.WRITE).inconsistencies(800);

        assertThat(notes).hasSize(2);
        assertThat(notes.get(0)).contains("1200.0", "800.0");
        assertThat(notes.get(1)).contains("above its ceiling of 1000");
    }
}
