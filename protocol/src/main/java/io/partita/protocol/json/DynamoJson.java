package io.partita.protocol.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import java.io.IOException;
import java.util.Map;

/**
 * The one configured Jackson mapper: DynamoDB's PascalCase member names, no scalar coercion (DynamoDB answers a number
 * where a string belongs with a SerializationException), nulls omitted on output, and the streaming
 * {@link AttributeValueCodec} for attribute values.
 */
public final class DynamoJson {
    private static final ObjectMapper MAPPER = build();
    /**
     * One reader per request type: it keeps the type's root deserializer, which {@code MAPPER.readValue(bytes, type)}
     * looks up again (with a {@code TypeFactory} call) on every request (1 % of PutItem's event loop in a profile).
     */
    private static final ClassValue<ObjectReader> READERS = new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
            return MAPPER.readerFor(type);
        }
    };

    private DynamoJson() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static JsonFactory factory() {
        return MAPPER.getFactory();
    }

    private static ObjectMapper build() {
        SimpleModule module = new SimpleModule("partita");
        module.addDeserializer(AttributeValue.class, new JsonDeserializer<>() {
            @Override
            public AttributeValue deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
                return AttributeValueCodec.read(p);
            }

            /**
             * A JSON null where an attribute value belongs (an item's attribute, a key's, an expression value) is
             * an attribute value with no type: refused as DynamoDB refuses {@code {}}.
             */
            /** A member of this type that the request leaves out is simply absent. */
            @Override
            public Object getAbsentValue(DeserializationContext ctxt) {
                return null;
            }

            @Override
            public AttributeValue getNullValue(DeserializationContext ctxt) {
                throw ApiException.validation(
                        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
            }
        });
        module.addSerializer(AttributeValue.class, new JsonSerializer<>() {
            @Override
            public void serialize(AttributeValue value, JsonGenerator g, SerializerProvider provider)
                    throws IOException {
                AttributeValueCodec.write(g, value);
            }
        });
        module.addSerializer(JsonWritable.class, new JsonSerializer<>() {
            @Override
            public void serialize(JsonWritable value, JsonGenerator g, SerializerProvider provider) throws IOException {
                value.writeJson(g);
            }
        });
        // DynamoDB's limits, not the JSON library's defaults: attribute names up to 65,535 bytes (ServiceQuotas,
        // "Attribute names") must reach the handlers, whose check refuses longer ones in DynamoDB's words; Jackson's
        // own limit on names (50,000 characters) would refuse them as malformed JSON first. A name is bounded by the
        // 16 MB body anyway.
        com.fasterxml.jackson.core.JsonFactory factory = com.fasterxml.jackson.core.JsonFactory.builder()
                .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder()
                        .maxNameLength(16 * 1024 * 1024)
                        .build())
                .build();
        JsonMapper mapper = JsonMapper.builder(factory)
                .propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .defaultPropertyInclusion(
                        JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
                .addModule(module)
                .build();
        for (LogicalType type : LogicalType.values()) {
            var config = mapper.coercionConfigFor(type);
            config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
            config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
            config.setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
            config.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
            config.setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        // A JSON null as a map's value (a condition, an attribute update, a table's requests) is a malformed request,
        // never a null that reaches the handlers; in a map of attribute values it is an attribute value of no type.
        mapper.configOverride(java.util.Map.class)
                .setSetterInfo(com.fasterxml.jackson.annotation.JsonSetter.Value.forContentNulls(
                        com.fasterxml.jackson.annotation.Nulls.FAIL));
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.String, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.TryConvert);
        return mapper;
    }

    /**
     * Decodes a request body into {@code type}. An empty body reads as {@code {}}; bad JSON and wrong JSON types
     * become DynamoDB's SerializationException, and validation failures found while reading keep their own type.
     */
    public static <T> T decode(byte[] body, Class<T> type) {
        if (body.length == 0) {
            body = new byte[] {'{', '}'};
        }
        try {
            T value = READERS.get(type).readValue(body);
            if (value == null) {
                throw ApiException.serialization("Start of structure or map expected");
            }
            return value;
        } catch (JsonMappingException e) {
            ApiException api = findApiException(e);
            if (api != null) {
                throw api;
            }
            throw ApiException.serialization(describe(e));
        } catch (JsonProcessingException e) {
            ApiException api = findApiException(e);
            if (api != null) {
                throw api;
            }
            // DynamoDB's answer to a body that is not JSON has no message at all (dynalite's tests against DynamoDB
            // record the exact body: {"__type":"com.amazon.coral.service#SerializationException"}).
            throw ApiException.serialization(null);
        } catch (IOException e) {
            throw ApiException.serialization("The request body could not be read");
        }
    }

    private static ApiException findApiException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ApiException api) {
                return api;
            }
        }
        return null;
    }

    /**
     * The path of a member in DynamoDB's constraint messages: members in lower camel case, a map's value as
     * {@code key.member}, a list's element as {@code n.member} counting from 1 ({@code requestItems.T.member.1.member}).
     */
    private static String memberPath(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (!b.isEmpty()) {
                b.append('.');
            }
            if (r.getIndex() >= 0) {
                b.append(r.getIndex() + 1).append(".member");
            } else if (r.getFrom() instanceof Map) {
                b.append(r.getFieldName()).append(".member");
            } else {
                String f = String.valueOf(r.getFieldName());
                b.append(f.isEmpty() ? f : Character.toLowerCase(f.charAt(0)) + f.substring(1));
            }
        }
        return b.toString();
    }

    private static String describe(JsonMappingException e) {
        if (e instanceof com.fasterxml.jackson.databind.exc.InvalidNullException n) {
            if (n.getTargetType() == AttributeValue.class) {
                throw ApiException.validation(
                        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
            }
            throw ApiException.validation("1 validation error detected: Value null at '" + memberPath(n)
                    + "' failed to satisfy constraint: Member must not be null");
        }
        String text = String.valueOf(e.getOriginalMessage());
        if (text.contains("from Object value")) {
            return "Start of structure or map found where not expected";
        }
        if (text.contains("from Array value")) {
            return "Start of list found where not expected";
        }
        if (e instanceof InvalidFormatException f && f.getTargetType() != null) {
            Object v = f.getValue();
            String kind =
                    v instanceof Number ? "NUMBER_VALUE" : v instanceof Boolean ? "BOOLEAN_VALUE" : "STRING_VALUE";
            return kind + " cannot be converted to " + f.getTargetType().getSimpleName();
        }
        if (e instanceof MismatchedInputException m && m.getProcessor() instanceof JsonParser p) {
            JsonToken t = p.currentToken();
            Class<?> target = m.getTargetType();
            if (t == JsonToken.START_OBJECT) {
                return "Start of structure or map found where not expected";
            }
            if (t == JsonToken.START_ARRAY) {
                return "Start of list found where not expected";
            }
            if (t != null && target != null) {
                return AttributeValueCodec.tokenName(t) + " cannot be converted to " + target.getSimpleName();
            }
        }
        return "Unexpected field type";
    }

    /** Encodes a response body. */
    public static byte[] encode(Object value) {
        // A PutItem, UpdateItem or DeleteItem that asked for nothing back, the common case: no serializer lookup.
        if (value instanceof WriteItemOutput out
                && out.attributes() == null
                && out.consumedCapacity() == null
                && out.itemCollectionMetrics() == null) {
            return new byte[] {'{', '}'};
        }
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
        }
    }
}
