package io.partita.protocol.error;

import java.util.Map;

/**
 * The only failure a client ever sees: a DynamoDB error type, its message, and optional extra body fields.
 *
 * <p>These are expected outcomes, so they are stackless: building one costs no stack walk.
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final transient Map<String, Object> extraFields;

    public ApiException(ErrorCode code, String message) {
        this(code, message, Map.of());
    }

    public ApiException(ErrorCode code, String message, Map<String, Object> extraFields) {
        super(message, null, false, false);
        this.code = code;
        this.extraFields = Map.copyOf(extraFields);
    }

    public ErrorCode code() {
        return code;
    }

    /** Fields written into the error body beside {@code __type} and {@code message}. */
    public Map<String, Object> extraFields() {
        return extraFields;
    }

    public static ApiException validation(String message) {
        return new ApiException(ErrorCode.VALIDATION, message);
    }

    /** A validation error prefixed the way DynamoDB words semantic parameter errors. */
    public static ApiException invalidParameter(String detail) {
        return validation("One or more parameter values were invalid: " + detail);
    }

    public static ApiException serialization(String message) {
        return new ApiException(ErrorCode.SERIALIZATION, message);
    }

    public static ApiException resourceNotFound(String message) {
        return new ApiException(ErrorCode.RESOURCE_NOT_FOUND, message);
    }

    public static ApiException resourceInUse(String message) {
        return new ApiException(ErrorCode.RESOURCE_IN_USE, message);
    }

    public static ApiException limitExceeded(String message) {
        return new ApiException(ErrorCode.LIMIT_EXCEEDED, message);
    }

    public static ApiException unknownOperation(String message) {
        return new ApiException(ErrorCode.UNKNOWN_OPERATION, message);
    }
}
