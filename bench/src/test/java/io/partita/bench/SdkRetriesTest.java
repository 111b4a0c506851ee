package io.partita.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.partita.server.embedded.EmbeddedPartita;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** The benchmarks' count of what the SDK retried: a table with no capacity left throttles, and the SDK retries. */
class SdkRetriesTest {
    @Test
    void throttledAttemptsAndRetriesAreCounted() {
        try (EmbeddedPartita partita = EmbeddedPartita.start();
                DynamoDbClient ddb = DynamoDbClient.builder()
                        .endpointOverride(partita.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                        .httpClient(UrlConnectionHttpClient.create())
                        // Retries at once, so that the test does not wait out the SDK's backoff.
                        .overrideConfiguration(o -> o.addMetricPublisher(SdkRetries.PUBLISHER)
                                .retryStrategy(
                                        software.amazon.awssdk.awscore.retry.AwsRetryStrategy.standardRetryStrategy()
                                                .toBuilder()
                                                .maxAttempts(3)
                                                .backoffStrategy(
                                                        software.amazon.awssdk.retries.api.BackoffStrategy
                                                                .retryImmediately())
                                                .throttlingBackoffStrategy(
                                                        software.amazon.awssdk.retries.api.BackoffStrategy
                                                                .retryImmediately())
                                                .build()))
                        .build()) {
            ddb.createTable(c -> c.tableName("tiny")
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                    .provisionedThroughput(p -> p.readCapacityUnits(1L).writeCapacityUnits(1L)));
            long retries = SdkRetries.PUBLISHER.retries();
            long throttled = SdkRetries.PUBLISHER.throttled();
            String big = "x".repeat(350_000);
            // 350 units each against a 1-WCU table's 300-unit burst: the second and later ones are throttled.
            for (int i = 0; i < 3; i++) {
                String id = "k" + i;
                catchThrowable(() -> ddb.putItem(p -> p.tableName("tiny")
                        .item(Map.of("id", AttributeValue.fromS(id), "v", AttributeValue.fromS(big)))));
            }
            assertThat(SdkRetries.PUBLISHER.throttled() - throttled).isPositive();
            assertThat(SdkRetries.PUBLISHER.retries() - retries).isPositive();
        }
    }
}
