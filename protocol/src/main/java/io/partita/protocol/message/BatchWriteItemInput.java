package io.partita.protocol.message;

import java.util.List;
import java.util.Map;

/** DynamoDB's {@code BatchWriteItemInput}. */
public record BatchWriteItemInput(
        Map<String, List<WriteRequest>> requestItems,
        String returnConsumedCapacity,
        String returnItemCollectionMetrics) {}
