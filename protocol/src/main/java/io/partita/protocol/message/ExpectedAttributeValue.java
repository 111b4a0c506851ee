package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** DynamoDB's legacy {@code ExpectedAttributeValue} (the {@code Expected} conditions of writes). */
public record ExpectedAttributeValue(
        AttributeValue value, Boolean exists, String comparisonOperator, List<AttributeValue> attributeValueList) {}
