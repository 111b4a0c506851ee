package io.partita.server.auth;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;

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
        // One pass over "k=v, k=v, ..." without splitting into arrays and maps: this runs for every request.
        String credential = null;
        String signature = null;
        String signedHeaders = null;
        int n = params.length();
        for (int at = 0; at <= n; ) {
            int comma = params.indexOf(',', at);
            int end = comma < 0 ? n : comma;
            int from = skipSpace(params, at, end);
            int to = trimSpace(params, from, end);
            if (from < to) {
                int eq = params.indexOf('=', from);
                if (eq < 0 || eq >= to) {
                    throw incomplete("'" + params.substring(from, to) + "' not a valid key=value pair (missing"
                            + " equal-sign) in Authorization header: '" + authorization + "'.");
                }
                String value = params.substring(skipSpace(params, eq + 1, to), to);
                int keyEnd = trimSpace(params, from, eq);
                if (is(params, from, keyEnd, "Credential")) {
                    credential = value;
                } else if (is(params, from, keyEnd, "Signature")) {
                    signature = value;
                } else if (is(params, from, keyEnd, "SignedHeaders")) {
                    signedHeaders = value;
                }
            }
            at = end + 1;
        }
        if (credential == null || signature == null || signedHeaders == null || amzDate == null) {
            List<String> missing = new ArrayList<>();
            if (credential == null) {
                missing.add("Authorization header requires 'Credential' parameter.");
            }
            if (signature == null) {
                missing.add("Authorization header requires 'Signature' parameter.");
            }
            if (signedHeaders == null) {
                missing.add("Authorization header requires 'SignedHeaders' parameter.");
            }
            if (amzDate == null) {
                missing.add("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
            }
            throw incomplete(String.join(" ", missing) + " Authorization=" + authorization);
        }
        // key/date/region/service/aws4_request. Trailing slashes are ignored, as String.split would.
        int end = credential.length();
        while (end > 0 && credential.charAt(end - 1) == '/') {
            end--;
        }
        int s1 = credential.indexOf('/');
        int s2 = s1 < 0 ? -1 : credential.indexOf('/', s1 + 1);
        int s3 = s2 < 0 ? -1 : credential.indexOf('/', s2 + 1);
        int s4 = s3 < 0 ? -1 : credential.indexOf('/', s3 + 1);
        int s5 = s4 < 0 ? -1 : credential.indexOf('/', s4 + 1);
        if (s1 > 0 && s3 > s2 + 1 && s4 >= 0 && s4 < end && (s5 < 0 || s5 >= end)) {
            return new Credentials(
                    credential.substring(0, s1), credential.substring(s2 + 1, s3), Credentials.OPEN_ACCOUNT);
        }
        String[] scope = credential.split("/");
        if (scope.length != 5 || scope[0].isEmpty() || scope[2].isEmpty()) {
            throw incomplete("Credential should be scoped to a valid region, not '" + (scope.length > 2 ? scope[2] : "")
                    + "'. ");
        }
        return new Credentials(scope[0], scope[2], Credentials.OPEN_ACCOUNT);
    }

    private static int skipSpace(String s, int from, int to) {
        while (from < to && Character.isWhitespace(s.charAt(from))) {
            from++;
        }
        return from;
    }

    private static int trimSpace(String s, int from, int to) {
        while (to > from && Character.isWhitespace(s.charAt(to - 1))) {
            to--;
        }
        return to;
    }

    private static boolean is(String s, int from, int to, String key) {
        return to - from == key.length() && s.startsWith(key, from);
    }

    private static ApiException incomplete(String message) {
        return new ApiException(ErrorCode.INCOMPLETE_SIGNATURE, message);
    }
}
