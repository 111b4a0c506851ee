package io.partita.protocol.expr;

import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.UpdateExpression;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded cache of parsed (unresolved) expressions, so a repeated expression costs no parse. Parsing is
 * deterministic, so a syntax error is not cached: it is simply found again. Entries are keyed by kind and text; the
 * least recently used is evicted first.
 */
public final class ExpressionCache {
    /** One LRU map per expression kind, so lookups hash the expression text alone. */
    private final Map<String, Map<String, Object>> byKind = new java.util.concurrent.ConcurrentHashMap<>();

    private final int capacity;

    public ExpressionCache(int capacity) {
        this.capacity = capacity;
    }

    public Condition condition(String expression, String kind) {
        return get(kind, expression, e -> ExpressionParser.parseCondition(e, kind), Condition.class);
    }

    public UpdateExpression update(String expression) {
        return get("UpdateExpression", expression, ExpressionParser::parseUpdate, UpdateExpression.class);
    }

    @SuppressWarnings("unchecked")
    public List<Path> projection(String expression) {
        return get("ProjectionExpression", expression, ExpressionParser::parseProjection, List.class);
    }

    private <T> T get(String kind, String expression, Function<String, Object> parse, Class<T> type) {
        Map<String, Object> entries = byKind.computeIfAbsent(kind, k -> lru());
        Object hit;
        synchronized (entries) {
            hit = entries.get(expression);
        }
        if (hit == null) {
            hit = parse.apply(expression);
            synchronized (entries) {
                entries.put(expression, hit);
            }
        }
        return type.cast(hit);
    }

    private Map<String, Object> lru() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
                return size() > capacity;
            }
        };
    }
}
