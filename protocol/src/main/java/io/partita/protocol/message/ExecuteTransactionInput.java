package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** DynamoDB's {@code ExecuteTransactionInput}. */
public record ExecuteTransactionInput(
        List<ParameterizedStatement> transactStatements, String clientRequestToken, String returnConsumedCapacity) {
    /** DynamoDB's {@code ParameterizedStatement}. */
    public record ParameterizedStatement(
            String statement, List<AttributeValue> parameters, String returnValuesOnConditionCheckFailure) {}
}
