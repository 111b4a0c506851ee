package io.partita.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * Checks for the ValidationExceptions of expression and legacy-parameter errors.
 *
 * <p>Since 2026 some DynamoDB regions wrap the request-validation errors of PutItem, UpdateItem and DeleteItem as
 * {@code 1 validation error detected: <message>} while others send the bare message (paritysuite/dynamodb-conformance,
 * tier3 error-message tests, captured from eu-west-2 and us-east-1). {@link #assertInvalid} accepts either form, so
 * the same test runs against both; Partita sends the bare message.
 */
public final class ExpressionErrors {
    private static final String ENVELOPE = "1 validation error detected: ";

    private ExpressionErrors() {}

    /** A ValidationException whose message is exactly {@code message}, optionally inside the one-error envelope. */
    public static DynamoDbException assertInvalid(String message, ThrowingCallable call) {
        DynamoDbException e = validation(message, call);
        String actual = e.awsErrorDetails().errorMessage();
        String bare = actual != null && actual.startsWith(ENVELOPE) ? actual.substring(ENVELOPE.length()) : actual;
        assertThat("ValidationException: " + bare).isEqualTo("ValidationException: " + message);
        return e;
    }

    /**
     * A ValidationException whose message contains every fragment, for errors whose full wording has no evidence
     * yet (the fragments are the parts that do).
     */
    public static DynamoDbException assertInvalidContaining(ThrowingCallable call, String... fragments) {
        DynamoDbException e = validation(String.join(" … ", fragments), call);
        assertThat(e.awsErrorDetails().errorMessage()).contains(fragments);
        return e;
    }

    private static DynamoDbException validation(String expected, ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).as("expected ValidationException: %s", expected).isInstanceOf(DynamoDbException.class);
        DynamoDbException e = (DynamoDbException) thrown;
        assertThat(e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage())
                .as("error code")
                .startsWith("ValidationException: ");
        assertThat(e.statusCode()).isEqualTo(400);
        return e;
    }
}
