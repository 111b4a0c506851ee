package io.partita.protocol.model;

import io.partita.protocol.error.ApiException;
import java.math.BigDecimal;

/**
 * DynamoDB's number rules: up to 38 significant digits, magnitudes from 1E-130 to
 * 9.9999999999999999999999999999999999999E+125, and zero.
 *
 * <p>See "Data types" in the DynamoDB Developer Guide (HowItWorks.NamingRulesDataTypes). Values are kept normalised
 * ({@code stripTrailingZeros}) so that equal numbers are equal objects, which set duplicate checks rely on.
 */
public final class DynamoNumber {
    public static final int MAX_DIGITS = 38;
    /** The smallest exponent, in {@code 0.d × 10^e} form, of a non-zero number (1E-130 = 0.1E-129). */
    public static final int MIN_EXPONENT = -129;
    /** The largest exponent, in {@code 0.d × 10^e} form (9.99…E+125 = 0.999…E+126). */
    public static final int MAX_EXPONENT = 126;

    private DynamoNumber() {}

    /** Parses a number as DynamoDB accepts it, or throws DynamoDB's ValidationException. */
    public static BigDecimal parse(String text) {
        BigDecimal value;
        try {
            value = new BigDecimal(text);
        } catch (NumberFormatException e) {
            throw ApiException.validation("The parameter cannot be converted to a numeric value: " + text);
        }
        return check(value);
    }

    /** Normalises {@code value} and enforces DynamoDB's precision and range. */
    public static BigDecimal check(BigDecimal value) {
        if (value.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal stripped = value.stripTrailingZeros();
        long exponent = exponentOf(stripped);
        if (exponent > MAX_EXPONENT) {
            throw ApiException.validation(
                    "Number overflow. Attempting to store a number with magnitude larger than supported range");
        }
        if (exponent < MIN_EXPONENT) {
            throw ApiException.validation(
                    "Number underflow. Attempting to store a number with magnitude smaller than supported range");
        }
        if (stripped.precision() > MAX_DIGITS) {
            throw ApiException.validation("Attempting to store more than 38 significant digits in a Number");
        }
        return stripped;
    }

    /**
     * As {@link #check}, for the result of {@code +}, {@code -} or ADD: a result that would need more than 38
     * significant digits is refused as an overflow, as DynamoDB words it for arithmetic (ScyllaDB's alternator tests
     * against DynamoDB, test_update_expression_plus_imprecise), not with the message of a literal of 39 digits.
     */
    public static BigDecimal checkArithmetic(BigDecimal value) {
        if (value.signum() != 0 && value.stripTrailingZeros().precision() > MAX_DIGITS) {
            throw ApiException.validation(
                    "Number overflow. Attempting to store a number with magnitude larger than supported range");
        }
        return check(value);
    }

    /** The exponent {@code e} of a non-zero normalised value written as {@code 0.d1d2… × 10^e}, d1 ≠ 0. */
    public static long exponentOf(BigDecimal stripped) {
        return (long) stripped.precision() - stripped.scale();
    }

    /** DynamoDB's printed form: plain notation, no trailing zeros, no exponent. */
    public static String format(BigDecimal normalised) {
        return normalised.toPlainString();
    }
}
