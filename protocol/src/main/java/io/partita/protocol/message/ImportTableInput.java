package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code ImportTableInput}. */
public record ImportTableInput(
        String clientToken,
        S3BucketSource s3BucketSource,
        String inputFormat,
        JsonNode inputFormatOptions,
        String inputCompressionType,
        TableCreationParameters tableCreationParameters) {

    /** DynamoDB's {@code S3BucketSource}. */
    public record S3BucketSource(String s3BucketOwner, String s3Bucket, String s3KeyPrefix) {}

    /** DynamoDB's {@code TableCreationParameters}. */
    public record TableCreationParameters(
            String tableName,
            List<AttributeDefinition> attributeDefinitions,
            List<KeySchemaElement> keySchema,
            String billingMode,
            ProvisionedThroughput provisionedThroughput,
            JsonNode onDemandThroughput,
            @JsonProperty("SSESpecification") JsonNode sseSpecification,
            List<GlobalSecondaryIndex> globalSecondaryIndexes) {}
}
