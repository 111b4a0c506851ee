package io.partita.protocol.expr.ast;

import java.util.List;

/**
 * An update expression: its SET, REMOVE, ADD and DELETE actions, in the order written within each section, and the
 * order the sections were written in ({@code "SET"}, {@code "REMOVE"} …), which DynamoDB's path messages follow.
 */
public record UpdateExpression(
        List<Set> set, List<Path> remove, List<Add> add, List<Delete> delete, List<String> sections) {
    public UpdateExpression {
        set = List.copyOf(set);
        remove = List.copyOf(remove);
        add = List.copyOf(add);
        delete = List.copyOf(delete);
        sections = List.copyOf(sections);
    }

    /** Whether the expression has no action at all (an UpdateItem without UpdateExpression or AttributeUpdates). */
    public boolean isEmpty() {
        return set.isEmpty() && remove.isEmpty() && add.isEmpty() && delete.isEmpty();
    }

    /** An expression whose sections are in the canonical order SET, REMOVE, ADD, DELETE. */
    public UpdateExpression(List<Set> set, List<Path> remove, List<Add> add, List<Delete> delete) {
        this(set, remove, add, delete, List.of("SET", "REMOVE", "ADD", "DELETE"));
    }

    /** {@code SET path = value}. */
    public record Set(Path path, Operand value) {}

    /** {@code ADD path value}. */
    public record Add(Path path, Operand value) {}

    /** {@code DELETE path value}. */
    public record Delete(Path path, Operand value) {}

    /** Every path the expression writes, in the order written. */
    public List<Path> targets() {
        List<Path> out = new java.util.ArrayList<>();
        for (String section : sections) {
            switch (section) {
                case "SET" -> set.forEach(s -> out.add(s.path()));
                case "REMOVE" -> out.addAll(remove);
                case "ADD" -> add.forEach(a -> out.add(a.path()));
                default -> delete.forEach(d -> out.add(d.path()));
            }
        }
        return out;
    }
}
