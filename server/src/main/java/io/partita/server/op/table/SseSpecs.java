package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.SseDescription;
import io.partita.server.route.RequestContext;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A table's encryption at rest ({@code SSESpecification}, "DynamoDB encryption at rest"): with an AWS owned key by
 * default, which DynamoDB does not describe, or with a KMS key, which it describes as {@code SSEDescription}
 * ({@code ENABLED}, {@code KMS} and the key's ARN). Partita keeps no keys and encrypts nothing itself; it records the
 * key a table names, resolved to a key ARN as KMS would: the account's {@code alias/aws/dynamodb} key when none is
 * named, an alias to a key id of its own (stable for that account, region and alias), a key id to its ARN. The
 * validation messages are DynamoDB's (answers captured in 2026).
 */
final class SseSpecs {
    private static final String DEFAULT_ALIAS = "alias/aws/dynamodb";
    private static final Pattern KEY_ARN = Pattern.compile("arn:aws[a-z-]*:kms:[a-z0-9-]+:\\d{12}:key/[A-Za-z0-9-]+");
    private static final Pattern ALIAS_ARN = Pattern.compile("arn:aws[a-z-]*:kms:[a-z0-9-]+:\\d{12}:(alias/.+)");

    private SseSpecs() {}

    /** What a request's {@code SSESpecification} asks for. */
    record Sse(boolean kms, String keyId) {}

    /** The specification, or null when there is none (absent, JSON null or {@code {}}: an AWS owned key). */
    static Sse parse(JsonNode spec) {
        if (spec == null || spec.isNull() || (spec.isObject() && spec.isEmpty())) {
            return null;
        }
        if (!spec.isObject()) {
            throw ApiException.serialization("Unexpected value type in payload");
        }
        Boolean enabled = bool(spec.get("Enabled"));
        String type = text(spec.get("SSEType"));
        String key = text(spec.get("KMSMasterKeyId"));
        if (type != null && !type.equals("AES256") && !type.equals("KMS")) {
            throw ApiException.validation("1 validation error detected: Value '" + type
                    + "' at 'sSESpecification.sSEType' failed to satisfy constraint: Member must satisfy enum value"
                    + " set: [AES256, KMS]");
        }
        if (Boolean.FALSE.equals(enabled)) {
            if (type != null) {
                throw ApiException.invalidParameter("SSEType can not be specified if Enabled is false");
            }
            if (key != null) {
                throw ApiException.invalidParameter("KMSMasterKeyId can not be specified if Enabled is false");
            }
            return new Sse(false, null);
        }
        if ("AES256".equals(type)) {
            throw ApiException.invalidParameter("SSEType AES256 is not supported");
        }
        if (key != null && type == null) {
            throw ApiException.invalidParameter("SSEType KMS is required if KMSMasterKeyId is specified");
        }
        if (enabled == null && type == null) {
            return null;
        }
        return new Sse(true, key);
    }

    /** The key ARN a table encrypted as {@code sse} asks records, or null for an AWS owned key. */
    static String keyArn(RequestContext context, Sse sse) {
        if (sse == null || !sse.kms()) {
            return null;
        }
        String key = sse.keyId();
        String prefix = "arn:aws:kms:" + context.region() + ":" + context.accountId() + ":key/";
        if (key == null) {
            return prefix + aliasKey(context, DEFAULT_ALIAS);
        }
        if (KEY_ARN.matcher(key).matches()) {
            return key;
        }
        var aliasArn = ALIAS_ARN.matcher(key);
        if (aliasArn.matches()) {
            return prefix + aliasKey(context, aliasArn.group(1));
        }
        if (key.startsWith("alias/")) {
            return prefix + aliasKey(context, key);
        }
        return prefix + key;
    }

    /** The key id an alias stands for: the same for the same account, region and alias. */
    private static String aliasKey(RequestContext context, String alias) {
        String name = context.accountId() + "/" + context.region() + "/" + alias;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    static SseDescription describe(String keyArn, String status) {
        return keyArn == null ? null : new SseDescription(status, "KMS", keyArn);
    }

    /**
     * UpdateTable's change from {@code currentKey} to what {@code sse} asks, refusing one that changes nothing as
     * DynamoDB does; returns the new key ARN (null: an AWS owned key).
     */
    static String update(RequestContext context, String currentKey, Sse sse) {
        String next = keyArn(context, sse);
        if (next == null && currentKey == null) {
            throw ApiException.invalidParameter("Table is already encrypted by default");
        }
        if (next != null && next.equals(currentKey)) {
            throw ApiException.invalidParameter("Table is already encrypted with given KMSMasterKeyId. Use"
                    + " KMSMasterKeyId parameter if you want to change Master Key");
        }
        return next;
    }

    private static Boolean bool(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            throw ApiException.serialization("Unexpected value type in payload");
        }
        return v.asBoolean();
    }

    private static String text(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw ApiException.serialization("Unexpected value type in payload");
        }
        return v.asText();
    }
}
