package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code UpdateTableInput}. Members Partita does not implement yet are kept so they can be refused. */
public record UpdateTableInput(
        String tableName,
        List<AttributeDefinition> attributeDefinitions,
        String billingMode,
        ProvisionedThroughput provisionedThroughput,
        Boolean deletionProtectionEnabled,
        String tableClass,
        List<GlobalSecondaryIndexUpdate> globalSecondaryIndexUpdates,
        StreamSpecification streamSpecification,
        @JsonProperty("SSESpecification") JsonNode sseSpecification,
        JsonNode replicaUpdates,
        JsonNode onDemandThroughput,
        JsonNode warmThroughput,
        JsonNode multiRegionConsistency) {}
