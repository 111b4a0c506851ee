package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.model.AttributeValue;
import java.util.List;
import java.util.Set;

/**
 * The checks DynamoDB makes on a resolved expression before reading any item: function arity and argument kinds,
 * operand types that are visible in the expression (values, not attributes), IN size, BETWEEN bounds, and overlapping
 * or conflicting document paths.
 */
final class ExpressionChecks {
    /** DynamoDB allows up to 100 values in an IN list ("Comparison operator and function reference"). */
    static final int MAX_IN_OPERANDS = 100;

    private static final Set<String> TYPE_DESCRIPTORS =
            Set.of("S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M");

    private ExpressionChecks() {}

    static void condition(Condition c, String kind) {
        if (c instanceof Condition.And and) {
            condition(and.left(), kind);
            condition(and.right(), kind);
        } else if (c instanceof Condition.Or or) {
            condition(or.left(), kind);
            condition(or.right(), kind);
        } else if (c instanceof Condition.Not not) {
            condition(not.condition(), kind);
        } else if (c instanceof Condition.Compare cmp) {
            operand(cmp.left(), kind);
            operand(cmp.right(), kind);
            distinct(cmp.comparator().symbol(), cmp.left(), List.of(cmp.right()), kind);
            if (cmp.comparator() != Condition.Comparator.EQ && cmp.comparator() != Condition.Comparator.NE) {
                ordered(cmp.left(), cmp.comparator().symbol(), kind);
                ordered(cmp.right(), cmp.comparator().symbol(), kind);
            }
        } else if (c instanceof Condition.Between b) {
            operand(b.value(), kind);
            operand(b.lower(), kind);
            operand(b.upper(), kind);
            ordered(b.value(), "BETWEEN", kind);
            ordered(b.lower(), "BETWEEN", kind);
            ordered(b.upper(), "BETWEEN", kind);
            if (b.lower() instanceof Operand.Constant lo && b.upper() instanceof Operand.Constant hi) {
                String bounds = "lower bound operand: AttributeValue: {"
                        + lo.value().type() + ":" + text(lo.value()) + "}, upper bound operand: AttributeValue: {"
                        + hi.value().type() + ":" + text(hi.value()) + "}";
                if (!lo.value().type().equals(hi.value().type())) {
                    throw invalid(
                            kind, "The BETWEEN operator requires same data type for lower and upper bounds; " + bounds);
                }
                if (Values.compare(lo.value(), hi.value()) > 0) {
                    throw invalid(
                            kind,
                            "The BETWEEN operator requires upper bound to be greater than or equal to lower"
                                    + " bound; " + bounds);
                }
            }
        } else if (c instanceof Condition.In in) {
            if (in.candidates().size() > MAX_IN_OPERANDS) {
                throw invalid(
                        kind,
                        "The IN operator is provided with too many operands; number of operands: "
                                + in.candidates().size());
            }
            operand(in.value(), kind);
            in.candidates().forEach(o -> operand(o, kind));
        } else {
            function((Condition.Function) c, kind);
        }
    }

