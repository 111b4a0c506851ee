package io.partita.storage;

import io.partita.storage.capacity.CapacityConfig;
import java.nio.file.Path;

/**
 * Where and how data is kept.
 *
 * @param dataDir the RocksDB directory (ignored when {@code inMemory})
 * @param inMemory keep everything in memory; nothing touches the disk and everything is gone on close
 * @param sync fsync the WAL on every commit: survives power loss, not only a process crash
 * @param capacity the partition and throughput model
 */
public record StorageConfig(Path dataDir, boolean inMemory, boolean sync, CapacityConfig capacity) {
    public StorageConfig(Path dataDir, boolean inMemory, boolean sync) {
        this(dataDir, inMemory, sync, CapacityConfig.defaults());
    }

    public static StorageConfig memory() {
        return new StorageConfig(null, true, false);
    }

    public static StorageConfig disk(Path dataDir) {
        return new StorageConfig(dataDir, false, false);
    }

    public StorageConfig withCapacity(CapacityConfig c) {
        return new StorageConfig(dataDir, inMemory, sync, c);
    }
}
