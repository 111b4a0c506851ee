package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** DynamoDB's {@code Condition} shape: the legacy KeyConditions, QueryFilter and ScanFilter entries. */
public record LegacyCondition(String comparisonOperator, List<AttributeValue> attributeValueList) {}
