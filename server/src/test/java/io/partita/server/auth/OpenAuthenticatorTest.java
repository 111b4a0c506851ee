package io.partita.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class OpenAuthenticatorTest {
    private static final String DATE = "20261130T000000Z";
    private final OpenAuthenticator auth = new OpenAuthenticator();

    @Test
    void readsKeyAndRegionFromTheCredentialScope() {
        Credentials c = auth.authenticate(
                "AWS4-HMAC-SHA256 Credential=AKID/20261130/eu-west-3/dynamodb/aws4_request, "
                        + "SignedHeaders=host;x-amz-date, Signature=abc",
                DATE);
        assertThat(c).isEqualTo(new Credentials("AKID", "eu-west-3", Credentials.OPEN_ACCOUNT));
    }

    @Test
    void parametersMayComeInAnyOrderWithSpacesAroundThem() {
        Credentials c = auth.authenticate(
                "AWS4-HMAC-SHA256  Signature = abc ,SignedHeaders=host,,  Credential= K/d/r1/dynamodb/aws4_request ",
                DATE);
        assertThat(c).isEqualTo(new Credentials("K", "r1", Credentials.OPEN_ACCOUNT));
    }

    @Test
    void namesEveryMissingParameterAndTheDate() {
        assertThatThrownBy(() -> auth.authenticate("AWS4-HMAC-SHA256 Credential=abc", null))
                .isInstanceOf(ApiException.class)
                .hasMessage("Authorization header requires 'Signature' parameter. Authorization header requires"
                        + " 'SignedHeaders' parameter. Authorization header requires existence of either a"
                        + " 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Credential=abc");
    }

    @Test
    void aParameterWithoutEqualSignIsQuoted() {
        String header = "AWS4-HMAC-SHA256 Credential=K/d/r/dynamodb/aws4_request, Bogus , Signature=x";
        assertThatThrownBy(() -> auth.authenticate(header, DATE))
                .hasMessage("'Bogus' not a valid key=value pair (missing equal-sign) in Authorization header: '"
                        + header + "'.");
    }

    @Test
    void aCredentialWithoutRegionIsRefused() {
        assertThatThrownBy(() -> auth.authenticate(
                        "AWS4-HMAC-SHA256 Credential=K/d//dynamodb/aws4_request, SignedHeaders=h, Signature=s", DATE))
                .hasMessage("Credential should be scoped to a valid region, not ''. ");
    }

    /** The one-pass parser reads the same credentials as splitting on commas and equal signs would. */
    @Property(tries = 500)
    void agreesWithSplittingTheHeader(@ForAll("headers") String header) {
        Credentials expected = null;
        String error = null;
        try {
            expected = bySplitting(header);
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
        }
        if (error == null) {
            assertThat(auth.authenticate(header, DATE)).isEqualTo(expected);
        } else {
            assertThatThrownBy(() -> auth.authenticate(header, DATE)).isInstanceOf(ApiException.class);
        }
    }

    @Provide
    Arbitrary<String> headers() {
        Arbitrary<String> space = Arbitraries.of("", " ", "  ", "\t");
        Arbitrary<String> part = Arbitraries.oneOf(
                Arbitraries.of("Credential", "Signature", "SignedHeaders", "Other", "")
                        .flatMap(k -> Arbitraries.of(
                                        "AK/d/us-east-1/dynamodb/aws4_request",
                                        "v",
                                        "",
                                        "a/b/c/d/e",
                                        "a/b/c/d/e/",
                                        "a/b/c/d/e//",
                                        "a/b/c/d//",
                                        "a//c/d/e",
                                        "/b/c/d/e",
                                        "a/b//d/e",
                                        "a/b/c/d/e/f",
                                        "a/b/c/d")
                                .flatMap(v -> space.list()
                                        .ofSize(4)
                                        .map(s -> s.get(0) + k + s.get(1) + "=" + s.get(2) + v + s.get(3)))),
                Arbitraries.of("", "x", " "));
        return part.list().ofMinSize(0).ofMaxSize(5).map(parts -> "AWS4-HMAC-SHA256 " + String.join(",", parts));
    }

    private static Credentials bySplitting(String header) {
        String credential = null;
        boolean signature = false;
        boolean signed = false;
        for (String p : header.strip().substring("AWS4-HMAC-SHA256".length()).split(",")) {
            String t = p.strip();
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("no equal sign");
            }
            String k = t.substring(0, eq).strip();
            String v = t.substring(eq + 1).strip();
            switch (k) {
                case "Credential" -> credential = v;
                case "Signature" -> signature = true;
                case "SignedHeaders" -> signed = true;
                default -> {}
            }
        }
        if (credential == null || !signature || !signed) {
            throw new IllegalArgumentException("missing");
        }
        List<String> scope = List.of(credential.split("/"));
        if (scope.size() != 5 || scope.get(0).isEmpty() || scope.get(2).isEmpty()) {
            throw new IllegalArgumentException("scope");
        }
        return new Credentials(scope.get(0), scope.get(2), Credentials.OPEN_ACCOUNT);
    }
}
