package io.partita.bench.hotkey;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads one table's counters from Partita's unauthenticated {@code GET /admin/metrics?table=<name>}. Real DynamoDB
 * and other emulators have no such endpoint; then {@link #read} answers empty and the scenario reports the client's
 * view only.
 */
final class AdminMetrics {
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI uri;
    private final String table;
    private String lastProblem = "";

    AdminMetrics(String endpoint, String table) {
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        this.uri = URI.create(base + "/admin/metrics?table=" + URLEncoder.encode(table, StandardCharsets.UTF_8));
        this.table = table;
    }

    URI uri() {
        return uri;
    }

    /** Why the last {@link #read} was empty. */
    String lastProblem() {
        return lastProblem;
    }

    /** The table's counters now, or empty if the server does not answer them (the reason is in lastProblem). */
    Optional<MetricsSnapshot> read() throws InterruptedException {
        HttpResponse<String> r;
        try {
            r = http.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            lastProblem = "cannot read " + uri + ": " + e;
            return Optional.empty();
        }
        if (r.statusCode() != 200) {
            lastProblem = uri + " answered HTTP " + r.statusCode();
            return Optional.empty();
        }
        try {
            return Optional.of(MetricsSnapshot.parse(r.body(), table));
        } catch (IllegalArgumentException e) {
            lastProblem = e.getMessage();
            return Optional.empty();
        }
    }
}
