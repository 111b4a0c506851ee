package io.partita.protocol.validate;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConstraintSetTest {
    @Test
    void oneFailureIsSingular() {
        assertThatThrownBy(() -> new ConstraintSet().notNull("tableName", null).check())
                .hasMessage("1 validation error detected: Value null at 'tableName' failed to satisfy constraint:"
                        + " Member must not be null");
    }

    @Test
    void severalFailuresAreJoinedWithSemicolons() {
        assertThatThrownBy(() -> new ConstraintSet()
                        .atLeast("provisionedThroughput.writeCapacityUnits", 0L, 1)
                        .atLeast("provisionedThroughput.readCapacityUnits", 0L, 1)
                        .check())
                .hasMessage("2 validation errors detected: Value '0' at 'provisionedThroughput.writeCapacityUnits'"
                        + " failed to satisfy constraint: Member must have value greater than or equal to 1; Value '0'"
                        + " at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must"
                        + " have value greater than or equal to 1");
    }

    @Test
    void patternsLengthsAndEnums() {
        assertThatThrownBy(() -> new ConstraintSet()
                        .pattern("tableName", "a b", Pattern.compile("[a-zA-Z0-9_.-]+"))
                        .check())
                .hasMessageEndingWith("Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
        assertThatThrownBy(() ->
                        new ConstraintSet().length("tableName", "ab", 3, 255).check())
                .hasMessageEndingWith("Member must have length greater than or equal to 3");
        assertThatThrownBy(() -> new ConstraintSet()
                        .enumValue("keyType", "X", List.of("HASH", "RANGE"))
                        .check())
                .hasMessageEndingWith("Member must satisfy enum value set: [HASH, RANGE]");
        assertThatCode(() -> new ConstraintSet().length("t", null, 3, 5).check())
                .doesNotThrowAnyException();
    }

    @Test
    void listsAtMostTenFailuresButCountsAll() {
        ConstraintSet c = new ConstraintSet();
        for (int i = 0; i < 12; i++) {
            c.notNull("m" + i, null);
        }
        assertThatThrownBy(c::check)
                .hasMessageStartingWith("12 validation errors detected: ")
                .hasMessageContaining("'m9'")
                .hasMessageNotContaining("'m10'");
    }
}
