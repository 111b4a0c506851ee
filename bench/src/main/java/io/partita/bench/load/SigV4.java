package io.partita.bench.load;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4, header form, written against the AWS documentation ("Create a signed AWS API request").
 *
 * <p>Two faces: the static methods build the canonical request, string to sign and signature from strings, which is
 * what the unit test checks against the documentation's worked example; {@link RequestSigner} is the per-connection,
 * allocation-light form used on the hot path for DynamoDB's {@code POST /} requests. The signing key depends only on
 * the date, so it is derived once per day, not once per request.
 */
public final class SigV4 {
    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private SigV4() {}

    /** {@code 20150830T123600Z} for the given instant. */
    public static String amzDate(Instant instant) {
        return AMZ_DATE.format(instant);
    }

    /**
     * The canonical request. {@code headers} are already lower-case, trimmed and sorted by name; the signed-headers
     * list is derived from them.
     */
    public static String canonicalRequest(
            String method, String uri, String query, List<Map.Entry<String, String>> headers, String payloadHash) {
        StringBuilder sb = new StringBuilder(256)
                .append(method)
                .append('\n')
                .append(uri)
                .append('\n')
                .append(query)
                .append('\n');
        for (Map.Entry<String, String> h : headers) {
            sb.append(h.getKey()).append(':').append(h.getValue()).append('\n');
        }
        return sb.append('\n')
                .append(signedHeaders(headers))
                .append('\n')
                .append(payloadHash)
                .toString();
    }

    public static String signedHeaders(List<Map.Entry<String, String>> headers) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> h : headers) {
            if (sb.length() > 0) sb.append(';');
            sb.append(h.getKey());
        }
        return sb.toString();
    }

    public static String scope(String amzDate, String region, String service) {
        return amzDate.substring(0, 8) + "/" + region + "/" + service + "/aws4_request";
    }

    public static String stringToSign(String amzDate, String scope, String canonicalRequest) {
        return ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + sha256Hex(canonicalRequest.getBytes(StandardCharsets.UTF_8));
    }

    /** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request"). */
    public static byte[] signingKey(String secretKey, String yyyymmdd, String region, String service) {
        byte[] k = hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), yyyymmdd);
        k = hmac(k, region);
        k = hmac(k, service);
        return hmac(k, "aws4_request");
    }

    public static String signature(
            String secretKey, String amzDate, String region, String service, String canonicalRequest) {
        byte[] key = signingKey(secretKey, amzDate.substring(0, 8), region, service);
        String toSign = stringToSign(amzDate, scope(amzDate, region, service), canonicalRequest);
        return hex(hmac(key, toSign));
    }

    public static String sha256Hex(byte[] data) {
        return hex(sha256().digest(data));
    }

    static String hex(byte[] bytes) {
        return new String(hexBytes(bytes), StandardCharsets.US_ASCII);
    }

    static byte[] hexBytes(byte[] bytes) {
        byte[] out = new byte[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return out;
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Credentials and scope for one endpoint; hands out per-connection {@link RequestSigner}s. */
    public record Credentials(String accessKey, String secretKey, String sessionToken, String region) {
        public RequestSigner newSigner(String host) {
            return new RequestSigner(this, host, "dynamodb");
        }
    }

    /**
     * Signs DynamoDB JSON requests ({@code POST /}, empty query, headers content-type, host, x-amz-date,
     * [x-amz-security-token], x-amz-target). Not thread-safe: one per connection. The canonical request is fed to the
     * digest in pieces, so nothing the size of the body is copied.
     */
    public static final class RequestSigner {
        static final String CONTENT_TYPE = "application/x-amz-json-1.0";

        private final Credentials credentials;
        private final String service;
        private final MessageDigest sha = sha256();
        private final Mac mac;
        private final byte[] canonicalHead; // up to and including "x-amz-date:"
        private final byte[] canonicalMid; // after the date, up to "x-amz-target:DynamoDB_20120810."
        private final byte[] canonicalTail; // "\n\n" + signed headers + "\n"
        private final String signedHeaders;
        private String keyDay = "";
        private String scope = "";
        private String authPrefix = "";
        private byte[] stringToSignHead = new byte[0];

        RequestSigner(Credentials credentials, String host, String service) {
            this.credentials = credentials;
            this.service = service;
            try {
                this.mac = Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
            boolean token = credentials.sessionToken() != null;
            this.signedHeaders =
                    "content-type;host;x-amz-date;" + (token ? "x-amz-security-token;" : "") + "x-amz-target";
            this.canonicalHead = ("POST\n/\n\ncontent-type:" + CONTENT_TYPE + "\nhost:" + host + "\nx-amz-date:")
                    .getBytes(StandardCharsets.UTF_8);
            this.canonicalMid = ("\n" + (token ? "x-amz-security-token:" + credentials.sessionToken() + "\n" : "")
                            + "x-amz-target:DynamoDB_20120810.")
                    .getBytes(StandardCharsets.UTF_8);
            this.canonicalTail = ("\n\n" + signedHeaders + "\n").getBytes(StandardCharsets.UTF_8);
        }

        /** The {@code Authorization} header for a request to operation {@code target} (e.g. {@code GetItem}). */
        public String authorization(String target, String amzDate, byte[] body, int offset, int length) {
            sha.update(body, offset, length);
            byte[] payloadHash = hexBytes(sha.digest());
            sha.update(canonicalHead);
            sha.update(amzDate.getBytes(StandardCharsets.US_ASCII));
            sha.update(canonicalMid);
            sha.update(target.getBytes(StandardCharsets.US_ASCII));
            sha.update(canonicalTail);
            sha.update(payloadHash);
            byte[] canonicalHash = hexBytes(sha.digest());
            String day = amzDate.substring(0, 8);
            if (!day.equals(keyDay)) rekey(day);
            mac.update(stringToSignHead, 0, 17); // "AWS4-HMAC-SHA256\n"
            mac.update(amzDate.getBytes(StandardCharsets.US_ASCII));
            mac.update(stringToSignHead, 17, stringToSignHead.length - 17); // "\n" + scope + "\n"
            mac.update(canonicalHash);
            return authPrefix + hex(mac.doFinal());
        }

        private void rekey(String day) {
            try {
                mac.init(new SecretKeySpec(
                        signingKey(credentials.secretKey(), day, credentials.region(), service), "HmacSHA256"));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
            keyDay = day;
            scope = day + "/" + credentials.region() + "/" + service + "/aws4_request";
            stringToSignHead = (ALGORITHM + "\n" + "\n" + scope + "\n").getBytes(StandardCharsets.UTF_8);
            authPrefix = ALGORITHM + " Credential=" + credentials.accessKey() + "/" + scope + ", SignedHeaders="
                    + signedHeaders + ", Signature=";
        }
    }
}
