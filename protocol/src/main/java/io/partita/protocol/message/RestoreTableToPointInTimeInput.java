package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code RestoreTableToPointInTimeInput}; {@code RestoreDateTime} in epoch seconds, whole or not. */
public record RestoreTableToPointInTimeInput(
        String sourceTableArn,
        String sourceTableName,
        String targetTableName,
        Boolean useLatestRestorableTime,
        JsonNode restoreDateTime,
        String billingModeOverride,
        List<GlobalSecondaryIndex> globalSecondaryIndexOverride,
        List<LocalSecondaryIndex> localSecondaryIndexOverride,
        ProvisionedThroughput provisionedThroughputOverride,
        JsonNode onDemandThroughputOverride,
        @JsonProperty("SSESpecificationOverride") JsonNode sseSpecificationOverride)
        implements RestoreOverrides {}
