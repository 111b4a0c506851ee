package io.partita.protocol.expr;

import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.Bytes;
import io.partita.protocol.model.ItemSize;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Map;

/**
 * Evaluates a resolved condition against an item (null for no item). Type mismatches found only at run time make a
 * comparison false, as in DynamoDB; misuse visible in the expression itself was refused by {@link ExpressionChecks}.
 */
public final class ConditionEvaluator {
    private ConditionEvaluator() {}

    public static boolean test(Condition c, Map<String, AttributeValue> item) {
        if (c instanceof Condition.And and) {
            return test(and.left(), item) && test(and.right(), item);
        } else if (c instanceof Condition.Or or) {
            return test(or.left(), item) || test(or.right(), item);
        } else if (c instanceof Condition.Not not) {
            return !test(not.condition(), item);
        } else if (c instanceof Condition.Compare cmp) {
            return compare(value(cmp.left(), item), cmp.comparator(), value(cmp.right(), item));
        } else if (c instanceof Condition.Between b) {
            AttributeValue v = value(b.value(), item);
            AttributeValue lo = value(b.lower(), item);
            AttributeValue hi = value(b.upper(), item);
            return comparable(v, lo) && comparable(v, hi) && Values.compare(v, lo) >= 0 && Values.compare(v, hi) <= 0;
        } else if (c instanceof Condition.In in) {
            AttributeValue v = value(in.value(), item);
            for (Operand candidate : in.candidates()) {
                if (Values.equal(v, value(candidate, item))) {
                    return true;
                }
            }
            return false;
        } else {
            return function((Condition.Function) c, item);
        }
    }

    private static boolean comparable(AttributeValue a, AttributeValue b) {
        return a != null && b != null && Values.isOrdered(a) && a.type().equals(b.type());
    }

    private static boolean compare(AttributeValue a, Condition.Comparator op, AttributeValue b) {
        switch (op) {
            case EQ:
                return Values.equal(a, b);
            case NE:
                // A missing attribute is not equal to anything ("Comparison operator and function reference").
                return !Values.equal(a, b);
            default:
                if (!comparable(a, b)) {
                    return false;
                }
                int r = Values.compare(a, b);
                return switch (op) {
                    case LT -> r < 0;
                    case LE -> r <= 0;
                    case GT -> r > 0;
                    default -> r >= 0;
                };
        }
    }

    private static boolean function(Condition.Function f, Map<String, AttributeValue> item) {
        switch (f.name()) {
            case "attribute_exists":
                return Values.at(item, (Path) f.arguments().get(0)) != null;
            case "attribute_not_exists":
                return Values.at(item, (Path) f.arguments().get(0)) == null;
            case "attribute_type": {
                AttributeValue v = value(f.arguments().get(0), item);
                AttributeValue type = value(f.arguments().get(1), item);
                return v != null
                        && type instanceof AttributeValue.S s
                        && v.type().equals(s.value());
            }
            case "begins_with":
                return beginsWith(
                        value(f.arguments().get(0), item), value(f.arguments().get(1), item));
            default:
                return contains(
                        value(f.arguments().get(0), item), value(f.arguments().get(1), item));
        }
    }

    private static boolean beginsWith(AttributeValue v, AttributeValue prefix) {
        if (v instanceof AttributeValue.S s && prefix instanceof AttributeValue.S p) {
            return s.value().startsWith(p.value());
        }
        if (v instanceof AttributeValue.B b && prefix instanceof AttributeValue.B p) {
            byte[] x = b.value().unsafeArray();
            byte[] y = p.value().unsafeArray();
            return x.length >= y.length && Arrays.equals(x, 0, y.length, y, 0, y.length);
        }
        return false;
    }

    private static boolean contains(AttributeValue v, AttributeValue operand) {
        if (v == null || operand == null) {
            return false;
        }
        if (v instanceof AttributeValue.S s) {
            return operand instanceof AttributeValue.S o && s.value().contains(o.value());
        } else if (v instanceof AttributeValue.B b) {
            return operand instanceof AttributeValue.B o && indexOf(b.value(), o.value()) >= 0;
        } else if (v instanceof AttributeValue.SS ss) {
            return operand instanceof AttributeValue.S o && ss.values().contains(o.value());
        } else if (v instanceof AttributeValue.NS ns) {
            return operand instanceof AttributeValue.N o && ns.values().contains(o.value());
        } else if (v instanceof AttributeValue.BS bs) {
            return operand instanceof AttributeValue.B o && bs.values().contains(o.value());
        } else if (v instanceof AttributeValue.L l) {
            for (AttributeValue e : l.values()) {
                if (Values.equal(e, operand)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int indexOf(Bytes haystack, Bytes needle) {
        byte[] h = haystack.unsafeArray();
        byte[] n = needle.unsafeArray();
        outer:
        for (int i = 0; i + n.length <= h.length; i++) {
            for (int j = 0; j < n.length; j++) {
                if (h[i + j] != n[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The value of a condition operand, or null when it has none (missing path, size of a number). */
    static AttributeValue value(Operand o, Map<String, AttributeValue> item) {
        if (o instanceof Operand.Constant c) {
            return c.value();
        } else if (o instanceof Path p) {
            return Values.at(item, p);
        } else if (o instanceof Operand.Call call && call.function().equals("size")) {
            AttributeValue v = value(call.arguments().get(0), item);
            Long size = size(v);
            return size == null ? null : new AttributeValue.N(BigDecimal.valueOf(size));
        }
        throw new IllegalStateException("not a condition operand: " + o);
    }

    /** {@code size()}: string and binary length in bytes, element count of sets, lists and maps. */
    private static Long size(AttributeValue v) {
        if (v instanceof AttributeValue.S s) {
            return (long) ItemSize.utf8Length(s.value());
        } else if (v instanceof AttributeValue.B b) {
            return (long) b.value().length();
        } else if (v instanceof AttributeValue.SS ss) {
            return (long) ss.values().size();
        } else if (v instanceof AttributeValue.NS ns) {
            return (long) ns.values().size();
        } else if (v instanceof AttributeValue.BS bs) {
            return (long) bs.values().size();
        } else if (v instanceof AttributeValue.L l) {
            return (long) l.values().size();
        } else if (v instanceof AttributeValue.M m) {
            return (long) m.values().size();
        }
        return null;
    }
}
