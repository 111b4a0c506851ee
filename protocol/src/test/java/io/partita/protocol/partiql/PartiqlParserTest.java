package io.partita.protocol.partiql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql.Compare;
import io.partita.protocol.partiql.Partiql.Logic;
import io.partita.protocol.partiql.Partiql.Path;
import io.partita.protocol.partiql.Partiql.Value;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartiqlParserTest {
    private static Partiql.Statement parse(String s, AttributeValue... params) {
        return PartiqlParser.parse(s, params.length == 0 ? null : List.of(params));
    }

    private static void malformed(String statement, String detail) {
        assertThatThrownBy(() -> parse(statement))
                .isInstanceOf(ApiException.class)
                .hasMessage("Statement wasn't well formed, can't be processed: " + detail);
    }

    private static Path path(Object... steps) {
        return new Path(List.of(steps));
    }

    @Test
    void aSelectWithProjectionIndexWhereAndOrder() {
        var s = (Partiql.Select)
                parse("select a, \"b\".c[2] FROM \"Music\".\"by-year\" WHERE pk = 'x' AND sk >= 3 ORDER BY sk DESC;");
        assertThat(s.projection()).containsExactly(path("a"), path("b", "c", 2));
        assertThat(s.table()).isEqualTo("Music");
        assertThat(s.index()).isEqualTo("by-year");
        assertThat(s.where())
                .isEqualTo(new Logic(
                        true,
                        new Compare("=", path("pk"), new Value(new AttributeValue.S("x"))),
                        new Compare(">=", path("sk"), new Value(new AttributeValue.N(new BigDecimal("3"))))));
        assertThat(s.orderBy()).containsExactly(new Partiql.Order("sk", true));
    }

    @Test
    void literalsAndParameters() {
        var s = (Partiql.Insert) parse(
                "INSERT INTO t VALUE {'pk': ?, 'n': -1.5e2, 'ok': true, 'z': null, 'l': [1, 'two'], 'm': {'k': 'it''s'},"
                        + " 'ss': <<'a', 'b'>>, 'ns': <<1, 2>>}",
                new AttributeValue.S("key"));
        Map<String, AttributeValue> item = s.item().values();
        assertThat(item.get("pk")).isEqualTo(new AttributeValue.S("key"));
        assertThat(item.get("n")).isEqualTo(AttributeValue.N.of("-150"));
        assertThat(item.get("ok")).isEqualTo(new AttributeValue.Bool(true));
        assertThat(item.get("z")).isEqualTo(new AttributeValue.Null());
        assertThat(item.get("l"))
                .isEqualTo(new AttributeValue.L(List.of(AttributeValue.N.of("1"), new AttributeValue.S("two"))));
        assertThat(item.get("m")).isEqualTo(new AttributeValue.M(Map.of("k", new AttributeValue.S("it's"))));
        assertThat(item.get("ss")).isEqualTo(new AttributeValue.SS(List.of("a", "b")));
        assertThat(item.get("ns")).isInstanceOf(AttributeValue.NS.class);
    }

    @Test
    void updatesInBothOrdersAndDeletes() {
        var u = (Partiql.Update)
                parse("UPDATE t SET a = a + 1, b = 'x' REMOVE c[0] WHERE pk = 'k' RETURNING MODIFIED NEW *");
        assertThat(u.actions()).hasSize(3);
        assertThat(u.actions().get(2)).isEqualTo(new Partiql.Action(path("c", 0), null));
        assertThat(u.returning()).isEqualTo("MODIFIED NEW");
        var first = (Partiql.Update) parse("FROM t WHERE pk = 'k' SET a = 1");
        assertThat(first.table()).isEqualTo("t");
        var d = (Partiql.Delete) parse("DELETE FROM t WHERE pk = 'k' RETURNING ALL OLD *");
        assertThat(d.returning()).isEqualTo("ALL OLD");
        assertThatThrownBy(() -> parse("DELETE FROM t WHERE pk = 'k' RETURNING ALL NEW *"))
                .hasMessage("Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in"
                        + " DELETE statements.");
        assertThat(parse("EXISTS(SELECT * FROM t WHERE pk = 'k' AND a = 1)")).isInstanceOf(Partiql.Exists.class);
    }

    @Test
    void predicates() {
        var s = (Partiql.Select) parse("SELECT * FROM t WHERE a BETWEEN 1 AND 2 OR b IN [1, 2] AND NOT c IS MISSING"
                + " OR d IS NOT NULL OR begins_with(e, 'x') OR size(f) > 3 OR g NOT IN (1)");
        assertThat(s.where()).isInstanceOf(Logic.class);
    }

    @Test
    void longChainsParseWithoutDeepRecursionAndDeepNestingIsRefused() {
        var nots = (Partiql.Select) parse("SELECT * FROM t WHERE " + "NOT ".repeat(2000) + "a = 1");
        assertThat(nots.where()).isInstanceOf(Partiql.Not.class);
        assertThat(parse("SELECT * FROM t WHERE a = 1" + " OR a = 1".repeat(1500)))
                .isInstanceOf(Partiql.Select.class);
        assertThatThrownBy(() -> parse("SELECT * FROM t WHERE " + "(".repeat(100) + "a = 1" + ")".repeat(100)))
                .isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> parse("INSERT INTO t VALUE {'a': " + "[".repeat(33) + "1" + "]".repeat(33) + "}"))
                .hasMessageStartingWith("Nesting Levels have exceeded supported limits");
    }

    @Test
    void commentsAndCaseDoNotMatter() {
        assertThat(parse("/* x */ SeLeCt * -- all\n FROM t WhErE pk = 'a'"))
                .isEqualTo(parse("SELECT * FROM t WHERE pk = 'a'"));
    }

    @Test
    void syntaxErrorsInDynamoDbsWords() {
        malformed("SELECT * FROM t WHERE", "Unexpected term");
        malformed("SELECT * FROM t WHERE a = 1 AND", "Missing right-hand side expression of infix operator");
        malformed("SELECT * FROM t WHERE a = 1)", "Unexpected token after expression");
        malformed("DELETE FROM WHERE a = 1", "Expected identifier for simple path");
        malformed("INSERT INTO t (a) VALUES (1)", "Unexpected keyword");
        malformed("UPSERT INTO t VALUE {'a': 1}", "Expected data manipulation");
        malformed("SELECT * FROM t WHERE a IS INT4", "Expected type name");
        malformed("SELECT * FROM t WHERE a = 'unterminated", "");
        assertThatThrownBy(() -> parse("SELECT * FROM t AS x")).hasMessage("Aliasing is not supported");
        assertThatThrownBy(() -> parse("SELECT * FROM t WHERE a = ?"))
                .hasMessage("Number of parameters in request and statement don't match.");
        assertThatThrownBy(() -> parse("SELECT * FROM t", new AttributeValue.S("extra")))
                .hasMessage("Number of parameters in request and statement don't match.");
        assertThatThrownBy(() -> parse("INSERT INTO t VALUE {'s': <<>>}")).hasMessage("Empty bags are not supported");
        assertThatThrownBy(() -> parse("INSERT INTO t VALUE {'s': <<'x', 'x'>>}"))
                .hasMessage("One or more parameter values were invalid: Input collection [x, x] contains duplicates.");
        assertThatThrownBy(() -> parse("INSERT INTO t VALUE [1]"))
                .hasMessageStartingWith("Unsupported format in item expression.");
        assertThatThrownBy(() -> parse("SELECT * FROM t WHERE a = 1e999999"))
                .hasMessage("Number overflow. Attempting to store a number with magnitude larger than supported range");
        malformed("SELECT * FROM t WHERE a[99999999999] = 1", "Unexpected term");
    }
}
