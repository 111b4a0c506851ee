package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The override members that RestoreTableFromBackup and RestoreTableToPointInTime share. */
public interface RestoreOverrides {
    String billingModeOverride();

    List<GlobalSecondaryIndex> globalSecondaryIndexOverride();

    List<LocalSecondaryIndex> localSecondaryIndexOverride();

    ProvisionedThroughput provisionedThroughputOverride();

    JsonNode onDemandThroughputOverride();

    JsonNode sseSpecificationOverride();
}
