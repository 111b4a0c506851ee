package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.expr.ast.UpdateExpression;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BinaryOperator;

/**
 * A hand-written recursive-descent parser for DynamoDB's condition, update and projection expressions
 * ("Expressions" in the DynamoDB Developer Guide), producing an unresolved AST ({@code #name} and {@code :value}
 * references still in place).
 *
 * <pre>
 *   condition  = or
 *   or         = and { OR and }                 NOT binds tighter than AND, AND than OR
 *   and        = not { AND not }
 *   not        = NOT not | primary
 *   primary    = "(" condition ")" | function "(" operands ")"
 *              | operand ( comparator operand | BETWEEN operand AND operand | IN "(" operand { "," operand } ")" )
 *   operand    = path | :value | size "(" path ")"
 *   update     = { SET set {"," set} | REMOVE path {"," path} | ADD path :value {…} | DELETE path :value {…} }
 *   set        = path "=" value [ ("+" | "-") value ]
 *   value      = path | :value | if_not_exists "(" path "," value ")" | list_append "(" value "," value ")"
 *   path       = name { "." name | "[" digits "]" }          name = identifier | #name
 * </pre>
 *
 * Errors use DynamoDB's wording: {@code Invalid UpdateExpression: Syntax error; token: "x", near: "a x"}. Input size,
 * operator count and nesting are bounded, so hostile input ends in a ValidationException, never a stack overflow.
 */
public final class ExpressionParser {
    /** DynamoDB's limit on the length of any expression ("Expression parameters", ServiceQuotas). */
    public static final int MAX_EXPRESSION_BYTES = 4096;
    /** DynamoDB's limit on operators and functions in one expression. */
    public static final int MAX_OPERATORS = 300;
    /** Bound on parenthesis/NOT nesting; deeper input is refused before it can exhaust the stack. */
    static final int MAX_NESTING = 200;
    /** DynamoDB's limit on the depth of a document path. */
    public static final int MAX_PATH_DEPTH = 32;

    static final Set<String> CONDITION_FUNCTIONS =
            Set.of("attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains");
    static final Set<String> UPDATE_FUNCTIONS = Set.of("if_not_exists", "list_append");

    private final String kind;
    private final TokenStream tokens;

    private int operators;
    private int nesting;
    /** The condition most recently returned from inside parentheses, to spot {@code ((x))}. */
    private Condition lastParenthesized;

    private ExpressionParser(String source, String kind) {
        this.kind = kind;
        if (source.isBlank()) {
            throw invalid("The expression can not be empty;");
        }
        int size = io.partita.protocol.model.ItemSize.utf8Length(source);
        if (size > MAX_EXPRESSION_BYTES) {
            // Condition and filter expressions also say how large they were; the others do not.
            boolean sized = kind.equals("ConditionExpression") || kind.equals("FilterExpression");
            throw invalid("Expression size has exceeded the maximum allowed size;"
                    + (sized ? " expression size: " + size : ""));
        }
        this.tokens = new TokenStream(source, Lexer.tokenize(source), this::invalid);
    }

    /** Parses a ConditionExpression, FilterExpression or KeyConditionExpression; {@code kind} names it in errors. */
    public static Condition parseCondition(String expression, String kind) {
        ExpressionParser p = new ExpressionParser(expression, kind);
        Condition c = p.or();
        p.tokens.expect(Token.Kind.EOF);
        return c;
    }

    public static UpdateExpression parseUpdate(String expression) {
        return new ExpressionParser(expression, "UpdateExpression").update();
    }

    public static List<Path> parseProjection(String expression) {
        ExpressionParser p = new ExpressionParser(expression, "ProjectionExpression");
        List<Path> paths = new ArrayList<>();
        paths.add(p.path());
        while (p.tokens.accept(Token.Kind.COMMA)) {
            paths.add(p.path());
        }
        p.tokens.expect(Token.Kind.EOF);
        return paths;
    }

    // ---- conditions

    private Condition or() {
        return leftAssociative("OR", this::and, Condition.Or::new);
    }

    private Condition and() {
        return leftAssociative("AND", this::not, Condition.And::new);
    }

    /** {@code operand { keyword operand }}, folded to the left. */
    private Condition leftAssociative(
            String keyword, java.util.function.Supplier<Condition> operand, BinaryOperator<Condition> combine) {
        Condition left = operand.get();
        while (tokens.peek().isKeyword(keyword)) {
            tokens.next();
            countOperator();
            left = combine.apply(left, operand.get());
        }
        return left;
    }

    private Condition not() {
        if (tokens.peek().isKeyword("NOT")) {
            tokens.next();
            countOperator();
            enter();
            Condition inner = not();
            nesting--;
            return new Condition.Not(inner);
        }
        return primary();
    }

