package io.partita.server.auth;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Open mode: any well-formed SigV4 {@code Authorization} header is accepted, with any key and any region; the
 * signature itself is not checked. Missing or malformed headers get the errors DynamoDB's front end gives.
 */
public final class OpenAuthenticator {
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";

    public Credentials authenticate(String authorization, String amzDate) {
        if (authorization == null || authorization.isBlank()) {
            throw new ApiException(ErrorCode.MISSING_AUTHENTICATION_TOKEN, "Request is missing Authentication Token");
        }
        String header = authorization.strip();
        String params = header.startsWith(ALGORITHM) ? header.substring(ALGORITHM.length()) : header;
        Map<String, String> values = new HashMap<>();
        for (String part : params.split(",")) {
            String token = part.strip();
            if (token.isEmpty()) {
                continue;
            }
            int eq = token.indexOf('=');
            if (eq < 0) {
                throw incomplete("'" + token + "' not a valid key=value pair (missing equal-sign) in Authorization"
                        + " header: '" + authorization + "'.");
            }
            values.put(token.substring(0, eq).strip(), token.substring(eq + 1).strip());
        }
        List<String> missing = new ArrayList<>();
        for (String required : List.of("Credential", "Signature", "SignedHeaders")) {
            if (!values.containsKey(required)) {
                missing.add("Authorization header requires '" + required + "' parameter.");
            }
        }
        if (amzDate == null) {
            missing.add("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
        }
        if (!missing.isEmpty()) {
            throw incomplete(String.join(" ", missing) + " Authorization=" + authorization);
        }
        String[] scope = values.get("Credential").split("/");
        if (scope.length != 5 || scope[0].isEmpty() || scope[2].isEmpty()) {
            throw incomplete("Credential should be scoped to a valid region, not '" + (scope.length > 2 ? scope[2] : "")
                    + "'. ");
        }
        return new Credentials(scope[0], scope[2]);
    }

    private static ApiException incomplete(String message) {
        return new ApiException(ErrorCode.INCOMPLETE_SIGNATURE, message);
    }
}
