package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a resolved KeyConditionExpression (or translated legacy KeyConditions) into the key range a Query reads:
 * equality on the partition key and at most one condition on the sort key ({@code =, <, <=, >, >=, BETWEEN,
 * begins_with}), combined with AND ("Key condition expressions for query", Query.KeyConditionExpressions).
 */
public final class KeyConditionPlanner {
    private static final String KIND = "KeyConditionExpression";

    private KeyConditionPlanner() {}

    /**
     * What a Query reads: one partition, optionally narrowed by a sort-key condition.
     *
     * @param sortOperator null for the whole partition, else EQ, LT, LE, GT, GE, BETWEEN or BEGINS_WITH
     */
    public record KeyCondition(AttributeValue partition, String sortOperator, AttributeValue a, AttributeValue b) {}

    public static KeyCondition plan(Condition condition, KeySchema schema) {
        List<KeySchema.KeyAttribute> sort = schema.hasSortKey() ? List.of(schema.sortKey()) : List.of();
        IndexKeyCondition c = plan(condition, List.of(schema.partitionKey()), sort);
        return new KeyCondition(c.partition().get(0), c.sortOperator(), c.a(), c.b());
    }

    /**
     * What a Query of an index reads: every partition attribute by equality, and the first {@code sortEquals.size()}
     * sort attributes by equality, optionally followed by {@code sortOperator} on the next one.
     */
    public record IndexKeyCondition(
            List<AttributeValue> partition,
            List<AttributeValue> sortEquals,
            String sortOperator,
            AttributeValue a,
            AttributeValue b) {}

    /**
     * Plans a key condition on a key of up to four partition and four sort attributes (a GSI's multi-attribute key,
     * "Multi-attribute keys"): every partition attribute by equality; sort attributes from the first, left to right
     * with no gap, by equality, the last one given possibly by a range condition. A table's or an LSI's key is the
     * case of one partition and at most one sort attribute.
     */
    public static IndexKeyCondition plan(
            Condition condition, List<KeySchema.KeyAttribute> partitionKeys, List<KeySchema.KeyAttribute> sortKeys) {
        List<Condition> parts = new ArrayList<>();
        List<Path> subjects = new ArrayList<>();
        shape(condition, parts, subjects);
        int keyCount = partitionKeys.size() + sortKeys.size();
        if (parts.size() > keyCount) {
            throw ApiException.validation("The number of query conditions (" + parts.size()
                    + ") exceeds the number of key attributes defined in the schema (" + keyCount + ")");
        }
        AttributeValue[] partition = new AttributeValue[partitionKeys.size()];
        KeyCondition[] sort = new KeyCondition[sortKeys.size()];
        boolean nonKey = false;
        for (int i = 0; i < parts.size(); i++) {
            Condition c = parts.get(i);
            Path path = subjects.get(i);
            if (!path.isTopLevel()) {
                throw invalid("KeyConditionExpressions cannot have conditions on nested attributes");
            }
            String name = path.head().name();
            int p = indexOf(partitionKeys, name);
            int s = indexOf(sortKeys, name);
            if (p >= 0) {
                if (!(c instanceof Condition.Compare cmp) || cmp.comparator() != Condition.Comparator.EQ) {
                    throw ApiException.validation("Query key condition not supported");
                }
                partition[p] =
                        typed(value(cmp.right() instanceof Path ? cmp.left() : cmp.right()), partitionKeys.get(p));
            } else if (s >= 0) {
                sort[s] = sortCondition(c, sortKeys.get(s));
            } else {
                nonKey = true;
            }
        }
        for (int i = 0; i < partition.length; i++) {
            if (partition[i] == null) {
                throw ApiException.validation("Query condition missed key schema element: "
                        + partitionKeys.get(i).name());
            }
        }
        if (nonKey) {
            // A condition on an attribute outside the key: DynamoDB names the sort key it expected there, or, on a
            // key of only a partition key, refuses the form (as dynalite's tests against DynamoDB record).
            if (sortKeys.isEmpty()) {
                throw ApiException.validation("Query key condition not supported");
            }
            int missing = 0;
            while (missing < sort.length - 1 && sort[missing] != null) {
                missing++;
            }
            throw ApiException.validation("Query condition missed key schema element: "
                    + sortKeys.get(missing).name());
        }
        // Sort attributes left to right: equality on each but the last one given, which may be a range.
        int given = 0;
        while (given < sort.length && sort[given] != null) {
            given++;
        }
        for (int i = given; i < sort.length; i++) {
            if (sort[i] != null) {
                throw ApiException.validation("Query condition missed key schema element: "
                        + sortKeys.get(given).name());
            }
        }
        List<AttributeValue> equals = new ArrayList<>();
        for (int i = 0; i + 1 < given; i++) {
            if (!"EQ".equals(sort[i].sortOperator())) {
                throw ApiException.validation("Query key condition not supported");
            }
            equals.add(sort[i].a());
        }
        KeyCondition last = given == 0 ? null : sort[given - 1];
        return new IndexKeyCondition(
                List.of(partition),
                equals,
                last == null ? null : last.sortOperator(),
                last == null ? null : last.a(),
                last == null ? null : last.b());
    }

