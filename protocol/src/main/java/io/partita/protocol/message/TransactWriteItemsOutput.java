package io.partita.protocol.message;

import java.util.List;
import java.util.Map;

/** DynamoDB's {@code TransactWriteItemsOutput}. */
public record TransactWriteItemsOutput(
        List<ConsumedCapacity> consumedCapacity, Map<String, List<ItemCollectionMetrics>> itemCollectionMetrics) {}
