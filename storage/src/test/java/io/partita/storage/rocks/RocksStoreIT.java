package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.storage.StorageConfig;
import io.partita.storage.StorageException;
import io.partita.storage.key.ByteSink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/**
 * The per-thread write batch: nothing of a failed fill leaks into the next write, and nested writes both commit. Close
 * waits for calls in flight and refuses new ones.
 */
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

    @Test
    @Timeout(60)
    void closeWaitsForACallInFlightAndThenRefusesEveryCall() throws Exception {
        RocksStore store = RocksStore.open(StorageConfig.memory());
        ColumnFamilyHandle cf = store.family(RocksStore.META);
        store.write(batch -> {
            put(batch, cf, "a");
            put(batch, cf, "b");
        });
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> seen = new ArrayList<>();
        CompletableFuture<Void> scan =
                CompletableFuture.runAsync(() -> store.range(cf, b("a"), b("z"), true, (k, v) -> {
                    seen.add(new String(k, StandardCharsets.UTF_8));
                    inside.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return true;
                }));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(store::close);
        closer.start();
        // close() has marked the store closed once new calls fail; it must still be waiting for the scan.
        while (true) {
            try {
                store.get(cf, b("a"));
            } catch (StorageException e) {
                assertThat(e).hasMessageContaining("storage is closed");
                break;
            }
            Thread.onSpinWait();
        }
        assertThat(closer.isAlive()).isTrue();
        release.countDown();
        scan.get(10, TimeUnit.SECONDS);
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        // The scan went on reading the open DB after close() began.
        assertThat(seen).containsExactly("a", "b");
        assertThatThrownBy(() -> store.write(batch -> put(batch, cf, "c")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("storage is closed");
        store.close();
    }
}
