package io.partita.protocol.expr;

import java.util.ArrayList;
import java.util.List;

/** Splits an expression into tokens. Never fails: characters it does not know become UNKNOWN tokens. */
final class Lexer {
    private Lexer() {}

    static List<Token> tokenize(String s) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            Token.Kind kind;
            if (isNameStart(c)) {
                i = scanWord(s, i + 1);
                kind = Token.Kind.NAME;
            } else if (c == '#' || c == ':') {
                i = scanWord(s, i + 1);
                kind = i == start + 1 ? Token.Kind.UNKNOWN : c == '#' ? Token.Kind.NAME_REF : Token.Kind.VALUE_REF;
            } else if (c >= '0' && c <= '9') {
                while (i < n && Character.isLetterOrDigit(s.charAt(i))) {
                    i++;
                }
                kind = allDigits(s, start, i) ? Token.Kind.NUMBER : Token.Kind.UNKNOWN;
            } else {
                i++;
                kind = switch (c) {
                    case '(' -> Token.Kind.LPAREN;
                    case ')' -> Token.Kind.RPAREN;
                    case '[' -> Token.Kind.LBRACKET;
                    case ']' -> Token.Kind.RBRACKET;
                    case ',' -> Token.Kind.COMMA;
                    case '.' -> Token.Kind.DOT;
                    case '=' -> Token.Kind.EQ;
                    case '+' -> Token.Kind.PLUS;
                    case '-' -> Token.Kind.MINUS;
                    case '<' -> {
                        if (i < n && s.charAt(i) == '=') {
                            i++;
                            yield Token.Kind.LE;
                        }
                        if (i < n && s.charAt(i) == '>') {
                            i++;
                            yield Token.Kind.NE;
                        }
                        yield Token.Kind.LT;
                    }
                    case '>' -> {
                        if (i < n && s.charAt(i) == '=') {
                            i++;
                            yield Token.Kind.GE;
                        }
                        yield Token.Kind.GT;
                    }
                    default -> Token.Kind.UNKNOWN;
                };
            }
            tokens.add(new Token(kind, s.substring(start, i), start, i));
        }
        tokens.add(new Token(Token.Kind.EOF, "<EOF>", n, n));
        return tokens;
    }

    private static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    private static int scanWord(String s, int i) {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (!(isNameStart(c) || (c >= '0' && c <= '9'))) {
                break;
            }
            i++;
        }
        return i;
    }

    private static boolean allDigits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
