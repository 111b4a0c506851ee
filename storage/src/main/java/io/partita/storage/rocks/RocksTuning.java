package io.partita.storage.rocks;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;

/** Every RocksDB option Partita sets, in one place. Native objects are registered with the caller's closer. */
final class RocksTuning {
    static final long BLOCK_CACHE_BYTES = 64L << 20;

    private RocksTuning() {}

    static DBOptions dbOptions(Closer closer) {
        DBOptions options = closer.push(new DBOptions());
        options.setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setMaxBackgroundJobs(2)
                .setKeepLogFileNum(3)
                .setMaxTotalWalSize(256L << 20);
        return options;
    }

    /** Options for item column families: bloom filters on whole keys, a shared block cache, LZ4 compression. */
    static ColumnFamilyOptions itemOptions(Closer closer, Cache cache) {
        BloomFilter filter = closer.push(new BloomFilter(10, false));
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setFilterPolicy(filter)
                .setCacheIndexAndFilterBlocks(true)
                .setPinL0FilterAndIndexBlocksInCache(true)
                .setBlockSize(16 * 1024);
        ColumnFamilyOptions options = closer.push(new ColumnFamilyOptions());
        options.setTableFormatConfig(table)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setWriteBufferSize(32L << 20);
        return options;
    }

    /** Options for the statistics column family: counters updated by the built-in 64-bit add merge operator. */
    static ColumnFamilyOptions statsOptions(Closer closer) {
        ColumnFamilyOptions options = closer.push(new ColumnFamilyOptions());
        options.setMergeOperatorName("uint64add");
        return options;
    }

    /**
     * With Partita's own log ({@code ownLog}), RocksDB must never flush on its own: only the store's checkpoints may,
     * which follow every {@code partita.log.segmentBytes} of appends and hold appends back at four times that. Memtables
     * of 1 GB are never reached (a memtable's arena grows in blocks of 1 MB, so the size reserves nothing), and four of
     * them let a checkpoint start before the last one's flush has finished.
     */
    static ColumnFamilyOptions memtables(ColumnFamilyOptions options, boolean ownLog) {
        if (ownLog) {
            options.setWriteBufferSize(1L << 30).setMaxWriteBufferNumber(4);
        }
        return options;
    }

    static ColumnFamilyOptions metaOptions(Closer closer) {
        return closer.push(new ColumnFamilyOptions());
    }

    static Cache blockCache(Closer closer) {
        return closer.push(new LRUCache(BLOCK_CACHE_BYTES));
    }
}
