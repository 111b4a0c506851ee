package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.model.AttributeValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Replaces {@code #name} and {@code :value} references with what ExpressionAttributeNames and ExpressionAttributeValues
 * give them, for every expression of one request, and then checks that each name and value was used. After
 * resolution an AST holds only plain names and {@link Operand.Constant}s, and the static checks of
 * {@link ExpressionChecks} have passed.
 */
public final class ExpressionResolver {
    /** DynamoDB's limit on the length of a {@code #name} or {@code :value} placeholder. */
    public static final int MAX_PLACEHOLDER_BYTES = 255;

    private final Map<String, String> names;
    private final Map<String, AttributeValue> values;
    private final Set<String> usedNames = new HashSet<>();
    private final Set<String> usedValues = new HashSet<>();
    private String kind;

    /** Checks the maps themselves (not empty, well-formed keys), as DynamoDB does before reading any expression. */
    public ExpressionResolver(Map<String, String> names, Map<String, AttributeValue> values) {
        if (names != null) {
            if (names.isEmpty()) {
                throw ApiException.validation("ExpressionAttributeNames must not be empty");
            }
            for (Map.Entry<String, String> e : names.entrySet()) {
                String key = e.getKey();
                checkKeyLength("ExpressionAttributeNames", key, true);
                if (!isPlaceholder(key, '#')) {
                    throw ApiException.validation(
                            "ExpressionAttributeNames contains invalid key: Syntax error; key: \"" + key + "\"");
                }
                if (e.getValue() == null || e.getValue().isEmpty()) {
                    throw ApiException.validation(
                            "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + key);
                }
            }
        }
        if (values != null) {
            if (values.isEmpty()) {
                throw ApiException.validation("ExpressionAttributeValues must not be empty");
            }
            for (String key : values.keySet()) {
                checkKeyLength("ExpressionAttributeValues", key, false);
                if (!isPlaceholder(key, ':')) {
                    throw ApiException.validation(
                            "ExpressionAttributeValues contains invalid key: Syntax error; key: \"" + key + "\"");
                }
            }
        }
        this.names = names == null ? Map.of() : names;
        this.values = values == null ? Map.of() : values;
    }

    /** {@code #name} / {@code :value}: the sigil, then one or more letters, digits or underscores. */
    private static boolean isPlaceholder(String key, char sigil) {
        if (key.length() < 2 || key.charAt(0) != sigil) {
            return false;
        }
        for (int i = 1; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** Placeholders are limited to 255 bytes; DynamoDB checks the length before the syntax. */
    private static void checkKeyLength(String map, String key, boolean withSize) {
        int size = io.partita.protocol.model.ItemSize.utf8Length(key);
        if (size > MAX_PLACEHOLDER_BYTES) {
            throw ApiException.validation(map + " contains invalid key: The expression attribute map contains a key"
                    + " that is too long;" + (withSize ? " size of key: " + size : ""));
        }
    }

    public Condition resolve(Condition condition, String kind) {
        this.kind = kind;
        Condition resolved = condition(condition);
        ExpressionChecks.condition(resolved, kind);
        return resolved;
    }

    public UpdateExpression resolve(UpdateExpression update) {
        this.kind = "UpdateExpression";
        List<UpdateExpression.Set> set = new ArrayList<>();
        update.set().forEach(s -> set.add(new UpdateExpression.Set(path(s.path()), operand(s.value()))));
        List<Path> remove = new ArrayList<>();
        update.remove().forEach(p -> remove.add(path(p)));
        List<UpdateExpression.Add> add = new ArrayList<>();
        update.add().forEach(a -> add.add(new UpdateExpression.Add(path(a.path()), operand(a.value()))));
        List<UpdateExpression.Delete> delete = new ArrayList<>();
        update.delete().forEach(d -> delete.add(new UpdateExpression.Delete(path(d.path()), operand(d.value()))));
        UpdateExpression resolved = new UpdateExpression(set, remove, add, delete, update.sections());
        ExpressionChecks.update(resolved);
        return resolved;
    }

    public List<Path> resolveProjection(List<Path> projection) {
        this.kind = "ProjectionExpression";
        List<Path> out = new ArrayList<>(projection.size());
        projection.forEach(p -> out.add(path(p)));
        ExpressionChecks.noOverlaps(out, "ProjectionExpression");
        return out;
    }

    /** DynamoDB reports unused names before unused values. */
    public void checkAllUsed() {
        if (!usedNames.containsAll(names.keySet())) {
            Set<String> unused = new TreeSet<>(names.keySet());
            unused.removeAll(usedNames);
            throw ApiException.validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {"
                    + String.join(", ", unused) + "}");
        }
        if (!usedValues.containsAll(values.keySet())) {
            Set<String> unused = new TreeSet<>(values.keySet());
            unused.removeAll(usedValues);
            throw ApiException.validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {"
                    + String.join(", ", unused) + "}");
        }
    }

    private Condition condition(Condition c) {
        if (c instanceof Condition.Compare cmp) {
            return new Condition.Compare(operand(cmp.left()), cmp.comparator(), operand(cmp.right()));
        } else if (c instanceof Condition.Between b) {
            return new Condition.Between(operand(b.value()), operand(b.lower()), operand(b.upper()));
        } else if (c instanceof Condition.In in) {
            List<Operand> candidates = new ArrayList<>();
            in.candidates().forEach(o -> candidates.add(operand(o)));
            return new Condition.In(operand(in.value()), candidates);
        } else if (c instanceof Condition.Function f) {
            List<Operand> args = new ArrayList<>();
            f.arguments().forEach(o -> args.add(operand(o)));
            return new Condition.Function(f.name(), args);
        } else if (c instanceof Condition.And and) {
            return new Condition.And(condition(and.left()), condition(and.right()));
        } else if (c instanceof Condition.Or or) {
            return new Condition.Or(condition(or.left()), condition(or.right()));
        } else {
            return new Condition.Not(condition(((Condition.Not) c).condition()));
        }
    }

    private Operand operand(Operand o) {
        if (o instanceof Path p) {
            return path(p);
        } else if (o instanceof Operand.ValueRef ref) {
            AttributeValue v = values.get(ref.name());
            if (v == null) {
                throw ApiException.validation("Invalid " + kind + ": An expression attribute value used in expression"
                        + " is not defined; attribute value: " + ref.name());
            }
            usedValues.add(ref.name());
            return new Operand.Constant(v);
        } else if (o instanceof Operand.Call call) {
            List<Operand> args = new ArrayList<>();
            call.arguments().forEach(a -> args.add(operand(a)));
            return new Operand.Call(call.function(), args);
        } else if (o instanceof Operand.Arithmetic a) {
            return new Operand.Arithmetic(operand(a.left()), a.plus(), operand(a.right()));
        }
        return o;
    }

    private Path path(Path p) {
        List<PathPart> parts = new ArrayList<>(p.parts().size());
        for (PathPart part : p.parts()) {
            if (part instanceof PathPart.Attr attr && attr.placeholder()) {
                String name = names.get(attr.name());
                if (name == null) {
                    throw ApiException.validation("Invalid " + kind + ": An expression attribute name used in the"
                            + " document path is not defined; attribute name: " + attr.name());
                }
                usedNames.add(attr.name());
                parts.add(new PathPart.Attr(name, false));
            } else {
                parts.add(part);
            }
        }
        return new Path(parts);
    }
}