    private static void function(Condition.Function f, String kind) {
        List<Operand> args = f.arguments();
        args.forEach(o -> operand(o, kind));
        switch (f.name()) {
            case "attribute_exists", "attribute_not_exists" -> {
                arity(f.name(), args, 1, kind);
                requirePath(f.name(), args.get(0), kind);
            }
            case "attribute_type" -> {
                arity(f.name(), args, 2, kind);
                requirePath(f.name(), args.get(0), kind);
                if (args.get(1) instanceof Operand.Constant t) {
                    if (!(t.value() instanceof AttributeValue.S s)) {
                        throw operandType(kind, f.name(), t.value());
                    }
                    if (!TYPE_DESCRIPTORS.contains(s.value())) {
                        throw invalid(
                                kind,
                                "Invalid attribute type name found; type: " + s.value()
                                        + ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
                    }
                }
            }
            case "begins_with" -> {
                arity(f.name(), args, 2, kind);
                for (Operand o : args) {
                    if (o instanceof Operand.Constant c
                            && !(c.value() instanceof AttributeValue.S || c.value() instanceof AttributeValue.B)) {
                        throw operandType(kind, f.name(), c.value());
                    }
                }
            }
            default -> arity(f.name(), args, 2, kind);
        }
        if (args.size() > 1) {
            distinct(f.name(), args.get(0), args.subList(1, args.size()), kind);
        }
    }

    /** The same document path on both sides ({@code a = a}, {@code contains(a, a)}) is refused. */
    private static void distinct(String operator, Operand first, List<Operand> rest, String kind) {
        if (first instanceof Path p && rest.contains(p)) {
            throw invalid(
                    kind,
                    "The first operand must be distinct from the remaining operands for this operator or"
                            + " function; operator: " + operator + ", first operand: " + p);
        }
    }

    /** Operand shapes that are wrong wherever they appear in a condition. */
    private static void operand(Operand o, String kind) {
        if (o instanceof Operand.Call call) {
            arity(call.function(), call.arguments(), 1, kind);
            Operand arg = call.arguments().get(0);
            if (arg instanceof Operand.Constant c) {
                AttributeValue v = c.value();
                if (!(v instanceof AttributeValue.S
                        || v instanceof AttributeValue.B
                        || isSet(v)
                        || v instanceof AttributeValue.L
                        || v instanceof AttributeValue.M)) {
                    throw operandType(kind, call.function(), v);
                }
            }
        }
    }

    private static void ordered(Operand o, String operator, String kind) {
        if (o instanceof Operand.Constant c && !Values.isOrdered(c.value())) {
            throw operandType(kind, operator, c.value());
        }
    }

    private static void arity(String function, List<Operand> args, int expected, String kind) {
        if (args.size() != expected) {
            throw invalid(
                    kind,
                    "Incorrect number of operands for operator or function; operator or function: " + function
                            + ", number of operands: " + args.size());
        }
    }

    private static void requirePath(String function, Operand o, String kind) {
        if (!(o instanceof Path)) {
            throw invalid(kind, "Operator or function requires a document path; operator or function: " + function);
        }
    }

    static void update(UpdateExpression u) {
        String kind = "UpdateExpression";
        for (UpdateExpression.Set s : u.set()) {
            setValue(s.value(), kind, true);
        }
        for (UpdateExpression.Add a : u.add()) {
            AttributeValue v = ((Operand.Constant) a.value()).value();
            if (!(v instanceof AttributeValue.N || isSet(v))) {
                throw invalid(
                        kind,
                        "Incorrect operand type for operator or function; operator: ADD, operand type: "
                                + longTypeName(v));
            }
        }
        for (UpdateExpression.Delete d : u.delete()) {
            AttributeValue v = ((Operand.Constant) d.value()).value();
            if (!isSet(v)) {
                throw invalid(
                        kind,
                        "Incorrect operand type for operator or function; operator: DELETE, operand type: "
                                + longTypeName(v));
            }
        }
        noOverlaps(u.targets(), kind);
    }

    private static void setValue(Operand o, String kind, boolean top) {
        if (o instanceof Operand.Arithmetic a) {
            for (Operand side : List.of(a.left(), a.right())) {
                setValue(side, kind, false);
                if (side instanceof Operand.Constant c && !(c.value() instanceof AttributeValue.N)) {
                    throw invalid(
                            kind,
                            "Incorrect operand type for operator or function; operator or function: "
                                    + (a.plus() ? "+" : "-") + ", operand type: "
                                    + c.value().type());
                }
            }
        } else if (o instanceof Operand.Call call) {
            arity(call.function(), call.arguments(), 2, kind);
            call.arguments().forEach(arg -> setValue(arg, kind, false));
            if (call.function().equals("if_not_exists")) {
                requirePath(call.function(), call.arguments().get(0), kind);
            } else {
                for (Operand arg : call.arguments()) {
                    // DynamoDB parses list_append(list_append(...), ...) but refuses it; an if_not_exists
                    // inside list_append is allowed (observed answers).
                    if (arg instanceof Operand.Call inner && inner.function().equals("list_append")) {
                        throw invalid(
                                kind,
                                "The function is not allowed to be used this way in an expression; function:"
                                        + " list_append");
                    }
                    if (arg instanceof Operand.Constant c && !(c.value() instanceof AttributeValue.L)) {
                        throw invalid(
                                kind,
                                "Incorrect operand type for operator or function; operator or function:"
                                        + " list_append, operand type: "
                                        + c.value().type());
                    }
                }
            }
        }
    }

    /**
     * Two paths of one request may neither be equal or nested ("overlap") nor use a name and an index at the same
     * position ("conflict").
     */
    static void noOverlaps(List<Path> paths, String kind) {
        for (int i = 0; i < paths.size(); i++) {
            for (int j = i + 1; j < paths.size(); j++) {
                Path a = paths.get(i);
                Path b = paths.get(j);
                if (a.isPrefixOf(b) || b.isPrefixOf(a)) {
                    throw invalid(
                            kind,
                            "Two document paths overlap with each other; must remove or rewrite one of"
                                    + " these paths; path one: " + a + ", path two: " + b);
                }
                if (conflict(a, b)) {
                    throw invalid(
                            kind,
                            "Two document paths conflict with each other; must remove or rewrite one of"
                                    + " these paths; path one: " + a + ", path two: " + b);
                }
            }
        }
    }

    private static boolean conflict(Path a, Path b) {
        int n = Math.min(a.parts().size(), b.parts().size());
        for (int i = 0; i < n; i++) {
            PathPart x = a.parts().get(i);
            PathPart y = b.parts().get(i);
            if (x.equals(y)) {
                continue;
            }
            return (x instanceof PathPart.Attr) != (y instanceof PathPart.Attr);
        }
        return false;
    }

    static boolean isSet(AttributeValue v) {
        return v instanceof AttributeValue.SS || v instanceof AttributeValue.NS || v instanceof AttributeValue.BS;
    }

    private static ApiException operandType(String kind, String operator, AttributeValue v) {
        return invalid(
                kind,
                "Incorrect operand type for operator or function; operator or function: " + operator
                        + ", operand type: " + v.type());
    }

    /** The long type names DynamoDB uses in ADD and DELETE operand messages (elsewhere it uses S, N, BOOL …). */
    static String longTypeName(AttributeValue v) {
        return switch (v.type()) {
            case "S" -> "STRING";
            case "N" -> "NUMBER";
            case "B" -> "BINARY";
            case "BOOL" -> "BOOLEAN";
            case "NULL" -> "NULL";
            case "SS" -> "STRING_SET";
            case "NS" -> "NUMBER_SET";
            case "BS" -> "BINARY_SET";
            case "L" -> "LIST";
            default -> "MAP";
        };
    }

    private static String text(AttributeValue v) {
        if (v instanceof AttributeValue.S s) {
            return s.value();
        }
        if (v instanceof AttributeValue.N n) {
            return n.text();
        }
        return String.valueOf(v);
    }

    private static ApiException invalid(String kind, String detail) {
        return ApiException.validation("Invalid " + kind + ": " + detail);
    }
}
