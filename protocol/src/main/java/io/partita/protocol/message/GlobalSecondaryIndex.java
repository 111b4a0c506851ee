package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** DynamoDB's {@code GlobalSecondaryIndex}, as CreateTable and UpdateTable's {@code Create} take it. */
public record GlobalSecondaryIndex(
        String indexName,
        List<KeySchemaElement> keySchema,
        Projection projection,
        ProvisionedThroughput provisionedThroughput,
        JsonNode onDemandThroughput,
        JsonNode warmThroughput) {}
