package io.partita.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SigV4Test {
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

    /** AWS documentation, "Signature Version 4 example": IAM ListUsers, GET, signed 2015-08-30 12:36:00 UTC. */
    @Test
    void matchesTheDocumentedIamExample() {
        String amzDate = "20150830T123600Z";
        List<Map.Entry<String, String>> headers = List.of(
                Map.entry("content-type", "application/x-www-form-urlencoded; charset=utf-8"),
                Map.entry("host", "iam.amazonaws.com"),
                Map.entry("x-amz-date", amzDate));
        String canonical = SigV4.canonicalRequest(
                "GET", "/", "Action=ListUsers&Version=2010-05-08", headers, SigV4.sha256Hex(new byte[0]));

        assertThat(SigV4.sha256Hex(canonical.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
        assertThat(SigV4.stringToSign(amzDate, SigV4.scope(amzDate, "us-east-1", "iam"), canonical))
                .isEqualTo("AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
                        + "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
        assertThat(SigV4.signature(SECRET, amzDate, "us-east-1", "iam", canonical))
                .isEqualTo("5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
    }

    /** The hot-path signer feeds the digest in pieces; it must agree with the plain construction. */
    @Test
    void requestSignerAgreesWithTheReferenceConstruction() {
        String amzDate = "20150830T123600Z";
        String target = "GetItem";
        byte[] body = "{\"TableName\":\"t\",\"Key\":{\"pk\":{\"S\":\"k1\"}}}".getBytes(StandardCharsets.UTF_8);
        for (String token : new String[] {null, "SESSIONTOKEN"}) {
            SigV4.Credentials creds = new SigV4.Credentials("AKIDEXAMPLE", SECRET, token, "eu-west-1");
            String auth = creds.newSigner("localhost:8000").authorization(target, amzDate, body, 0, body.length);

            List<Map.Entry<String, String>> headers = new java.util.ArrayList<>(List.of(
                    Map.entry("content-type", "application/x-amz-json-1.0"),
                    Map.entry("host", "localhost:8000"),
                    Map.entry("x-amz-date", amzDate)));
            if (token != null) headers.add(Map.entry("x-amz-security-token", token));
            headers.add(Map.entry("x-amz-target", "DynamoDB_20120810." + target));
            String canonical = SigV4.canonicalRequest("POST", "/", "", headers, SigV4.sha256Hex(body));
            String expected = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-1/dynamodb/aws4_request, "
                    + "SignedHeaders=" + SigV4.signedHeaders(headers) + ", Signature="
                    + SigV4.signature(SECRET, amzDate, "eu-west-1", "dynamodb", canonical);
            assertThat(auth).isEqualTo(expected);
        }
    }
}
