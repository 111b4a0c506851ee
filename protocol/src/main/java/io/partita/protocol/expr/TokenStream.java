package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import java.util.List;
import java.util.function.Function;

/** The parser's view of its tokens: look-ahead, consumption, and DynamoDB's syntax-error message. */
final class TokenStream {
    private final String source;
    private final List<Token> tokens;
    private final Function<String, ApiException> invalid;
    private int pos;
    /** The index of the token {@link #next()} returned last (the EOF token is returned repeatedly). */
    private int last;

    TokenStream(String source, List<Token> tokens, Function<String, ApiException> invalid) {
        this.source = source;
        this.tokens = tokens;
        this.invalid = invalid;
    }

    Token peek() {
        return tokens.get(pos);
    }

    Token peekAt(int ahead) {
        return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
    }

    Token get(int index) {
        return tokens.get(index);
    }

    int last() {
        return last;
    }

    Token next() {
        last = pos;
        Token t = tokens.get(pos);
        if (pos < tokens.size() - 1) {
            pos++;
        }
        return t;
    }

    boolean accept(Token.Kind kind) {
        if (peek().is(kind)) {
            next();
            return true;
        }
        return false;
    }

    void expect(Token.Kind kind) {
        if (!peek().is(kind)) {
            throw syntaxError(pos);
        }
        next();
    }

    /**
     * DynamoDB's syntax error: the offending token, and the source text from the token before it through the token
     * after it ({@code token: ":", near: "hits : incr"}; at the end, {@code token: "<EOF>", near: "lastToken"}).
     */
    ApiException syntaxError(int index) {
        Token t = tokens.get(index);
        int from = index > 0 ? tokens.get(index - 1).start() : t.start();
        Token after = index + 1 < tokens.size() ? tokens.get(index + 1) : t;
        int to = after.is(Token.Kind.EOF) ? t.end() : after.end();
        String near = source.substring(from, Math.max(from, to));
        return invalid.apply("Syntax error; token: \"" + t.text() + "\", near: \"" + near + "\"");
    }
}
