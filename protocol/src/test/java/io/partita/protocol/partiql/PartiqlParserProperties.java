package io.partita.protocol.partiql;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.error.ApiException;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class PartiqlParserProperties {
    private static final String[] STATEMENTS = {
        "SELECT a, b.c[1] FROM t WHERE pk = 'x' AND (n BETWEEN 1 AND 2 OR NOT m IS MISSING) ORDER BY sk DESC",
        "INSERT INTO t VALUE {'pk': 'x', 'n': 1, 'l': [true, null], 'm': {'k': <<'a'>>}}",
        "UPDATE t SET a = a + 1 REMOVE b WHERE pk = 'x' AND attribute_exists(c) RETURNING ALL NEW *",
        "DELETE FROM t WHERE pk = 'x' AND size(s) > 2 RETURNING ALL OLD *"
    };

    /** Keyword case and the whitespace between tokens change nothing. */
    @Property
    void caseAndSpacingDoNotChangeTheStatement(
            @ForAll("statements") int which, @ForAll("spacing") String space, @ForAll boolean upper) {
        String original = STATEMENTS[which];
        String respaced = original.replace(" ", space);
        String recased = upper ? respaced.toUpperCase(Locale.ROOT) : respaced.toLowerCase(Locale.ROOT);
        // Identifiers and strings are case-sensitive: compare only when the case change kept them.
        assertThat(PartiqlParser.parse(respaced, null)).isEqualTo(PartiqlParser.parse(original, null));
        try {
            PartiqlParser.parse(recased, null);
        } catch (ApiException e) {
            throw new AssertionError("a change of case broke " + recased + ": " + e.getMessage(), e);
        }
    }

    /** Whatever is cut off the end of a statement, parsing answers a ValidationException, never another error. */
    @Property
    void aTruncatedStatementIsAValidationError(@ForAll("statements") int which, @ForAll("cuts") int cut) {
        String s = STATEMENTS[which];
        String truncated = s.substring(0, Math.min(cut, s.length()));
        try {
            PartiqlParser.parse(truncated, null);
        } catch (ApiException e) {
            assertThat(e.code()).isEqualTo(io.partita.protocol.error.ErrorCode.VALIDATION);
        }
    }

    @Provide
    Arbitrary<Integer> statements() {
        return Arbitraries.integers().between(0, STATEMENTS.length - 1);
    }

    @Provide
    Arbitrary<String> spacing() {
        return Arbitraries.of(" ", "  ", "\n", "\t ", " /* c */ ", " -- c\n");
    }

    @Provide
    Arbitrary<Integer> cuts() {
        return Arbitraries.integers().between(0, 120);
    }
}
