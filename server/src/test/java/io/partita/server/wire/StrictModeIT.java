package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.server.auth.Accounts;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * Strict mode through the real AWS SDK and its own SigV4 signer: valid signatures pass, header or presigned; every
 * other request gets DynamoDB's authentication error and changes nothing; the admin views need a signature too.
 */
class StrictModeIT {
    private static final String ALICE_KEY = "AKIDALICE";
    private static final String ALICE_SECRET = "alice-secret";
    private static final String ALICE_ACCOUNT = "111122223333";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Set<String> UNSENDABLE = Set.of("host", "content-length");
    private static EmbeddedPartita partita;

    @BeforeAll
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    static void start() {
        partita = EmbeddedPartita.strict(new Accounts(Map.of(
                ALICE_KEY,
                new Accounts.Key(ALICE_KEY, ALICE_SECRET, ALICE_ACCOUNT),
                "AKIDBOB",
                new Accounts.Key("AKIDBOB", "bob-secret", "444455556666"))));
        try (DynamoDbClient alice = client(ALICE_KEY, ALICE_SECRET)) {
            alice.createTable(b -> b.tableName("strict")
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType("S"))
                    .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
        }
    }

    @AfterAll
    static void stop() {
        partita.close();
    }

    @Test
    void theSdkWithAKnownKeyWorksAndArnsNameItsAccount() {
        try (DynamoDbClient alice = client(ALICE_KEY, ALICE_SECRET)) {
            alice.putItem(b -> b.tableName("strict").item(Map.of("pk", AttributeValue.fromS("a"))));
            assertThat(alice.getItem(b -> b.tableName("strict").key(Map.of("pk", AttributeValue.fromS("a"))))
                            .item())
                    .containsEntry("pk", AttributeValue.fromS("a"));
            assertThat(alice.describeTable(b -> b.tableName("strict")).table().tableArn())
                    .isEqualTo("arn:aws:dynamodb:us-east-1:" + ALICE_ACCOUNT + ":table/strict");
        }
    }

