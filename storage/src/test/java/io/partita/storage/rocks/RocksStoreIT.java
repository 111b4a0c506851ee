package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.storage.StorageConfig;
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
}
