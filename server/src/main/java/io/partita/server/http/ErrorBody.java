package io.partita.server.http;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import java.util.LinkedHashMap;
import java.util.Map;

/** DynamoDB's JSON error body: {@code {"__type": "...", "message": "...", ...extra fields}}. */
public final class ErrorBody {
    private ErrorBody() {}

    public static byte[] of(ApiException e) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("__type", e.code().type());
        if (e.getMessage() != null) {
            body.put(e.code() == ErrorCode.ACCESS_DENIED ? "Message" : "message", e.getMessage());
        }
        body.putAll(e.extraFields());
        return DynamoJson.encode(body);
    }
}
