package io.partita.conformance.support;

import io.partita.server.embedded.EmbeddedPartita;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where conformance tests send their requests: an in-process Partita (in memory, started once per test JVM) by
 * default, or any endpoint given as {@code -Dpartita.endpoint=URL} — real DynamoDB included
 * ({@code -Dpartita.endpoint=https://dynamodb.us-east-1.amazonaws.com -Dpartita.region=us-east-1}, credentials from
 * the default chain).
 */
public final class Endpoint {
    private static final String CONFIGURED = System.getProperty("partita.endpoint", "");
    private static final Region REGION = Region.of(System.getProperty("partita.region", "us-east-1"));
    /** With {@code -Dpartita.cluster=N}, the in-process Partita is a cluster of N nodes ({@link LocalCluster}). */
    private static final int CLUSTER = Integer.getInteger("partita.cluster", 0);

    private static volatile URI uri;
    private static volatile DynamoDbClient client;
    private static volatile DynamoDbClient patient;

    private Endpoint() {}

    /** True when the tests run against an in-process Partita (Partita-only checks may run). */
    public static boolean isEmbedded() {
        return CONFIGURED.isBlank();
    }

    private static volatile Boolean partita;

    /**
     * True when the endpoint is a Partita, embedded or not (a cluster node, a container): its admin endpoints answer.
     * Found once, by asking one of them.
     */
    public static boolean isPartita() {
        if (isEmbedded()) {
            return true;
        }
        Boolean known = partita;
        if (known == null) {
            try {
                known = adminRequest("GET", "/admin/indexes", java.time.Duration.ofSeconds(10))
                                .statusCode()
                        == 200;
            } catch (java.io.IOException | RuntimeException e) {
                known = false; // no answer, or no credentials to sign with (the SDK's client would fail too)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                known = false;
            }
            partita = known;
        }
        return known;
    }

    private static final java.net.http.HttpClient ADMIN_HTTP = java.net.http.HttpClient.newBuilder()
            .connectTimeout(java.time.Duration.ofSeconds(2))
            .build();

    /**
     * {@code method} of a Partita admin path, with no body, signed as the SDK signs a request with the suite's
     * credentials: a Partita in strict mode (a cluster's too) verifies an admin request's signature, and sends it to
     * the signing key's account; open mode ignores it.
     */
    public static java.net.http.HttpResponse<String> adminRequest(
            String method, String pathAndQuery, java.time.Duration timeout)
            throws java.io.IOException, InterruptedException {
        URI target = uri().resolve(pathAndQuery);
        software.amazon.awssdk.http.SdkHttpRequest signed =
                software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.create()
                        .sign(r -> r.identity(credentials().resolveCredentials())
                                .request(software.amazon.awssdk.http.SdkHttpRequest.builder()
                                        .method(software.amazon.awssdk.http.SdkHttpMethod.fromValue(method))
                                        .uri(target)
                                        .build())
                                .putProperty(
                                        software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner
                                                .SERVICE_SIGNING_NAME,
                                        "dynamodb")
                                .putProperty(
                                        software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.REGION_NAME,
                                        region().id()))
                        .request();
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(target)
                .timeout(timeout)
                .method(method, java.net.http.HttpRequest.BodyPublishers.noBody());
        signed.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host") && !name.equalsIgnoreCase("content-length")) {
                values.forEach(v -> b.header(name, v));
            }
        });
        return ADMIN_HTTP.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    public static synchronized URI uri() {
        if (uri == null) {
            if (isEmbedded() && CLUSTER > 0) {
                LocalCluster cluster = LocalCluster.start(CLUSTER);
                Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "partita-cluster-stop"));
                uri = cluster.followerEndpoint();
            } else if (isEmbedded()) {
                EmbeddedPartita partita = EmbeddedPartita.start();
                Runtime.getRuntime().addShutdownHook(new Thread(partita::close, "partita-embedded-stop"));
                uri = partita.endpoint();
            } else {
                uri = URI.create(CONFIGURED);
            }
        }
        return uri;
    }

    public static Region region() {
        return REGION;
    }

    public static AwsCredentialsProvider credentials() {
        if (isEmbedded()
                || uri().getHost().equals("localhost")
                || uri().getHost().startsWith("127.")) {
            return StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita"));
        }
        return DefaultCredentialsProvider.builder().build();
    }

    /** A shared synchronous client (thread-safe, reused across tests). */
    public static synchronized DynamoDbClient client() {
        if (client == null) {
            client = newClient(c -> c.retryStrategy(RetryMode.STANDARD));
        }
        return client;
    }

    /**
     * A shared client that retries up to ten times (the SDK's standard retries otherwise), for a test's own setup that
     * writes faster than one partition takes: eleven items of 390 KB are 4,290 write units, over four seconds of a
     * partition's 1,000 a second, and the shared client's three jittered attempts may all fall within one refill.
     */
    public static synchronized DynamoDbClient patientClient() {
        if (patient == null) {
            patient = newClient(c -> c.retryStrategy(
                    software.amazon.awssdk.awscore.retry.AwsRetryStrategy.standardRetryStrategy().toBuilder()
                            .maxAttempts(10)
                            .build()));
        }
        return patient;
    }

    /**
     * A new client that never retries, for tests that must see every error the server answers (a conflict, a
     * throttle) rather than the SDK's retries absorbing them; the caller closes it.
     */
    public static DynamoDbClient clientWithoutRetries() {
        return newClient(c -> c.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()));
    }

    /** A new synchronous client of the endpoint, with {@code retries} setting its retries. */
    private static DynamoDbClient newClient(
            java.util.function.Consumer<software.amazon.awssdk.core.client.config.ClientOverrideConfiguration.Builder>
                    retries) {
        return DynamoDbClient.builder()
                .endpointOverride(uri())
                .region(REGION)
                .credentialsProvider(credentials())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(retries)
                .build();
    }

    /**
     * A shared DynamoDB Streams client: Partita serves Streams on its own endpoint; DynamoDB on
     * {@code streams.dynamodb.<region>.amazonaws.com}, which the SDK finds by itself when the tests run against it.
     */
    public static synchronized software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient streams() {
        if (streams == null) {
            var b = software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient.builder()
                    .region(REGION)
                    .credentialsProvider(credentials())
                    .httpClient(UrlConnectionHttpClient.create())
                    .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD));
            if (isEmbedded()
                    || uri().getHost().equals("localhost")
                    || uri().getHost().startsWith("127.")) {
                b.endpointOverride(uri());
            }
            streams = b.build();
        }
        return streams;
    }

    private static volatile software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient streams;

    /** A new asynchronous client on the SDK's Netty HTTP client; the caller closes it. */
    public static DynamoDbAsyncClient asyncClient() {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(uri())
                .region(REGION)
                .credentialsProvider(credentials())
                .build();
    }
}
