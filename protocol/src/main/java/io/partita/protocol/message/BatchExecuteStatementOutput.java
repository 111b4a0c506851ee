package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code BatchExecuteStatementOutput}: one response per statement, in order. */
public record BatchExecuteStatementOutput(
        List<BatchStatementResponse> responses, List<ConsumedCapacity> consumedCapacity) {
    /** DynamoDB's {@code BatchStatementResponse}: an error, or the table and (for a read that found it) the item. */
    public record BatchStatementResponse(
            BatchStatementError error, String tableName, Map<String, AttributeValue> item) {}

    /** DynamoDB's {@code BatchStatementError}. */
    public record BatchStatementError(String code, String message, Map<String, AttributeValue> item) {}
}
