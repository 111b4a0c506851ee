package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.storage.StorageConfig;
import io.partita.storage.key.ByteSink;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/** The per-thread write batch: nothing of a failed fill leaks into the next write, and nested writes both commit. */
class RocksStoreIT {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void put(org.rocksdb.WriteBatch batch, ColumnFamilyHandle cf, String key) {
        try {
            batch.put(cf, b(key), b("v-" + key));
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aFillThatThrowsLeavesNothingForTheNextWrite() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory())) {
            ColumnFamilyHandle cf = store.family(RocksStore.META);
            assertThatThrownBy(() -> store.write(batch -> {
                        put(batch, cf, "half-done");
                        throw new IllegalStateException("boom");
                    }))
                    .hasMessage("boom");
            store.write(batch -> put(batch, cf, "next"));
            assertThat(store.get(cf, b("half-done"))).isNull();
            assertThat(store.get(cf, b("next"))).isEqualTo(b("v-next"));
        }
    }

    @Test
    void aWriteInsideAFillGetsItsOwnBatch() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory())) {
            ColumnFamilyHandle cf = store.family(RocksStore.META);
            store.write(outer -> {
                put(outer, cf, "outer");
                store.write(inner -> put(inner, cf, "inner"));
                assertThat(store.get(cf, b("inner"))).isEqualTo(b("v-inner"));
                assertThat(store.get(cf, b("outer"))).isNull();
            });
            assertThat(store.get(cf, b("outer"))).isEqualTo(b("v-outer"));
            store.write(batch -> put(batch, cf, "after"));
            assertThat(store.get(cf, b("after"))).isEqualTo(b("v-after"));
        }
    }

    @Test
    void directPutsStoreKeyAndValueExactlyOnBothSidesOfTheDirectBufferLimit() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory())) {
            ColumnFamilyHandle cf = store.family(RocksStore.META);
            int[] sizes = {0, 1, 1024, RocksStore.DIRECT_PUT_MAX - 5, RocksStore.DIRECT_PUT_MAX - 4, 100_000, 10};
            for (int size : sizes) {
                byte[] key = b("key-" + size);
                byte[] value = new byte[size];
                for (int i = 0; i < size; i++) {
                    value[i] = (byte) (i * 31 + size);
                }
                ByteSink sink = new ByteSink(4).put(value);
                store.write(batch -> {
                    try {
                        RocksStore.put(batch, cf, key, sink);
                    } catch (RocksDBException e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThat(store.get(cf, key)).as("value of %d bytes", size).isEqualTo(value);
            }
        }
    }
}
