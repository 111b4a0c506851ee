package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Compressed answers through the AWS SDK: a client that asks with {@code Accept-Encoding: gzip} gets a gzip body whose
 * {@code x-amz-crc32} the SDK verifies (DynamoDB's checksum is of the compressed bytes) and then reads as usual.
 */
@ExtendWith(PartitaExtension.class)
class HttpCompressionTest {
    @Test
    void aClientAskingForGzipReadsTheSameAnswersCompressed(DynamoDbClient ddb, Tables tables) {
        String t = tables.hashTable("pk", ScalarAttributeType.S);
        for (int i = 0; i < 30; i++) {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put("pk", AttributeValue.fromS("k" + i));
            item.put("text", AttributeValue.fromS("compressible ".repeat(40)));
            ddb.putItem(b -> b.tableName(t).item(item));
        }
        List<String> encodings = new CopyOnWriteArrayList<>();
        ExecutionInterceptor gzip = new ExecutionInterceptor() {
            @Override
            public SdkHttpRequest modifyHttpRequest(
                    Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
                return context.httpRequest().toBuilder()
                        .putHeader("Accept-Encoding", "gzip")
                        .build();
            }

            @Override
            public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes executionAttributes) {
                encodings.add(context.httpResponse()
                        .firstMatchingHeader("Content-Encoding")
                        .orElse("identity"));
            }
        };
        try (DynamoDbClient zipped = DynamoDbClient.builder()
                .endpointOverride(Endpoint.uri())
                .region(Endpoint.region())
                .credentialsProvider(Endpoint.credentials())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(gzip))
                .build()) {
            var compressed = zipped.scan(b -> b.tableName(t).consistentRead(true));
            var plain = ddb.scan(b -> b.tableName(t).consistentRead(true));
            assertThat(compressed.items()).hasSize(30).containsExactlyInAnyOrderElementsOf(plain.items());
            assertThat(encodings).containsExactly("gzip");
        }
    }
}
