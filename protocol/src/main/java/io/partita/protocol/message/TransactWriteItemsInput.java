package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Map;

/** DynamoDB's {@code TransactWriteItemsInput}. */
public record TransactWriteItemsInput(
        List<TransactWriteItem> transactItems,
        String returnConsumedCapacity,
        String returnItemCollectionMetrics,
        String clientRequestToken) {

    /**
     * What a repeat of the token must match: the request without its token and its ReturnConsumedCapacity, which a
     * repeat may change (it answers in its own mode).
     */
    public TransactWriteItemsInput idempotentParameters() {
        return new TransactWriteItemsInput(transactItems, null, returnItemCollectionMetrics, null);
    }

    /** DynamoDB's {@code TransactWriteItem}: exactly one of its four actions. */
    public record TransactWriteItem(ConditionCheck conditionCheck, Put put, Delete delete, Update update) {}

    /** DynamoDB's {@code ConditionCheck}. */
    public record ConditionCheck(
            String tableName,
            Map<String, AttributeValue> key,
            String conditionExpression,
            Map<String, String> expressionAttributeNames,
            Map<String, AttributeValue> expressionAttributeValues,
            String returnValuesOnConditionCheckFailure) {}

    /** DynamoDB's {@code Put}. */
    public record Put(
            String tableName,
            Map<String, AttributeValue> item,
            String conditionExpression,
            Map<String, String> expressionAttributeNames,
            Map<String, AttributeValue> expressionAttributeValues,
            String returnValuesOnConditionCheckFailure) {}

    /** DynamoDB's {@code Delete}. */
    public record Delete(
            String tableName,
            Map<String, AttributeValue> key,
            String conditionExpression,
            Map<String, String> expressionAttributeNames,
            Map<String, AttributeValue> expressionAttributeValues,
            String returnValuesOnConditionCheckFailure) {}

    /** DynamoDB's {@code Update}. */
    public record Update(
            String tableName,
            Map<String, AttributeValue> key,
            String updateExpression,
            String conditionExpression,
            Map<String, String> expressionAttributeNames,
            Map<String, AttributeValue> expressionAttributeValues,
            String returnValuesOnConditionCheckFailure) {}
}
