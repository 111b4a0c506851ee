package io.partita.protocol.message;

import java.math.BigDecimal;
import java.util.List;

/** DynamoDB's {@code TableDescription} shape. as DescribeTable, CreateTable, UpdateTable and DeleteTable return it. */
public record TableDescription(
        List<AttributeDefinition> attributeDefinitions,
        String tableName,
        List<KeySchemaElement> keySchema,
        String tableStatus,
        BigDecimal creationDateTime,
        ProvisionedThroughputDescription provisionedThroughput,
        Long tableSizeBytes,
        Long itemCount,
        String tableArn,
        String tableId,
        BillingModeSummary billingModeSummary,
        TableClassSummary tableClassSummary,
        Boolean deletionProtectionEnabled,
        OnDemandThroughput onDemandThroughput,
        List<LocalSecondaryIndexDescription> localSecondaryIndexes,
        List<GlobalSecondaryIndexDescription> globalSecondaryIndexes,
        StreamSpecification streamSpecification,
        String latestStreamLabel,
        String latestStreamArn,

        @com.fasterxml.jackson.annotation.JsonProperty("SSEDescription")
        SseDescription sseDescription,

        TableWarmThroughputDescription warmThroughput,
        RestoreSummary restoreSummary) {

    /** DynamoDB's {@code RestoreSummary}: in a restore's answer only. */
    public record RestoreSummary(
            String sourceBackupArn,
            String sourceTableArn,
            java.math.BigDecimal restoreDateTime,
            Boolean restoreInProgress) {}

    /** This description with {@code summary}. */
    public TableDescription withRestoreSummary(RestoreSummary summary) {
        return new TableDescription(
                attributeDefinitions,
                tableName,
                keySchema,
                tableStatus,
                creationDateTime,
                provisionedThroughput,
                tableSizeBytes,
                itemCount,
                tableArn,
                tableId,
                billingModeSummary,
                tableClassSummary,
                deletionProtectionEnabled,
                onDemandThroughput,
                localSecondaryIndexes,
                globalSecondaryIndexes,
                streamSpecification,
                latestStreamLabel,
                latestStreamArn,
                sseDescription,
                warmThroughput,
                summary);
    }
}
