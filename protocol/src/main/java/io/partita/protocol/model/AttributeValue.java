package io.partita.protocol.model;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One DynamoDB value: a sealed family of the ten attribute types.
 *
 * <p>Instances are immutable and compare by value; numbers are normalised, so {@code N("1.0")} equals {@code N("1")}.
 */
public sealed interface AttributeValue
        permits AttributeValue.S,
                AttributeValue.N,
                AttributeValue.B,
                AttributeValue.Bool,
                AttributeValue.Null,
                AttributeValue.SS,
                AttributeValue.NS,
                AttributeValue.BS,
                AttributeValue.L,
                AttributeValue.M {

    /** DynamoDB's type descriptor: {@code S}, {@code N}, {@code B}, {@code BOOL}, {@code NULL}, {@code SS}, … */
    String type();

    record S(String value) implements AttributeValue {
        @Override
        public String type() {
            return "S";
        }
    }

    /** A number, normalised by {@link DynamoNumber#check}. */
    record N(BigDecimal value) implements AttributeValue {
        public static N of(String text) {
            return new N(DynamoNumber.parse(text));
        }

        public String text() {
            return DynamoNumber.format(value);
        }

        @Override
        public String type() {
            return "N";
        }
    }

    record B(Bytes value) implements AttributeValue {
        @Override
        public String type() {
            return "B";
        }
    }

    record Bool(boolean value) implements AttributeValue {
        @Override
        public String type() {
            return "BOOL";
        }
    }

    record Null() implements AttributeValue {
        @Override
        public String type() {
            return "NULL";
        }
    }

    record SS(List<String> values) implements AttributeValue {
        public SS {
            values = List.copyOf(values);
        }

        @Override
        public String type() {
            return "SS";
        }
    }

    record NS(List<BigDecimal> values) implements AttributeValue {
        public NS {
            values = List.copyOf(values);
        }

        @Override
        public String type() {
            return "NS";
        }
    }

    record BS(List<Bytes> values) implements AttributeValue {
        public BS {
            values = List.copyOf(values);
        }

        @Override
        public String type() {
            return "BS";
        }
    }

    record L(List<AttributeValue> values) implements AttributeValue {
        public L {
            values = List.copyOf(values);
        }

        @Override
        public String type() {
            return "L";
        }
    }

    record M(Map<String, AttributeValue> values) implements AttributeValue {
        public M {
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        @Override
        public String type() {
            return "M";
        }
    }
}
