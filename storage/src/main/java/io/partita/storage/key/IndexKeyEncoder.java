package io.partita.storage.key;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/**
 * Builds the RocksDB key of a secondary index's row:
 *
 * <pre>
 *   +--------------------------+--------------------------+--------------------------+-----------------------+
 *   | hash64(enc(p1)…enc(pn))  | enc(p1) … enc(pn)         | enc(s1) … enc(sm)         | the item's table key  |
 *   | 8 bytes, big-endian      | index partition attributes| index sort attributes     | (ItemKeyEncoder)      |
 *   +--------------------------+--------------------------+--------------------------+-----------------------+
 * </pre>
 *
 * Rows sort by the index's partition hash, then by its partition and sort attributes in DynamoDB's order (each
 * encoding is self-delimiting, so a tuple sorts attribute by attribute), then by the table's key, which makes rows
 * with equal index keys distinct and orders them as DynamoDB leaves them: unspecified, but stable. A local index's
 * partition is the table's partition key, so its rows hash exactly as the table's items do.
 */
public final class IndexKeyEncoder {
    private IndexKeyEncoder() {}

    /** {@code hash ‖ enc(p…)}: the prefix every row of one index partition starts with. */
    public static byte[] partitionPrefix(List<AttributeValue> partition) {
        ByteSink pk = new ByteSink(32);
        for (AttributeValue v : partition) {
            ItemKeyEncoder.encodeValue(pk, v);
        }
        byte[] pkBytes = pk.toByteArray();
        return new ByteSink(8 + pkBytes.length)
                .putLong(PartitionHash.of(pkBytes))
                .put(pkBytes)
                .toByteArray();
    }

    /** The partition hash of an index partition: the first eight bytes of its rows. */
    public static long partitionHash(List<AttributeValue> partition) {
        ByteSink pk = new ByteSink(32);
        for (AttributeValue v : partition) {
            ItemKeyEncoder.encodeValue(pk, v);
        }
        return PartitionHash.of(pk.toByteArray());
    }

    /** {@code prefix ‖ enc(v…)}. */
    public static byte[] extend(byte[] prefix, List<AttributeValue> values) {
        ByteSink out = new ByteSink(prefix.length + 16 * values.size()).put(prefix);
        for (AttributeValue v : values) {
            ItemKeyEncoder.encodeValue(out, v);
        }
        return out.toByteArray();
    }

    /** The whole row key of an item with these index key values and table key. */
    public static byte[] rowKey(List<AttributeValue> partition, List<AttributeValue> sort, byte[] tableKey) {
        byte[] prefix = extend(partitionPrefix(partition), sort);
        byte[] out = new byte[prefix.length + tableKey.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(tableKey, 0, out, prefix.length, tableKey.length);
        return out;
    }
}
