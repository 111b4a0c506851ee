package io.partita.storage.item;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.Bytes;
import io.partita.protocol.model.DynamoNumber;
import io.partita.storage.key.ByteSink;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The compact binary form of an item stored as a RocksDB value.
 *
 * <pre>
 *   item   = varint(count) (varint(len) utf8(name) value)*
 *   value  = tag payload
 *   S  1  varint(len) utf8          SS 7  varint(n) (varint(len) utf8)*
 *   N  2  number                    NS 8  varint(n) number*
 *   B  3  varint(len) bytes         BS 9  varint(n) (varint(len) bytes)*
 *   true 4, false 5, NULL 6         L 10  varint(n) value*      M 11  item
 *   number = zigzag-varint(scale) varint(len) two's-complement unscaled bytes
 * </pre>
 *
 * The first byte of a stored value is a format version, so the layout can change without a migration guessing.
 */
public final class ItemCodec {
    private static final int VERSION = 1;

    private ItemCodec() {}

    public static byte[] encode(Map<String, AttributeValue> item) {
        ByteSink out = new ByteSink(256);
        encode(item, out);
        return out.toByteArray();
    }

    /** Appends the stored form of {@code item} to {@code out}, the same bytes {@link #encode(Map)} returns. */
    public static ByteSink encode(Map<String, AttributeValue> item, ByteSink out) {
        out.put(VERSION);
        writeMap(out, item);
        return out;
    }

    public static Map<String, AttributeValue> decode(byte[] bytes) {
        Reader in = new Reader(bytes);
        int version = in.u8();
        if (version != VERSION) {
            throw new IllegalStateException("unknown item format version " + version);
        }
        return in.map();
    }

    /**
     * Writes the stored item as DynamoDB JSON, exactly as {@code AttributeValueCodec.writeMap} writes the decoded
     * item, without building it: strings and binaries go from the stored bytes to the generator.
     */
    public static void writeJson(byte[] stored, JsonGenerator g) throws IOException {
        Reader in = new Reader(stored);
        int version = in.u8();
        if (version != VERSION) {
            throw new IllegalStateException("unknown item format version " + version);
        }
        in.jsonMap(g);
    }

    private static void writeMap(ByteSink out, Map<String, AttributeValue> map) {
        out.putVarint(map.size());
        for (Map.Entry<String, AttributeValue> e : map.entrySet()) {
            writeString(out, e.getKey());
            writeValue(out, e.getValue());
        }
    }

    private static void writeString(ByteSink out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.putVarint(b.length).put(b);
    }

    private static void writeBytes(ByteSink out, Bytes b) {
        out.putVarint(b.length()).put(b.unsafeArray());
    }

    private static void writeNumber(ByteSink out, BigDecimal n) {
        int scale = n.scale();
        out.putVarint((scale << 1) ^ (scale >> 31));
        byte[] unscaled = n.unscaledValue().toByteArray();
        out.putVarint(unscaled.length).put(unscaled);
    }

    private static void writeValue(ByteSink out, AttributeValue v) {
        if (v instanceof AttributeValue.S s) {
            out.put(1);
            writeString(out, s.value());
        } else if (v instanceof AttributeValue.N n) {
            out.put(2);
            writeNumber(out, n.value());
        } else if (v instanceof AttributeValue.B b) {
            out.put(3);
            writeBytes(out, b.value());
        } else if (v instanceof AttributeValue.Bool b) {
            out.put(b.value() ? 4 : 5);
        } else if (v instanceof AttributeValue.Null) {
            out.put(6);
        } else if (v instanceof AttributeValue.SS ss) {
            out.put(7).putVarint(ss.values().size());
            ss.values().forEach(s -> writeString(out, s));
        } else if (v instanceof AttributeValue.NS ns) {
            out.put(8).putVarint(ns.values().size());
            ns.values().forEach(n -> writeNumber(out, n));
        } else if (v instanceof AttributeValue.BS bs) {
            out.put(9).putVarint(bs.values().size());
            bs.values().forEach(b -> writeBytes(out, b));
        } else if (v instanceof AttributeValue.L l) {
            out.put(10).putVarint(l.values().size());
            l.values().forEach(e -> writeValue(out, e));
        } else {
            out.put(11);
            writeMap(out, ((AttributeValue.M) v).values());
        }
    }

