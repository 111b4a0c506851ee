package io.partita.storage.item;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ItemCacheTest {
    private static final long T = ItemCache.newTableId();

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static long hash(byte[] key) {
        return Arrays.hashCode(key) * 0x9E3779B97F4A7C15L;
    }

    private static byte[] value(int size, int fill) {
        byte[] v = new byte[size];
        Arrays.fill(v, (byte) fill);
        return v;
    }

    @Test
    void holdsWhatWasPutUntilRemoved() {
        ItemCache cache = new ItemCache(1 << 20);
        byte[] k = key(1);
        assertThat(cache.get(T, k, hash(k))).isNull();
        cache.put(T, k, hash(k), value(10, 1), 42);
        ItemCache.Entry e = cache.get(T, key(1), hash(k));
        assertThat(e.itemSize()).isEqualTo(42);
        assertThat(e.stored()).isEqualTo(value(10, 1));
        cache.put(T, k, hash(k), value(20, 2), 43);
        assertThat(cache.get(T, k, hash(k)).stored()).isEqualTo(value(20, 2));
        assertThat(cache.size()).isEqualTo(1);
        cache.remove(T, k, hash(k));
        assertThat(cache.get(T, k, hash(k))).isNull();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void anEntryMayHoldOnlyTheSize() {
        ItemCache cache = new ItemCache(1 << 20);
        byte[] k = key(1);
        cache.put(T, k, hash(k), null, 1234);
        assertThat(cache.get(T, k, hash(k)).stored()).isNull();
        assertThat(cache.get(T, k, hash(k)).itemSize()).isEqualTo(1234);
        assertThat(cache.bytes()).isEqualTo(ItemCache.ENTRY_OVERHEAD + k.length);
    }

    @Test
    void tablesDoNotShareEntries() {
        ItemCache cache = new ItemCache(1 << 20);
        long other = ItemCache.newTableId();
        byte[] k = key(1);
        cache.put(T, k, hash(k), value(10, 1), 10);
        assertThat(cache.get(other, k, hash(k))).isNull();
        assertThat(ItemCache.newTableId()).isNotEqualTo(other);
    }

    @Test
    void staysWithinItsBudgetEvictingTheLeastRecentlyUsed() {
        long budget = 64 * 1024;
        ItemCache cache = new ItemCache(budget);
        byte[] hot = key(0);
        cache.put(T, hot, hash(hot), value(100, 0), 100);
        for (int i = 1; i < 2_000; i++) {
            byte[] k = key(i);
            cache.put(T, k, hash(k), value(100, i), 100);
            assertThat(cache.get(T, hot, hash(hot))).isNotNull(); // used all the time, so never the eldest
            assertThat(cache.bytes()).isLessThanOrEqualTo(budget);
        }
        assertThat(cache.size()).isLessThan(2_000).isGreaterThan(100);
        byte[] first = key(1);
        assertThat(cache.get(T, first, hash(first))).isNull();
    }

    @Test
    void overwritesDoNotGrowTheCacheOrItsQueues() {
        ItemCache cache = new ItemCache(64L << 20);
        for (int i = 0; i < 20_000; i++) {
            byte[] k = key(i % 10);
            cache.put(T, k, hash(k), value(50, i), 50);
            cache.get(T, k, hash(k));
        }
        assertThat(cache.size()).isEqualTo(10);
        assertThat(cache.bytes()).isEqualTo(10 * (ItemCache.ENTRY_OVERHEAD + key(0).length + 50));
        assertThat(cache.queued()).isLessThan(16 * 2 * 65 + 10);
        byte[] k = key(3);
        assertThat(cache.get(T, k, hash(k)).stored()).isEqualTo(value(50, 19_993));
    }

    @Test
    void aValueLargerThanASegmentIsNotCachedAndDropsTheOldOne() {
        ItemCache cache = new ItemCache(16 * 1024);
        byte[] k = key(7);
        cache.put(T, k, hash(k), value(10, 1), 10);
        cache.put(T, k, hash(k), value(4_000, 2), 4_000);
        assertThat(cache.get(T, k, hash(k))).isNull();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void aZeroBudgetCachesNothing() {
        ItemCache cache = new ItemCache(0);
        byte[] k = key(1);
        cache.put(T, k, hash(k), value(10, 1), 10);
        assertThat(cache.enabled()).isFalse();
        assertThat(cache.get(T, k, hash(k))).isNull();
        assertThat(cache.size()).isZero();
    }
}
