package io.partita.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/** The verifier against requests the AWS SDK's own SigV4 signer signed. */
class SigV4VerifierTest {
    private static final Accounts KEYS =
            new Accounts(Map.of("AKID", new Accounts.Key("AKID", "secret", "111122223333")));

    /** A request as the verifier sees it: its headers by lower-case name. */
    private record Sent(String method, String path, String query, Map<String, List<String>> headers, byte[] body)
            implements SigV4Verifier.Request {
        @Override
        public List<String> header(String lowerCaseName) {
            return headers.getOrDefault(lowerCaseName, List.of());
        }
    }

    private static Sent signed(String body) {
        return signed(body, "http://127.0.0.1:8000/");
    }

    private static Sent signed(String body, String uri) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        SdkHttpRequest request = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create("AKID", "secret"))
                        .request(SdkHttpRequest.builder()
                                .method(SdkHttpMethod.POST)
                                .uri(URI.create(uri))
                                .putHeader("X-Amz-Target", "DynamoDB_20120810.DeleteTable")
                                .build())
                        .payload(() -> new ByteArrayInputStream(bytes))
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "dynamodb")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"))
                .request();
        Map<String, List<String>> headers = new TreeMap<>();
        request.headers().forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT), values));
        return new Sent("POST", "/", null, headers, bytes);
    }

    @Test
    void aSignedRequestIsItsSignersAndAnotherBodyIsRefusedWhateverItsContentHashHeaderSays() throws Exception {
        SigV4Verifier verifier = new SigV4Verifier(KEYS, Clock.systemUTC());
        Sent sent = signed("{\"TableName\":\"orders\"}");
        assertThat(verifier.verify(sent).accountId()).isEqualTo("111122223333");
        // Over HTTPS too: the SDK signs DynamoDB's body there as well (no unsigned payload).
        assertThat(verifier.verify(signed("{}", "https://localhost:8000/")).accountId())
                .isEqualTo("111122223333");

        // The same signed headers with another body: refused, also with an x-amz-content-sha256 header naming the
        // signed body's hash (a header the signature need not cover), which would otherwise stand for the body.
        byte[] other = "{\"TableName\":\"payments\"}".getBytes(StandardCharsets.UTF_8);
        String signedHash = HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(sent.body()));
        Map<String, List<String>> withHash = new TreeMap<>(sent.headers());
        withHash.put("x-amz-content-sha256", new ArrayList<>(List.of(signedHash)));
        for (Sent tampered : List.of(
                new Sent("POST", "/", null, sent.headers(), other), new Sent("POST", "/", null, withHash, other))) {
            assertThatThrownBy(() -> verifier.verify(tampered))
                    .isInstanceOf(ApiException.class)
                    .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ErrorCode.INVALID_SIGNATURE));
        }
    }

    @Test
    void aRequestSignedAnewForTheCallerIsSignedAsTheAwsSignerSignsIt() {
        SigV4Verifier verifier = new SigV4Verifier(KEYS, Clock.systemUTC());
        Sent sent = signed("{\"TableName\":\"orders\"}");
        Credentials caller = verifier.verify(sent);
        String sdk = sent.header("authorization").get(0);
        String signedHeaders = sdk.substring(sdk.indexOf("SignedHeaders=") + "SignedHeaders=".length());
        signedHeaders = signedHeaders.substring(0, signedHeaders.indexOf(','));
        String ours = verifier.authorization(
                caller, sent, sent.header("x-amz-date").get(0), List.of(signedHeaders.split(";")));
        assertThat(ours.replace(" ", "")).isEqualTo(sdk.replace(" ", ""));
        // Signed anew over another body, at another time: verified as the caller's.
        byte[] other = "{\"TableName\":\"payments\"}".getBytes(StandardCharsets.UTF_8);
        Map<String, List<String>> headers = new TreeMap<>(sent.headers());
        String now = SigV4Verifier.amzDate(java.time.Instant.now());
        headers.put("x-amz-date", List.of(now));
        Sent unsigned = new Sent("POST", "/", null, headers, other);
        headers.put(
                "authorization",
                List.of(verifier.authorization(caller, unsigned, now, List.of("host", "x-amz-date", "x-amz-target"))));
        assertThat(verifier.verify(new Sent("POST", "/", null, headers, other))).isEqualTo(caller);
        assertThatThrownBy(() -> verifier.authorization(
                        new Credentials("NOBODY", "us-east-1", "1"), unsigned, now, List.of("host")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
