package io.partita.conformance.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.IndexStatus;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Waiting for secondary indexes. Against Partita, {@code POST /admin/indexes/await} applies every change made so far
 * to every GSI and returns: a test that needs an up-to-date index asks for it, deterministically. Against DynamoDB
 * there is no such call: this waits until every GSI is ACTIVE and then for DynamoDB's propagation ("within a
 * fraction of a second, under normal conditions", Using Global Secondary Indexes), polling, as users must.
 */
public final class Indexes {
    private Indexes() {}

    /** Returns once every GSI of {@code table} has every change made before the call, and is ACTIVE. */
    public static void await(DynamoDbClient ddb, String table) {
        if (Endpoint.isPartita()) {
            adminPost(Endpoint.uri(), "/admin/indexes/await?table=" + table + "&timeoutSeconds=60");
            return;
        }
        Instant deadline = Instant.now().plus(Duration.ofMinutes(30));
        while (Instant.now().isBefore(deadline)) {
            TableDescription d = ddb.describeTable(b -> b.tableName(table)).table();
            boolean active = !d.hasGlobalSecondaryIndexes()
                    || d.globalSecondaryIndexes().stream().allMatch(g -> g.indexStatus() == IndexStatus.ACTIVE);
            if (active) {
                pause(Duration.ofSeconds(2));
                return;
            }
            pause(Duration.ofSeconds(5));
        }
        throw new AssertionError("the indexes of " + table + " did not become ACTIVE");
    }

    /** POSTs to a Partita admin path and returns the body; fails the test on any status but 200. */
    public static String adminPost(URI endpoint, String pathAndQuery) {
        return admin(endpoint, "POST", pathAndQuery, Duration.ofSeconds(90), true);
    }

    /** DELETEs a Partita admin path; fails the test on any status but 200. */
    public static void adminDelete(URI endpoint, String pathAndQuery) {
        admin(endpoint, "DELETE", pathAndQuery, Duration.ofSeconds(30), true);
    }

    /** GETs a Partita admin path and returns the body, whatever the status. */
    public static String adminGet(URI endpoint, String pathAndQuery) {
        return admin(endpoint, "GET", pathAndQuery, Duration.ofSeconds(30), false);
    }

    /** Signed ({@link Endpoint#adminRequest}), to {@code endpoint}: the suite's own. */
    private static String admin(URI endpoint, String method, String pathAndQuery, Duration timeout, boolean ok) {
        if (!endpoint.equals(Endpoint.uri())) {
            throw new IllegalArgumentException("not the suite's endpoint: " + endpoint);
        }
        try {
            HttpResponse<String> r = Endpoint.adminRequest(method, pathAndQuery, timeout);
            if (ok && r.statusCode() != 200) {
                throw new AssertionError(method + " " + pathAndQuery + " answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        } catch (IOException e) {
            throw new AssertionError(method + " " + pathAndQuery + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Only against real DynamoDB, which has no clock a test could move. */
    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
