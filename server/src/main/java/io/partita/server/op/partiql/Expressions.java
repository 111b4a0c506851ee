package io.partita.server.op.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql;
import io.partita.protocol.partiql.Partiql.Expr;
import io.partita.protocol.partiql.Partiql.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * PartiQL's WHERE clauses and SET values written as DynamoDB's expressions, every name a {@code #n} placeholder and
 * every value a {@code :v} one, so that a statement runs through the same expression engine, checks and capacity
 * accounting as the operation it becomes (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem).
 */
final class Expressions {
    private static final Set<String> CONDITION_FUNCTIONS =
            Set.of("begins_with", "contains", "attribute_exists", "attribute_not_exists", "attribute_type");

    /** PartiQL's type names for IS, as DynamoDB's attribute_type codes. */
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("BOOLEAN", "BOOL"),
            Map.entry("BOOL", "BOOL"),
            Map.entry("STRING", "S"),
            Map.entry("NUMBER", "N"),
            Map.entry("NUMERIC", "N"),
            Map.entry("BLOB", "B"),
            Map.entry("BINARY", "B"),
            Map.entry("LIST", "L"),
            Map.entry("STRUCT", "M"),
            Map.entry("TUPLE", "M"),
            Map.entry("MAP", "M"));

    private final Map<String, String> names = new LinkedHashMap<>();
    private final Map<String, String> placeholderOf = new HashMap<>();
    private final Map<String, AttributeValue> values = new LinkedHashMap<>();

    /** The names used, or null if none (DynamoDB refuses an empty map). */
    Map<String, String> names() {
        return names.isEmpty() ? null : names;
    }

    /** The values used, or null if none. */
    Map<String, AttributeValue> values() {
        return values.isEmpty() ? null : values;
    }

    String name(String n) {
        return placeholderOf.computeIfAbsent(n, x -> {
            String p = "#n" + names.size();
            names.put(p, x);
            return p;
        });
    }

    String value(AttributeValue v) {
        String p = ":v" + values.size();
        values.put(p, v);
        return p;
    }

    String path(Path p) {
        StringBuilder b = new StringBuilder();
        for (Object step : p.steps()) {
            if (step instanceof String s) {
                if (!b.isEmpty()) {
                    b.append('.');
                }
                b.append(name(s));
            } else {
                b.append('[').append(step).append(']');
            }
        }
        return b.toString();
    }

    /** A projection list. */
    String projection(List<Path> paths) {
        StringJoiner j = new StringJoiner(", ");
        for (Path p : paths) {
            j.add(path(p));
        }
        return j.toString();
    }

    /** The conjuncts of {@code e}: its operands if it is an AND (of ANDs), else itself. */
    static List<Expr> conjuncts(Expr e) {
        List<Expr> out = new ArrayList<>();
        if (e != null) {
            collect(e, out);
        }
        return out;
    }

    private static void collect(Expr e, List<Expr> out) {
        if (e instanceof Partiql.Logic l && l.and()) {
            collect(l.left(), out);
            collect(l.right(), out);
        } else {
            out.add(e);
        }
    }

    /**
     * The conjunction of {@code fixed} (conditions already written) and {@code parts} as a condition expression, or
     * null when there are none.
     */
    String conditionOf(List<String> fixed, List<Expr> parts) {
        if (fixed.isEmpty() && parts.isEmpty()) {
            return null;
        }
        StringJoiner j = new StringJoiner(" AND ");
        fixed.forEach(j::add);
        for (Expr e : parts) {
            j.add(render(e, AND));
        }
        return j.toString();
    }

    String conditionOf(List<Expr> parts) {
        return conditionOf(List.of(), parts);
    }

    /** {@code e} as a condition (or filter) expression. */
    String condition(Expr e) {
        return render(e, TOP);
    }

    // How tightly the context binds: an operand is parenthesised only where its own operator binds more loosely, so
    // that no parentheses are redundant (DynamoDB refuses "((a))").
    private static final int TOP = 0;
    private static final int OR = 1;
    private static final int AND = 2;
    private static final int NOT = 3;

    private String render(Expr e, int context) {
        if (e instanceof Partiql.Logic l) {
            int own = l.and() ? AND : OR;
            StringJoiner j = new StringJoiner(l.and() ? " AND " : " OR ");
            for (Expr operand : operands(l)) {
                j.add(render(operand, own));
            }
            return context > own ? "(" + j + ")" : j.toString();
        }
        if (e instanceof Partiql.Not) {
            // A chain of NOTs, walked without recursion: an even number cancels out.
            int nots = 0;
            Expr x = e;
            while (x instanceof Partiql.Not n) {
                nots++;
                x = n.operand();
            }
            return nots % 2 == 0 ? render(x, context) : "NOT " + render(x, NOT);
        }
        if (e instanceof Partiql.Is is) {
            String p = documentPath(is.operand(), "IS");
            if (is.type().equals("NULL")) {
                // In PartiQL a missing attribute IS NULL too.
                String test = "attribute_not_exists(" + p + ") OR attribute_type(" + p + ", "
                        + value(new AttributeValue.S("NULL")) + ")";
                if (is.negated()) {
                    return "NOT (" + test + ")";
                }
                return context > OR ? "(" + test + ")" : test;
            }
            String test = is.type().equals("MISSING")
                    ? "attribute_not_exists(" + p + ")"
                    : "attribute_type(" + p + ", " + value(new AttributeValue.S(TYPES.get(is.type()))) + ")";
            return is.negated() ? "NOT " + test : test;
        }
        return atom(e);
    }

    /** The operands of a chain of one logical operator ({@code a OR b OR c}), collected without recursion. */
    static List<Expr> operands(Partiql.Logic top) {
        List<Expr> out = new ArrayList<>();
        java.util.ArrayDeque<Expr> pending = new java.util.ArrayDeque<>();
        pending.push(top);
        while (!pending.isEmpty()) {
            Expr e = pending.pop();
            if (e instanceof Partiql.Logic l && l.and() == top.and()) {
                pending.push(l.right());
                pending.push(l.left());
            } else {
                out.add(e);
            }
        }
        return out;
    }

    private String atom(Expr e) {
        if (e instanceof Partiql.Compare c) {
            return operand(c.left()) + " " + c.op() + " " + operand(c.right());
        }
        if (e instanceof Partiql.Between b) {
            return operand(b.operand()) + " BETWEEN " + operand(b.low()) + " AND " + operand(b.high());
        }
        if (e instanceof Partiql.In in) {
            StringJoiner j = new StringJoiner(", ", operand(in.operand()) + " IN (", ")");
            for (Expr v : in.values()) {
                j.add(operand(v));
            }
            return j.toString();
        }
        if (e instanceof Partiql.Call call) {
            if (!CONDITION_FUNCTIONS.contains(call.name())) {
                if (call.name().equals("size")) {
                    throw ApiException.validation("WHERE clause must contain an expression that resolves to a boolean");
                }
                throw ApiException.validation("Unrecognized function: " + call.name());
            }
            int wanted = call.name().startsWith("attribute_") && !call.name().equals("attribute_type") ? 1 : 2;
            if (call.arguments().size() != wanted) {
                throw ApiException.validation(
                        "Incorrect number of operands for operator or function; operator or function: " + call.name()
                                + ", number of operands: " + call.arguments().size());
            }
            StringJoiner j = new StringJoiner(", ", call.name() + "(", ")");
            j.add(documentPath(call.arguments().get(0), call.name()));
            for (int i = 1; i < call.arguments().size(); i++) {
                j.add(operand(call.arguments().get(i)));
            }
            return j.toString();
        }
        if (e instanceof Partiql.Arithmetic a) {
            throw ApiException.validation(
                    "Unsupported operator in Condition Expression. Operator: " + (a.plus() ? "+" : "-"));
        }
        throw ApiException.validation("WHERE clause must contain an expression that resolves to a boolean");
    }

    /** The top-level names a condition mentions (paths' first names), found without recursion. */
    static java.util.Set<String> mentioned(Expr top) {
        java.util.Set<String> out = new java.util.HashSet<>();
        java.util.ArrayDeque<Expr> pending = new java.util.ArrayDeque<>();
        pending.push(top);
        while (!pending.isEmpty()) {
            Expr e = pending.pop();
            if (e instanceof Path p) {
                out.add(p.head());
            } else if (e instanceof Partiql.Logic l) {
                pending.push(l.left());
                pending.push(l.right());
            } else if (e instanceof Partiql.Not n) {
                pending.push(n.operand());
            } else if (e instanceof Partiql.Compare c) {
                pending.push(c.left());
                pending.push(c.right());
            } else if (e instanceof Partiql.Between b) {
                pending.push(b.operand());
                pending.push(b.low());
                pending.push(b.high());
            } else if (e instanceof Partiql.In in) {
                pending.push(in.operand());
                in.values().forEach(pending::push);
            } else if (e instanceof Partiql.Is is) {
                pending.push(is.operand());
            } else if (e instanceof Partiql.Call c) {
                c.arguments().forEach(pending::push);
            } else if (e instanceof Partiql.Arithmetic ar) {
                pending.push(ar.left());
                pending.push(ar.right());
            }
        }
        return out;
    }

    private String documentPath(Expr e, String function) {
        if (e instanceof Path p) {
            return path(p);
        }
        throw ApiException.validation(
                "Operator or function requires a document path; operator or function: " + function);
    }

    /** A comparison's operand: a path, a value or {@code size(path)}. */
    String operand(Expr e) {
        if (e instanceof Path p) {
            return path(p);
        }
        if (e instanceof Partiql.Value v) {
            return value(v.value());
        }
        if (e instanceof Partiql.Call c && c.name().equals("size")) {
            if (c.arguments().size() != 1) {
                throw ApiException.validation(
                        "Incorrect number of operands for operator or function; operator or function: size, number of"
                                + " operands: " + c.arguments().size());
            }
            return "size(" + documentPath(c.arguments().get(0), "size") + ")";
        }
        if (e instanceof Partiql.Call c) {
            throw ApiException.validation("Unrecognized function: " + c.name());
        }
        throw ApiException.validation("Unsupported operand in a comparison: only paths, values and size() are allowed");
    }

    /**
     * An UPDATE's actions as an update expression: SET values may be paths, values, {@code +}/{@code -} of two,
     * {@code list_append} and {@code if_not_exists}; {@code set_add(path, <<…>>)} and {@code set_delete(path, <<…>>)}
     * become ADD and DELETE of the set.
     */
    String update(List<Partiql.Action> actions) {
        List<String> sets = new ArrayList<>();
        List<String> removes = new ArrayList<>();
        List<String> adds = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        for (Partiql.Action a : actions) {
            String target = path(a.target());
            if (a.value() == null) {
                removes.add(target);
                continue;
            }
            if (a.value() instanceof Partiql.Call c
                    && (c.name().equals("set_add") || c.name().equals("set_delete"))) {
                String fn = c.name().toUpperCase(java.util.Locale.ROOT);
                if (c.arguments().size() != 2) {
                    throw ApiException.validation(fn + " must have exactly two arguments");
                }
                if (!c.arguments().get(0).equals(a.target())) {
                    throw ApiException.validation("The first argument to " + fn + " must equal the assignment value");
                }
                if (!(c.arguments().get(1) instanceof Partiql.Value v)
                        || !(v.value() instanceof AttributeValue.SS
                                || v.value() instanceof AttributeValue.NS
                                || v.value() instanceof AttributeValue.BS)) {
                    throw ApiException.validation("The second argument to " + fn + " must be a value with type SET");
                }
                (c.name().equals("set_add") ? adds : deletes).add(target + " " + value(v.value()));
                continue;
            }
            sets.add(target + " = " + updateValue(a.value()));
        }
        StringBuilder b = new StringBuilder();
        clause(b, "SET", sets);
        clause(b, "REMOVE", removes);
        clause(b, "ADD", adds);
        clause(b, "DELETE", deletes);
        return b.toString();
    }

    private static void clause(StringBuilder b, String keyword, List<String> parts) {
        if (!parts.isEmpty()) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(keyword).append(' ').append(String.join(", ", parts));
        }
    }

    private String updateValue(Expr e) {
        if (e instanceof Partiql.Arithmetic a) {
            return updateOperand(a.left()) + (a.plus() ? " + " : " - ") + updateOperand(a.right());
        }
        return updateOperand(e);
    }

    private String updateOperand(Expr e) {
        if (e instanceof Partiql.Call c
                && (c.name().equals("list_append") || c.name().equals("if_not_exists"))) {
            if (c.arguments().size() != 2) {
                throw ApiException.validation(
                        "Incorrect number of operands for operator or function; operator or function: " + c.name()
                                + ", number of operands: " + c.arguments().size());
            }
            return c.name() + "(" + updateOperand(c.arguments().get(0)) + ", "
                    + updateOperand(c.arguments().get(1)) + ")";
        }
        if (e instanceof Path p) {
            return path(p);
        }
        if (e instanceof Partiql.Value v) {
            return value(v.value());
        }
        if (e instanceof Partiql.Call c) {
            throw ApiException.validation("Unrecognized function: " + c.name());
        }
        throw ApiException.validation("Unsupported operator in Update Expression");
    }
}