    private static final class Reader {
        private final byte[] b;
        private int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        int u8() {
            return b[pos++] & 0xFF;
        }

        int varint() {
            int result = 0;
            for (int shift = 0; ; shift += 7) {
                int x = u8();
                result |= (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return result;
                }
            }
        }

        byte[] bytes() {
            int len = varint();
            byte[] out = new byte[len];
            System.arraycopy(b, pos, out, 0, len);
            pos += len;
            return out;
        }

        String string() {
            int len = varint();
            String s = new String(b, pos, len, StandardCharsets.UTF_8);
            pos += len;
            return s;
        }

        BigDecimal number() {
            int z = varint();
            int scale = (z >>> 1) ^ -(z & 1);
            return new BigDecimal(new BigInteger(bytes()), scale);
        }

        /** Writes a quoted JSON string straight from the stored UTF-8 bytes. */
        void jsonString(JsonGenerator g) throws IOException {
            int len = varint();
            g.writeUTF8String(b, pos, len);
            pos += len;
        }

        void jsonBinary(JsonGenerator g) throws IOException {
            int len = varint();
            g.writeBinary(b, pos, len);
            pos += len;
        }

        void jsonMap(JsonGenerator g) throws IOException {
            int n = varint();
            g.writeStartObject();
            for (int i = 0; i < n; i++) {
                g.writeFieldName(string());
                jsonValue(g);
            }
            g.writeEndObject();
        }

        void jsonValue(JsonGenerator g) throws IOException {
            int tag = u8();
            g.writeStartObject();
            switch (tag) {
                case 1 -> {
                    g.writeFieldName("S");
                    jsonString(g);
                }
                case 2 -> g.writeStringField("N", DynamoNumber.format(number()));
                case 3 -> {
                    g.writeFieldName("B");
                    jsonBinary(g);
                }
                case 4, 5 -> g.writeBooleanField("BOOL", tag == 4);
                case 6 -> g.writeBooleanField("NULL", true);
                case 7, 8, 9 -> {
                    g.writeArrayFieldStart(tag == 7 ? "SS" : tag == 8 ? "NS" : "BS");
                    int n = varint();
                    for (int i = 0; i < n; i++) {
                        if (tag == 7) {
                            jsonString(g);
                        } else if (tag == 8) {
                            g.writeString(DynamoNumber.format(number()));
                        } else {
                            jsonBinary(g);
                        }
                    }
                    g.writeEndArray();
                }
                case 10 -> {
                    g.writeArrayFieldStart("L");
                    int n = varint();
                    for (int i = 0; i < n; i++) {
                        jsonValue(g);
                    }
                    g.writeEndArray();
                }
                case 11 -> {
                    g.writeFieldName("M");
                    jsonMap(g);
                }
                default -> throw new IllegalStateException("corrupt item: tag " + tag + " at " + (pos - 1));
            }
            g.writeEndObject();
        }

        Map<String, AttributeValue> map() {
            int n = varint();
            Map<String, AttributeValue> m = new LinkedHashMap<>(Math.max(4, n * 2));
            for (int i = 0; i < n; i++) {
                String name = string();
                m.put(name, value());
            }
            return m;
        }

        AttributeValue value() {
            int tag = u8();
            switch (tag) {
                case 1:
                    return new AttributeValue.S(string());
                case 2:
                    return new AttributeValue.N(number());
                case 3:
                    return new AttributeValue.B(Bytes.wrap(bytes()));
                case 4:
                    return new AttributeValue.Bool(true);
                case 5:
                    return new AttributeValue.Bool(false);
                case 6:
                    return new AttributeValue.Null();
                case 7: {
                    int n = varint();
                    List<String> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(string());
                    }
                    return new AttributeValue.SS(l);
                }
                case 8: {
                    int n = varint();
                    List<BigDecimal> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(number());
                    }
                    return new AttributeValue.NS(l);
                }
                case 9: {
                    int n = varint();
                    List<Bytes> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(Bytes.wrap(bytes()));
                    }
                    return new AttributeValue.BS(l);
                }
                case 10: {
                    int n = varint();
                    List<AttributeValue> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(value());
                    }
                    return new AttributeValue.L(l);
                }
                case 11:
                    return new AttributeValue.M(map());
                default:
                    throw new IllegalStateException("corrupt item: tag " + tag + " at " + (pos - 1));
            }
        }
    }
}
