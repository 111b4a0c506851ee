package io.partita.server.op.item;

import io.partita.protocol.error.ApiException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * ProjectionExpression limited to top-level attributes ({@code a, #b}). Nested paths arrive with the expression
 * engine (#3); until then they are refused with a clear error rather than projected wrongly.
 */
final class TopLevelProjection {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    private static final Pattern PLACEHOLDER = Pattern.compile("#[A-Za-z0-9_]+");

    private TopLevelProjection() {}

    static List<String> parse(String expression, Map<String, String> names) {
        if (expression.isBlank()) {
            throw ApiException.validation("Invalid ProjectionExpression: The expression can not be empty;");
        }
        Set<String> usedPlaceholders = new LinkedHashSet<>();
        List<String> attributes = new ArrayList<>();
        for (String raw : expression.split(",", -1)) {
            String token = raw.strip();
            if (token.contains(".") || token.contains("[")) {
                throw ApiException.validation("Invalid ProjectionExpression: nested attribute paths are not supported"
                        + " by this version of Partita; path: " + token);
            }
            if (PLACEHOLDER.matcher(token).matches()) {
                String name = names == null ? null : names.get(token);
                if (name == null) {
                    throw ApiException.validation("Invalid ProjectionExpression: An expression attribute name used in"
                            + " the document path is not defined; attribute name: " + token);
                }
                usedPlaceholders.add(token);
                attributes.add(name);
            } else if (NAME.matcher(token).matches()) {
                attributes.add(token);
            } else {
                String shown = token.isEmpty() ? "," : token;
                throw ApiException.validation("Invalid ProjectionExpression: Syntax error; token: \"" + shown
                        + "\", near: \"" + expression.strip() + "\"");
            }
        }
        if (names != null && !usedPlaceholders.containsAll(names.keySet())) {
            Set<String> unused = new TreeSet<>(names.keySet());
            unused.removeAll(usedPlaceholders);
            throw ApiException.validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {"
                    + String.join(", ", unused) + "}");
        }
        return attributes;
    }
}
