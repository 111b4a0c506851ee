package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.DynamoNumber;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Applies a resolved update expression to an item ("Update expressions" in the Developer Guide). Every SET value is
 * computed from the item as it was before the update, so {@code SET a = b, b = a} swaps. Paths never overlap
 * ({@link ExpressionChecks}), so the order of actions does not matter, except that list elements removed from one
 * list are removed from the highest index down, all indexes referring to the list as it was.
 *
 * <p>Pure: it returns a new item and throws {@link ApiException} for data-dependent errors; it never changes its input.
 */
public final class UpdateApplier {
    /** The message for a clash between an operand and the stored value's type. */
    private final String typeMismatch;

    private UpdateApplier(String typeMismatch) {
        this.typeMismatch = typeMismatch;
    }

    /** Applies an update expression; type clashes with stored values get the UpdateExpression message. */
    public static Map<String, AttributeValue> apply(UpdateExpression update, Map<String, AttributeValue> old) {
        return apply(update, old, INCORRECT_TYPE);
    }

    /**
     * Applies {@code update}, reporting a clash between an operand and a stored value's type with {@code typeMismatch}
     * (legacy AttributeUpdates word it "Type mismatch for attribute to update").
     */
    public static Map<String, AttributeValue> apply(
            UpdateExpression update, Map<String, AttributeValue> old, String typeMismatch) {
        return new UpdateApplier(typeMismatch).run(update, old);
    }

