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
import org.junit.jupiter.api.io.TempDir;
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

    // Partita's own write-ahead log (persistent stores without --sync): closeAsIfCrashed() leaves what a crash of the
    // process leaves, the last flush and the log, and the next open must replay exactly what the flush lacks.

    private static final long SMALL_SEGMENTS = 64 * 1024;

    private static byte[] one() {
        return java.nio.ByteBuffer.allocate(8)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(1)
                .array();
    }

    private static long counter(RocksStore store) {
        byte[] v = store.get(store.family(RocksStore.STATS), b("n"));
        return v == null
                ? 0
                : java.nio.ByteBuffer.wrap(v)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .getLong();
    }

    /** Writes {@code n} batches, each an item of 1 KB and a merge adding 1 to a counter, from two threads. */
    private static void writeItemsAndCount(RocksStore store, ColumnFamilyHandle cf, int from, int n) throws Exception {
        byte[] value = new byte[1024];
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int thread = t;
            writers.add(CompletableFuture.runAsync(() -> {
                for (int i = from + thread; i < from + n; i += 2) {
                    int k = i;
                    store.write(batch -> {
                        try {
                            batch.put(cf, b("item-" + k), value);
                            batch.merge(store.family(RocksStore.STATS), b("n"), one());
                        } catch (RocksDBException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
            }));
        }
        for (CompletableFuture<Void> w : writers) {
            w.get(60, TimeUnit.SECONDS);
        }
    }

    private static void assertItems(RocksStore store, ColumnFamilyHandle cf, int n) {
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (store.get(cf, b("item-" + i)) == null) {
                missing.add(i);
            }
        }
        assertThat(missing).as("items missing after the crash").isEmpty();
    }

    @Test
    @Timeout(120)
    void aCrashKeepsEveryBatchAndReplaysEachMergeExactlyOnce(@TempDir java.nio.file.Path dir) throws Exception {
        int n = 3000; // about 3 MB of log: dozens of checkpoints of 64 KB segments, each racing the writers
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            ColumnFamilyHandle items = store.createItemFamily(RocksStore.ITEMS_PREFIX + "t");
            writeItemsAndCount(store, items, 0, n);
            assertThat(counter(store)).isEqualTo(n);
            assertThat(store.unexpectedFlushes()).isZero();
            store.closeAsIfCrashed();
        }
        // At most four segments past the checkpoint being flushed and four past the one before, reused after.
        assertThat(CommitLog.segments(dir.resolve(CommitLog.DIRECTORY)))
                .as("segments behind the checkpoints are reused")
                .hasSizeLessThanOrEqualTo(11);
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertItems(store, store.family(RocksStore.ITEMS_PREFIX + "t"), n);
            assertThat(counter(store)).isEqualTo(n);
        }
    }

    @Test
    void aCrashBetweenAFlushAndTheCutReplaysOnlyWhatFollowsTheMarker(@TempDir java.nio.file.Path dir) throws Exception {
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            ColumnFamilyHandle items = store.createItemFamily(RocksStore.ITEMS_PREFIX + "t");
            writeItemsAndCount(store, items, 0, 200);
            store.checkpoint(true, false); // flushed with its marker, segments not deleted
            writeItemsAndCount(store, items, 200, 50);
            store.closeAsIfCrashed();
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertItems(store, store.family(RocksStore.ITEMS_PREFIX + "t"), 250);
            assertThat(counter(store)).isEqualTo(250);
            store.closeAsIfCrashed(); // nothing new: the next open replays nothing twice either
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertThat(counter(store)).isEqualTo(250);
        }
    }

    @Test
    void batchesForADroppedFamilyAreSkippedOnReplay(@TempDir java.nio.file.Path dir) throws Exception {
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            ColumnFamilyHandle gone = store.createItemFamily(RocksStore.ITEMS_PREFIX + "gone");
            ColumnFamilyHandle meta = store.family(RocksStore.META);
            store.write(batch -> put(batch, gone, "in-dropped"));
            store.write(batch -> put(batch, meta, "before"));
            store.dropFamily(RocksStore.ITEMS_PREFIX + "gone");
            store.write(batch -> put(batch, meta, "after"));
            store.closeAsIfCrashed();
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertThat(store.hasFamily(RocksStore.ITEMS_PREFIX + "gone")).isFalse();
            assertThat(store.get(store.family(RocksStore.META), b("before"))).isEqualTo(b("v-before"));
            assertThat(store.get(store.family(RocksStore.META), b("after"))).isEqualTo(b("v-after"));
        }
    }

    @Test
    void aSyncedStoreReplaysTheLogOfAnUnsyncedOneAndBack(@TempDir java.nio.file.Path dir) throws Exception {
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            writeItemsAndCount(store, store.createItemFamily(RocksStore.ITEMS_PREFIX + "t"), 0, 100);
            store.closeAsIfCrashed();
        }
        StorageConfig synced = new StorageConfig(dir, false, true);
        try (RocksStore store = RocksStore.open(synced, SMALL_SEGMENTS)) {
            ColumnFamilyHandle items = store.family(RocksStore.ITEMS_PREFIX + "t");
            assertItems(store, items, 100);
            assertThat(counter(store)).isEqualTo(100);
            writeItemsAndCount(store, items, 100, 100);
            store.closeAsIfCrashed(); // RocksDB's own log has these
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            ColumnFamilyHandle items = store.family(RocksStore.ITEMS_PREFIX + "t");
            assertItems(store, items, 200);
            assertThat(counter(store)).isEqualTo(200);
            writeItemsAndCount(store, items, 200, 100);
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertItems(store, store.family(RocksStore.ITEMS_PREFIX + "t"), 300);
            assertThat(counter(store)).isEqualTo(300);
        }
    }

    @Test
    void aCleanCloseLeavesNothingToReplayTwice(@TempDir java.nio.file.Path dir) throws Exception {
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            writeItemsAndCount(store, store.createItemFamily(RocksStore.ITEMS_PREFIX + "t"), 0, 500);
        }
        try (RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertItems(store, store.family(RocksStore.ITEMS_PREFIX + "t"), 500);
            assertThat(counter(store)).isEqualTo(500);
        }
    }

    @Test
    @Timeout(60)
    void closeFailsWritersHeldBackForACheckpointThatNeverComes(@TempDir java.nio.file.Path dir) throws Exception {
        RocksStore store = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS);
        ColumnFamilyHandle meta = store.family(RocksStore.META);
        store.stopCheckpointsForTest();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            for (int i = 0; ; i++) {
                int k = i;
                store.write(batch -> {
                    try {
                        batch.put(meta, b("k" + k), new byte[1024]);
                    } catch (RocksDBException e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        });
        Thread.sleep(500); // past four segments of 64 KB: the writer now waits for a checkpoint
        assertThat(writer).isNotDone();
        store.close();
        assertThatThrownBy(() -> writer.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StorageException.class);
        try (RocksStore reopened = RocksStore.open(StorageConfig.disk(dir), SMALL_SEGMENTS)) {
            assertThat(reopened.get(reopened.family(RocksStore.META), b("k0"))).isNotNull();
        }
    }

    @Test
    void aCheckpointReplacesAnotherStoreWholeAndItsOwnLogIsNotReplayedOverIt(@TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path checkpoint = dir.resolve("checkpoint");
        StorageConfig sourceConfig = StorageConfig.disk(dir.resolve("source"));
        StorageConfig targetConfig = StorageConfig.disk(dir.resolve("target"));
        try (RocksStore source = RocksStore.open(sourceConfig)) {
            ColumnFamilyHandle items = source.createItemFamily(RocksStore.ITEMS_PREFIX + "t");
            for (int i = 0; i < 100; i++) {
                int n = i;
                source.write(batch -> put(batch, items, "k" + n));
            }
            source.checkpointTo(checkpoint);
            // After the checkpoint: not in it.
            source.write(batch -> put(batch, items, "later"));
        }
        // The target's own write is only in its log (a crash before any checkpoint), which replay would apply.
        RocksStore crashed = RocksStore.open(targetConfig);
        ColumnFamilyHandle own = crashed.family(RocksStore.META);
        crashed.write(batch -> put(batch, own, "the target's own"));
        crashed.closeAsIfCrashed();
        // A crash midway repeats the replacement from the start: twice gives the same store as once.
        RocksStore.replaceWithCheckpoint(targetConfig, checkpoint);
        RocksStore.replaceWithCheckpoint(targetConfig, checkpoint);
        try (RocksStore target = RocksStore.open(targetConfig)) {
            assertThat(target.hasFamily(RocksStore.ITEMS_PREFIX + "t")).isTrue();
            List<String> keys = new ArrayList<>();
            target.forEach(
                    target.family(RocksStore.ITEMS_PREFIX + "t"),
                    (k, v) -> keys.add(new String(k, StandardCharsets.UTF_8)));
            assertThat(keys).hasSize(100).contains("k0", "k99").doesNotContain("later");
            assertThat(target.get(target.family(RocksStore.META), b("the target's own")))
                    .isNull();
            // It takes writes and keeps them across a restart, in its new log.
            ColumnFamilyHandle items = target.family(RocksStore.ITEMS_PREFIX + "t");
            target.write(batch -> put(batch, items, "after"));
        }
        try (RocksStore target = RocksStore.open(targetConfig)) {
            assertThat(target.get(target.family(RocksStore.ITEMS_PREFIX + "t"), b("after")))
                    .isEqualTo(b("v-after"));
        }
        // The checkpoint itself was only read.
        assertThat(java.nio.file.Files.exists(checkpoint.resolve("CURRENT"))).isTrue();
    }
}
