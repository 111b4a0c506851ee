package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The console's hot-key simulator over HTTP: its settings checked, its table its own, its load real. */
class SimulatorIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void badSettingsAreRefusedAndChangeNothing() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            for (String query : new String[] {
                "wcu=abc", "wcu=0", "wcu=100&offered=200", "itemKb=0", "share=1.5", "share=-1", "table=a", "table=a%2Fb"
            }) {
                HttpResponse<String> r = api.send("POST", "/admin/simulator/start?" + query);
                assertThat(r.statusCode()).as(query).isEqualTo(400);
                assertThat(JSON.readTree(r.body()).get("message").asText())
                        .as(query)
                        .isNotBlank();
            }
            assertThat(api.send("POST", "/admin/simulator/share?value=0.5").statusCode())
                    .isEqualTo(409);
            assertThat(api.send("GET", "/admin/simulator/start").statusCode()).isEqualTo(404);
            assertThat(JSON.readTree(api.get("/admin/simulator").body())
                            .get("running")
                            .asBoolean())
                    .isFalse();
            assertThat(api.post("DynamoDB_20120810.ListTables", "{}").body()).contains("\"TableNames\":[]");
        }
    }

    @Test
    void aUsersTableIsNeverTakenOver() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            assertThat(api.createTable("mine").statusCode()).isEqualTo(200);
            HttpResponse<String> r = api.send("POST", "/admin/simulator/start?table=mine");
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(r.body()).contains("table mine exists and is not the simulator's");
        }
    }

    @Test
    void theLoadIsWrittenThroughTheRequestPathAndItsShareMoves() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            HttpResponse<String> started =
                    api.send("POST", "/admin/simulator/start?table=sim&wcu=400&offered=300&itemKb=1&share=0.25");
            assertThat(started.statusCode()).isEqualTo(200);
            JsonNode s = JSON.readTree(started.body());
            assertThat(s.get("running").asBoolean()).isTrue();
            // A table of 400 WCU and 1 RCU has one partition; 300 WCU/s cannot reach its ceiling.
            assertThat(s.get("partitionCount").asInt()).isEqualTo(1);
            assertThat(s.get("predictedThrottleShare").isNull()).isTrue();

            JsonNode moved = JSON.readTree(
                    api.send("POST", "/admin/simulator/share?value=0.75").body());
            assertThat(moved.get("hotShare").asDouble()).isEqualTo(0.75);

            // Writes arrive in the table, as the admin metrics count them.
            long deadline = System.nanoTime() + 30_000_000_000L;
            long consumed = 0;
            while (consumed == 0 && System.nanoTime() < deadline) {
                consumed = JSON.readTree(api.get("/admin/metrics?table=sim").body())
                        .get("tables")
                        .get(0)
                        .get("consumedWriteCapacityUnits")
                        .asLong();
                java.util.concurrent.locks.LockSupport.parkNanos(
                        20_000_000L); // waiting for the load thread, not timing it
            }
            assertThat(consumed).isPositive();

            JsonNode stopped =
                    JSON.readTree(api.send("POST", "/admin/simulator/stop").body());
            assertThat(stopped.get("running").asBoolean()).isFalse();
            assertThat(stopped.get("sent").asLong()).isPositive();
            assertThat(stopped.get("failed").asLong()).isZero();
            long sent = stopped.get("sent").asLong();
            assertThat(JSON.readTree(api.get("/admin/simulator").body())
                            .get("sent")
                            .asLong())
                    .isEqualTo(sent);
            // Restarting recreates the simulator's own table.
            assertThat(api.send("POST", "/admin/simulator/start?table=sim&wcu=400&offered=300")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(api.send("POST", "/admin/simulator/stop").statusCode()).isEqualTo(200);
        }
    }
}
