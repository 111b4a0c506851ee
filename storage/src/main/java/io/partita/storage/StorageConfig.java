package io.partita.storage;

import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.feed.FeedTrimmer;
import io.partita.storage.write.ConflictInjection;
import java.nio.file.Path;

/**
 * Where and how data is kept.
 *
 * @param dataDir the RocksDB directory (ignored when {@code inMemory})
 * @param inMemory keep everything in memory; nothing touches the disk and everything is gone on close
 * @param sync fsync the WAL on every commit: survives power loss, not only a process crash
 * @param capacity the partition and throughput model
 * @param itemCacheBytes the budget of the in-process cache of recently used items; 0 turns it off
 * @param feedTrimMillis how often the change feed is trimmed behind its consumers; 0 or less: only when asked
 * @param gsiLagMillis how long every GSI holds a change back before applying it (to test code against stale
 *     indexes); 0 for none
 * @param ttlIntervalMillis how often the TTL reaper looks for expired items; 0 or less: only when asked
 * @param itemCollectionLimitBytes the largest item collection (the items of one partition key and their LSI entries)
 *     of a table with LSIs: DynamoDB's 10 GB, lowered by tests
 * @param transactionConflicts the share of transactions cancelled with {@code TransactionConflict} on purpose, for
 *     testing retry code; {@link ConflictInjection#NONE} for none
 * @param s3Dir the directory that stands for S3 in exports and imports; null for the default ({@link #s3Root})
 * @param minFreeBytes writes are refused (503) while the data directory's disk has less free space than this, so that
 *     RocksDB never meets a full disk mid-write; 0 turns the floor off
 */
public record StorageConfig(
        Path dataDir,
        boolean inMemory,
        boolean sync,
        CapacityConfig capacity,
        long itemCacheBytes,
        long feedTrimMillis,
        long gsiLagMillis,
        long itemCollectionLimitBytes,
        long ttlIntervalMillis,
        ConflictInjection transactionConflicts,
        long minFreeBytes,
        Path s3Dir) {
    /** The default floor of free disk space below which writes are refused: 64 MB. */
    public static final long DEFAULT_MIN_FREE_BYTES = 64L << 20;

    /** The TTL reaper's default period. */
    public static final long DEFAULT_TTL_INTERVAL_MILLIS = 1000;

    /** DynamoDB's item collection limit: 10 GB ("Item collection size limit"). */
    public static final long DEFAULT_ITEM_COLLECTION_LIMIT = 10L * 1024 * 1024 * 1024;

    /** The default item cache: 64 MB, enough for about 55,000 items of 1 KB. */
    public static final long DEFAULT_ITEM_CACHE_BYTES = 64L << 20;

    public StorageConfig(Path dataDir, boolean inMemory, boolean sync) {
        this(
                dataDir,
                inMemory,
                sync,
                CapacityConfig.defaults(),
                DEFAULT_ITEM_CACHE_BYTES,
                FeedTrimmer.periodFromProperties(),
                0,
                DEFAULT_ITEM_COLLECTION_LIMIT,
                DEFAULT_TTL_INTERVAL_MILLIS,
                ConflictInjection.NONE,
                DEFAULT_MIN_FREE_BYTES,
                null);
    }

    /**
     * Where ExportTableToPointInTime writes and ImportTable reads: the directory that stands for S3, each bucket a
     * directory in it. Unless set, {@code s3} in the data directory, or in the system's temporary directory in memory.
     */
    public Path s3Root() {
        if (s3Dir != null) {
            return s3Dir;
        }
        return inMemory ? Path.of(System.getProperty("java.io.tmpdir"), "partita-s3") : dataDir.resolve("s3");
    }

    public StorageConfig withS3Dir(Path dir) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                dir);
    }

    public static StorageConfig memory() {
        return new StorageConfig(null, true, false);
    }

    public static StorageConfig disk(Path dataDir) {
        return new StorageConfig(dataDir, false, false);
    }

    public StorageConfig withCapacity(CapacityConfig c) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                c,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    public StorageConfig withItemCacheBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("item cache size must not be negative: " + bytes);
        }
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                bytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    /** Trims the change feed every {@code millis}; 0 or less only when {@code StorageEngine.trimFeed} is called. */
    public StorageConfig withFeedTrimMillis(long millis) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                millis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    /** Every GSI holds each change back {@code millis} before applying it; 0 for none. */
    public StorageConfig withGsiLagMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("GSI lag must not be negative: " + millis);
        }
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                millis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    /** A lower item collection limit than DynamoDB's 10 GB, for tests of ItemCollectionSizeLimitExceededException. */
    public StorageConfig withItemCollectionLimitBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("item collection limit must be positive: " + bytes);
        }
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                bytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    /** The TTL reaper looks for expired items every {@code millis}; 0 or less only when asked (reapNow). */
    public StorageConfig withTtlIntervalMillis(long millis) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                millis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }

    /** Cancels {@code c}'s share of transactions with a conflict, chosen by its seeded generator. */
    public StorageConfig withTransactionConflicts(ConflictInjection c) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                c,
                minFreeBytes,
                s3Dir);
    }

    /** Refuses writes while the disk has less than {@code bytes} free (0: no floor). */
    public StorageConfig withMinFreeBytes(long bytes) {
        return new StorageConfig(
                dataDir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                bytes,
                s3Dir);
    }

    /** The same settings over another directory. */
    public StorageConfig withDataDir(Path dir) {
        return new StorageConfig(
                dir,
                inMemory,
                sync,
                capacity,
                itemCacheBytes,
                feedTrimMillis,
                gsiLagMillis,
                itemCollectionLimitBytes,
                ttlIntervalMillis,
                transactionConflicts,
                minFreeBytes,
                s3Dir);
    }
}
