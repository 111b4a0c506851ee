package io.partita.server.auth;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Strict mode: AWS Signature Version 4, verified as DynamoDB verifies it, for the {@code Authorization} header and for
 * presigned query strings ({@code X-Amz-Signature}, {@code X-Amz-Credential}, … in the URL). The algorithm is the one
 * in "Create a signed AWS API request" (IAM User Guide): a canonical request (method, path, sorted query, the signed
 * headers, the payload's SHA-256), a string to sign over its hash and the credential scope, and an HMAC chain from the
 * secret key through the date, region and service.
 *
 * <p>Errors are DynamoDB's: {@code MissingAuthenticationTokenException} without any signature,
 * {@code IncompleteSignatureException} for a malformed one, {@code UnrecognizedClientException} for an unknown access
 * key, {@code InvalidSignatureException} for a wrong scope, a time more than 15 minutes away from the server's (in the
 * past or the future), or a signature that does not match.
 */
public final class SigV4Verifier {
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final Duration SKEW = Duration.ofMinutes(15);
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();
    private static final String MISMATCH = "The request signature we calculated does not match the signature you"
            + " provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for"
            + " details.";
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    });
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    });

    /** A request's parts that SigV4 signs. Header names are asked for in lower case; values in the order sent. */
    public interface Request {
        String method();

        /** The path as sent, before any {@code ?}. */
        String path();

        /** The query string as sent (after {@code ?}), or null. */
        String query();

        List<String> header(String lowerCaseName);

        byte[] body();
    }

    private final Accounts accounts;
    private final Clock clock;
    private final OpenAuthenticator shape = new OpenAuthenticator();
    /** Signing keys by access key, date, region and service: four HMACs saved per request. */
    private final Map<String, byte[]> signingKeys = new ConcurrentHashMap<>();

    public SigV4Verifier(Accounts accounts, Clock clock) {
        this.accounts = accounts;
        this.clock = clock;
    }

    /** The caller, once its signature is verified; otherwise DynamoDB's error. */
    public Credentials verify(Request r) {
        Signed s = r.query() != null && r.query().contains("X-Amz-Signature=") ? presigned(r) : header(r);
        Accounts.Key key = accounts.find(s.accessKey);
        if (key == null) {
            throw new ApiException(
                    ErrorCode.UNRECOGNIZED_CLIENT, "The security token included in the request is invalid.");
        }
        if (!"dynamodb".equals(s.service)) {
            throw invalid("Credential should be scoped to correct service: 'dynamodb'. ");
        }
        if (!s.amzDate.startsWith(s.scopeDate)) {
            throw invalid("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"
                    + s.scopeDate + "' != '" + s.amzDate.substring(0, Math.min(8, s.amzDate.length())) + "', from '"
                    + s.amzDate + "'.");
        }
        checkTime(s.amzDate, s.expiresSeconds);
        String canonical = canonicalRequest(r, s);
        String scope = s.scopeDate + "/" + s.region + "/" + s.service + "/aws4_request";
        String toSign = ALGORITHM + "\n" + s.amzDate + "\n" + scope + "\n" + hex(sha256(bytes(canonical)));
        byte[] signingKey = signingKeys.computeIfAbsent(
                key.accessKeyId() + "/" + scope,
                k -> deriveKey(key.secretAccessKey(), s.scopeDate, s.region, s.service));
        if (signingKeys.size() > 10_000) {
            signingKeys.clear(); // a new day's keys replace the old ones; bounded whatever the callers send
        }
        byte[] expected = hmac(signingKey, bytes(toSign));
        byte[] given;
        try {
            given = HEX.parseHex(s.signature);
        } catch (IllegalArgumentException e) {
            throw invalid(MISMATCH);
        }
        if (!MessageDigest.isEqual(expected, given)) {
            throw invalid(MISMATCH);
        }
        return new Credentials(key.accessKeyId(), s.region, key.accountId());
    }

    /**
     * The {@code Authorization} header that signs {@code r} as {@code caller} (a key of these accounts, whose
     * signature this verifier checked) at {@code amzDate}, over {@code signedHeaders} (lower case, sorted, each one
     * that {@code r} carries): a request a cluster's node makes of a share of a caller's request ({@code
     * --cluster-table-groups}), which the node that serves the share verifies as it verifies any.
     *
     * @throws IllegalArgumentException for a key these accounts do not know
     */
    public String authorization(Credentials caller, Request r, String amzDate, List<String> signedHeaders) {
        Accounts.Key key = accounts.find(caller.accessKeyId());
        if (key == null) {
            throw new IllegalArgumentException("no secret key for " + caller.accessKeyId());
        }
        String scopeDate = amzDate.substring(0, 8);
        Signed s = new Signed(
                key.accessKeyId(), scopeDate, caller.region(), "dynamodb", signedHeaders, "", amzDate, -1, false);
        String scope = scopeDate + "/" + caller.region() + "/dynamodb/aws4_request";
        String toSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + hex(sha256(bytes(canonicalRequest(r, s))));
        byte[] signingKey = deriveKey(key.secretAccessKey(), scopeDate, caller.region(), "dynamodb");
        return ALGORITHM + " Credential=" + key.accessKeyId() + "/" + scope + ", SignedHeaders="
                + String.join(";", signedHeaders) + ", Signature=" + hex(hmac(signingKey, bytes(toSign)));
    }

    /** {@code instant} as SigV4's {@code X-Amz-Date} writes it ({@code 20261205T214000Z}). */
    public static String amzDate(Instant instant) {
        return AMZ_DATE.format(instant);
    }

    private record Signed(
            String accessKey,
            String scopeDate,
            String region,
            String service,
            List<String> signedHeaders,
            String signature,
            String amzDate,
            long expiresSeconds,
            boolean presigned) {
        /** From the credential's parts (key/date/region/service/aws4_request); presigned when it expires. */
        static Signed of(String[] scope, String signedHeaders, String signature, String amzDate, long expiresSeconds) {
            return new Signed(
                    scope[0],
                    scope[1],
                    scope[2],
                    scope[3],
                    Arrays.asList(signedHeaders.split(";")),
                    signature,
                    amzDate,
                    expiresSeconds,
                    expiresSeconds > 0);
        }
    }

    private Signed header(Request r) {
        List<String> auth = r.header("authorization");
        String authorization = auth.isEmpty() ? null : auth.get(0);
        String amzDate = first(r, "x-amz-date");
        String date = amzDate != null ? amzDate : first(r, "date");
        shape.authenticate(authorization, date); // DynamoDB's messages for a missing or malformed header
        String params = authorization.strip();
        if (!params.startsWith(ALGORITHM + " ")) {
            int space = params.indexOf(' ');
            throw new ApiException(
                    ErrorCode.INCOMPLETE_SIGNATURE,
                    "Unsupported AWS 'algorithm': '" + (space < 0 ? params : params.substring(0, space)) + "'.");
        }
        String credential = null;
        String signedHeaders = null;
        String signature = null;
        for (String part : params.substring(ALGORITHM.length()).split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String k = part.substring(0, eq).strip();
            String v = part.substring(eq + 1).strip();
            switch (k) {
                case "Credential" -> credential = v;
                case "SignedHeaders" -> signedHeaders = v;
                case "Signature" -> signature = v;
                default -> {}
            }
        }
        return Signed.of(
                credential.split("/"), signedHeaders, signature, amzDate != null ? amzDate : fromHttpDate(date), -1);
    }

    private Signed presigned(Request r) {
        String algorithm = param(r.query(), "X-Amz-Algorithm");
        String credential = param(r.query(), "X-Amz-Credential");
        String date = param(r.query(), "X-Amz-Date");
        String signedHeaders = param(r.query(), "X-Amz-SignedHeaders");
        String signature = param(r.query(), "X-Amz-Signature");
        String expires = param(r.query(), "X-Amz-Expires");
        List<String> missing = new ArrayList<>();
        if (!ALGORITHM.equals(algorithm)) {
            missing.add("X-Amz-Algorithm");
        }
        if (credential == null) {
            missing.add("X-Amz-Credential");
        }
        if (signedHeaders == null) {
            missing.add("X-Amz-SignedHeaders");
        }
        if (date == null) {
            missing.add("X-Amz-Date");
        }
        if (!missing.isEmpty()) {
            throw new ApiException(
                    ErrorCode.INCOMPLETE_SIGNATURE,
                    "AWS query-string parameters must include " + String.join(", ", missing) + ". Re-examine the"
                            + " query-string parameters.");
        }
        String[] scope = credential.split("/");
        if (scope.length != 5 || !"aws4_request".equals(scope[4])) {
            throw new ApiException(
                    ErrorCode.INCOMPLETE_SIGNATURE,
                    "Credential should be scoped to a valid region, not '" + (scope.length > 2 ? scope[2] : "")
                            + "'. ");
        }
        long expiresSeconds;
        try {
            expiresSeconds = expires == null ? 900 : Long.parseLong(expires);
        } catch (NumberFormatException e) {
            throw invalid("X-Amz-Expires should be a number");
        }
        if (expiresSeconds < 1 || expiresSeconds > 604_800) {
            throw invalid("X-Amz-Expires must be between 1 and 604800 seconds");
        }
        return Signed.of(scope, signedHeaders, signature, date, expiresSeconds);
    }

    /**
     * Within 15 minutes of the server's clock, either way; a presigned request until its {@code X-Amz-Expires} has
     * passed.
     */
    private void checkTime(String amzDate, long expiresSeconds) {
        Instant signed;
        try {
            signed = ZonedDateTime.parse(amzDate, AMZ_DATE).toInstant();
        } catch (DateTimeParseException e) {
            throw invalid("Invalid X-Amz-Date: " + amzDate);
        }
        Instant now = clock.instant();
        if (expiresSeconds > 0) {
            if (now.isAfter(signed.plusSeconds(expiresSeconds))) {
                throw invalid("Signature expired: " + amzDate + " is now earlier than "
                        + AMZ_DATE.format(now.minusSeconds(expiresSeconds)) + " (" + AMZ_DATE.format(now) + " - "
                        + expiresSeconds + " sec.)");
            }
            if (signed.isAfter(now.plus(SKEW))) {
                throw notYet(amzDate, now);
            }
            return;
        }
        if (signed.isBefore(now.minus(SKEW))) {
            throw invalid("Signature expired: " + amzDate + " is now earlier than " + AMZ_DATE.format(now.minus(SKEW))
                    + " (" + AMZ_DATE.format(now) + " - 15 min.)");
        }
        if (signed.isAfter(now.plus(SKEW))) {
            throw notYet(amzDate, now);
        }
    }

    private static ApiException notYet(String amzDate, Instant now) {
        return invalid("Signature not yet current: " + amzDate + " is still later than "
                + AMZ_DATE.format(now.plus(SKEW)) + " (" + AMZ_DATE.format(now) + " + 15 min.)");
    }

    private static String canonicalRequest(Request r, Signed s) {
        StringBuilder c = new StringBuilder(512);
        c.append(r.method()).append('\n');
        c.append(canonicalPath(r.path())).append('\n');
        c.append(canonicalQuery(r.query(), s.presigned)).append('\n');
        for (String name : s.signedHeaders) {
            c.append(name).append(':');
            List<String> values = r.header(name);
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    c.append(',');
                }
                c.append(trimAll(values.get(i)));
            }
            c.append('\n');
        }
        c.append('\n').append(String.join(";", s.signedHeaders)).append('\n');
        // The body's own hash, whatever an x-amz-content-sha256 header says: trusting the header would let a request
        // signed once be sent again with another body (and the header that body's hash) within its 15 minutes.
        c.append(hex(sha256(r.body())));
        return c.toString();
    }

    /** Each segment URI-encoded once more, as SigV4 asks of every service but S3. */
    private static String canonicalPath(String path) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return "/";
        }
        String[] segments = path.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            segments[i] = encode(segments[i]);
        }
        return String.join("/", segments);
    }

    private static String canonicalQuery(String query, boolean presigned) {
        if (query == null || query.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String p : query.split("&")) {
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            String name = decode(eq < 0 ? p : p.substring(0, eq));
            String value = eq < 0 ? "" : decode(p.substring(eq + 1));
            if (presigned && name.equals("X-Amz-Signature")) {
                continue;
            }
            pairs.add(new String[] {encode(name), encode(value)});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        StringBuilder b = new StringBuilder(query.length() + 16);
        for (String[] p : pairs) {
            if (b.length() > 0) {
                b.append('&');
            }
            b.append(p[0]).append('=').append(p[1]);
        }
        return b.toString();
    }

    /** RFC 3986 percent-encoding of everything but the unreserved characters. */
    static String encode(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder(utf8.length + 8);
        for (byte x : utf8) {
            int c = x & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == '~') {
                b.append((char) c);
            } else {
                b.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw invalid(MISMATCH);
        }
    }

    /** Leading and trailing spaces removed, inner runs of spaces made one, as SigV4's canonical headers have them. */
    private static String trimAll(String v) {
        String t = v.strip();
        if (t.indexOf("  ") < 0 && t.indexOf('\t') < 0) {
            return t; // the common case: nothing to collapse
        }
        StringBuilder b = new StringBuilder(t.length());
        boolean space = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == ' ' || c == '\t') {
                space = true;
            } else {
                if (space) {
                    b.append(' ');
                }
                space = false;
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * The access key a request names, from its {@code Authorization} header or, presigned, its {@code
     * X-Amz-Credential} parameter; null when it names none. Nothing is verified: a cluster's node routes the request by
     * it to the node that serves the key's account, which verifies it.
     */
    public static String accessKeyOf(String authorization, String query) {
        String credential = null;
        if (query != null && query.contains("X-Amz-Signature=")) {
            credential = param(query, "X-Amz-Credential");
        } else if (authorization != null) {
            int at = authorization.indexOf("Credential=");
            if (at >= 0) {
                int end = authorization.indexOf(',', at);
                credential = authorization
                        .substring(at + "Credential=".length(), end < 0 ? authorization.length() : end)
                        .strip();
            }
        }
        if (credential == null) {
            return null;
        }
        int slash = credential.indexOf('/');
        return slash <= 0 ? null : credential.substring(0, slash);
    }

    private static String param(String query, String name) {
        for (String p : query.split("&")) {
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).equals(name)) {
                return decode(p.substring(eq + 1));
            }
        }
        return null;
    }

    private static String first(Request r, String name) {
        List<String> v = r.header(name);
        return v.isEmpty() ? null : v.get(0);
    }

    private static String fromHttpDate(String date) {
        try {
            return AMZ_DATE.format(ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME));
        } catch (DateTimeParseException e) {
            throw invalid("Invalid date: " + date);
        }
    }

    private static byte[] deriveKey(String secret, String date, String region, String service) {
        byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), bytes(date));
        k = hmac(k, bytes(region));
        k = hmac(k, bytes(service));
        return hmac(k, bytes("aws4_request"));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        Mac mac = HMAC.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return mac.doFinal(data);
    }

    private static byte[] sha256(byte[] data) {
        MessageDigest d = SHA256.get();
        d.reset();
        return d.digest(data);
    }

    private static String hex(byte[] b) {
        return HEX.formatHex(b);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ApiException invalid(String message) {
        return new ApiException(ErrorCode.INVALID_SIGNATURE, message);
    }
}
