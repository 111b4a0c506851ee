package io.partita.server.wire;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A bare HTTP client for wire tests: sends exactly the headers a test asks for, nothing the SDK would add. */
final class RawApi {
    static final String AUTH = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/us-east-1/dynamodb/aws4_request,"
            + " SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0123456789abcdef";
    private final HttpClient http = HttpClient.newHttpClient();
    private final URI endpoint;

    RawApi(URI endpoint) {
        this.endpoint = endpoint;
    }

    /** A DynamoDB operation's request to {@code endpoint}, signed as open mode accepts, that waits {@code timeout}. */
    static HttpRequest request(URI endpoint, String operation, String body, java.time.Duration timeout) {
        return HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "DynamoDB_20120810." + operation)
                .header("X-Amz-Date", "20261130T000000Z")
                .header("Authorization", AUTH)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    HttpResponse<String> post(String target, String body, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Date", "20261130T000000Z")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (target != null) {
            b.header("X-Amz-Target", target);
        }
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String target, String body) throws IOException, InterruptedException {
        return post(target, body, AUTH);
    }

    /** A request without a body to {@code path}: an admin POST or DELETE. */
    HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(endpoint.resolve(path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Creates an on-demand table keyed by the string {@code id}. */
    HttpResponse<String> createTable(String name) throws IOException, InterruptedException {
        return post(
                "DynamoDB_20120810.CreateTable",
                "{\"TableName\":\"" + name + "\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                        + "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"id\","
                        + "\"KeyType\":\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}");
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(endpoint.resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
