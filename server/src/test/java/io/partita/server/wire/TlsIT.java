package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * HTTPS with PEM files (--tls-cert, --tls-key), started as a user starts it, and used through the AWS SDK's Apache
 * client trusting the test's self-signed certificate. The certificate is made by openssl, as a user would make one.
 */
class TlsIT {
    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    void theSdkSpeaksHttpsToTheServer(@TempDir Path dir) throws Exception {
        TestCertificate made = TestCertificate.make(dir);
        Path cert = made.certificate();
        Path key = made.privateKey();

        try (ServerProcess server = ServerProcess.start(
                        dir.resolve("data"), "--tls-cert", cert.toString(), "--tls-key", key.toString());
                DynamoDbClient ddb = client(URI.create("https://localhost:" + server.port()), made.trust())) {
            ddb.createTable(b -> b.tableName("secure")
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType("S"))
                    .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            ddb.putItem(b -> b.tableName("secure").item(Map.of("pk", AttributeValue.fromS("k"))));
            assertThat(ddb.getItem(b -> b.tableName("secure").key(Map.of("pk", AttributeValue.fromS("k"))))
                            .item())
                    .containsEntry("pk", AttributeValue.fromS("k"));

            // A client that does not trust the certificate is refused by its own TLS, before any request.
            try (DynamoDbClient untrusting = client(URI.create("https://localhost:" + server.port()), null)) {
                assertThatThrownBy(untrusting::listTables).isInstanceOf(SdkClientException.class);
            }
            // Plain HTTP on the HTTPS port gets no answer.
            try (DynamoDbClient plain = client(URI.create("http://localhost:" + server.port()), null)) {
                assertThatThrownBy(plain::listTables).isInstanceOf(SdkClientException.class);
            }
        }
    }

    private static DynamoDbClient client(URI endpoint, TrustManagerFactory trust) {
        Apache5HttpClient.Builder http = Apache5HttpClient.builder();
        if (trust != null) {
            http.tlsTrustManagersProvider(trust::getTrustManagers);
        }
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .httpClient(http.build())
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1)))
                .build();
    }
}
