package io.partita.protocol.expr.ast;

import java.util.List;

/** A condition or filter expression: comparisons, BETWEEN, IN, boolean functions, AND, OR, NOT. */
public sealed interface Condition
        permits Condition.Compare,
                Condition.Between,
                Condition.In,
                Condition.Function,
                Condition.And,
                Condition.Or,
                Condition.Not {

    /** The comparison operators, with their DynamoDB spelling. */
    enum Comparator {
        EQ("="),
        NE("<>"),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        private final String symbol;

        Comparator(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }
    }

    record Compare(Operand left, Comparator comparator, Operand right) implements Condition {}

    record Between(Operand value, Operand lower, Operand upper) implements Condition {}

    record In(Operand value, List<Operand> candidates) implements Condition {
        public In {
            candidates = List.copyOf(candidates);
        }
    }

    /** A boolean function: attribute_exists, attribute_not_exists, attribute_type, begins_with, contains. */
    record Function(String name, List<Operand> arguments) implements Condition {
        public Function {
            arguments = List.copyOf(arguments);
        }
    }

    record And(Condition left, Condition right) implements Condition {}

    record Or(Condition left, Condition right) implements Condition {}

    record Not(Condition condition) implements Condition {}
}
