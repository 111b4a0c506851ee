package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.expr.ConditionEvaluator;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.legacy.LegacyConditions;
import io.partita.protocol.message.ExpectedAttributeValue;
import io.partita.protocol.model.AttributeValue;
import io.partita.storage.item.WriteDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The expression side of the item operations: DynamoDB's rules for mixing expression and legacy parameters, parsing
 * through the shared {@link ExpressionCache}, and the condition check every conditional write makes.
 */
public final class ItemExpressions {
    private final ExpressionCache cache;

    public ItemExpressions(ExpressionCache cache) {
        this.cache = cache;
    }

    public ExpressionCache cache() {
        return cache;
    }

    /**
     * DynamoDB refuses requests that use both kinds of parameters, naming each present one in its fixed order. Each
     * array lists names and values alternately: {@code "Expected", in.expected(), …}.
     */
    public static void noMixing(Object[] legacy, Object[] expressions) {
        List<String> legacyNames = present(legacy);
        List<String> expressionNames = present(expressions);
        if (!legacyNames.isEmpty() && !expressionNames.isEmpty()) {
            throw ApiException.validation("Can not use both expression and non-expression parameters in the same"
                    + " request: Non-expression parameters: {" + String.join(", ", legacyNames)
                    + "} Expression parameters: {" + String.join(", ", expressionNames) + "}");
        }
    }

    private static List<String> present(Object[] namesAndValues) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                names.add((String) namesAndValues[i]);
            }
        }
        return names;
    }

    /** Names and values are only allowed with at least one expression. */
    public static void placeholdersNeedExpressions(
            boolean anyExpression, Map<String, String> names, Map<String, AttributeValue> values) {
        if (anyExpression) {
            return;
        }
        if (names != null) {
            throw ApiException.validation("ExpressionAttributeNames can only be specified when using expressions");
        }
        if (values != null) {
            throw ApiException.validation("ExpressionAttributeValues can only be specified when using expressions");
        }
    }

    /** The write condition from ConditionExpression or legacy Expected, resolved; null when there is none. */
    public Condition writeCondition(
            ExpressionResolver resolver,
            String conditionExpression,
            Map<String, ExpectedAttributeValue> expected,
            String conditionalOperator) {
        if (conditionExpression != null) {
            return resolver.resolve(cache.condition(conditionExpression, "ConditionExpression"), "ConditionExpression");
        }
        return LegacyConditions.expected(expected, conditionalOperator);
    }

    public List<Path> projection(ExpressionResolver resolver, String projectionExpression) {
        return resolver.resolveProjection(cache.projection(projectionExpression));
    }

    /**
     * Runs {@code write} when {@code condition} holds for {@code current}; otherwise rejects with DynamoDB's
     * ConditionalCheckFailedException, carrying the current item when ReturnValuesOnConditionCheckFailure is ALL_OLD.
     */
    public static WriteDecision checked(
            Condition condition,
            Map<String, AttributeValue> current,
            String returnValuesOnFailure,
            Supplier<WriteDecision> write) {
        if (condition == null || ConditionEvaluator.test(condition, current)) {
            return write.get();
        }
        Map<String, Object> extra =
                "ALL_OLD".equals(returnValuesOnFailure) && current != null ? Map.of("Item", current) : Map.of();
        return new WriteDecision.Reject(
                new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed", extra));
    }
}
