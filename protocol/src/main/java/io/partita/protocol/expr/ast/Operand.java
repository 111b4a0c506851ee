package io.partita.protocol.expr.ast;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/** Something that evaluates to a value: a path, a value, a function call or {@code +}/{@code -} arithmetic. */
public sealed interface Operand permits Path, Operand.ValueRef, Operand.Constant, Operand.Call, Operand.Arithmetic {
    /** A {@code :value} reference, before resolution. */
    record ValueRef(String name) implements Operand {}

    /** A value from ExpressionAttributeValues (or a legacy parameter), after resolution. */
    record Constant(AttributeValue value) implements Operand {}

    /** A function used as an operand: {@code size}, {@code if_not_exists}, {@code list_append}. */
    record Call(String function, List<Operand> arguments) implements Operand {
        public Call {
            arguments = List.copyOf(arguments);
        }
    }

    /** {@code left + right} or {@code left - right}, only in update SET values. */
    record Arithmetic(Operand left, boolean plus, Operand right) implements Operand {}
}
