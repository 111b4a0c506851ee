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
        List<Condition> parts = new ArrayList<>();
        flatten(condition, parts);
        List<Path> subjects = new ArrayList<>(parts.size());
        for (Condition c : parts) {
            Path subject = keyPath(c);
            if (subjects.contains(subject)) {
                throw invalid("KeyConditionExpressions must only contain one condition per key");
            }
            subjects.add(subject);
        }
        if (parts.size() > schema.attributes().size()) {
            throw ApiException.validation("The number of query conditions (" + parts.size()
                    + ") exceeds the number of key attributes defined in the schema ("
                    + schema.attributes().size()
                    + ")");
        }
        AttributeValue partition = null;
        KeyCondition sort = null;
        for (int i = 0; i < parts.size(); i++) {
            Condition c = parts.get(i);
            Path path = subjects.get(i);
            if (!path.isTopLevel()) {
                throw invalid("KeyConditionExpressions cannot have conditions on nested attributes");
            }
            String name = path.head().name();
            if (name.equals(schema.partitionKey().name())) {
                if (partition != null) {
                    throw invalid("KeyConditionExpressions must only contain one condition per key");
                }
                if (!(c instanceof Condition.Compare cmp) || cmp.comparator() != Condition.Comparator.EQ) {
                    throw ApiException.validation("Query key condition not supported");
                }
                partition = typed(value(cmp.right()), schema.partitionKey());
            } else if (schema.hasSortKey() && name.equals(schema.sortKey().name())) {
                if (sort != null) {
                    throw invalid("KeyConditionExpressions must only contain one condition per key");
                }
                sort = sortCondition(c, schema.sortKey());
            } else {
                throw ApiException.validation("Query condition missed key schema element: "
                        + schema.partitionKey().name());
            }
        }
        if (partition == null) {
            throw ApiException.validation("Query condition missed key schema element: "
                    + schema.partitionKey().name());
        }
        return sort == null
                ? new KeyCondition(partition, null, null, null)
                : new KeyCondition(partition, sort.sortOperator(), sort.a(), sort.b());
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

    private static Path keyPath(Condition c) {
        Operand subject;
        if (c instanceof Condition.Compare cmp) {
            subject = cmp.left() instanceof Path ? cmp.left() : cmp.right();
        } else if (c instanceof Condition.Between b) {
            subject = b.value();
        } else if (c instanceof Condition.Function f && f.name().equals("begins_with")) {
            subject = f.arguments().get(0);
        } else if (c instanceof Condition.In) {
            throw invalid("Invalid operator used in KeyConditionExpression: IN");
        } else {
            throw invalid("Invalid operator used in KeyConditionExpression: " + ((Condition.Function) c).name());
        }
        if (!(subject instanceof Path p)) {
            throw ApiException.validation("Query key condition not supported");
        }
        return p;
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
