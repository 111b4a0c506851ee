package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Batches joined into one entry (a cluster's group commit) make, written by real RocksDB, exactly the changes of the
 * batches written one after the other.
 */
class ReplicatedEntryProperties {
    static {
        RocksDB.loadLibrary();
    }

    /** A change of a small key space, so later batches overwrite and delete what earlier ones wrote. */
    record Change(int key, boolean delete, int value) {}

    @Property(tries = 40)
    void joinedBatchesMakeTheChangesOfTheBatchesInTurn(
            @ForAll @Size(min = 1, max = 8) List<@Size(max = 6) List<@IntRange(min = 0, max = 200) Integer>> batches)
            throws Exception {
        List<byte[]> entries = new ArrayList<>();
        for (List<Integer> codes : batches) {
            try (WriteBatch batch = new WriteBatch()) {
                for (int code : codes) {
                    Change c = new Change(code % 7, code % 5 == 0, code);
                    if (c.delete()) {
                        batch.delete(key(c.key()));
                    } else {
                        batch.put(key(c.key()), ("v" + c.value()).getBytes(StandardCharsets.UTF_8));
                    }
                }
                entries.add(ReplicatedEntry.batch(batch.data()));
            }
        }
        Map<String, String> inTurn = write(entries);
        byte[] joined = ReplicatedEntry.joinBatches(entries);
        assertThat(ReplicatedEntry.decode(joined).kind()).isEqualTo(ReplicatedEntry.Kind.BATCH);
        try (WriteBatch batch = new WriteBatch(ReplicatedEntry.decode(joined).payload())) {
            assertThat(batch.count())
                    .isEqualTo(batches.stream().mapToInt(List::size).sum());
        }
        assertThat(write(List.of(joined))).isEqualTo(inTurn);
    }

    /**
     * Compare-and-sets of a few keys, each expecting absence or one of a few values and setting one or deleting,
     * applied in turn by a real store: each key ends as a map applying the same compare-and-sets says, the entries
     * survive their encoding, and every entry, changing the key or not, is recorded as applied.
     */
    @Property(tries = 30)
    void compareAndSetsAppliedInTurnMakeWhatAMapOfTheSameMakes(
            @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 999) Integer> codes) throws Exception {
        Path dir = Files.createTempDirectory("record-if");
        Map<String, String> model = new TreeMap<>();
        try (RocksStore store = RocksStore.open(io.partita.storage.StorageConfig.disk(dir))) {
            long index = 0;
            for (int code : codes) {
                String key = "k" + code % 3;
                String expected = code % 4 == 0 ? null : "v" + (code / 4) % 3;
                String value = code % 5 == 0 ? null : "v" + (code / 20) % 3;
                byte[] entry = ReplicatedEntry.recordIf(bytes(key), bytes(expected), bytes(value));
                ReplicatedEntry.RecordIf parts = ReplicatedEntry.decode(entry).recordIfParts();
                assertThat(parts.key()).isEqualTo(bytes(key));
                assertThat(parts.expected()).isEqualTo(bytes(expected));
                assertThat(parts.value()).isEqualTo(bytes(value));
                store.applyEntry(entry, 1, ++index);
                if (java.util.Objects.equals(model.get(key), expected)) {
                    if (value == null) {
                        model.remove(key);
                    } else {
                        model.put(key, value);
                    }
                }
                assertThat(store.appliedEntry()).containsExactly(1, index);
            }
            for (int k = 0; k < 3; k++) {
                byte[] stored = store.get(store.family(RocksStore.META), bytes("k" + k));
                assertThat(stored == null ? null : new String(stored, StandardCharsets.UTF_8))
                        .as("k" + k)
                        .isEqualTo(model.get("k" + k));
            }
        } finally {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    @Property(tries = 20)
    void anEmptyBatchChangesNothingAloneOrJoinedWithOthers(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 200) Integer> codes,
            @ForAll @IntRange(min = 1, max = 3) int empties)
            throws Exception {
        byte[] changes;
        try (WriteBatch batch = new WriteBatch()) {
            for (int code : codes) {
                batch.put(key(code % 7), ("v" + code).getBytes(StandardCharsets.UTF_8));
            }
            changes = ReplicatedEntry.batch(batch.data());
        }
        byte[] empty = ReplicatedEntry.emptyBatch();
        try (WriteBatch batch = new WriteBatch(ReplicatedEntry.decode(empty).payload())) {
            assertThat(batch.count()).isZero(); // RocksDB reads it as a batch of nothing
        }
        assertThat(ReplicatedEntry.decode(empty).changesNothing()).isTrue();
        assertThat(ReplicatedEntry.decode(changes).changesNothing()).isFalse();
        List<byte[]> entries = new ArrayList<>();
        for (int i = 0; i < empties; i++) {
            entries.add(empty);
        }
        entries.add(empties / 2, changes);
        byte[] joined = ReplicatedEntry.joinBatches(entries);
        assertThat(ReplicatedEntry.decode(joined).changesNothing()).isFalse();
        assertThat(write(List.of(joined))).isEqualTo(write(List.of(changes))).isEqualTo(write(entries));
        assertThat(ReplicatedEntry.decode(ReplicatedEntry.joinBatches(List.of(empty, empty)))
                        .changesNothing())
                .isTrue();
    }

    @Property(tries = 5)
    void onlyBatchesJoin(@ForAll @IntRange(min = 0, max = 1) int which) {
        byte[] family = which == 0 ? ReplicatedEntry.createFamily("t") : ReplicatedEntry.dropFamily("t");
        assertThatThrownBy(() -> ReplicatedEntry.joinBatches(List.of(family)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes each entry's batch in turn to a new database and answers what it then holds. */
    private static Map<String, String> write(List<byte[]> entries) throws Exception {
        Path dir = Files.createTempDirectory("joined");
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, dir.toString());
                WriteOptions write = new WriteOptions()) {
            for (byte[] entry : entries) {
                try (WriteBatch batch =
                        new WriteBatch(ReplicatedEntry.decode(entry).payload())) {
                    db.write(write, batch);
                }
            }
            Map<String, String> held = new TreeMap<>();
            try (RocksIterator it = db.newIterator()) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    held.put(
                            new String(it.key(), StandardCharsets.UTF_8),
                            new String(it.value(), StandardCharsets.UTF_8));
                }
            }
            return held;
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }
}
