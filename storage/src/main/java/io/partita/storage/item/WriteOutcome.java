package io.partita.storage.item;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** The images before and after a write; either may be null (no item). */
public record WriteOutcome(Map<String, AttributeValue> oldItem, Map<String, AttributeValue> newItem) {}