    private Condition primary() {
        Token t = tokens.peek();
        if (t.is(Token.Kind.LPAREN)) {
            tokens.next();
            enter();
            boolean doubled = tokens.peek().is(Token.Kind.LPAREN);
            Condition inner = or();
            nesting--;
            if (doubled
                    && inner == lastParenthesized
                    && tokens.get(tokens.last()).is(Token.Kind.RPAREN)) {
                throw invalid("The expression has redundant parentheses;");
            }
            tokens.expect(Token.Kind.RPAREN);
            lastParenthesized = inner;
            return inner;
        }
        if (t.is(Token.Kind.NAME)
                && tokens.peekAt(1).is(Token.Kind.LPAREN)
                && !t.text().equals("size")) {
            Condition f = function();
            if (isComparisonStart(tokens.peek())) {
                throw invalid(
                        "The function is not allowed to be used this way in an expression; function: " + t.text());
            }
            return f;
        }
        Operand left = conditionOperand();
        if (left instanceof Operand.Call call && !isComparisonStart(tokens.peek())) {
            throw invalid(
                    "The function is not allowed to be used this way in an expression; function: " + call.function());
        }
        Token op = tokens.next();
        switch (op.kind()) {
            case EQ:
                return compare(left, Condition.Comparator.EQ);
            case NE:
                return compare(left, Condition.Comparator.NE);
            case LT:
                return compare(left, Condition.Comparator.LT);
            case LE:
                return compare(left, Condition.Comparator.LE);
            case GT:
                return compare(left, Condition.Comparator.GT);
            case GE:
                return compare(left, Condition.Comparator.GE);
            default:
                break;
        }
        if (op.isKeyword("BETWEEN")) {
            countOperator();
            Operand lower = conditionOperand();
            if (!tokens.next().isKeyword("AND")) {
                throw tokens.syntaxError(tokens.last());
            }
            return new Condition.Between(left, lower, conditionOperand());
        }
        if (op.isKeyword("IN")) {
            countOperator();
            tokens.expect(Token.Kind.LPAREN);
            List<Operand> candidates = new ArrayList<>();
            candidates.add(conditionOperand());
            while (tokens.accept(Token.Kind.COMMA)) {
                candidates.add(conditionOperand());
            }
            tokens.expect(Token.Kind.RPAREN);
            return new Condition.In(left, candidates);
        }
        throw tokens.syntaxError(tokens.last());
    }

    private static boolean isComparisonStart(Token t) {
        return switch (t.kind()) {
            case EQ, NE, LT, LE, GT, GE -> true;
            default -> t.isKeyword("BETWEEN") || t.isKeyword("IN");
        };
    }

    private Condition compare(Operand left, Condition.Comparator comparator) {
        countOperator();
        return new Condition.Compare(left, comparator, conditionOperand());
    }

    private Condition function() {
        Token name = tokens.next();
        if (!CONDITION_FUNCTIONS.contains(name.text())) {
            throw unknownFunction(name.text());
        }
        countOperator();
        return new Condition.Function(name.text(), arguments(this::conditionOperand));
    }

    private Operand conditionOperand() {
        Token t = tokens.peek();
        if (t.is(Token.Kind.VALUE_REF)) {
            tokens.next();
            return new Operand.ValueRef(t.text());
        }
        if (t.is(Token.Kind.NAME) && tokens.peekAt(1).is(Token.Kind.LPAREN)) {
            tokens.next();
            if (!t.text().equals("size")) {
                if (CONDITION_FUNCTIONS.contains(t.text())) {
                    throw invalid(
                            "The function is not allowed to be used this way in an expression; function: " + t.text());
                }
                if (UPDATE_FUNCTIONS.contains(t.text())) {
                    throw invalid("The function is not allowed in a condition expression; function: " + t.text());
                }
                throw unknownFunction(t.text());
            }
            countOperator();
            return new Operand.Call("size", arguments(this::conditionOperand));
        }
        return path();
    }

    private List<Operand> arguments(java.util.function.Supplier<Operand> operand) {
        tokens.expect(Token.Kind.LPAREN);
        enter();
        List<Operand> args = new ArrayList<>();
        args.add(operand.get());
        while (tokens.accept(Token.Kind.COMMA)) {
            args.add(operand.get());
        }
        nesting--;
        tokens.expect(Token.Kind.RPAREN);
        return args;
    }

    // ---- updates

