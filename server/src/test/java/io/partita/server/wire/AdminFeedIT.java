package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The change feed's admin view and its consumer registration, over HTTP. */
class AdminFeedIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode table(RawApi api, String name) throws Exception {
        HttpResponse<String> r = api.get("/admin/feed?table=" + name);
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body()).get("tables").get(0);
    }

    @Test
    void aRegisteredConsumerMakesTheTableRecordAndItsLagShows() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            assertThat(api.createTable("fed").statusCode()).isEqualTo(200);
            assertThat(table(api, "fed").get("recording").asBoolean()).isFalse();

            HttpResponse<String> registered =
                    api.send("POST", "/admin/feed/consumers?table=fed&name=bench&retentionSeconds=60");
            assertThat(registered.statusCode()).isEqualTo(200);
            JsonNode t = JSON.readTree(registered.body()).get("tables").get(0);
            assertThat(t.get("recording").asBoolean()).isTrue();
            assertThat(t.get("shards")).hasSize(4);
            assertThat(t.get("consumers").get(0).get("retentionSeconds").asLong())
                    .isEqualTo(60);

            for (int i = 0; i < 5; i++) {
                assertThat(api.post(
                                        "DynamoDB_20120810.PutItem",
                                        "{\"TableName\":\"fed\",\"Item\":{\"id\":{\"S\":\"k" + i + "\"}}}")
                                .statusCode())
                        .isEqualTo(200);
            }
            JsonNode after = table(api, "fed");
            assertThat(after.get("consumers").get(0).get("lag").asLong()).isEqualTo(5);
            long visible = 0;
            for (JsonNode s : after.get("shards")) {
                assertThat(s.get("state").asText()).isEqualTo("OPEN");
                visible += s.get("visibleThrough").asLong();
            }
            assertThat(visible).isEqualTo(5);

            assertThat(api.send("DELETE", "/admin/feed/consumers?table=fed&name=bench")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(table(api, "fed").get("recording").asBoolean()).isFalse();

            // A consumer the server follows itself: its records are read as they come.
            assertThat(api.send("POST", "/admin/feed/consumers?table=fed&name=tail&follow=true")
                            .statusCode())
                    .isEqualTo(200);
            api.post("DynamoDB_20120810.PutItem", "{\"TableName\":\"fed\",\"Item\":{\"id\":{\"S\":\"x\"}}}");
            JsonNode tail = null;
            for (int i = 0; i < 1000; i++) {
                tail = table(api, "fed").get("consumers").get(0);
                if (tail.get("followedRecords").asLong() == 1) {
                    break;
                }
                Thread.sleep(10);
            }
            assertThat(tail.get("followedRecords").asLong()).isEqualTo(1);
            assertThat(tail.get("lag").asLong()).isZero();
        }
    }

    @Test
    void badRegistrationsAreRefused() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            assertThat(api.send("POST", "/admin/feed/consumers?table=none&name=c")
                            .statusCode())
                    .isEqualTo(404);
            api.createTable("fed");
            HttpResponse<String> badName = api.send("POST", "/admin/feed/consumers?table=fed&name=a%20b");
            assertThat(badName.statusCode()).isEqualTo(400);
            assertThat(badName.body()).contains("Invalid consumer name");
            assertThat(api.send("POST", "/admin/feed/consumers?table=fed&name=c&retentionSeconds=x")
                            .statusCode())
                    .isEqualTo(400);
            assertThat(api.send("POST", "/admin/feed/consumers?table=fed&name=c&follow=true&retentionSeconds=9")
                            .statusCode())
                    .isEqualTo(400);
            assertThat(api.send("POST", "/admin/feed/consumers?table=fed&name=c&retentionSeconds=9999999999999")
                            .statusCode())
                    .isEqualTo(400);
            assertThat(api.send("DELETE", "/admin/feed/consumers?table=fed").statusCode())
                    .isEqualTo(400);
            assertThat(api.send("POST", "/admin/feed/elsewhere").statusCode()).isEqualTo(404);
            assertThat(api.send("PUT", "/admin/feed/consumers?table=fed&name=c").statusCode())
                    .isEqualTo(405);
        }
    }
}
