package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code QueryOutput} and {@code ScanOutput}, which share one shape. */
public record ReadPageOutput(
        List<Map<String, AttributeValue>> items,
        Integer count,
        Integer scannedCount,
        Map<String, AttributeValue> lastEvaluatedKey,
        ConsumedCapacity consumedCapacity) {}
