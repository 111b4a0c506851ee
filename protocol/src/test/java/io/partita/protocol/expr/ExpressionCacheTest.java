package io.partita.protocol.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import org.junit.jupiter.api.Test;

class ExpressionCacheTest {
    @Test
    void aRepeatedExpressionIsParsedOnce() {
        ExpressionCache cache = new ExpressionCache(8);
        var first = cache.condition("a = :v AND b < :w", "ConditionExpression");
        assertThat(cache.condition("a = :v AND b < :w", "ConditionExpression")).isSameAs(first);
        assertThat(cache.update("SET a = :v")).isSameAs(cache.update("SET a = :v"));
        assertThat(cache.projection("a, b.c")).isSameAs(cache.projection("a, b.c"));
    }

    @Test
    void theKindIsPartOfTheKeySoMessagesNameTheRightParameter() {
        ExpressionCache cache = new ExpressionCache(8);
        assertThatThrownBy(() -> cache.condition("a =", "FilterExpression"))
                .hasMessageStartingWith("Invalid FilterExpression");
        assertThatThrownBy(() -> cache.condition("a =", "ConditionExpression"))
                .isInstanceOf(ApiException.class)
                .hasMessageStartingWith("Invalid ConditionExpression");
    }

    @Test
    void evictsTheLeastRecentlyUsedBeyondItsCapacity() {
        ExpressionCache cache = new ExpressionCache(2);
        var a = cache.condition("a = :v", "ConditionExpression");
        cache.condition("b = :v", "ConditionExpression");
        cache.condition("a = :v", "ConditionExpression");
        cache.condition("c = :v", "ConditionExpression");
        assertThat(cache.condition("a = :v", "ConditionExpression")).isSameAs(a);
    }
}
