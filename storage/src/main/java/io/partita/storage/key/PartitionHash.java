package io.partita.storage.key;

import net.openhft.hashing.LongHashFunction;

/**
 * The 64-bit hash that places a partition key: XXH3 of the key's {@link OrderedBytes} encoding.
 *
 * <p>The hash is stored big-endian at the front of every item key, so unsigned hash order is byte order and a
 * partition is a contiguous range of keys. Changing the function changes every stored key: it is part of the format.
 */
public final class PartitionHash {
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private PartitionHash() {}

    public static long of(byte[] encodedPartitionKey) {
        return XXH3.hashBytes(encodedPartitionKey);
    }
}
