package io.partita.protocol.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProjectionApplierTest {
    private static final String ITEM =
            "{'a':{'M':{'b':{'N':'1'},'c':{'L':[{'S':'x'},{'M':{'d':{'S':'y'},'e':{'S':'z'}}}]}}},"
                    + "'f':{'S':'g'},'l':{'L':[{'N':'0'},{'N':'1'},{'N':'2'}]}}";

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "f | {'f':{'S':'g'}}",
                "a.b | {'a':{'M':{'b':{'N':'1'}}}}",
                "a.c[1].d | {'a':{'M':{'c':{'L':[{'M':{'d':{'S':'y'}}}]}}}}",
                "l[2], l[0] | {'l':{'L':[{'N':'0'},{'N':'2'}]}}",
                "l[7], nothing, a.zz | {}",
                "#x.b, f | {'a':{'M':{'b':{'N':'1'}}},'f':{'S':'g'}}",
            })
    void projectsDocumentPaths(String projection, String expected) {
        ExpressionResolver r = Fixtures.resolver(projection.contains("#x") ? "{'#x':'a'}" : null, null);
        var paths = r.resolveProjection(ExpressionParser.parseProjection(projection));
        assertThat(ProjectionApplier.project(Fixtures.item(ITEM), paths)).isEqualTo(Fixtures.item(expected));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "a, a.b | Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]",
                "a.b, a[0] | Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]",
                "a[99999999999999] | Invalid ProjectionExpression: List index is not within the allowable range; index: [99999999999999]",
            })
    void refusesBadPaths(String projection, String message) {
        assertThatThrownBy(() ->
                        Fixtures.resolver(null, null).resolveProjection(ExpressionParser.parseProjection(projection)))
                .hasMessage(message);
    }
}