    private UpdateExpression update() {
        List<UpdateExpression.Set> set = new ArrayList<>();
        List<Path> remove = new ArrayList<>();
        List<UpdateExpression.Add> add = new ArrayList<>();
        List<UpdateExpression.Delete> delete = new ArrayList<>();
        Set<String> seen = new java.util.LinkedHashSet<>();
        do {
            Token section = tokens.next();
            String name = section.kind() == Token.Kind.NAME ? section.text().toUpperCase(java.util.Locale.ROOT) : "";
            if (!Set.of("SET", "REMOVE", "ADD", "DELETE").contains(name)) {
                throw tokens.syntaxError(tokens.last());
            }
            if (!seen.add(name)) {
                throw invalid("The \"" + name + "\" section can only be used once in an update expression;");
            }
            do {
                switch (name) {
                    case "SET" -> {
                        Path p = path();
                        tokens.expect(Token.Kind.EQ);
                        set.add(new UpdateExpression.Set(p, setValue()));
                    }
                    case "REMOVE" -> remove.add(path());
                    case "ADD" -> add.add(new UpdateExpression.Add(path(), valueRef()));
                    default -> delete.add(new UpdateExpression.Delete(path(), valueRef()));
                }
            } while (tokens.accept(Token.Kind.COMMA));
        } while (!tokens.peek().is(Token.Kind.EOF));
        return new UpdateExpression(set, remove, add, delete, List.copyOf(seen));
    }

    private Operand valueRef() {
        Token t = tokens.next();
        if (!t.is(Token.Kind.VALUE_REF)) {
            throw tokens.syntaxError(tokens.last());
        }
        return new Operand.ValueRef(t.text());
    }

    private Operand setValue() {
        Operand left = updateOperand();
        if (tokens.peek().is(Token.Kind.PLUS) || tokens.peek().is(Token.Kind.MINUS)) {
            boolean plus = tokens.next().is(Token.Kind.PLUS);
            countOperator();
            return new Operand.Arithmetic(left, plus, updateOperand());
        }
        return left;
    }

    private Operand updateOperand() {
        Token t = tokens.peek();
        if (t.is(Token.Kind.VALUE_REF)) {
            tokens.next();
            return new Operand.ValueRef(t.text());
        }
        if (t.is(Token.Kind.NAME) && tokens.peekAt(1).is(Token.Kind.LPAREN)) {
            tokens.next();
            if (!UPDATE_FUNCTIONS.contains(t.text())) {
                if (CONDITION_FUNCTIONS.contains(t.text()) || t.text().equals("size")) {
                    throw invalid("The function is not allowed in an update expression; function: " + t.text());
                }
                throw unknownFunction(t.text());
            }
            countOperator();
            // A function's arguments are operands, not values: `if_not_exists(a, :x + :y)` is a syntax error
            // on the "+" (API reference, UpdateItem: "if_not_exists (path, operand)").
            return new Operand.Call(t.text(), arguments(this::updateOperand));
        }
        return path();
    }

    // ---- paths

    private Path path() {
        List<PathPart> parts = new ArrayList<>();
        parts.add(pathName());
        while (true) {
            if (tokens.accept(Token.Kind.DOT)) {
                parts.add(pathName());
            } else if (tokens.peek().is(Token.Kind.LBRACKET)) {
                tokens.next();
                Token index = tokens.next();
                if (!index.is(Token.Kind.NUMBER)) {
                    throw tokens.syntaxError(tokens.last());
                }
                int value;
                try {
                    value = Integer.parseInt(index.text());
                } catch (NumberFormatException e) {
                    throw invalid("List index is not within the allowable range; index: [" + index.text() + "]");
                }
                tokens.expect(Token.Kind.RBRACKET);
                parts.add(new PathPart.Index(value));
            } else {
                break;
            }
            if (parts.size() > MAX_PATH_DEPTH) {
                throw invalid("The document path has too many nesting levels; nesting levels: " + parts.size());
            }
        }
        return new Path(parts);
    }

    private PathPart.Attr pathName() {
        Token t = tokens.next();
        if (t.is(Token.Kind.NAME_REF)) {
            return new PathPart.Attr(t.text(), true);
        }
        if (t.is(Token.Kind.NAME)) {
            if (ReservedWords.contains(t.text())) {
                throw invalid("Attribute name is a reserved keyword; reserved keyword: " + t.text());
            }
            return new PathPart.Attr(t.text(), false);
        }
        throw tokens.syntaxError(tokens.last());
    }

    private void countOperator() {
        if (++operators > MAX_OPERATORS) {
            throw invalid("The expression contains too many operators; operator count: " + operators);
        }
    }

    private void enter() {
        if (++nesting > MAX_NESTING) {
            throw invalid("The expression has too many nesting levels");
        }
    }

    private ApiException invalid(String detail) {
        return ApiException.validation("Invalid " + kind + ": " + detail);
    }

    private ApiException unknownFunction(String name) {
        return invalid("Invalid function name; function: " + name);
    }
}
