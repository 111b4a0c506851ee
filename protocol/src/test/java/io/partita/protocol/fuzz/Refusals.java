package io.partita.protocol.fuzz;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.util.Set;

/** What a fuzz target accepts as a refusal: one of DynamoDB's 4xx errors, with a message where DynamoDB gives one. */
final class Refusals {
    private Refusals() {}

    static void check(ApiException e, ErrorCode... allowed) {
        if (!Set.of(allowed).contains(e.code())) {
            throw new AssertionError("refused with " + e.code() + ": " + e.getMessage(), e);
        }
        if (e.code().httpStatus() >= 500) {
            throw new AssertionError("a 5xx for bad input: " + e.getMessage(), e);
        }
        // DynamoDB's SerializationException for a body that is not JSON has no message (DynamoJson.decode).
        if (e.code() != ErrorCode.SERIALIZATION
                && (e.getMessage() == null || e.getMessage().isEmpty())) {
            throw new AssertionError("a refusal without a message: " + e.code(), e);
        }
    }
}
