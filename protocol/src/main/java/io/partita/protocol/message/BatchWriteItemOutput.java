package io.partita.protocol.message;

import java.util.List;
import java.util.Map;

/** DynamoDB's {@code BatchWriteItemOutput}. */
public record BatchWriteItemOutput(
        Map<String, List<WriteRequest>> unprocessedItems,
        List<ConsumedCapacity> consumedCapacity,
        Map<String, List<ItemCollectionMetrics>> itemCollectionMetrics) {}
