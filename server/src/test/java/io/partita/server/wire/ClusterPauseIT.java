package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader that stalls (SIGSTOP, as a long GC pause or a frozen VM would) is replaced while it sleeps, and the writes
 * go on without it. When it wakes it still believes it leads for a moment; strongly consistent reads that reached it
 * meanwhile must not be answered from its state, which lacks the new leader's writes. Each must answer the latest
 * value or a retryable error ("Read consistency" in DynamoDB's developer guide: a strongly consistent read returns
 * the most up-to-date data, reflecting every prior successful write).
 */
class ClusterPauseIT {
    private static final int CYCLES = 2;
    private static final int READS = 4;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    @Test
    void aStalledLeaderAnswersNoStaleConsistentRead(@TempDir Path dir) throws Exception {
        try (ClusterProcesses cluster = ClusterProcesses.start(dir)) {
            int leader = cluster.leader();
            RawApi api = new RawApi(cluster.endpoint(leader));
            HttpResponse<String> created = api.createTable("pause");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            assertThat(put(cluster.endpoint(leader), "v0").statusCode()).isEqualTo(200);
            int fresh = 0;
            for (int cycle = 1; cycle <= CYCLES; cycle++) {
                int stalled = cluster.leader();
                // Every node holds every entry first. One run in eight before this wait, with a follower still catching
                // up when the leader stopped, saw no new leader for 60 s (left open on issue 24).
                awaitCaughtUp(cluster);
                // A consistent read through the leader just before it stalls: Ratis 3.2.0's read index took one that a
                // majority had acknowledged once as acknowledged for good, and the woken leader answered the old value.
                HttpResponse<String> before =
                        http.send(consistentGet(cluster.endpoint(stalled)), HttpResponse.BodyHandlers.ofString());
                assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
                cluster.pause(stalled);
                int next = servingOtherThan(cluster, stalled);
                String value = "v" + cycle;
                assertThat(put(cluster.endpoint(next), value).statusCode()).isEqualTo(200);

                // Reads sent to the sleeping node wait in its sockets and are the first thing it handles on waking.
                List<CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
                for (int r = 0; r < READS; r++) {
                    reads.add(http.sendAsync(
                            consistentGet(cluster.endpoint(stalled)), HttpResponse.BodyHandlers.ofString()));
                }
                Thread.sleep(300);
                cluster.resume(stalled);
                for (CompletableFuture<HttpResponse<String>> read : reads) {
                    HttpResponse<String> answer = read.get(60, TimeUnit.SECONDS);
                    if (answer.statusCode() == 200) {
                        assertThat(answer.body())
                                .as("a consistent read after the write of " + value)
                                .contains("\"" + value + "\"");
                        fresh++;
                    } else {
                        assertThat(answer.statusCode()).as(answer.body()).isIn(500, 503);
                    }
                }
                // Once it has noticed, the woken node forwards reads to the new leader like any follower.
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (true) {
                    HttpResponse<String> answer =
                            http.send(consistentGet(cluster.endpoint(stalled)), HttpResponse.BodyHandlers.ofString());
                    if (answer.statusCode() == 200) {
                        assertThat(answer.body()).contains("\"" + value + "\"");
                        break;
                    }
                    assertThat(System.nanoTime())
                            .as("the woken node answering reads again")
                            .isLessThan(deadline);
                    Thread.sleep(100);
                }
            }
            System.out.println("consistent reads sent to a stalled leader: " + fresh + " of " + CYCLES * READS
                    + " answered (all with the latest value), the rest refused as retryable");
        }
    }

    private static final java.util.regex.Pattern APPLIED = java.util.regex.Pattern.compile("\"appliedIndex\":(\\d+)");

    /** Waits until the three nodes report the same applied index. */
    private void awaitCaughtUp(ClusterProcesses cluster) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            java.util.Set<String> applied = new java.util.HashSet<>();
            for (int i = 0; i < 3; i++) {
                String view = cluster.view(i);
                java.util.regex.Matcher m = APPLIED.matcher(view);
                applied.add(m.find() ? m.group(1) : "?" + i);
            }
            if (applied.size() == 1) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("every node applying the same entries")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private int servingOtherThan(ClusterProcesses cluster, int stalled) throws Exception {
        int next = cluster.servingOtherThan(stalled, Duration.ofSeconds(60));
        if (next >= 0) {
            return next;
        }
        StringBuilder views = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            if (i == stalled) {
                continue;
            }
            try {
                views.append("\nn").append(i).append(": ").append(cluster.view(i));
            } catch (java.io.IOException e) {
                views.append("\nn").append(i).append(": ").append(e);
            }
        }
        throw new AssertionError("no new leader within 60 s with n" + stalled + " paused; the others' views:" + views
                + cluster.diagnosis());
    }

    private HttpResponse<String> put(URI endpoint, String value) throws Exception {
        return http.send(
                request(
                        endpoint,
                        "PutItem",
                        "{\"TableName\":\"pause\",\"Item\":{\"id\":{\"S\":\"k\"},\"v\":{\"S\":\"" + value + "\"}}}"),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest consistentGet(URI endpoint) {
        return request(
                endpoint,
                "GetItem",
                "{\"TableName\":\"pause\",\"ConsistentRead\":true,\"Key\":{\"id\":{\"S\":\"k\"}}}");
    }

    private static HttpRequest request(URI endpoint, String operation, String body) {
        return RawApi.request(endpoint, operation, body, Duration.ofSeconds(30));
    }
}