    /**
     * The value a key condition compares top-level attribute {@code name} to by equality, or null for none: where a
     * cluster with a group per partition sends a Query, before the table's schema is at hand.
     *
     * @throws ApiException as {@link #checkShape} does for a malformed condition
     */
    public static AttributeValue equalityOf(Condition condition, String name) {
        List<Condition> parts = new ArrayList<>();
        List<Path> subjects = new ArrayList<>();
        shape(condition, parts, subjects);
        for (int i = 0; i < parts.size(); i++) {
            Path path = subjects.get(i);
            if (path.isTopLevel()
                    && path.head().name().equals(name)
                    && parts.get(i) instanceof Condition.Compare cmp
                    && cmp.comparator() == Condition.Comparator.EQ) {
                return value(cmp.right() instanceof Path ? cmp.left() : cmp.right());
            }
        }
        return null;
    }

    /**
     * The checks of a key condition that need no key schema (its operators, operands and attributes), which DynamoDB
     * makes before it looks the table up: a request with a malformed key condition on a table that does not exist is
     * refused for the condition, as expression errors are.
     */
    public static void checkShape(Condition condition) {
        shape(condition, new ArrayList<>(), new ArrayList<>());
    }

    private static void shape(Condition condition, List<Condition> parts, List<Path> subjects) {
        flatten(condition, parts);
        for (Condition c : parts) {
            Path subject = keyPath(c);
            if (subjects.contains(subject)) {
                throw invalid("KeyConditionExpressions must only contain one condition per key");
            }
            subjects.add(subject);
        }
    }

    private static int indexOf(List<KeySchema.KeyAttribute> keys, String name) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static void flatten(Condition c, List<Condition> out) {
        if (c instanceof Condition.And and) {
            flatten(and.left(), out);
            flatten(and.right(), out);
        } else if (c instanceof Condition.Or) {
            throw invalid("Invalid operator used in KeyConditionExpression: OR");
        } else if (c instanceof Condition.Not) {
            throw invalid("Invalid operator used in KeyConditionExpression: NOT");
        } else {
            out.add(c);
        }
    }

    /**
     * The key attribute a condition is on, with DynamoDB's words for each form it refuses (dynalite's tests against
     * DynamoDB): a function or arithmetic among the operands, two attributes, no attribute, or a begins_with or
     * BETWEEN whose first operand is not the attribute.
     */
    private static Path keyPath(Condition c) {
        List<Operand> operands;
        Operand first;
        String named = null;
        if (c instanceof Condition.Compare cmp) {
            if (cmp.comparator() == Condition.Comparator.NE) {
                // Refused as an operator, before its operands, as DynamoDB refuses OR and NOT.
                throw invalid("Invalid operator used in KeyConditionExpression: <>");
            }
            operands = List.of(cmp.left(), cmp.right());
            first = null;
        } else if (c instanceof Condition.Between b) {
            operands = List.of(b.value(), b.lower(), b.upper());
            first = b.value();
            named = "BETWEEN";
        } else if (c instanceof Condition.Function f && f.name().equals("begins_with")) {
            operands = f.arguments();
            first = f.arguments().get(0);
            named = "begins_with";
        } else if (c instanceof Condition.In) {
            throw invalid("Invalid operator used in KeyConditionExpression: IN");
        } else {
            throw invalid("Invalid operator used in KeyConditionExpression: " + ((Condition.Function) c).name());
        }
        Path subject = null;
        for (Operand o : operands) {
            if (o instanceof Operand.Call || o instanceof Operand.Arithmetic) {
                throw ApiException.validation("KeyConditionExpressions cannot contain nested operations");
            }
            if (o instanceof Path p) {
                if (subject != null) {
                    throw ApiException.validation(
                            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
                }
                subject = p;
            }
        }
        if (subject == null) {
            throw ApiException.validation("Invalid condition in KeyConditionExpression: No key attribute specified");
        }
        if (named != null && first != subject) {
            throw ApiException.validation("Invalid condition in KeyConditionExpression: " + named
                    + " operator must have the key attribute as its first operand");
        }
        return subject;
    }

    private static KeyCondition sortCondition(Condition c, KeySchema.KeyAttribute key) {
        if (c instanceof Condition.Between b) {
            return new KeyCondition(null, "BETWEEN", typed(value(b.lower()), key), typed(value(b.upper()), key));
        }
        if (c instanceof Condition.Function f) {
            AttributeValue prefix = typed(value(f.arguments().get(1)), key);
            if (prefix instanceof AttributeValue.N) {
                throw invalid("Incorrect operand type for operator or function; operator or function: begins_with,"
                        + " operand type: N");
            }
            return new KeyCondition(null, "BEGINS_WITH", prefix, null);
        }
        Condition.Compare cmp = (Condition.Compare) c;
        boolean flipped = !(cmp.left() instanceof Path);
        AttributeValue v = typed(value(flipped ? cmp.left() : cmp.right()), key);
        String op = switch (cmp.comparator()) {
            case EQ -> "EQ";
            case LT -> flipped ? "GT" : "LT";
            case LE -> flipped ? "GE" : "LE";
            case GT -> flipped ? "LT" : "GT";
            case GE -> flipped ? "LE" : "GE";
            default -> throw invalid("Invalid operator used in KeyConditionExpression: <>");
        };
        return new KeyCondition(null, op, v, null);
    }

    private static AttributeValue value(Operand o) {
        if (o instanceof Operand.Constant c) {
            return c.value();
        }
        throw ApiException.validation("Query key condition not supported");
    }

    private static AttributeValue typed(AttributeValue v, KeySchema.KeyAttribute key) {
        if (!key.type().matches(v)) {
            throw ApiException.invalidParameter("Condition parameter type does not match schema type");
        }
        return v;
    }

    private static ApiException invalid(String detail) {
        return ApiException.validation("Invalid " + KIND + ": " + detail);
    }
}
