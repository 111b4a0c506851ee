package io.partita.storage.key;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;

/**
 * Builds the RocksDB key of an item:
 *
 * <pre>
 *   +----------------------+-------------------------+--------------------+
 *   | hash64(pk), 8 bytes  | OrderedBytes(pk)        | OrderedBytes(sk)   |
 *   | big-endian, unsigned | self-delimiting         | absent if no sort  |
 *   +----------------------+-------------------------+--------------------+
 * </pre>
 *
 * Items sort by hash first (Scan walks hash order, as DynamoDB does), then by partition key, then by sort key in
 * DynamoDB's order, so a Query is a prefix seek.
 */
public final class ItemKeyEncoder {
    private ItemKeyEncoder() {}

    /** The encoded key and the partition hash it starts with. */
    public record EncodedKey(byte[] bytes, long hash) {}

    public static EncodedKey encode(KeySchema schema, PrimaryKey key) {
        ByteSink pk = new ByteSink(32);
        encodeValue(pk, key.partition());
        byte[] pkBytes = pk.toByteArray();
        long hash = PartitionHash.of(pkBytes);
        ByteSink out = new ByteSink(8 + pkBytes.length + 16);
        out.putLong(hash).put(pkBytes);
        if (schema.hasSortKey()) {
            encodeValue(out, key.sort());
        }
        return new EncodedKey(out.toByteArray(), hash);
    }

    /** The hash that places {@code partitionKey}: the first eight bytes of every key of its items. */
    public static long partitionHash(AttributeValue partitionKey) {
        ByteSink pk = new ByteSink(32);
        encodeValue(pk, partitionKey);
        return PartitionHash.of(pk.toByteArray());
    }

    static void encodeValue(ByteSink out, AttributeValue value) {
        if (value instanceof AttributeValue.S s) {
            OrderedBytes.encodeString(out, s.value());
        } else if (value instanceof AttributeValue.N n) {
            OrderedBytes.encodeNumber(out, n.value());
        } else if (value instanceof AttributeValue.B b) {
            OrderedBytes.encodeBinary(out, b.value().unsafeArray());
        } else {
            throw new IllegalArgumentException("not a key type: " + value.type());
        }
    }
}
