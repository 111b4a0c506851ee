package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code BatchGetItemOutput}. */
public record BatchGetItemOutput(
        Map<String, List<Map<String, AttributeValue>>> responses,
        Map<String, KeysAndAttributes> unprocessedKeys,
        List<ConsumedCapacity> consumedCapacity) {}
