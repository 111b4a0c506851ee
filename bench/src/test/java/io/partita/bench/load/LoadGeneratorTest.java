package io.partita.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.embedded.EmbeddedPartita;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {
    @Test
    void createsPreloadsAndReadsFromPartita() throws Exception {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        try (EmbeddedPartita partita = EmbeddedPartita.start();
                PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8)) {
            LoadGenerator.Result r = LoadGenerator.run(
                    out,
                    "--endpoint",
                    partita.endpoint().toString(),
                    "--create",
                    "--items",
                    "500",
                    "--item-size",
                    "256",
                    "--workload",
                    "get",
                    "--connections",
                    "2",
                    "--warmup",
                    "0.5",
                    "--duration",
                    "1.5");
            String text = report.toString(StandardCharsets.UTF_8);
            assertThat(r.ops()).as(text).isPositive();
            assertThat(r.errors()).as(text).isEmpty();
            assertThat(r.throttles()).as(text).isEmpty();
            assertThat(r.unfinished()).as(text).isZero();
            assertThat(text).contains("preloaded 500 items", "ops/s", "p99");
        }
    }

    @Test
    void runsAMixOnAHashAndRangeTableInOpenLoop() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            LoadGenerator.Result r = LoadGenerator.run(
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    "--endpoint",
                    partita.endpoint().toString(),
                    "--create",
                    "--range-key",
                    "--items",
                    "300",
                    "--item-size",
                    "200",
                    "--workload",
                    "mix",
                    "--connections",
                    "2",
                    "--rate",
                    "500",
                    "--warmup",
                    "0.2",
                    "--duration",
                    "1");
            assertThat(r.errors()).isEmpty();
            assertThat(r.ops()).isBetween(300L, 700L); // open loop at 500/s for 1 s
        }
    }

    @Test
    void errorTypeIsTheShortDynamoDbName() {
        assertThat(HttpConnection.errorType(
                        400,
                        "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\","
                                + "\"message\":\"slow down\"}"))
                .isEqualTo("ProvisionedThroughputExceededException");
        assertThat(HttpConnection.errorType(503, "<html/>")).isEqualTo("HTTP503");
    }
}
