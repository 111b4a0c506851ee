package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code KeysAndAttributes}: one table's part of a BatchGetItem. */
public record KeysAndAttributes(
        List<Map<String, AttributeValue>> keys,
        List<String> attributesToGet,
        Boolean consistentRead,
        String projectionExpression,
        Map<String, String> expressionAttributeNames) {}
