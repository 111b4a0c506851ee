package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SweepTableTest {
    @Test
    void oneAlignedRowPerShareUnderATwoLineHeader() {
        String text = new SweepTable(SweepFixtures.sweep(0, 50, 100), Op.WRITE).text();
        String[] lines = text.split("\n");

        assertThat(lines).hasSize(5);
        assertThat(lines).extracting(String::length).containsOnly(lines[0].length());
        assertThat(lines[0]).contains("share", "offered", "table", "provisioned", "hot part", "ceiling", "throttled");
        assertThat(lines[1]).contains("WCU/s", "req/s", "%");
        // 100 %: 1500 WCU/s wanted on the hot key, 1000 served, 500 WCU/s = 125 req/s throttled, a third of them
        assertThat(lines[4].trim().split(" +"))
                .containsExactly(
                        "100", "1500", "375", "1000", "2000", "2", "1000", "1000", "125.0", "33.3", "125.0", "0");
    }

    @Test
    void theClientsConsumptionIsComparedOverTheServersWindow() {
        StepResult s = SweepFixtures.sweep(0).get(0);
        ClientCounts c = s.client(); // 375 requests/s of 4 WCU over a 5 s window: 1500 WCU/s
        StepRates r = s.server();
        StepRates slowDrain = new StepRates(
                6, 1250, 2000, 0, 0, "2", 375, 1000, 0, r.partitionConsumed(), 1250, 4, 0, r.appeared(), r.vanished());

        assertThat(s.clientConsumed()).isEqualTo(1500);
        // the last answers came a second late: the server's 7500 units over 6 s are what the client's OKs explain
        StepResult late = new StepResult(0, 1500, 4, c, slowDrain);
        assertThat(late.clientConsumed()).isEqualTo(1250);
        assertThat(new SweepTable(List.of(late), Op.WRITE).notes()).isEmpty();
    }

    @Test
    void missingServerMetricsShowAsDashesAndNotesExplainTheRest() {
        ClientCounts c =
                new ClientCounts(2, 100, 80, 10, 10, 5, 1, Map.of("(none)", 10L), Map.of("RequestLimitExceeded", 10L));
        SweepTable t = new SweepTable(List.of(new StepResult(12.5, 200, 4, c, null)), Op.READ);

        assertThat(t.rows().get(0))
                .containsExactly("12.5", "200", "50", "-", "-", "-", "-", "-", "5.0", "10.0", "-", "10");
        assertThat(t.headers().get(1)[1]).isEqualTo("RCU/s");
        assertThat(t.notes())
                .containsExactly(
                        "share 12.5%: throttling reasons (none) ×10",
                        "share 12.5%: errors RequestLimitExceeded ×10",
                        "share 12.5%: 5 requests unsent: too few connections for the latency (--connections)",
                        "share 12.5%: 1 requests unanswered at the end of the step");
    }
}
