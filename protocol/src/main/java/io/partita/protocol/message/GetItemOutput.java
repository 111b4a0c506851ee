package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code GetItemOutput}. */
public record GetItemOutput(Map<String, AttributeValue> item, ConsumedCapacity consumedCapacity) {}
