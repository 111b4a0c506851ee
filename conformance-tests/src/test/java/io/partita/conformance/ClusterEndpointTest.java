package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Endpoint;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** With {@code -Dpartita.cluster=3} the suite's endpoint is a cluster node that forwards to the leader. */
@Tag("partita-only")
class ClusterEndpointTest {
    @Test
    void theSuitesEndpointIsAFollowerOfAThreeNodeCluster() throws Exception {
        // The suite's own cluster, in the JVM: a cluster given as -Dpartita.endpoint has whatever shape it was given.
        Assumptions.assumeTrue(
                Endpoint.isEmbedded() && Integer.getInteger("partita.cluster", 0) > 0,
                "only on the suite's own cluster");
        String view = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(Endpoint.uri().resolve("/cluster"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(view).contains("\"role\":\"FOLLOWER\"", "\"serving\":false").containsPattern("\"leader\":\"n\\d\"");
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(view);
        assertThat(json.get("members")).hasSize(3);
        assertThat(json.get("groups")).hasSize(1);
        assertThat(json.get("groups").get(0).get("members")).hasSize(3);
    }
}