    @Test
    void aWrongSecretOrAnUnknownKeyIsRefusedAsDynamoDbRefusesIt() {
        try (DynamoDbClient wrong = client(ALICE_KEY, "not-the-secret")) {
            assertThatThrownBy(() -> wrong.listTables()).isInstanceOfSatisfying(DynamoDbException.class, e -> {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSignatureException");
                assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("The request signature we calculated does not match the signature you"
                                + " provided. Check your AWS Secret Access Key and signing method. Consult"
                                + " the service documentation for details.");
            });
        }
        try (DynamoDbClient stranger = client("AKIDNOBODY", "x")) {
            assertThatThrownBy(() -> stranger.putItem(
                            b -> b.tableName("strict").item(Map.of("pk", AttributeValue.fromS("stranger")))))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnrecognizedClientException");
                        assertThat(e.awsErrorDetails().errorMessage())
                                .isEqualTo("The security token included in the request is invalid.");
                    });
        }
        try (DynamoDbClient alice = client(ALICE_KEY, ALICE_SECRET)) {
            assertThat(alice.getItem(b -> b.tableName("strict").key(Map.of("pk", AttributeValue.fromS("stranger"))))
                            .hasItem())
                    .isFalse();
        }
    }

    @Test
    void aSignatureFifteenMinutesAwayEitherWayIsRefused() throws Exception {
        Instant now = Instant.now();
        HttpResponse<String> late = send(sign(list(), ALICE_SECRET, now.minus(Duration.ofMinutes(16)), false));
        assertThat(late.statusCode()).isEqualTo(400);
        assertThat(late.body())
                .contains("InvalidSignatureException")
                .contains("Signature expired: ")
                .containsPattern("is now earlier than \\d{8}T\\d{6}Z \\(\\d{8}T\\d{6}Z - 15 min\\.\\)");
        HttpResponse<String> early = send(sign(list(), ALICE_SECRET, now.plus(Duration.ofMinutes(16)), false));
        assertThat(early.statusCode()).isEqualTo(400);
        assertThat(early.body())
                .contains("Signature not yet current: ")
                .containsPattern("is still later than \\d{8}T\\d{6}Z \\(\\d{8}T\\d{6}Z \\+ 15 min\\.\\)");
        assertThat(send(sign(list(), ALICE_SECRET, now.minus(Duration.ofMinutes(14)), false))
                        .statusCode())
                .isEqualTo(200);
        assertThat(send(sign(list(), ALICE_SECRET, now.plus(Duration.ofMinutes(14)), false))
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void presignedRequestsAreVerifiedToo() throws Exception {
        SdkHttpRequest presigned = sign(list(), ALICE_SECRET, Instant.now(), true);
        assertThat(presigned.rawQueryParameters()).containsKey("X-Amz-Signature");
        assertThat(presigned.headers()).doesNotContainKey("Authorization");
        HttpResponse<String> ok = send(presigned);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains("TableNames");
        // The same URL with another body: the payload hash differs.
        HttpResponse<String> tampered = send(presigned, "{\"Limit\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(tampered.statusCode()).isEqualTo(400);
        assertThat(tampered.body()).contains("InvalidSignatureException");
    }

    @Test
    void aRequestWithoutASignatureIsMissingItsToken() throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(partita.endpoint())
                        .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                        .header("Content-Type", "application/x-amz-json-1.0")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("MissingAuthenticationTokenException", "Request is missing Authentication Token");
        // A signature of the right shape with any secret is not enough, as it is in open mode.
        HttpResponse<String> open = new RawApi(partita.endpoint()).post("DynamoDB_20120810.ListTables", "{}");
        assertThat(open.statusCode()).isEqualTo(400);
        assertThat(open.body()).contains("UnrecognizedClientException");
    }

    @Test
    void aCompressedBodyIsVerifiedAsSent() throws Exception {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
            z.write("{}".getBytes(StandardCharsets.UTF_8));
        }
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(partita.endpoint())
                .putHeader("X-Amz-Target", "DynamoDB_20120810.ListTables")
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("Content-Encoding", "gzip")
                .build();
        HttpResponse<String> r =
                send(signBody(request, zipped.toByteArray(), Instant.now(), false), zipped.toByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void theAdminViewsNeedASignature() throws Exception {
        HttpResponse<String> unsigned = HTTP.send(
                HttpRequest.newBuilder(partita.endpoint().resolve("/admin/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(400);
        assertThat(unsigned.body()).contains("MissingAuthenticationTokenException");
        // The console's files hold no data and are served unsigned; the page then signs what it fetches.
        HttpResponse<String> config = HTTP.send(
                HttpRequest.newBuilder(partita.endpoint().resolve("/console/config.json"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(config.statusCode()).isEqualTo(200);
        assertThat(config.body()).contains("\"strict\":true");
        SdkHttpRequest get = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(partita.endpoint().resolve("/admin/metrics?table=strict"))
                .build();
        HttpResponse<String> signed = send(signBody(get, new byte[0], Instant.now(), false), null);
        assertThat(signed.statusCode()).isEqualTo(200);
        assertThat(signed.body()).contains("\"tableName\" : \"strict\"");
        // The health line stays open, for container health checks.
        assertThat(HTTP.send(HttpRequest.newBuilder(partita.endpoint()).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(200);
    }

    private static DynamoDbClient client(String key, String secret) {
        return DynamoDbClient.builder()
                .endpointOverride(partita.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1)))
                .build();
    }

    private static SdkHttpRequest list() {
        return SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(partita.endpoint())
                .putHeader("X-Amz-Target", "DynamoDB_20120810.ListTables")
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .build();
    }

    private static SdkHttpRequest sign(SdkHttpRequest request, String secret, Instant at, boolean presign) {
        return signWith(request, "{}".getBytes(StandardCharsets.UTF_8), secret, at, presign);
    }

    private static SdkHttpRequest signBody(SdkHttpRequest request, byte[] body, Instant at, boolean presign) {
        return signWith(request, body, ALICE_SECRET, at, presign);
    }

    /** Signed by the AWS SDK's own SigV4 signer, at a chosen time. */
    private static SdkHttpRequest signWith(
            SdkHttpRequest request, byte[] body, String secret, Instant at, boolean presign) {
        return AwsV4HttpSigner.create()
                .sign(r -> {
                    r.identity(AwsCredentialsIdentity.create(ALICE_KEY, secret))
                            .request(request)
                            .payload(ContentStreamProvider.fromByteArray(body))
                            .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "dynamodb")
                            .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                            .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC));
                    if (presign) {
                        r.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
                                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5));
                    }
                })
                .request();
    }

    private static HttpResponse<String> send(SdkHttpRequest signed) throws Exception {
        return send(signed, "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> send(SdkHttpRequest signed, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(signed.getUri());
        for (Map.Entry<String, List<String>> h : signed.headers().entrySet()) {
            if (!UNSENDABLE.contains(h.getKey().toLowerCase(java.util.Locale.ROOT))) {
                for (String v : h.getValue()) {
                    b.header(h.getKey(), v);
                }
            }
        }
        if (body == null) {
            b.GET();
        } else {
            b.POST(HttpRequest.BodyPublishers.ofByteArray(body));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
