package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** DynamoDB's {@code GlobalSecondaryIndexUpdate}: exactly one of its three actions. */
public record GlobalSecondaryIndexUpdate(Update update, GlobalSecondaryIndex create, Delete delete) {
    /** DynamoDB's {@code UpdateGlobalSecondaryIndexAction}. */
    public record Update(
            String indexName,
            ProvisionedThroughput provisionedThroughput,
            JsonNode onDemandThroughput,
            JsonNode warmThroughput) {}

    /** DynamoDB's {@code DeleteGlobalSecondaryIndexAction}. */
    public record Delete(String indexName) {}
}
