package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** DynamoDB's {@code WriteRequest}: exactly one of a put or a delete. */
public record WriteRequest(PutRequest putRequest, DeleteRequest deleteRequest) {
    /** DynamoDB's {@code PutRequest}. */
    public record PutRequest(Map<String, AttributeValue> item) {}

    /** DynamoDB's {@code DeleteRequest}. */
    public record DeleteRequest(Map<String, AttributeValue> key) {}
}
