package io.partita.bench;

import io.partita.protocol.expr.ConditionEvaluator;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionParser;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.UpdateApplier;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.model.AttributeValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A typical condition ({@code attribute_exists(pk) AND #s = :active AND #v < :limit}) and update
 * ({@code SET #s = :next, updatedAt = :now ADD #v :one}): parse cold, parse through the cache, resolve, evaluate,
 * apply.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ExpressionBench {
    static final String CONDITION = "attribute_exists(pk) AND #s = :active AND #v < :limit";
    static final String UPDATE = "SET #s = :next, updatedAt = :now ADD #v :one";

    private final ExpressionCache cache = new ExpressionCache(1024);
    private Map<String, String> names;
    private Map<String, AttributeValue> values;
    private Map<String, AttributeValue> item;
    private Condition resolvedCondition;
    private UpdateExpression resolvedUpdate;

    @Setup
    public void setup() {
        names = Map.of("#s", "status", "#v", "version");
        values = Map.of(
                ":active", new AttributeValue.S("ACTIVE"),
                ":limit", AttributeValue.N.of("100"),
                ":next", new AttributeValue.S("DONE"),
                ":now", AttributeValue.N.of("1764460800"),
                ":one", AttributeValue.N.of("1"));
        item = new LinkedHashMap<>();
        item.put("pk", new AttributeValue.S("order#123"));
        item.put("status", new AttributeValue.S("ACTIVE"));
        item.put("version", AttributeValue.N.of("7"));
        item.put("lines", new AttributeValue.L(List.of(new AttributeValue.S("x"), new AttributeValue.S("y"))));
        ExpressionResolver r = new ExpressionResolver(names, values);
        resolvedCondition = r.resolve(cache.condition(CONDITION, "ConditionExpression"), "ConditionExpression");
        resolvedUpdate = r.resolve(cache.update(UPDATE));
    }

    @Benchmark
    public Condition parseConditionCold() {
        return ExpressionParser.parseCondition(CONDITION, "ConditionExpression");
    }

    @Benchmark
    public Condition parseConditionCached() {
        return cache.condition(CONDITION, "ConditionExpression");
    }

    /** What a conditional write pays per request with a warm cache: cache hit, resolve, check used, evaluate. */
    @Benchmark
    public boolean cachedConditionResolveAndEvaluate() {
        ExpressionResolver r = new ExpressionResolver(names, values);
        Condition c = r.resolve(cache.condition(CONDITION, "ConditionExpression"), "ConditionExpression");
        return ConditionEvaluator.test(c, item);
    }

    @Benchmark
    public boolean evaluateResolvedCondition() {
        return ConditionEvaluator.test(resolvedCondition, item);
    }

    @Benchmark
    public UpdateExpression parseUpdateCold() {
        return ExpressionParser.parseUpdate(UPDATE);
    }

    @Benchmark
    public Map<String, AttributeValue> applyResolvedUpdate() {
        return UpdateApplier.apply(resolvedUpdate, item);
    }
}
