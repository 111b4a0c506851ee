package io.partita.storage.ttl;

import io.partita.protocol.model.AttributeValue;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The keys of the {@code ttl} column family: each item of a table with TTL that has an expiry, ordered by it, so
 * that the reaper reads only what has expired, never the table.
 *
 * <pre>
 *   T ‖ expiry (8 bytes, epoch seconds, big-endian) ‖ the item's table key      (empty value)
 *   T = length of the table id (1) ‖ table id
 * </pre>
 */
public final class TtlKeys {
    /** DynamoDB ignores expiry values more than five years in the past ("Using time to live"). */
    static final long FIVE_YEARS_SECONDS = 5L * 365 * 24 * 3600;

    private TtlKeys() {}

    /** The prefix of every entry of the table with id {@code tableId}. */
    public static byte[] table(String tableId) {
        byte[] id = tableId.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[1 + id.length];
        out[0] = (byte) id.length;
        System.arraycopy(id, 0, out, 1, id.length);
        return out;
    }

    /** Just past every entry of the table with id {@code tableId}: the successor of its prefix. */
    public static byte[] tableEnd(String tableId) {
        byte[] end = table(tableId);
        int i = end.length - 1;
        while (end[i] == (byte) 0xFF) {
            end[i] = 0;
            i--;
        }
        end[i]++;
        return end;
    }

    static byte[] entry(String tableId, long expirySeconds, byte[] itemKey) {
        byte[] t = table(tableId);
        return ByteBuffer.allocate(t.length + 8 + itemKey.length)
                .put(t)
                .putLong(expirySeconds)
                .put(itemKey)
                .array();
    }

    /** The first key of entries expiring at {@code expirySeconds} or later. */
    static byte[] from(String tableId, long expirySeconds) {
        byte[] t = table(tableId);
        return ByteBuffer.allocate(t.length + 8).put(t).putLong(expirySeconds).array();
    }

    static long expiryOf(byte[] entry, int tableIdLength) {
        return ByteBuffer.wrap(entry, 1 + tableIdLength, 8).getLong();
    }

    static byte[] itemKeyOf(byte[] entry, int tableIdLength) {
        return Arrays.copyOfRange(entry, 1 + tableIdLength + 8, entry.length);
    }

    /**
     * An item's expiry in epoch seconds (a fraction is cut), or -1 if it has none DynamoDB would act on: the attribute
     * absent, not a Number, negative, or more than five years before {@code nowSeconds}.
     */
    public static long expiry(Map<String, AttributeValue> item, String attribute, long nowSeconds) {
        if (item == null) {
            return -1;
        }
        AttributeValue v = item.get(attribute);
        if (!(v instanceof AttributeValue.N n)) {
            return -1;
        }
        BigDecimal seconds = n.value();
        if (seconds.signum() < 0 || seconds.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 2)) > 0) {
            return -1;
        }
        long s = seconds.longValue();
        return s < nowSeconds - FIVE_YEARS_SECONDS ? -1 : s;
    }
}
