package io.partita.storage.item;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/**
 * The images before and after a write (either may be null: no item) and their sizes by DynamoDB's item-size formula,
 * computed once by the storage engine for its statistics and reused for capacity units. {@code oldItem} is also null
 * when the write did not {@linkplain ConditionalWrite#needsCurrent need the current image}; {@code oldBytes} is
 * still its size.
 */
public record WriteOutcome(
        Map<String, AttributeValue> oldItem, Map<String, AttributeValue> newItem, long oldBytes, long newBytes) {}
