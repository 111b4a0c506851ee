package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.json.DynamoJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** What the tests of a spread over groups make of the groups' replies, and read of the client's answer. */
final class Replies {
    private Replies() {}

    /** A group's refusal of type {@code type} (DynamoDB's, without its namespace) saying {@code message}. */
    static ClusterRouter.Reply refusal(String type, String message) {
        return new ClusterRouter.Reply(
                400,
                bytes("{\"__type\":\"com.amazonaws.dynamodb.v20120810#" + type + "\",\"message\":\"" + message
                        + "\"}"));
    }

    /** The type of refusal {@code r}, without its namespace. */
    static String type(ClusterRouter.Reply r) {
        String t = tree(r).path("__type").asText();
        return t.substring(t.indexOf('#') + 1);
    }

    /** The message of refusal {@code r}. */
    static String message(ClusterRouter.Reply r) {
        JsonNode t = tree(r);
        return t.has("message") ? t.get("message").asText() : t.path("Message").asText();
    }

    /** The body of {@code r}, read. */
    static JsonNode tree(ClusterRouter.Reply r) {
        try {
            return DynamoJson.mapper().readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
