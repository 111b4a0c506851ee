package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.math.BigDecimal;
import java.util.List;

/** DynamoDB's {@code BackupDescription}: the backup, and the table it was taken of. */
public record BackupDescription(
        BackupDetails backupDetails,
        SourceTableDetails sourceTableDetails,
        SourceTableFeatureDetails sourceTableFeatureDetails) {

    /** DynamoDB's {@code SourceTableDetails}. */
    public record SourceTableDetails(
            String tableName,
            String tableId,
            String tableArn,
            Long tableSizeBytes,
            List<KeySchemaElement> keySchema,
            BigDecimal tableCreationDateTime,
            ProvisionedThroughput provisionedThroughput,
            OnDemandThroughput onDemandThroughput,
            Long itemCount,
            String billingMode) {}

    /** DynamoDB's {@code SourceTableFeatureDetails}: each member absent when the table had none. */
    public record SourceTableFeatureDetails(
            List<LocalSecondaryIndexInfo> localSecondaryIndexes,
            List<GlobalSecondaryIndexInfo> globalSecondaryIndexes,
            StreamSpecification streamDescription,
            DescribeTimeToLiveOutput.Description timeToLiveDescription,
            @JsonProperty("SSEDescription") SseDescription sseDescription) {}

    /** DynamoDB's {@code LocalSecondaryIndexInfo}. */
    public record LocalSecondaryIndexInfo(String indexName, List<KeySchemaElement> keySchema, Projection projection) {}

    /** DynamoDB's {@code GlobalSecondaryIndexInfo}. */
    public record GlobalSecondaryIndexInfo(
            String indexName,
            List<KeySchemaElement> keySchema,
            Projection projection,
            ProvisionedThroughput provisionedThroughput,
            OnDemandThroughput onDemandThroughput) {}
}
