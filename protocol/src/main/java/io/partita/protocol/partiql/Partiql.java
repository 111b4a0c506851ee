package io.partita.protocol.partiql;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/**
 * DynamoDB's PartiQL statements, parsed ({@link PartiqlParser}), with their {@code ?} parameters already bound: what
 * "PartiQL - a SQL-compatible query language for Amazon DynamoDB" and its statement pages (ql-reference.select,
 * .insert, .update, .delete) allow, and nothing more.
 */
public final class Partiql {
    private Partiql() {}

    /** A statement. */
    public sealed interface Statement permits Select, Insert, Update, Delete, Exists {}

    /** {@code SELECT projection FROM "table"[."index"] [WHERE …] [ORDER BY …]}; {@code projection} null for {@code *}. */
    public record Select(List<Path> projection, String table, String index, Expr where, List<Order> orderBy)
            implements Statement {}

    /** {@code INSERT INTO "table" VALUE {…}}: the item, a map. */
    public record Insert(String table, AttributeValue.M item) implements Statement {}

    /**
     * {@code UPDATE "table" SET … REMOVE … WHERE … [RETURNING …]} (or the {@code FROM "table" WHERE … SET …} form);
     * {@code returning} is {@code ALL OLD}, {@code MODIFIED OLD}, {@code ALL NEW}, {@code MODIFIED NEW} or null.
     */
    public record Update(String table, List<Action> actions, Expr where, String returning) implements Statement {}

    /** {@code DELETE FROM "table" WHERE … [RETURNING ALL OLD *]}. */
    public record Delete(String table, Expr where, String returning) implements Statement {}

    /** {@code EXISTS(SELECT * FROM "table" WHERE …)}: a condition check, in a write transaction only. */
    public record Exists(Select select) implements Statement {}

    /** One SET or REMOVE of an UPDATE ({@code value} null for REMOVE). */
    public record Action(Path target, Expr value) {}

    /** One ORDER BY term. */
    public record Order(String attribute, boolean descending) {}

    /** A document path: names and list indexes. */
    public record Path(List<Object> steps) implements Expr {
        /** The first name of the path. */
        public String head() {
            return (String) steps.get(0);
        }

        /** Whether the path is a single top-level name. */
        public boolean simple() {
            return steps.size() == 1;
        }
    }

    /** An expression of a WHERE clause or a SET value. */
    public sealed interface Expr permits Path, Value, Compare, Logic, Not, Between, In, Is, Call, Arithmetic {}

    /** A literal or a bound parameter. */
    public record Value(AttributeValue value) implements Expr {}

    /** {@code left op right}; op one of {@code = <> < <= > >=}. */
    public record Compare(String op, Expr left, Expr right) implements Expr {}

    /** {@code left AND right} or {@code left OR right}. */
    public record Logic(boolean and, Expr left, Expr right) implements Expr {}

    public record Not(Expr operand) implements Expr {}

    public record Between(Expr operand, Expr low, Expr high) implements Expr {}

    public record In(Expr operand, List<Expr> values) implements Expr {}

    /** {@code operand IS [NOT] type}; type upper case: MISSING, NULL, BOOLEAN, STRING, NUMBER, … */
    public record Is(Expr operand, boolean negated, String type) implements Expr {}

    /** A function call; {@code name} lower case. */
    public record Call(String name, List<Expr> arguments) implements Expr {}

    /** {@code left + right} or {@code left - right}. */
    public record Arithmetic(boolean plus, Expr left, Expr right) implements Expr {}
}
