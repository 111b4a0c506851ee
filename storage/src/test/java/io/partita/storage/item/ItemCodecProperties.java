package io.partita.storage.item;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.protocol.json.AttributeValueCodec;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.Bytes;
import io.partita.protocol.model.DynamoNumber;
import io.partita.storage.key.ByteSink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Every item survives encode → decode unchanged, and its stored form writes the same JSON as the item. */
class ItemCodecProperties {
    @Provide
    Arbitrary<Map<String, AttributeValue>> items() {
        return Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), value(2)).ofMaxSize(6);
    }

    private Arbitrary<AttributeValue> value(int depth) {
        Arbitrary<BigDecimal> numbers = Arbitraries.bigDecimals()
                .between(new BigDecimal("-1E20"), new BigDecimal("1E20"))
                .ofScale(6)
                .map(DynamoNumber::check);
        Arbitrary<Bytes> bytes =
                Arbitraries.bytes().array(byte[].class).ofMaxSize(16).map(Bytes::wrap);
        List<Arbitrary<? extends AttributeValue>> scalars = List.of(
                Arbitraries.strings().ofMaxLength(20).map(AttributeValue.S::new),
                numbers.map(AttributeValue.N::new),
                bytes.map(AttributeValue.B::new),
                Arbitraries.of(true, false).map(AttributeValue.Bool::new),
                Arbitraries.just(new AttributeValue.Null()),
                Arbitraries.strings().set().ofMinSize(1).ofMaxSize(4).map(s -> new AttributeValue.SS(List.copyOf(s))),
                numbers.set().ofMinSize(1).ofMaxSize(4).map(s -> new AttributeValue.NS(List.copyOf(s))),
                bytes.set().ofMinSize(1).ofMaxSize(4).map(s -> new AttributeValue.BS(List.copyOf(s))));
        Arbitrary<AttributeValue> scalar = Arbitraries.oneOf(scalars);
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<AttributeValue> list = value(depth - 1).list().ofMaxSize(4).map(AttributeValue.L::new);
        Arbitrary<AttributeValue> map = Arbitraries.maps(Arbitraries.strings().ofMaxLength(6), value(depth - 1))
                .ofMaxSize(4)
                .map(m -> new AttributeValue.M(new LinkedHashMap<>(m)));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, scalar), net.jqwik.api.Tuple.of(1, list), net.jqwik.api.Tuple.of(1, map));
    }

    @Property(tries = 300)
    void roundTrips(@ForAll("items") Map<String, AttributeValue> item) {
        Map<String, AttributeValue> decoded = ItemCodec.decode(ItemCodec.encode(item));
        assertThat(decoded).isEqualTo(item);
        assertThat(List.copyOf(decoded.keySet())).isEqualTo(List.copyOf(item.keySet()));
    }

    /** One sink reused across items, as each writing thread does: no bytes of an earlier item are left over. */
    private final ByteSink reused = new ByteSink(16);

    @Property(tries = 300)
    void encodingIntoAReusedSinkGivesTheSameBytes(@ForAll("items") Map<String, AttributeValue> item) {
        ItemCodec.encode(item, reused.clear());
        assertThat(reused.toByteArray()).isEqualTo(ItemCodec.encode(item));
    }

    @Property(tries = 300)
    void storedBytesWriteTheSameJsonAsTheDecodedItem(@ForAll("items") Map<String, AttributeValue> item)
            throws Exception {
        byte[] stored = ItemCodec.encode(item);
        assertThat(json(g -> ItemCodec.writeJson(stored, g)))
                .isEqualTo(json(g -> AttributeValueCodec.writeMap(g, item)));
        StoredItem lazy = new StoredItem(stored);
        assertThat(json(g -> AttributeValueCodec.writeMap(g, lazy)))
                .isEqualTo(json(g -> ItemCodec.writeJson(stored, g)));
        assertThat(DynamoJson.encode(Map.of("Item", lazy))).isEqualTo(DynamoJson.encode(Map.of("Item", item)));
        assertThat(lazy).isEqualTo(item);
    }

    /**
     * An item equal to another by DynamoDB's rules (attributes and map entries in another order, set elements in
     * another order) encodes to the same number of bytes: the write path relies on it to tell a changed item from an
     * unchanged one without decoding the old one ({@code ItemWrites.unchanged}).
     */
    @Property(tries = 300)
    void itemsEqualButForOrderEncodeToTheSameLength(@ForAll("items") Map<String, AttributeValue> item) {
        Map<String, AttributeValue> shuffled = reorder(item);
        assertThat(io.partita.storage.write.ItemWritesAccess.sameItem(item, shuffled))
                .isTrue();
        assertThat(ItemCodec.encode(shuffled)).hasSameSizeAs(ItemCodec.encode(item));
    }

    /** The same item with its attributes, map entries and set elements in reverse order. */
    private static Map<String, AttributeValue> reorder(Map<String, AttributeValue> item) {
        List<Map.Entry<String, AttributeValue>> entries = new java.util.ArrayList<>(item.entrySet());
        java.util.Collections.reverse(entries);
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, AttributeValue> e : entries) {
            out.put(e.getKey(), reorder(e.getValue()));
        }
        return out;
    }

    private static AttributeValue reorder(AttributeValue v) {
        if (v instanceof AttributeValue.SS ss) {
            return new AttributeValue.SS(reversed(ss.values()));
        } else if (v instanceof AttributeValue.NS ns) {
            return new AttributeValue.NS(reversed(ns.values()));
        } else if (v instanceof AttributeValue.BS bs) {
            return new AttributeValue.BS(reversed(bs.values()));
        } else if (v instanceof AttributeValue.M m) {
            return new AttributeValue.M(reorder(m.values()));
        } else if (v instanceof AttributeValue.L l) {
            return new AttributeValue.L(
                    l.values().stream().map(ItemCodecProperties::reorder).toList());
        }
        return v;
    }

    private static <T> List<T> reversed(List<T> values) {
        List<T> r = new java.util.ArrayList<>(values);
        java.util.Collections.reverse(r);
        return r;
    }

    private interface Writer {
        void write(JsonGenerator g) throws IOException;
    }

    private static String json(Writer w) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = DynamoJson.factory().createGenerator(out)) {
            w.write(g);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
