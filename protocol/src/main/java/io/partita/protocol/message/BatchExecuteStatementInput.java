package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** DynamoDB's {@code BatchExecuteStatementInput}. */
public record BatchExecuteStatementInput(List<BatchStatementRequest> statements, String returnConsumedCapacity) {
    /** DynamoDB's {@code BatchStatementRequest}. */
    public record BatchStatementRequest(
            String statement,
            List<AttributeValue> parameters,
            Boolean consistentRead,
            String returnValuesOnConditionCheckFailure) {}
}
