package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.server.auth.Accounts;
import io.partita.server.cli.ServerConfig;
import io.partita.server.embedded.EmbeddedPartita;
import io.partita.server.netty.Transport;
import io.partita.storage.StorageConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Strict mode keeps accounts apart, through the real SDK: two accounts may each have a table of the same name, with
 * their own items, streams, ARNs and admin views; an ARN of the other account's table or stream is refused as IAM
 * refuses a cross-account resource that no policy allows; and the separation survives a restart.
 */
class AccountIsolationIT {
    private static final String ALICE = "111122223333";
    private static final String BOB = "444455556666";
    private static final Accounts KEYS = new Accounts(Map.of(
            "AKIDALICE", new Accounts.Key("AKIDALICE", "alice-secret", ALICE),
            "AKIDALICE2", new Accounts.Key("AKIDALICE2", "alice-secret-2", ALICE),
            "AKIDBOB", new Accounts.Key("AKIDBOB", "bob-secret", BOB)));
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void eachAccountHasItsOwnTablesItemsAndStreams() {
        try (EmbeddedPartita partita = EmbeddedPartita.strict(KEYS);
                DynamoDbClient alice = client(partita, "AKIDALICE", "alice-secret");
                DynamoDbClient alice2 = client(partita, "AKIDALICE2", "alice-secret-2");
                DynamoDbClient bob = client(partita, "AKIDBOB", "bob-secret")) {
            create(alice, "orders");
            assertThat(bob.listTables().tableNames()).isEmpty();
            assertThatThrownBy(() -> bob.describeTable(b -> b.tableName("orders")))
                    .isInstanceOfSatisfying(
                            DynamoDbException.class,
                            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ResourceNotFoundException"));
            // The same name in the other account is another table, not a ResourceInUseException.
            create(bob, "orders");
            alice.putItem(b -> b.tableName("orders").item(Map.of("pk", s("1"), "owner", s("alice"))));
            bob.putItem(b -> b.tableName("orders").item(Map.of("pk", s("1"), "owner", s("bob"))));
            assertThat(get(alice, "orders", "1")).containsEntry("owner", s("alice"));
            assertThat(get(bob, "orders", "1")).containsEntry("owner", s("bob"));
            // Another key of the same account sees that account's tables.
            assertThat(get(alice2, "orders", "1")).containsEntry("owner", s("alice"));
            assertThat(bob.scan(b -> b.tableName("orders")).count()).isEqualTo(1);
            String aliceArn =
                    alice.describeTable(b -> b.tableName("orders")).table().tableArn();
            assertThat(aliceArn).isEqualTo("arn:aws:dynamodb:us-east-1:" + ALICE + ":table/orders");
            assertThat(bob.describeTable(b -> b.tableName("orders")).table().tableArn())
                    .isEqualTo("arn:aws:dynamodb:us-east-1:" + BOB + ":table/orders");

            // Alice's ARN is hers alone: by ARN, Bob reaches neither her table nor his own of that name.
            assertThat(get(alice, aliceArn, "1")).containsEntry("owner", s("alice"));
            assertThatThrownBy(() -> get(bob, aliceArn, "1")).isInstanceOfSatisfying(DynamoDbException.class, e -> {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                assertThat(e.statusCode()).isEqualTo(400);
                assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("User: arn:aws:iam::" + BOB + ":root is not authorized to perform:"
                                + " dynamodb:GetItem on resource: " + aliceArn
                                + " because no resource-based policy allows the dynamodb:GetItem action");
            });
            assertThatThrownBy(() -> bob.deleteTable(b -> b.tableName(aliceArn)))
                    .isInstanceOfSatisfying(
                            DynamoDbException.class,
                            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException"));
            assertThat(alice.listTables().tableNames()).containsExactly("orders");

            // Streams: Alice's stream is not Bob's to list or read.
            String streamArn = alice.updateTable(b -> b.tableName("orders")
                            .streamSpecification(st -> st.streamEnabled(true).streamViewType("NEW_IMAGE")))
                    .tableDescription()
                    .latestStreamArn();
            try (DynamoDbStreamsClient aliceStreams = streams(partita, "AKIDALICE", "alice-secret");
                    DynamoDbStreamsClient bobStreams = streams(partita, "AKIDBOB", "bob-secret")) {
                assertThat(aliceStreams.listStreams().streams()).hasSize(1);
                assertThat(bobStreams.listStreams().streams()).isEmpty();
                assertThatThrownBy(() -> bobStreams.describeStream(b -> b.streamArn(streamArn)))
                        .isInstanceOfSatisfying(
                                DynamoDbException.class,
                                e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException"));
            }
        }
    }

    @Test
    void theAdminViewsShowOnlyTheCallersTables() throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.strict(KEYS);
                DynamoDbClient alice = client(partita, "AKIDALICE", "alice-secret");
                DynamoDbClient bob = client(partita, "AKIDBOB", "bob-secret")) {
            create(alice, "alice-only");
            create(bob, "bob-only");
            String aliceMetrics = signedGet(partita, "/metrics", "AKIDALICE", "alice-secret");
            String bobMetrics = signedGet(partita, "/metrics", "AKIDBOB", "bob-secret");
            assertThat(aliceMetrics).contains("table=\"alice-only\"").doesNotContain("bob-only");
            assertThat(bobMetrics).contains("table=\"bob-only\"").doesNotContain("alice-only");
            String bobView = signedGet(partita, "/admin/metrics", "AKIDBOB", "bob-secret");
            assertThat(bobView).contains("bob-only").doesNotContain("alice-only");
            assertThat(signedGet(partita, "/admin/indexes", "AKIDALICE", "alice-secret"))
                    .doesNotContain("bob-only");
        }
    }

    @Test
    void accountsStayApartAcrossARestartEachInItsOwnDirectory(@TempDir Path dir) {
        ServerConfig config = new ServerConfig(
                        "127.0.0.1",
                        0,
                        StorageConfig.disk(dir),
                        "us-east-1",
                        ServerConfig.defaultWorkerThreads(),
                        Transport.AUTO)
                .strict(KEYS);
        try (EmbeddedPartita partita = EmbeddedPartita.start(config);
                DynamoDbClient alice = client(partita, "AKIDALICE", "alice-secret");
                DynamoDbClient bob = client(partita, "AKIDBOB", "bob-secret")) {
            create(alice, "kept");
            alice.putItem(b -> b.tableName("kept").item(Map.of("pk", s("a"))));
            assertThat(bob.listTables().tableNames()).isEmpty();
        }
        assertThat(Files.isDirectory(dir.resolve("accounts").resolve(ALICE))).isTrue();
        assertThat(Files.isDirectory(dir.resolve("accounts").resolve(BOB))).isTrue();
        try (EmbeddedPartita partita = EmbeddedPartita.start(config);
                DynamoDbClient alice = client(partita, "AKIDALICE", "alice-secret");
                DynamoDbClient bob = client(partita, "AKIDBOB", "bob-secret")) {
            assertThat(alice.listTables().tableNames()).containsExactly("kept");
            assertThat(get(alice, "kept", "a")).containsEntry("pk", s("a"));
            assertThat(bob.listTables().tableNames()).isEmpty();
        }
        // Open mode's account keeps the directory itself: the strict accounts' tables are not its.
        try (EmbeddedPartita open = EmbeddedPartita.start(dir);
                DynamoDbClient anyone = client(open, "AKIDANYONE", "x")) {
            assertThat(anyone.listTables().tableNames()).isEmpty();
        }
    }

    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    private static void create(DynamoDbClient client, String table) {
        client.createTable(b -> b.tableName(table)
                .attributeDefinitions(a -> a.attributeName("pk").attributeType("S"))
                .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                .billingMode("PAY_PER_REQUEST"));
    }

    private static Map<String, AttributeValue> get(DynamoDbClient client, String table, String pk) {
        return client.getItem(b -> b.tableName(table).key(Map.of("pk", s(pk))).consistentRead(true))
                .item();
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static DynamoDbClient client(EmbeddedPartita partita, String key, String secret) {
        return configured(DynamoDbClient.builder(), partita, key, secret);
    }

    private static DynamoDbStreamsClient streams(EmbeddedPartita partita, String key, String secret) {
        return configured(DynamoDbStreamsClient.builder(), partita, key, secret);
    }

    /** A client of either service for {@code key}, at the server, without retries. */
    private static <B extends software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, C>, C> C configured(
            B builder, EmbeddedPartita partita, String key, String secret) {
        return builder.endpointOverride(partita.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1)))
                .build();
    }

    /** A GET of an admin view signed by the AWS SDK's own SigV4 signer, as the console signs it. */
    private static String signedGet(EmbeddedPartita partita, String path, String key, String secret) throws Exception {
        URI uri = partita.endpoint().resolve(path);
        SdkHttpRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(key, secret))
                        .request(SdkHttpRequest.builder()
                                .method(SdkHttpMethod.GET)
                                .uri(uri)
                                .build())
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "dynamodb")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"))
                .request();
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        signed.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                values.forEach(v -> b.header(name, v));
            }
        });
        HttpResponse<String> response = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}
