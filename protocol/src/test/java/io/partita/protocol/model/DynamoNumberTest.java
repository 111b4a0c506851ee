package io.partita.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DynamoNumberTest {
    @ParameterizedTest
    @CsvSource({
        "1.50, 1.5",
        "0100, 100",
        "1E2, 100",
        "1e+2, 100",
        "-0, 0",
        "0.000, 0",
        "-1.0, -1",
        ".5, 0.5",
        "12345678901234567890123456789012345678, 12345678901234567890123456789012345678",
        "1234567890123456789012345678901234567800000, 1234567890123456789012345678901234567800000",
    })
    void normalisesAsDynamoDbPrints(String input, String printed) {
        assertThat(DynamoNumber.format(DynamoNumber.parse(input))).isEqualTo(printed);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "abc | The parameter cannot be converted to a numeric value: abc",
                "NaN | The parameter cannot be converted to a numeric value: NaN",
                "' 1' | The parameter cannot be converted to a numeric value:  1",
                "123456789012345678901234567890123456789 | Attempting to store more than 38 significant digits in a Number",
                "1E+126 | Number overflow. Attempting to store a number with magnitude larger than supported range",
                "-1E+126 | Number overflow. Attempting to store a number with magnitude larger than supported range",
                "1E-131 | Number underflow. Attempting to store a number with magnitude smaller than supported range",
                "1E999999999999 | The parameter cannot be converted to a numeric value: 1E999999999999",
            })
    void rejectsWithDynamoDbMessages(String input, String message) {
        assertThatThrownBy(() -> DynamoNumber.parse(input))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION))
                .hasMessage(message);
    }

    @Test
    void printsTheSmallestMagnitudeInPlainNotation() {
        assertThat(DynamoNumber.format(DynamoNumber.parse("1E-130"))).isEqualTo("0." + "0".repeat(129) + "1");
        assertThat(DynamoNumber.format(DynamoNumber.parse("1E+125"))).isEqualTo("1" + "0".repeat(125));
    }

    @Test
    void emptyTextIsNotANumber() {
        assertThatThrownBy(() -> DynamoNumber.parse(""))
                .hasMessage("The parameter cannot be converted to a numeric value: ");
    }

    @ParameterizedTest
    @CsvSource({"9.9999999999999999999999999999999999999E+125", "-9.9999999999999999999999999999999999999E+125"})
    void acceptsTheExtremes(String input) {
        assertThat(DynamoNumber.parse(input).precision()).isEqualTo(38);
    }
}
