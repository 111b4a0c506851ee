package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code RestoreTableFromBackupInput}. */
public record RestoreTableFromBackupInput(
        String targetTableName,
        String backupArn,
        String billingModeOverride,
        List<GlobalSecondaryIndex> globalSecondaryIndexOverride,
        List<LocalSecondaryIndex> localSecondaryIndexOverride,
        ProvisionedThroughput provisionedThroughputOverride,
        JsonNode onDemandThroughputOverride,
        @JsonProperty("SSESpecificationOverride") JsonNode sseSpecificationOverride)
        implements RestoreOverrides {}
