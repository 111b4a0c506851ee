package io.partita.protocol.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.expr.ast.UpdateExpression;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExpressionParserTest {
    private static Condition cond(String s) {
        return ExpressionParser.parseCondition(s, "ConditionExpression");
    }

    @Test
    void notBindsTighterThanAndWhichBindsTighterThanOr() {
        Condition c = cond("NOT a = :a AND b = :b OR c = :c");
        assertThat(c).isInstanceOf(Condition.Or.class);
        Condition.Or or = (Condition.Or) c;
        assertThat(or.left()).isInstanceOf(Condition.And.class);
        assertThat(((Condition.And) or.left()).left()).isInstanceOf(Condition.Not.class);
        Condition grouped = cond("a = :a AND (b = :b OR c = :c)");
        assertThat(((Condition.And) grouped).right()).isInstanceOf(Condition.Or.class);
    }

    @Test
    void keywordsAreCaseInsensitiveFunctionsAreNot() {
        assertThat(cond("a between :x and :y")).isInstanceOf(Condition.Between.class);
        assertThat(cond("a In (:x, :y)")).isInstanceOf(Condition.In.class);
        assertThatThrownBy(() -> cond("ATTRIBUTE_EXISTS(a)"))
                .hasMessage("Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS");
    }

    @Test
    void parsesDocumentPathsWithPlaceholdersAndIndexes() {
        Condition c = cond("#a.b[3].#c = :v");
        Path p = (Path) ((Condition.Compare) c).left();
        assertThat(p.parts())
                .containsExactly(
                        new PathPart.Attr("#a", true),
                        new PathPart.Attr("b", false),
                        new PathPart.Index(3),
                        new PathPart.Attr("#c", true));
        assertThat(((Condition.Compare) c).right()).isEqualTo(new Operand.ValueRef(":v"));
    }

    @Test
    void parsesAllUpdateSections() {
        UpdateExpression u = ExpressionParser.parseUpdate(
                "SET a = :a, b = b + :one, c = if_not_exists(c, :z), d = list_append(d, :l) REMOVE e, f[1]"
                        + " ADD g :n DELETE h :s");
        assertThat(u.set()).hasSize(4);
        assertThat(u.set().get(1).value()).isInstanceOf(Operand.Arithmetic.class);
        assertThat(u.remove()).hasSize(2);
        assertThat(u.add()).hasSize(1);
        assertThat(u.delete()).hasSize(1);
        assertThat(ExpressionParser.parseUpdate("remove x set y = :v").set()).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SET a = = b | Invalid UpdateExpression: Syntax error; token: \"=\", near: \"= = b\"",
                "INVALID SYNTAX HERE | Invalid UpdateExpression: Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\"",
                "ADD hits : incr | Invalid UpdateExpression: Syntax error; token: \":\", near: \"hits : incr\"",
                "SET a = :a SET b = :b | Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;",
                "SET a = :a, | Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"",
                "SET a = size(b) | Invalid UpdateExpression: The function is not allowed in an update expression; function: size",
                "SET a = if_not_exist(a, :v) | Invalid UpdateExpression: Invalid function name; function: if_not_exist",
                "SET status = :v | Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status",
                "'   ' | Invalid UpdateExpression: The expression can not be empty;",
            })
    void updateErrorsUseDynamoDbWording(String expression, String message) {
        assertThatThrownBy(() -> ExpressionParser.parseUpdate(expression))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "attribute_exists(car_id) AND NOT #h | Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"#h\"",
                "size(a) | Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size",
                "attribute_exists(a) > :b | Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists",
                "a = if_not_exists(a, :b) | Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists",
                "starts_with(a, :b) | Invalid ConditionExpression: Invalid function name; function: starts_with",
                "((a = :b)) | Invalid ConditionExpression: The expression has redundant parentheses;",
                "a = :b AND | Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\"",
                "Name = :n | Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Name",
                "a.b[x] = :v | Invalid ConditionExpression: Syntax error; token: \"x\", near: \"[x]\"",
            })
    void conditionErrorsUseDynamoDbWording(String expression, String message) {
        assertThatThrownBy(() -> cond(expression))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @Test
    void enforcesSizeOperatorAndPathLimits() {
        String big = "a = :v AND " + "b = :v AND ".repeat(400) + "c = :v";
        assertThatThrownBy(() -> cond(big))
                .hasMessageStartingWith("Invalid ConditionExpression: Expression size has exceeded the maximum allowed"
                        + " size; expression size: ");
        String many = String.join(" AND ", java.util.Collections.nCopies(151, "a = :v"));
        assertThatThrownBy(() -> cond(many))
                .hasMessage("Invalid ConditionExpression: The expression contains too many operators; operator count:"
                        + " 301");
        String deep = "a" + ".b".repeat(32) + " = :v";
        assertThatThrownBy(() -> cond(deep))
                .hasMessage("Invalid ConditionExpression: The document path has too many nesting levels; nesting"
                        + " levels: 33");
        assertThat(cond("a" + ".b".repeat(31) + " = :v")).isNotNull();
    }

    @Test
    void hostileNestingEndsInAValidationErrorNotAStackOverflow() {
        String parens = "(".repeat(2000) + "a = :v" + ")".repeat(2000);
        assertThatThrownBy(() -> cond(parens)).isInstanceOf(ApiException.class);
        String nots = "NOT ".repeat(1000) + "a = :v";
        assertThatThrownBy(() -> cond(nots)).isInstanceOf(ApiException.class);
    }

    @Test
    void parsesProjections() {
        List<Path> paths = ExpressionParser.parseProjection("a, #b.c, d[0].e");
        assertThat(paths).hasSize(3);
        assertThat(paths.get(2).toString()).isEqualTo("[d, [0], e]");
    }
}
