package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code PutItemOutput}, {@code UpdateItemOutput} and {@code DeleteItemOutput}, which share one shape. */
public record WriteItemOutput(
        Map<String, AttributeValue> attributes,
        ConsumedCapacity consumedCapacity,
        ItemCollectionMetrics itemCollectionMetrics) {}
