package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code ExecuteStatementOutput}: {@code Items} is always there, empty for a write without RETURNING. */
public record ExecuteStatementOutput(
        List<Map<String, AttributeValue>> items,
        String nextToken,
        ConsumedCapacity consumedCapacity,
        Map<String, AttributeValue> lastEvaluatedKey) {}