    private Map<String, AttributeValue> run(UpdateExpression update, Map<String, AttributeValue> old) {
        Map<String, AttributeValue> before = old == null ? Map.of() : old;
        List<AttributeValue> setValues = new ArrayList<>(update.set().size());
        for (UpdateExpression.Set s : update.set()) {
            setValues.add(value(s.value(), before));
        }
        Map<String, AttributeValue> item = new LinkedHashMap<>(before);
        // Elements set past the end of one list are appended in index order, whatever order they were written in.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < update.set().size(); i++) {
            order.add(i);
        }
        order.sort((x, y) -> LOWEST_INDEX_FIRST.compare(
                update.set().get(x).path(), update.set().get(y).path()));
        for (int i : order) {
            put(item, update.set().get(i).path(), setValues.get(i));
        }
        List<Path> removals = new ArrayList<>(update.remove());
        removals.sort(HIGHEST_INDEX_FIRST);
        for (Path p : removals) {
            remove(item, p);
        }
        for (UpdateExpression.Add a : update.add()) {
            AttributeValue delta = ((Operand.Constant) a.value()).value();
            AttributeValue current = Values.at(before, a.path());
            put(item, a.path(), add(current, delta));
        }
        for (UpdateExpression.Delete d : update.delete()) {
            AttributeValue current = Values.at(before, d.path());
            if (current == null) {
                continue;
            }
            AttributeValue rest = subtract(current, ((Operand.Constant) d.value()).value());
            if (rest == null) {
                remove(item, d.path());
            } else {
                put(item, d.path(), rest);
            }
        }
        return item;
    }

    private static final Comparator<Path> LOWEST_INDEX_FIRST = byListIndex(1);
    private static final Comparator<Path> HIGHEST_INDEX_FIRST = byListIndex(-1);

    /** Orders paths into the same list by their index there ({@code direction} 1 ascending, -1 descending). */
    private static Comparator<Path> byListIndex(int direction) {
        return (a, b) -> {
            for (int i = 0; i < Math.min(a.parts().size(), b.parts().size()); i++) {
                PathPart x = a.parts().get(i);
                PathPart y = b.parts().get(i);
                if (x instanceof PathPart.Index xi && y instanceof PathPart.Index yi) {
                    if (xi.index() != yi.index()) {
                        return direction * Integer.compare(xi.index(), yi.index());
                    }
                } else if (!x.equals(y)) {
                    return 0;
                }
            }
            return 0;
        };
    }

    private static final String INCORRECT_TYPE = "An operand in the update expression has an incorrect data type";

    private ApiException incorrectType() {
        return ApiException.validation(typeMismatch);
    }

    static ApiException invalidPath() {
        return ApiException.validation("The document path provided in the update expression is invalid for update");
    }

    private AttributeValue value(Operand o, Map<String, AttributeValue> item) {
        if (o instanceof Operand.Constant c) {
            return c.value();
        } else if (o instanceof Path p) {
            AttributeValue v = Values.at(item, p);
            if (v == null) {
                throw ApiException.validation(
                        "The provided expression refers to an attribute that does not exist in the item");
            }
            return v;
        } else if (o instanceof Operand.Arithmetic a) {
            AttributeValue l = value(a.left(), item);
            AttributeValue r = value(a.right(), item);
            if (!(l instanceof AttributeValue.N x) || !(r instanceof AttributeValue.N y)) {
                throw incorrectType();
            }
            return new AttributeValue.N(DynamoNumber.checkArithmetic(
                    a.plus() ? x.value().add(y.value()) : x.value().subtract(y.value())));
        }
        Operand.Call call = (Operand.Call) o;
        if (call.function().equals("if_not_exists")) {
            AttributeValue existing = Values.at(item, (Path) call.arguments().get(0));
            return existing != null ? existing : value(call.arguments().get(1), item);
        }
        AttributeValue first = value(call.arguments().get(0), item);
        AttributeValue second = value(call.arguments().get(1), item);
        if (!(first instanceof AttributeValue.L a) || !(second instanceof AttributeValue.L b)) {
            throw incorrectType();
        }
        List<AttributeValue> joined = new ArrayList<>(a.values());
        joined.addAll(b.values());
        return new AttributeValue.L(joined);
    }

    private AttributeValue add(AttributeValue current, AttributeValue delta) {
        if (current == null) {
            return delta;
        }
        if (current instanceof AttributeValue.N x && delta instanceof AttributeValue.N y) {
            return new AttributeValue.N(DynamoNumber.checkArithmetic(x.value().add(y.value())));
        }
        if (current instanceof AttributeValue.SS x && delta instanceof AttributeValue.SS y) {
            return new AttributeValue.SS(union(x.values(), y.values()));
        }
        if (current instanceof AttributeValue.NS x && delta instanceof AttributeValue.NS y) {
            return new AttributeValue.NS(union(x.values(), y.values()));
        }
        if (current instanceof AttributeValue.BS x && delta instanceof AttributeValue.BS y) {
            return new AttributeValue.BS(union(x.values(), y.values()));
        }
        throw incorrectType();
    }

    /** The set minus {@code delta}, or null when nothing is left (DynamoDB then removes the attribute). */
    private AttributeValue subtract(AttributeValue current, AttributeValue delta) {
        if (current instanceof AttributeValue.SS x && delta instanceof AttributeValue.SS y) {
            List<String> rest = minus(x.values(), y.values());
            return rest.isEmpty() ? null : new AttributeValue.SS(rest);
        }
        if (current instanceof AttributeValue.NS x && delta instanceof AttributeValue.NS y) {
            var rest = minus(x.values(), y.values());
            return rest.isEmpty() ? null : new AttributeValue.NS(rest);
        }
        if (current instanceof AttributeValue.BS x && delta instanceof AttributeValue.BS y) {
            var rest = minus(x.values(), y.values());
            return rest.isEmpty() ? null : new AttributeValue.BS(rest);
        }
        throw incorrectType();
    }

    private static <T> List<T> union(List<T> a, List<T> b) {
        LinkedHashSet<T> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return new ArrayList<>(all);
    }

    private static <T> List<T> minus(List<T> a, List<T> b) {
        List<T> rest = new ArrayList<>(a);
        rest.removeAll(b);
        return rest;
    }

    private static void put(Map<String, AttributeValue> item, Path path, AttributeValue value) {
        String head = path.head().name();
        if (path.isTopLevel()) {
            item.put(head, value);
            return;
        }
        AttributeValue child = item.get(head);
        if (child == null) {
            throw invalidPath();
        }
        item.put(head, setIn(child, path.parts(), 1, value));
    }

    private static AttributeValue setIn(AttributeValue node, List<PathPart> parts, int i, AttributeValue value) {
        PathPart part = parts.get(i);
        boolean last = i == parts.size() - 1;
        if (part instanceof PathPart.Attr attr) {
            if (!(node instanceof AttributeValue.M m)) {
                throw invalidPath();
            }
            Map<String, AttributeValue> copy = new LinkedHashMap<>(m.values());
            if (last) {
                copy.put(attr.name(), value);
            } else {
                AttributeValue child = copy.get(attr.name());
                if (child == null) {
                    throw invalidPath();
                }
                copy.put(attr.name(), setIn(child, parts, i + 1, value));
            }
            return new AttributeValue.M(copy);
        }
        if (!(node instanceof AttributeValue.L l)) {
            throw invalidPath();
        }
        int index = ((PathPart.Index) part).index();
        List<AttributeValue> copy = new ArrayList<>(l.values());
        if (last) {
            // Setting past the end appends ("Adding elements to a list").
            if (index < copy.size()) {
                copy.set(index, value);
            } else {
                copy.add(value);
            }
        } else {
            if (index >= copy.size()) {
                throw invalidPath();
            }
            copy.set(index, setIn(copy.get(index), parts, i + 1, value));
        }
        return new AttributeValue.L(copy);
    }

    private static void remove(Map<String, AttributeValue> item, Path path) {
        String head = path.head().name();
        if (path.isTopLevel()) {
            item.remove(head);
            return;
        }
        AttributeValue child = item.get(head);
        if (child == null) {
            throw invalidPath();
        }
        item.put(head, removeIn(child, path.parts(), 1));
    }

    private static AttributeValue removeIn(AttributeValue node, List<PathPart> parts, int i) {
        PathPart part = parts.get(i);
        boolean last = i == parts.size() - 1;
        if (part instanceof PathPart.Attr attr) {
            if (!(node instanceof AttributeValue.M m)) {
                throw invalidPath();
            }
            Map<String, AttributeValue> copy = new LinkedHashMap<>(m.values());
            if (last) {
                copy.remove(attr.name());
            } else {
                AttributeValue child = copy.get(attr.name());
                if (child == null) {
                    throw invalidPath();
                }
                copy.put(attr.name(), removeIn(child, parts, i + 1));
            }
            return new AttributeValue.M(copy);
        }
        if (!(node instanceof AttributeValue.L l)) {
            throw invalidPath();
        }
        int index = ((PathPart.Index) part).index();
        List<AttributeValue> copy = new ArrayList<>(l.values());
        if (index >= copy.size()) {
            // Removing an element past the end changes nothing.
            return node;
        }
        if (last) {
            copy.remove(index);
        } else {
            copy.set(index, removeIn(copy.get(index), parts, i + 1));
        }
        return new AttributeValue.L(copy);
    }
}
