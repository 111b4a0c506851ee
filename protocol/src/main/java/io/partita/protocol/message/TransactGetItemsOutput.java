package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code TransactGetItemsOutput}: one response per Get, in order (an empty one for an absent item). */
public record TransactGetItemsOutput(List<ConsumedCapacity> consumedCapacity, List<ItemResponse> responses) {
    /** DynamoDB's {@code ItemResponse}. */
    public record ItemResponse(Map<String, AttributeValue> item) {}
}
