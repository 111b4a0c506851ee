package io.partita.protocol.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.DynamoNumber;
import io.partita.protocol.partiql.Partiql.Action;
import io.partita.protocol.partiql.Partiql.Expr;
import io.partita.protocol.partiql.Partiql.Order;
import io.partita.protocol.partiql.Partiql.Path;
import io.partita.protocol.partiql.Partiql.Select;
import io.partita.protocol.partiql.Partiql.Statement;
import io.partita.protocol.partiql.Partiql.Value;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A recursive-descent parser of DynamoDB's PartiQL dialect. Keywords are case-insensitive, identifiers bare or
 * {@code "double-quoted"} and case-sensitive, strings {@code 'single-quoted'} ({@code ''} inside is a quote), numbers
 * DynamoDB's, collections {@code [..]}, {@code {'k': v}} and {@code <<..>>}; {@code --} and {@code /* *}{@code /}
 * comments and a trailing {@code ;} are allowed. {@code ?} takes the next of the request's {@code Parameters}.
 *
 * <p>Syntax errors are DynamoDB's ValidationException {@code Statement wasn't well formed, can't be processed: …}
 * with the detail DynamoDB gives for the same mistake where public captures of its answers show one.
 */
public final class PartiqlParser {
    static final String MALFORMED = "Statement wasn't well formed, can't be processed: ";

    private enum Kind {
        IDENT,
        QUOTED,
        STRING,
        NUMBER,
        PARAM,
        PUNCT,
        END
    }

    private record Token(Kind kind, String text) {
        boolean is(String keyword) {
            return kind == Kind.IDENT && text.equalsIgnoreCase(keyword);
        }

        boolean punct(String p) {
            return kind == Kind.PUNCT && text.equals(p);
        }
    }

    private static final Set<String> KEYWORDS = Set.of(
            "SELECT",
            "FROM",
            "WHERE",
            "AND",
            "OR",
            "NOT",
            "BETWEEN",
            "IN",
            "IS",
            "ORDER",
            "BY",
            "ASC",
            "DESC",
            "INSERT",
            "INTO",
            "VALUE",
            "VALUES",
            "UPDATE",
            "SET",
            "REMOVE",
            "DELETE",
            "RETURNING",
            "EXISTS",
            "NULL",
            "MISSING",
            "TRUE",
            "FALSE",
            "AS");

    private final List<Token> tokens;
    private final List<AttributeValue> parameters;
    private int at;
    private int used;
    /** How deep the parser is in parentheses and collection literals. */
    private int depth;

    /** Parentheses deeper than this refuse the statement, long before the parser's stack could run out. */
    static final int MAX_PARENTHESES = 64;
    /** DynamoDB's limit on nested documents ("Nesting Levels have exceeded supported limits"). */
    static final int MAX_DOCUMENT_DEPTH = 32;

    private PartiqlParser(List<Token> tokens, List<AttributeValue> parameters) {
        this.tokens = tokens;
        this.parameters = parameters == null ? List.of() : parameters;
    }

