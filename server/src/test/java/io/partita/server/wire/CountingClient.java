package io.partita.server.wire;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** An SDK client in open mode that counts the attempts its retry strategy makes: to see what the SDK retries. */
final class CountingClient {
    private CountingClient() {}

    /** A client of the server at {@code endpoint} that makes at most {@code maxAttempts} a call, each counted. */
    static DynamoDbClient of(URI endpoint, int maxAttempts, AtomicInteger attempts) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(maxAttempts))
                        .addExecutionInterceptor(new ExecutionInterceptor() {
                            @Override
                            public void beforeTransmission(
                                    Context.BeforeTransmission context, ExecutionAttributes attributes) {
                                attempts.incrementAndGet();
                            }
                        }))
                .build();
    }
}
