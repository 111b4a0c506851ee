package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code CreateTableInput}. Members Partita does not implement yet are kept so they can be refused. */
public record CreateTableInput(
        String tableName,
        List<AttributeDefinition> attributeDefinitions,
        List<KeySchemaElement> keySchema,
        String billingMode,
        ProvisionedThroughput provisionedThroughput,
        List<Tag> tags,
        Boolean deletionProtectionEnabled,
        String tableClass,
        List<LocalSecondaryIndex> localSecondaryIndexes,
        List<GlobalSecondaryIndex> globalSecondaryIndexes,
        StreamSpecification streamSpecification,
        @JsonProperty("SSESpecification") JsonNode sseSpecification,
        JsonNode onDemandThroughput,
        JsonNode warmThroughput,
        JsonNode resourcePolicy) {}
