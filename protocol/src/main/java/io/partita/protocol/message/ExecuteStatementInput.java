package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** DynamoDB's {@code ExecuteStatementInput}. */
public record ExecuteStatementInput(
        String statement,
        List<AttributeValue> parameters,
        Boolean consistentRead,
        String nextToken,
        String returnConsumedCapacity,
        Long limit,
        String returnValuesOnConditionCheckFailure) {}
