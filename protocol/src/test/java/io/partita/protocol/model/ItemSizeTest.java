package io.partita.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ItemSizeTest {
    @Test
    void stringsAndNamesCountUtf8Bytes() {
        assertThat(ItemSize.of(Map.of("ab", new AttributeValue.S("é😀")))).isEqualTo(2 + 2 + 4);
    }

    @Test
    void numbersCostOneBytePerTwoDigitsPlusOne() {
        assertThat(ItemSize.of(AttributeValue.N.of("1"))).isEqualTo(2);
        assertThat(ItemSize.of(AttributeValue.N.of("12"))).isEqualTo(2);
        assertThat(ItemSize.of(AttributeValue.N.of("123"))).isEqualTo(3);
        assertThat(ItemSize.of(AttributeValue.N.of("1200"))).isEqualTo(2);
    }

    @Test
    void documentsHaveThreeBytesOverheadAndOnePerElement() {
        assertThat(ItemSize.of(new AttributeValue.M(Map.of()))).isEqualTo(3);
        assertThat(ItemSize.of(new AttributeValue.L(List.of()))).isEqualTo(3);
        assertThat(ItemSize.of(new AttributeValue.L(List.of(new AttributeValue.Bool(true)))))
                .isEqualTo(3 + 1 + 1);
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("k", new AttributeValue.S("vv"));
        assertThat(ItemSize.of(new AttributeValue.M(m))).isEqualTo(3 + 1 + 1 + 2);
    }

    @Test
    void setsAreTheSumOfTheirElements() {
        assertThat(ItemSize.of(new AttributeValue.SS(List.of("a", "bc")))).isEqualTo(3);
        assertThat(ItemSize.of(new AttributeValue.BS(List.of(Bytes.wrap(new byte[5])))))
                .isEqualTo(5);
    }

    @Test
    void nullAndBooleanAreOneByte() {
        assertThat(ItemSize.of(new AttributeValue.Null())).isEqualTo(1);
        assertThat(ItemSize.of(new AttributeValue.Bool(false))).isEqualTo(1);
    }
}
