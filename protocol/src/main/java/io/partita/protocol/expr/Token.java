package io.partita.protocol.expr;

/** One lexical token of an expression, with its position for error messages. */
record Token(Kind kind, String text, int start, int end) {
    enum Kind {
        NAME,
        NAME_REF,
        VALUE_REF,
        NUMBER,
        LPAREN,
        RPAREN,
        LBRACKET,
        RBRACKET,
        COMMA,
        DOT,
        EQ,
        NE,
        LT,
        LE,
        GT,
        GE,
        PLUS,
        MINUS,
        UNKNOWN,
        EOF
    }

    boolean is(Kind k) {
        return kind == k;
    }

    /** A NAME token spelling {@code keyword}, in any case (DynamoDB keywords are case-insensitive). */
    boolean isKeyword(String keyword) {
        return kind == Kind.NAME && text.equalsIgnoreCase(keyword);
    }
}
