package io.partita.server.http;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DynamoDB's JSON error body: {@code {"__type": "...", "message": "...", ...extra fields}}. A few errors spell the
 * member {@code Message}, as DynamoDB does: AccessDeniedException, and SerializationException (for example {@code
 * {"__type":"com.amazon.coral.service#SerializationException","Message":"Start of list found where not expected"}},
 * quoted from DynamoDB in rusoto/rusoto#658); the SDKs read either.
 */
public final class ErrorBody {
    private ErrorBody() {}

    public static byte[] of(ApiException e) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("__type", e.code().type());
        if (e.getMessage() != null) {
            boolean capital = e.code() == ErrorCode.ACCESS_DENIED || e.code() == ErrorCode.SERIALIZATION;
            body.put(capital ? "Message" : "message", e.getMessage());
        }
        body.putAll(e.extraFields());
        return DynamoJson.encode(body);
    }
}
