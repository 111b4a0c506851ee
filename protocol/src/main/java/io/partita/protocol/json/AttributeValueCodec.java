package io.partita.protocol.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.Bytes;
import io.partita.protocol.model.DynamoNumber;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Streams DynamoDB's JSON form of attribute values ({@code {"S":"x"}}, {@code {"M":{…}}} …) in and out, checking
 * DynamoDB's rules as it reads: exactly one type per value, non-empty sets without duplicates, valid numbers, and at
 * most {@value #MAX_NESTING} levels of nested lists and maps.
 */
public final class AttributeValueCodec {
    /**
     * DynamoDB supports up to 32 levels of nesting, the top-level attribute counting as the first: 31 nested maps are
     * accepted, 32 are not ("Nesting Levels have exceeded supported limits").
     */
    public static final int MAX_NESTING = 32;

    private AttributeValueCodec() {}

    /** Reads one attribute value; the parser is on its START_OBJECT (or a null token) and ends on its END_OBJECT. */
    public static AttributeValue read(JsonParser p) throws IOException {
        return read(p, 0);
    }

    /** Reads an item or key map: {@code {"name": {"S": …}, …}}. */
    public static Map<String, AttributeValue> readMap(JsonParser p, int depth) throws IOException {
        expect(p, JsonToken.START_OBJECT, "Map");
        Map<String, AttributeValue> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                continue;
            }
            map.put(name, read(p, depth));
        }
        return map;
    }

    private static AttributeValue read(JsonParser p, int depth) throws IOException {
        expect(p, JsonToken.START_OBJECT, "AttributeValue");
        AttributeValue result = null;
        int types = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (t == JsonToken.VALUE_NULL) {
                continue;
            }
            AttributeValue v = readTyped(field, p, depth);
            if (v != null) {
                result = v;
                types++;
            }
        }
        if (types == 0) {
            throw ApiException.validation(
                    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
        }
        if (types > 1) {
            throw ApiException.validation("Supplied AttributeValue has more than one datatypes set, must contain"
                    + " exactly one of the supported datatypes");
        }
        return result;
    }

    private static AttributeValue readTyped(String field, JsonParser p, int depth) throws IOException {
        switch (field) {
            case "S":
                return new AttributeValue.S(string(p, "String"));
            case "N":
                return new AttributeValue.N(DynamoNumber.parse(string(p, "String")));
            case "B":
                return new AttributeValue.B(binary(p));
            case "BOOL":
                return new AttributeValue.Bool(bool(p));
            case "NULL":
                if (!bool(p)) {
                    throw ApiException.invalidParameter("Null attribute value types must have the value of true");
                }
                return new AttributeValue.Null();
            case "SS":
                return readStringSet(p);
            case "NS":
                return readNumberSet(p);
            case "BS":
                return readBinarySet(p);
            case "L":
                return readList(p, depth + 1);
            case "M":
                checkDepth(depth + 1);
                return new AttributeValue.M(readMap(p, depth + 1));
            default:
                p.skipChildren();
                return null;
        }
    }

    private static void checkDepth(int depth) {
        if (depth >= MAX_NESTING) {
            throw ApiException.validation("Nesting Levels have exceeded supported limits: Attributes in the item have"
                    + " nested levels beyond supported limit");
        }
    }

    private static AttributeValue readList(JsonParser p, int depth) throws IOException {
        checkDepth(depth);
        expect(p, JsonToken.START_ARRAY, "List");
        List<AttributeValue> values = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            values.add(read(p, depth));
        }
        return new AttributeValue.L(values);
    }

    private static AttributeValue readStringSet(JsonParser p) throws IOException {
        List<String> values = new ArrayList<>();
        expect(p, JsonToken.START_ARRAY, "List");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            values.add(string(p, "String"));
        }
        checkSet(values, "An string set  may not be empty", values);
        return new AttributeValue.SS(values);
    }

    private static AttributeValue readNumberSet(JsonParser p) throws IOException {
        List<String> texts = new ArrayList<>();
        List<BigDecimal> values = new ArrayList<>();
        expect(p, JsonToken.START_ARRAY, "List");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            String text = string(p, "String");
            texts.add(text);
            values.add(DynamoNumber.parse(text));
        }
        checkSet(values, "An number set  may not be empty", texts);
        return new AttributeValue.NS(values);
    }

    private static AttributeValue readBinarySet(JsonParser p) throws IOException {
        List<Bytes> values = new ArrayList<>();
        expect(p, JsonToken.START_ARRAY, "List");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            values.add(binary(p));
        }
        checkSet(values, "An binary set  may not be empty", values);
        return new AttributeValue.BS(values);
    }

    /** DynamoDB rejects empty sets and sets with duplicates ("Data types", HowItWorks.NamingRulesDataTypes). */
    private static void checkSet(List<?> values, String emptyMessage, List<?> printed) {
        if (values.isEmpty()) {
            throw ApiException.invalidParameter(emptyMessage);
        }
        Set<Object> seen = new HashSet<>();
        for (Object v : values) {
            if (!seen.add(v)) {
                throw ApiException.invalidParameter("Input collection " + printed + " contains duplicates.");
            }
        }
    }

    private static String string(JsonParser p, String target) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw mismatch(p, target);
        }
        return p.getText();
    }

    private static boolean bool(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE) {
            return true;
        }
        if (t == JsonToken.VALUE_FALSE) {
            return false;
        }
        throw mismatch(p, "Boolean");
    }

    /**
     * Canonical base64 only, as DynamoDB's deserializer takes it (its messages, "dectected" included, as dynalite's
     * tests against DynamoDB record them): a length that is a multiple of 4, padding only at the end, and no stray
     * bits in the last character before it. Java's decoder alone would take unpadded text and ignore stray bits.
     */
    private static Bytes binary(JsonParser p) throws IOException {
        String text = string(p, "Blob");
        if (text.length() % 4 != 0) {
            throw ApiException.serialization(
                    "Base64 encoded length is expected a multiple of 4 bytes but found: " + text.length());
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            // Not captured from DynamoDB for a character outside the alphabet; its older answers named the value.
            throw ApiException.serialization("'" + text + "' can not be converted to a Blob: Invalid Base64 character");
        }
        if (!Base64.getEncoder().encodeToString(bytes).equals(text)) {
            throw ApiException.serialization("Invalid last non-pad Base64 character dectected");
        }
        return Bytes.wrap(bytes);
    }

    private static void expect(JsonParser p, JsonToken token, String target) {
        if (p.currentToken() != token) {
            throw mismatch(p, target);
        }
    }

    /** A JSON value of the wrong kind, worded as DynamoDB's deserializer words it. */
    static ApiException mismatch(JsonParser p, String target) {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            return ApiException.serialization("Start of structure or map found where not expected");
        }
        if (t == JsonToken.START_ARRAY) {
            return ApiException.serialization("Start of list found where not expected");
        }
        return ApiException.serialization(tokenName(t) + " cannot be converted to " + target);
    }

    /** The name DynamoDB's deserializer gives a JSON token in its messages ({@code NUMBER_VALUE} …). */
    static String tokenName(JsonToken t) {
        if (t == null) {
            return "NULL_VALUE";
        }
        switch (t) {
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "NUMBER_VALUE";
            case VALUE_STRING:
                return "STRING_VALUE";
            case VALUE_TRUE:
            case VALUE_FALSE:
                return "BOOLEAN_VALUE";
            case VALUE_NULL:
                return "NULL_VALUE";
            default:
                return t.name();
        }
    }

    /** Writes one attribute value. */
    public static void write(JsonGenerator g, AttributeValue value) throws IOException {
        g.writeStartObject();
        if (value instanceof AttributeValue.S s) {
            g.writeStringField("S", s.value());
        } else if (value instanceof AttributeValue.N n) {
            g.writeStringField("N", n.text());
        } else if (value instanceof AttributeValue.B b) {
            g.writeFieldName("B");
            byte[] bytes = b.value().unsafeArray();
            g.writeBinary(bytes, 0, bytes.length);
        } else if (value instanceof AttributeValue.Bool b) {
            g.writeBooleanField("BOOL", b.value());
        } else if (value instanceof AttributeValue.Null) {
            g.writeBooleanField("NULL", true);
        } else if (value instanceof AttributeValue.SS ss) {
            g.writeArrayFieldStart("SS");
            for (String s : ss.values()) {
                g.writeString(s);
            }
            g.writeEndArray();
        } else if (value instanceof AttributeValue.NS ns) {
            g.writeArrayFieldStart("NS");
            for (BigDecimal n : ns.values()) {
                g.writeString(DynamoNumber.format(n));
            }
            g.writeEndArray();
        } else if (value instanceof AttributeValue.BS bs) {
            g.writeArrayFieldStart("BS");
            for (Bytes b : bs.values()) {
                byte[] bytes = b.unsafeArray();
                g.writeBinary(bytes, 0, bytes.length);
            }
            g.writeEndArray();
        } else if (value instanceof AttributeValue.L l) {
            g.writeArrayFieldStart("L");
            for (AttributeValue v : l.values()) {
                write(g, v);
            }
            g.writeEndArray();
        } else {
            g.writeFieldName("M");
            writeMap(g, ((AttributeValue.M) value).values());
        }
        g.writeEndObject();
    }

    /** Writes an item or key map. */
    public static void writeMap(JsonGenerator g, Map<String, AttributeValue> map) throws IOException {
        if (map instanceof JsonWritable w) {
            w.writeJson(g);
            return;
        }
        g.writeStartObject();
        for (Map.Entry<String, AttributeValue> e : map.entrySet()) {
            g.writeFieldName(e.getKey());
            write(g, e.getValue());
        }
        g.writeEndObject();
    }
}