    /**
     * The table a statement names (after the first {@code FROM}, {@code INTO} or {@code UPDATE}), without parsing the
     * rest; null when it names none or does not lex. A cluster with a group per table routes PartiQL by it; the
     * table's server parses the statement whole, and answers its errors.
     */
    public static String tableOf(String statement) {
        List<Token> tokens;
        try {
            tokens = lex(statement);
        } catch (ApiException e) {
            return null;
        }
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.is("FROM") || t.is("INTO") || t.is("UPDATE")) {
                Token name = tokens.get(i + 1);
                boolean named = name.kind == Kind.QUOTED
                        || (name.kind == Kind.IDENT && !KEYWORDS.contains(name.text.toUpperCase(Locale.ROOT)));
                return named ? name.text : null;
            }
        }
        return null;
    }

    /** Parses {@code statement}, binding {@code parameters} (may be null) to its {@code ?}s in order. */
    public static Statement parse(String statement, List<AttributeValue> parameters) {
        PartiqlParser p = new PartiqlParser(lex(statement), parameters);
        Statement s = p.statement();
        while (p.peek().punct(";")) {
            p.at++;
        }
        if (p.peek().kind != Kind.END) {
            throw malformed("Unexpected token after expression");
        }
        if (p.used != p.parameters.size()) {
            throw ApiException.validation("Number of parameters in request and statement don't match.");
        }
        return s;
    }

    static ApiException malformed(String detail) {
        return ApiException.validation(MALFORMED + detail);
    }

    // ---- lexing

    private static List<Token> lex(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                if (end < 0) {
                    throw malformed("");
                }
                i = end + 2;
            } else if (c == '\'' || c == '"') {
                StringBuilder b = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= n) {
                        throw malformed("");
                    }
                    char d = s.charAt(j);
                    if (d == c) {
                        if (j + 1 < n && s.charAt(j + 1) == c) {
                            b.append(c);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    b.append(d);
                    j++;
                }
                out.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED, b.toString()));
                i = j + 1;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
                int j = i;
                while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '.')) {
                    j++;
                }
                if (j < n && (s.charAt(j) == 'e' || s.charAt(j) == 'E')) {
                    int k = j + 1;
                    if (k < n && (s.charAt(k) == '+' || s.charAt(k) == '-')) {
                        k++;
                    }
                    if (k < n && Character.isDigit(s.charAt(k))) {
                        j = k;
                        while (j < n && Character.isDigit(s.charAt(j))) {
                            j++;
                        }
                    }
                }
                out.add(new Token(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                    j++;
                }
                out.add(new Token(Kind.IDENT, s.substring(i, j)));
                i = j;
            } else if (c == '?') {
                out.add(new Token(Kind.PARAM, "?"));
                i++;
            } else {
                String two = i + 1 < n ? s.substring(i, i + 2) : "";
                if (two.equals("<=")
                        || two.equals(">=")
                        || two.equals("<>")
                        || two.equals("!=")
                        || two.equals("<<")
                        || two.equals(">>")) {
                    out.add(new Token(Kind.PUNCT, two));
                    i += 2;
                } else if ("()[]{},.:*=<>+-;".indexOf(c) >= 0) {
                    out.add(new Token(Kind.PUNCT, String.valueOf(c)));
                    i++;
                } else {
                    throw malformed("Unexpected token after expression");
                }
            }
        }
        out.add(new Token(Kind.END, ""));
        return out;
    }

    // ---- statements

    private Token peek() {
        return tokens.get(at);
    }

    private Token peek(int ahead) {
        return tokens.get(Math.min(at + ahead, tokens.size() - 1));
    }

    private Token next() {
        Token t = tokens.get(at);
        if (t.kind != Kind.END) {
            at++;
        }
        return t;
    }

    private boolean accept(String keyword) {
        if (peek().is(keyword)) {
            at++;
            return true;
        }
        return false;
    }

    private boolean acceptPunct(String p) {
        if (peek().punct(p)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String keyword, String detail) {
        if (!accept(keyword)) {
            throw malformed(detail);
        }
    }

    private void expectPunct(String p, String detail) {
        if (!acceptPunct(p)) {
            throw malformed(detail);
        }
    }

    private Statement statement() {
        Token t = peek();
        if (t.is("SELECT")) {
            return select();
        }
        if (t.is("INSERT")) {
            return insert();
        }
        if (t.is("UPDATE")) {
            next();
            String table = tableName();
            return updateBody(table);
        }
        if (t.is("DELETE")) {
            return delete();
        }
        if (t.is("FROM")) {
            // "FROM table WHERE … SET …": UPDATE written with its FROM first, which DynamoDB accepts.
            next();
            String table = tableName();
            refuseAlias();
            expect("WHERE", "Unexpected term");
            Expr where = expression();
            List<Action> actions = actions();
            if (actions.isEmpty()) {
                throw malformed("Expected data manipulation");
            }
            return new Partiql.Update(table, actions, where, returning());
        }
        if (t.is("EXISTS")) {
            next();
            expectPunct("(", "Unexpected term");
            if (!peek().is("SELECT")) {
                throw malformed("Unexpected term");
            }
            Select s = select();
            expectPunct(")", "Unexpected token after expression");
            return new Partiql.Exists(s);
        }
        throw malformed(t.kind == Kind.END ? "Unexpected term" : "Expected data manipulation");
    }

    /** {@code ident} or {@code "quoted"}. */
    private String identifier(String detail) {
        Token t = peek();
        if (t.kind == Kind.QUOTED || (t.kind == Kind.IDENT && !KEYWORDS.contains(t.text.toUpperCase(Locale.ROOT)))) {
            next();
            return t.text;
        }
        throw malformed(detail);
    }

    private String tableName() {
        return identifier("Expected identifier for simple path");
    }

    private void refuseAlias() {
        if (peek().is("AS")
                || peek().kind == Kind.QUOTED
                || (peek().kind == Kind.IDENT && !KEYWORDS.contains(peek().text.toUpperCase(Locale.ROOT)))) {
            throw ApiException.validation("Aliasing is not supported");
        }
    }

    private Select select() {
        expect("SELECT", "Expected data manipulation");
        List<Path> projection = null;
        if (!acceptPunct("*")) {
            projection = new ArrayList<>();
            do {
                projection.add(path());
            } while (acceptPunct(","));
        }
        expect("FROM", "Unexpected term");
        String table = tableName();
        String index = null;
        if (acceptPunct(".")) {
            index = identifier("Invalid path dot component");
        }
        refuseAlias();
        Expr where = null;
        if (accept("WHERE")) {
            where = expression();
        }
        List<Order> orderBy = List.of();
        if (accept("ORDER")) {
            expect("BY", "Unexpected term");
            orderBy = new ArrayList<>();
            do {
                String attribute = identifier("Unexpected term");
                boolean descending = false;
                if (accept("DESC")) {
                    descending = true;
                } else {
                    accept("ASC");
                }
                orderBy.add(new Order(attribute, descending));
            } while (acceptPunct(","));
        }
        return new Select(projection, table, index, where, orderBy);
    }

    private Statement insert() {
        next();
        expect("INTO", "Unexpected term");
        String table = tableName();
        if (peek().is("AS") || peek().kind == Kind.QUOTED) {
            throw malformed("Unexpected token after expression");
        }
        if (!accept("VALUE")) {
            throw malformed(peek().is("VALUES") || peek().punct("(") ? "Unexpected keyword" : "Unexpected term");
        }
        Expr value = primary();
        if (!(value instanceof Value v) || !(v.value() instanceof AttributeValue.M item)) {
            throw ApiException.validation("Unsupported format in item expression. Please use struct format {...} to"
                    + " express item values for insert statement.");
        }
        if (peek().is("RETURNING")) {
            throw ApiException.validation("RETURNING is not supported in INSERT");
        }
        return new Partiql.Insert(table, item);
    }

    private Statement updateBody(String table) {
        refuseAlias();
        List<Action> actions = actions();
        if (actions.isEmpty()) {
            throw malformed("Expected data manipulation");
        }
        Expr where = null;
        if (accept("WHERE")) {
            where = expression();
        }
        return new Partiql.Update(table, actions, where, returning());
    }

    private List<Action> actions() {
        List<Action> actions = new ArrayList<>();
        while (true) {
            if (accept("SET")) {
                do {
                    Path target = path();
                    expectPunct("=", "Unexpected term");
                    actions.add(new Action(target, expression()));
                } while (acceptPunct(","));
            } else if (accept("REMOVE")) {
                do {
                    actions.add(new Action(path(), null));
                } while (acceptPunct(","));
            } else {
                return actions;
            }
        }
    }

    private String returning() {
        if (!accept("RETURNING")) {
            return null;
        }
        String which;
        if (accept("ALL")) {
            which = "ALL";
        } else if (accept("MODIFIED")) {
            which = "MODIFIED";
        } else {
            throw malformed("Unexpected term");
        }
        String image;
        if (accept("OLD")) {
            image = "OLD";
        } else if (accept("NEW")) {
            image = "NEW";
        } else {
            throw malformed("Unexpected term");
        }
        if (!acceptPunct("*")) {
            throw ApiException.validation("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause");
        }
        return which + " " + image;
    }

    private Statement delete() {
        next();
        expect("FROM", "Unexpected term");
        String table = tableName();
        refuseAlias();
        Expr where = null;
        if (accept("WHERE")) {
            where = expression();
        }
        String returning = returning();
        if (returning != null && !returning.equals("ALL OLD")) {
            throw ApiException.validation("Invalid returning clause: RETURNING " + returning
                    + " *. Only RETURNING ALL OLD * is allowed in DELETE statements.");
        }
        return new Partiql.Delete(table, where, returning);
    }

    // ---- expressions: OR < AND < NOT < comparison < additive < primary

    private Expr expression() {
        Expr left = and();
        while (accept("OR")) {
            left = new Partiql.Logic(false, left, operand(this::and));
        }
        return left;
    }

    private Expr and() {
        Expr left = not();
        while (accept("AND")) {
            left = new Partiql.Logic(true, left, operand(this::not));
        }
        return left;
    }

    /** The right-hand side of an infix operator, which must be there. */
    private Expr operand(java.util.function.Supplier<Expr> parse) {
        Token t = peek();
        if (t.kind == Kind.END || t.punct(";") || t.punct(")") || t.is("ORDER") || t.is("RETURNING")) {
            throw malformed("Missing right-hand side expression of infix operator");
        }
        return parse.get();
    }

    private Expr not() {
        int nots = 0;
        while (accept("NOT")) {
            nots++;
        }
        Expr e = comparison();
        for (int i = 0; i < nots; i++) {
            e = new Partiql.Not(e);
        }
        return e;
    }

    private void enter(int limit, String message) {
        if (++depth > limit) {
            throw ApiException.validation(message);
        }
    }

    private Expr comparison() {
        Expr left = additive();
        Token t = peek();
        if (t.kind == Kind.PUNCT) {
            String op = switch (t.text) {
                case "=", "<", "<=", ">", ">=", "<>" -> t.text;
                case "!=" -> "<>";
                default -> null;
            };
            if (op != null) {
                next();
                return new Partiql.Compare(op, left, operand(this::additive));
            }
        }
        if (accept("BETWEEN")) {
            Expr low = additive();
            expect("AND", "Unexpected term");
            return new Partiql.Between(left, low, additive());
        }
        boolean negated = peek().is("NOT") && (peek(1).is("IN") || peek(1).is("BETWEEN"));
        if (negated) {
            next();
            return new Partiql.Not(comparisonTail(left));
        }
        if (peek().is("IN")) {
            return comparisonTail(left);
        }
        if (accept("IS")) {
            boolean not = accept("NOT");
            Token type = next();
            if (type.kind != Kind.IDENT) {
                throw malformed("Expected type name");
            }
            String name = type.text.toUpperCase(Locale.ROOT);
            if (!Set.of(
                            "MISSING", "NULL", "BOOLEAN", "BOOL", "STRING", "NUMBER", "NUMERIC", "BLOB", "BINARY",
                            "LIST", "STRUCT", "TUPLE", "MAP")
                    .contains(name)) {
                throw malformed("Expected type name");
            }
            return new Partiql.Is(left, not, name);
        }
        return left;
    }

    private Expr comparisonTail(Expr left) {
        if (accept("BETWEEN")) {
            Expr low = additive();
            expect("AND", "Unexpected term");
            return new Partiql.Between(left, low, additive());
        }
        expect("IN", "Unexpected term");
        List<Expr> values = new ArrayList<>();
        String close;
        if (acceptPunct("[")) {
            close = "]";
        } else if (acceptPunct("(")) {
            close = ")";
        } else {
            throw ApiException.validation("IN operator must have a left hand argument of type Variable Reference and"
                    + " right hand argument of type Seq with at least one member");
        }
        if (!peek().punct(close)) {
            do {
                values.add(additive());
            } while (acceptPunct(","));
        }
        expectPunct(close, "Unexpected token after expression");
        if (values.isEmpty()) {
            throw ApiException.validation("IN operator must have a left hand argument of type Variable Reference and"
                    + " right hand argument of type Seq with at least one member");
        }
        return new Partiql.In(left, values);
    }

    private Expr additive() {
        Expr left = primary();
        while (peek().punct("+") || peek().punct("-")) {
            boolean plus = next().text.equals("+");
            left = new Partiql.Arithmetic(plus, left, operand(this::primary));
        }
        return left;
    }

    private Expr primary() {
        Token t = peek();
        switch (t.kind) {
            case STRING -> {
                next();
                return new Value(new AttributeValue.S(t.text));
            }
            case NUMBER -> {
                next();
                return new Value(new AttributeValue.N(DynamoNumber.parse(t.text)));
            }
            case PARAM -> {
                next();
                if (used >= parameters.size()) {
                    throw ApiException.validation("Number of parameters in request and statement don't match.");
                }
                return new Value(parameters.get(used++));
            }
            case QUOTED -> {
                return path();
            }
            case END -> throw malformed("Unexpected term");
            default -> {}
        }
        if (t.kind == Kind.PUNCT) {
            switch (t.text) {
                case "(" -> {
                    next();
                    enter(MAX_PARENTHESES, MALFORMED + "Too many nested parentheses");
                    Expr e = expression();
                    depth--;
                    expectPunct(")", "Unexpected token after expression");
                    return e;
                }
                case "[" -> {
                    next();
                    enter(MAX_DOCUMENT_DEPTH, NESTING);
                    List<AttributeValue> items = new ArrayList<>();
                    if (!peek().punct("]")) {
                        do {
                            items.add(literal(primary()));
                        } while (acceptPunct(","));
                    }
                    expectPunct("]", "Unexpected token after expression");
                    depth--;
                    return new Value(new AttributeValue.L(items));
                }
                case "{" -> {
                    return new Value(tuple());
                }
                case "<<" -> {
                    return new Value(bag());
                }
                case "-" -> {
                    next();
                    Token number = next();
                    if (number.kind != Kind.NUMBER) {
                        throw malformed("Unexpected term");
                    }
                    return new Value(new AttributeValue.N(DynamoNumber.parse("-" + number.text)));
                }
                default -> throw malformed("Unexpected term");
            }
        }
        // An identifier: a keyword literal, a function call, or a path.
        if (t.is("TRUE") || t.is("FALSE")) {
            next();
            return new Value(new AttributeValue.Bool(t.is("TRUE")));
        }
        if (t.is("NULL")) {
            next();
            return new Value(new AttributeValue.Null());
        }
        if (peek(1).punct("(") && !KEYWORDS.contains(t.text.toUpperCase(Locale.ROOT))) {
            next();
            next();
            List<Expr> args = new ArrayList<>();
            if (!peek().punct(")")) {
                do {
                    args.add(expression());
                } while (acceptPunct(","));
            }
            expectPunct(")", "Unexpected token after expression");
            return new Partiql.Call(t.text.toLowerCase(Locale.ROOT), args);
        }
        if (KEYWORDS.contains(t.text.toUpperCase(Locale.ROOT))) {
            throw malformed("Unexpected keyword");
        }
        return path();
    }

    private static AttributeValue literal(Expr e) {
        if (e instanceof Value v) {
            return v.value();
        }
        throw ApiException.validation(
                "Unsupported data type in collection literal: only values and parameters are" + " allowed");
    }

    static final String NESTING =
            "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported"
                    + " limit";

    private AttributeValue.M tuple() {
        expectPunct("{", "Unexpected term");
        enter(MAX_DOCUMENT_DEPTH, NESTING);
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        if (!peek().punct("}")) {
            do {
                Token key = next();
                String name;
                if (key.kind == Kind.STRING || key.kind == Kind.QUOTED) {
                    name = key.text;
                } else if (key.kind == Kind.PARAM) {
                    at--;
                    AttributeValue v = literal(primary());
                    if (!(v instanceof AttributeValue.S s)) {
                        throw ApiException.validation(
                                "Tuple keys must be of type String. Actual type: " + v.type() + " under root");
                    }
                    name = s.value();
                } else {
                    throw malformed("Unexpected term");
                }
                expectPunct(":", "Unexpected term");
                AttributeValue value = literal(primary());
                if (m.put(name, value) != null) {
                    throw ApiException.validation("Duplicate keys in tuple. Key: " + name + " under root");
                }
            } while (acceptPunct(","));
        }
        expectPunct("}", "Unexpected token after expression");
        depth--;
        return new AttributeValue.M(m);
    }

    private AttributeValue bag() {
        expectPunct("<<", "Unexpected term");
        List<AttributeValue> members = new ArrayList<>();
        if (!peek().punct(">>")) {
            do {
                members.add(literal(primary()));
            } while (acceptPunct(","));
        }
        expectPunct(">>", "Unexpected token after expression");
        if (members.isEmpty()) {
            throw ApiException.validation("Empty bags are not supported");
        }
        boolean strings = members.get(0) instanceof AttributeValue.S;
        Set<Object> seen = new HashSet<>();
        List<String> shown = new ArrayList<>();
        boolean duplicate = false;
        for (AttributeValue v : members) {
            boolean ok = strings ? v instanceof AttributeValue.S : v instanceof AttributeValue.N;
            if (!ok) {
                throw ApiException.validation(
                        "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags");
            }
            Object key = strings ? ((AttributeValue.S) v).value() : ((AttributeValue.N) v).value();
            duplicate |= !seen.add(key);
            shown.add(strings ? ((AttributeValue.S) v).value() : ((AttributeValue.N) v).text());
        }
        if (duplicate) {
            throw ApiException.invalidParameter("Input collection " + shown + " contains duplicates.");
        }
        if (strings) {
            return new AttributeValue.SS(shown);
        }
        List<BigDecimal> numbers = new ArrayList<>();
        for (AttributeValue v : members) {
            numbers.add(((AttributeValue.N) v).value());
        }
        return new AttributeValue.NS(numbers);
    }

    /** A document path: a name, then {@code .name} and {@code [index]} steps. */
    private Path path() {
        List<Object> steps = new ArrayList<>();
        steps.add(identifier("Unexpected term"));
        while (true) {
            if (peek().punct(".")) {
                next();
                steps.add(identifier("Invalid path dot component"));
            } else if (peek().punct("[")) {
                next();
                Token index = next();
                if (index.kind != Kind.NUMBER
                        || index.text.length() > 9
                        || !index.text.chars().allMatch(Character::isDigit)) {
                    throw malformed("Unexpected term");
                }
                steps.add(Integer.valueOf(index.text));
                expectPunct("]", "Unexpected token after expression");
            } else {
                return new Path(steps);
            }
        }
    }
}
