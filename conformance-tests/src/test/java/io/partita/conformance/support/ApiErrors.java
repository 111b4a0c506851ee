package io.partita.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/** Checks that a request fails the way DynamoDB fails it: error code, exact message, HTTP 400, SDK exception type. */
public final class ApiErrors {
    private ApiErrors() {}

    /**
     * Runs {@code call} and checks its error. Code and message are compared together first, so a mismatch shows
     * both at once; ValidationException is not modelled by the SDK and arrives as a plain {@link DynamoDbException}.
     */
    public static <T extends DynamoDbException> T assertError(
            Class<T> type, String errorCode, String message, ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).as("expected %s: %s", errorCode, message).isInstanceOf(DynamoDbException.class);
        DynamoDbException e = (DynamoDbException) thrown;
        assertThat(e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage())
                .isEqualTo(errorCode + ": " + message);
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e).isInstanceOf(type);
        return type.cast(e);
    }

    /** A ValidationException with exactly {@code message}. */
    public static DynamoDbException assertValidation(String message, ThrowingCallable call) {
        return assertError(DynamoDbException.class, "ValidationException", message, call);
    }
}
