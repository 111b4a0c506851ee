package io.partita.protocol.expr;

import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import java.util.ArrayList;
import java.util.List;

/** The document paths a condition reads. */
public final class ConditionPaths {
    private ConditionPaths() {}

    public static List<Path> of(Condition c) {
        List<Path> out = new ArrayList<>();
        collect(c, out);
        return out;
    }

    private static void collect(Condition c, List<Path> out) {
        if (c instanceof Condition.And and) {
            collect(and.left(), out);
            collect(and.right(), out);
        } else if (c instanceof Condition.Or or) {
            collect(or.left(), out);
            collect(or.right(), out);
        } else if (c instanceof Condition.Not not) {
            collect(not.condition(), out);
        } else if (c instanceof Condition.Compare cmp) {
            operand(cmp.left(), out);
            operand(cmp.right(), out);
        } else if (c instanceof Condition.Between b) {
            operand(b.value(), out);
            operand(b.lower(), out);
            operand(b.upper(), out);
        } else if (c instanceof Condition.In in) {
            operand(in.value(), out);
            in.candidates().forEach(o -> operand(o, out));
        } else {
            ((Condition.Function) c).arguments().forEach(o -> operand(o, out));
        }
    }

    private static void operand(Operand o, List<Path> out) {
        if (o instanceof Path p) {
            out.add(p);
        } else if (o instanceof Operand.Call call) {
            call.arguments().forEach(a -> operand(a, out));
        }
    }
}
