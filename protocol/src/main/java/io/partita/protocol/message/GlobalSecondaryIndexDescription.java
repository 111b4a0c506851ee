package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code GlobalSecondaryIndexDescription}. */
public record GlobalSecondaryIndexDescription(
        String indexName,
        List<KeySchemaElement> keySchema,
        Projection projection,
        String indexStatus,
        Boolean backfilling,
        ProvisionedThroughputDescription provisionedThroughput,
        Long indexSizeBytes,
        Long itemCount,
        String indexArn,
        OnDemandThroughput onDemandThroughput,
        WarmThroughputDescription warmThroughput) {
    /** DynamoDB's {@code GlobalSecondaryIndexWarmThroughputDescription}. */
    public record WarmThroughputDescription(Long readUnitsPerSecond, Long writeUnitsPerSecond, String status) {}
}
