package io.partita.protocol.expr;

import io.partita.protocol.error.ApiException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever the input, the parser returns an AST or throws DynamoDB's ValidationException: nothing else. */
class ExpressionParserProperties {
    @Provide
    Arbitrary<String> expressionish() {
        Arbitrary<String> tokens = Arbitraries.of(
                "a",
                "#n",
                ":v",
                "(",
                ")",
                "[",
                "]",
                "0",
                "12",
                ",",
                ".",
                "=",
                "<>",
                "<",
                "<=",
                ">",
                ">=",
                "+",
                "-",
                " ",
                "AND",
                "OR",
                "NOT",
                "BETWEEN",
                "IN",
                "SET",
                "REMOVE",
                "ADD",
                "DELETE",
                "size",
                "contains",
                "begins_with",
                "attribute_exists",
                "if_not_exists",
                "list_append",
                "status",
                "!",
                "\"",
                "é");
        return tokens.list().ofMaxSize(40).map(l -> String.join(" ", l));
    }

    @Property(tries = 2000)
    void conditionsFailOnlyWithApiExceptions(@ForAll("expressionish") String s) {
        try {
            ExpressionParser.parseCondition(s, "ConditionExpression");
        } catch (ApiException expected) {
            // The only acceptable failure.
        }
    }

    @Property(tries = 2000)
    void updatesFailOnlyWithApiExceptions(@ForAll("expressionish") String s) {
        try {
            ExpressionParser.parseUpdate(s);
        } catch (ApiException expected) {
            // The only acceptable failure.
        }
    }

    @Property(tries = 1000)
    void arbitraryTextFailsOnlyWithApiExceptions(@ForAll String s) {
        try {
            ExpressionParser.parseCondition(s, "FilterExpression");
            ExpressionParser.parseProjection(s);
        } catch (ApiException expected) {
            // The only acceptable failure.
        }
    }
}
