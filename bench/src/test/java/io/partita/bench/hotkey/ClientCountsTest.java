package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.bench.load.HttpConnection.Response;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ClientCountsTest {
    @Test
    void throttlesAreTheTwoSlowDownTypesShortOrFull() {
        assertThat(ClientCounts.isThrottle("ProvisionedThroughputExceededException"))
                .isTrue();
        assertThat(ClientCounts.isThrottle("com.amazonaws.dynamodb.v20120810#ThrottlingException"))
                .isTrue();
        assertThat(ClientCounts.isThrottle("RequestLimitExceeded")).isFalse();
        assertThat(ClientCounts.isThrottle("ValidationException")).isFalse();
        assertThat(ClientCounts.isThrottle(null)).isFalse();
    }

    @Test
    void readsThrottlingReasonsFromTheErrorBody() {
        String body = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\","
                + "\"message\":\"The level of configured provisioned throughput for the table was exceeded.\","
                + "\"ThrottlingReasons\":[{\"reason\":\"TableWriteKeyRangeThroughputExceeded\","
                + "\"resource\":\"arn:aws:dynamodb:us-east-1:000000000000:table/t\"},"
                + "{\"reason\":\"TableWriteProvisionedThroughputExceeded\"}]}";

        assertThat(ClientCounts.throttlingReasons(body))
                .containsExactly("TableWriteKeyRangeThroughputExceeded", "TableWriteProvisionedThroughputExceeded");
        assertThat(ClientCounts.throttlingReasons("{\"__type\":\"x\"}")).isEmpty();
        assertThat(ClientCounts.throttlingReasons("<html/>")).isEmpty();
        assertThat(ClientCounts.throttlingReasons(null)).isEmpty();
    }

    @Test
    void aTallyCountsOutcomesAndFreezesIntoRates() {
        ClientCounts.Tally t = new ClientCounts.Tally();
        t.sent = 10;
        for (int i = 0; i < 6; i++) t.answered(new Response(200, null, null));
        t.answered(new Response(
                400,
                "ProvisionedThroughputExceededException",
                "{\"ThrottlingReasons\":[{\"reason\":\"TableWriteKeyRangeThroughputExceeded\"}]}"));
        t.answered(new Response(400, "ThrottlingException", "{}"));
        t.answered(new Response(400, "ValidationException", "{}"));
        t.failed(new IOException("reset"));

        ClientCounts c = t.freeze(2.0, 3, 1);

        assertThat(c.ok()).isEqualTo(6);
        assertThat(c.throttled()).isEqualTo(2);
        assertThat(c.errors()).isEqualTo(2);
        assertThat(c.unsent()).isEqualTo(3);
        assertThat(c.unfinished()).isEqualTo(1);
        assertThat(c.sentPerSecond()).isEqualTo(5);
        assertThat(c.throttledPerSecond()).isEqualTo(1);
        assertThat(c.throttlePercent()).isEqualTo(20);
        assertThat(c.throttleReasons())
                .containsOnlyKeys("TableWriteKeyRangeThroughputExceeded", "(none)")
                .containsValues(1L, 1L);
        assertThat(c.errorTypes()).containsOnlyKeys("ValidationException", "IOException");
    }
}
