package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Partita's write-ahead log on its own: record framing, segments, replay from a position, torn records, back-off. */
@Timeout(60)
class CommitLogTest {
    static byte[] record(Random random, int size) {
        byte[] payload = new byte[size];
        random.nextBytes(payload);
        return payload;
    }

    /** Appends and applies a record, and checkpoints when the log asks, as the store's checkpointer would. */
    private static void append(CommitLog log, byte[] payload) {
        appendOnly(log, payload);
        if (log.checkpointWanted()) {
            try {
                quietPosition(log);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static void appendOnly(CommitLog log, byte[] payload) {
        log.append(payload, CommitLog.checksum(payload));
        log.applied();
    }

    static List<byte[]> replay(Path dir, long from) throws IOException {
        List<byte[]> read = new ArrayList<>();
        CommitLog.replay(dir, from, read::add);
        return read;
    }

    static long quietPosition(CommitLog log) throws Exception {
        long[] at = {-1};
        log.checkpoint(position -> at[0] = position);
        return at[0];
    }

    @Test
    void aLogThatCannotMakeItsFirstSegmentStartsAndRefusesUntilItCan(@TempDir Path dir) throws Exception {
        // Where the first segment's file should go, a directory (not empty, so that it is not cleared away as a
        // half-made segment would be): creating the file fails as a full disk would.
        Path blocker = CommitLog.segmentPath(dir, 1);
        java.nio.file.Files.createDirectories(blocker);
        java.nio.file.Files.createFile(blocker.resolve("in-the-way"));
        CommitLog log = CommitLog.start(dir, 1, 4096, () -> {});
        try {
            byte[] first = record(new Random(3), 100);
            assertThat(quietPosition(log)).as("a checkpoint before any segment").isEqualTo(CommitLog.position(1, 0));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> appendOnly(log, first))
                    .isInstanceOfSatisfying(
                            io.partita.storage.StorageUnavailableException.class,
                            e -> assertThat(e.mayHaveBeenWritten()).isFalse());
            java.nio.file.Files.delete(blocker.resolve("in-the-way"));
            java.nio.file.Files.delete(blocker);
            appendOnly(log, first);
            assertThat(replay(dir, CommitLog.position(1, 0))).containsExactly(first);
        } finally {
            log.close();
        }
    }

    @Test
    void recordsReplayInOrderAcrossSegments(@TempDir Path dir) throws Exception {
        Random random = new Random(1);
        List<byte[]> written = new ArrayList<>();
        try (CommitLog log = CommitLog.start(dir, 1, 4096, () -> {})) {
            for (int i = 0; i < 100; i++) {
                written.add(record(random, 1 + random.nextInt(1500)));
                append(log, written.get(i));
            }
        }
        assertThat(CommitLog.segments(dir)).hasSizeGreaterThan(10).startsWith(1L);
        assertThat(replay(dir, 0)).containsExactlyElementsOf(written);
    }

    @Test
    void newSegmentsStartSmallAndDoubleToTheSegmentSizeAndTheSmallOnesGoOnceFree(@TempDir Path dir) throws Exception {
        Random random = new Random(4);
        List<byte[]> written = new ArrayList<>();
        long released = 0;
        int after = 0;
        try (CommitLog log = CommitLog.start(dir, 1, 32_768, 4096, () -> {})) {
            assertThat(java.nio.file.Files.size(CommitLog.segmentPath(dir, 1))).isEqualTo(4096);
            log.prepareSpare();
            assertThat(java.nio.file.Files.size(dir.resolve("spare.tmp"))).isEqualTo(8192);
            for (int i = 0; i < 400; i++) {
                written.add(record(random, 1 + random.nextInt(700)));
                appendOnly(log, written.get(i));
                if (log.checkpointWanted()) {
                    released = quietPosition(log);
                    after = i + 1;
                    log.release(released);
                }
                log.prepareSpare();
            }
            List<Long> sizes = new ArrayList<>();
            for (long n : CommitLog.segments(dir)) {
                sizes.add(java.nio.file.Files.size(CommitLog.segmentPath(dir, n)));
            }
            assertThat(released).as("checkpoints made").isPositive();
            // The small ones went as rolls met them free; the rest are whole, live or kept to be reused.
            assertThat(sizes).containsOnly(32_768L).hasSizeLessThanOrEqualTo(6);
            assertThat(java.nio.file.Files.size(dir.resolve("spare.tmp")))
                    .as("no smaller spare")
                    .isEqualTo(32_768L);
        }
        assertThat(replay(dir, released))
                .as("what followed the last checkpoint")
                .containsExactlyElementsOf(written.subList(after, written.size()));
    }

    @Test
    void aLargeRecordWhileTheLogGrowsGrowsItFurtherAndASpareMadeTooSmallIsDropped(@TempDir Path dir) throws Exception {
        Random random = new Random(5);
        List<byte[]> written = new ArrayList<>();
        try (CommitLog log = CommitLog.start(dir, 1, 65_536, 4096, () -> {})) {
            log.prepareSpare(); // 8 KB, the next new segment's size
            assertThat(java.nio.file.Files.size(dir.resolve("spare.tmp"))).isEqualTo(8192);
            written.add(record(random, 100));
            written.add(record(random, 10_000)); // larger than the spare: a segment of its own, made at once
            for (byte[] r : written) {
                appendOnly(log, r);
            }
            assertThat(java.nio.file.Files.size(CommitLog.segmentPath(dir, 2))).isEqualTo(10_008);
            // The next new segment is twice that: the 8 KB spare is too small for it, and the roll drops it.
            while (CommitLog.segments(dir).size() < 3) {
                byte[] r = record(random, 1000);
                written.add(r);
                appendOnly(log, r);
            }
            assertThat(java.nio.file.Files.size(CommitLog.segmentPath(dir, 3))).isEqualTo(20_016);
            assertThat(dir.resolve("spare.tmp")).doesNotExist();
            log.prepareSpare();
            assertThat(java.nio.file.Files.size(dir.resolve("spare.tmp"))).isEqualTo(40_032);
        }
        assertThat(replay(dir, 0))
                .as("every record, over segments of 4, 10, 20 KB")
                .containsExactlyElementsOf(written);
    }

    @Test
    void aLogStartsWithAOneMegabyteSegmentUnlessItsSegmentsAreSmaller(@TempDir Path dir) throws Exception {
        try (CommitLog log = CommitLog.start(dir.resolve("big"), 1, 8L << 20, () -> {})) {
            assertThat(java.nio.file.Files.size(CommitLog.segmentPath(dir.resolve("big"), 1)))
                    .isEqualTo(CommitLog.FIRST_SEGMENT_BYTES);
            assertThat(log.bytesSinceCheckpoint()).isZero();
        }
        try (CommitLog log = CommitLog.start(dir.resolve("small"), 1, 65_536, () -> {})) {
            assertThat(java.nio.file.Files.size(CommitLog.segmentPath(dir.resolve("small"), 1)))
                    .isEqualTo(65_536);
            assertThat(log.bytesSinceCheckpoint()).isZero();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> CommitLog.start(dir.resolve("bad"), 1, 65_536, 0, () -> {}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecordLargerThanASegmentGetsASegmentOfItsOwn(@TempDir Path dir) throws Exception {
        Random random = new Random(2);
        List<byte[]> written = List.of(record(random, 100), record(random, 10_000), record(random, 100));
        try (CommitLog log = CommitLog.start(dir, 1, 4096, () -> {})) {
            written.forEach(r -> append(log, r));
        }
        assertThat(CommitLog.segments(dir)).containsExactly(1L, 2L, 3L);
        assertThat(replay(dir, 0)).containsExactlyElementsOf(written);
    }

    @Test
    void replayFromAQuietPositionReadsOnlyWhatFollowsIt(@TempDir Path dir) throws Exception {
        Random random = new Random(3);
        List<byte[]> written = new ArrayList<>();
        long middle;
        try (CommitLog log = CommitLog.start(dir, 7, 4096, () -> {})) {
            for (int i = 0; i < 40; i++) {
                written.add(record(random, 1 + random.nextInt(700)));
                append(log, written.get(i));
            }
            middle = quietPosition(log);
            for (int i = 40; i < 80; i++) {
                written.add(record(random, 1 + random.nextInt(700)));
                append(log, written.get(i));
            }
        }
        assertThat(CommitLog.segmentOf(middle)).isGreaterThan(7);
        assertThat(replay(dir, middle)).containsExactlyElementsOf(written.subList(40, 80));
        CommitLog.deleteBefore(dir, middle);
        assertThat(CommitLog.segments(dir)).first().isEqualTo(CommitLog.segmentOf(middle));
        assertThat(replay(dir, middle)).containsExactlyElementsOf(written.subList(40, 80));
    }

    @Test
    void releasedSegmentsAreReusedAndTheirOldRecordsNeverReplay(@TempDir Path dir) throws Exception {
        Random random = new Random(4);
        List<byte[]> sinceLast = new ArrayList<>();
        long last = 0;
        try (CommitLog log = CommitLog.start(dir, 1, 4096, () -> {})) {
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 6; i++) {
                    appendOnly(log, record(random, 900 + random.nextInt(200)));
                }
                last = quietPosition(log);
                log.release(last);
                assertThat(CommitLog.segments(dir))
                        .as("segment files in round %d", round)
                        .hasSizeLessThanOrEqualTo(4);
            }
            for (int i = 0; i < 3; i++) {
                sinceLast.add(record(random, 1000 + i));
                appendOnly(log, sinceLast.get(i));
            }
        }
        assertThat(CommitLog.segmentOf(last)).isGreaterThan(25);
        assertThat(replay(dir, last)).containsExactlyElementsOf(sinceLast);
    }

    @Test
    void aNewLogAfterATornOneReplaysToo(@TempDir Path dir) throws Exception {
        byte[] first = {1, 2, 3};
        byte[] second = {4, 5};
        try (CommitLog log = CommitLog.start(dir, 1, 4096, () -> {})) {
            append(log, first);
            append(log, new byte[] {9, 9, 9, 9});
        }
        // Tear the second record: a zero length ends segment 1.
        try (FileChannel channel = FileChannel.open(CommitLog.segmentPath(dir, 1), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4), CommitLog.HEADER_BYTES + first.length);
        }
        try (CommitLog log = CommitLog.start(dir, 2, 4096, () -> {})) {
            append(log, second);
        }
        assertThat(replay(dir, 0)).containsExactly(first, second);
        assertThat(replay(dir, CommitLog.position(2, 0))).containsExactly(second);
    }

    @Test
    void itAsksForACheckpointOnceASegmentsWorthIsAppended(@TempDir Path dir) throws Exception {
        AtomicInteger asked = new AtomicInteger();
        try (CommitLog log = CommitLog.start(dir, 1, 4096, asked::incrementAndGet)) {
            for (int i = 0; i < 3; i++) {
                appendOnly(log, new byte[1000]);
            }
            assertThat(asked).hasValue(0);
            appendOnly(log, new byte[1000]);
            appendOnly(log, new byte[1000]);
            assertThat(asked).hasValue(1);
            assertThat(log.checkpointWanted()).isTrue();
            quietPosition(log);
            assertThat(log.checkpointWanted()).isFalse();
            for (int i = 0; i < 5; i++) {
                appendOnly(log, new byte[1000]);
            }
            assertThat(asked).hasValue(2);
        }
    }

    @Test
    void appendsWaitWhileFourSegmentsAreNotCheckpointedAndACheckpointWaitsForApplies(@TempDir Path dir)
            throws Exception {
        try (CommitLog log = CommitLog.start(dir, 1, 4096, () -> {})) {
            while (log.bytesSinceCheckpoint() < 4 * 4096) {
                appendOnly(log, new byte[1000]);
            }
            CompletableFuture<Void> blocked = CompletableFuture.runAsync(() -> appendOnly(log, new byte[10]));
            Thread.sleep(200);
            assertThat(blocked).isNotDone();
            quietPosition(log);
            blocked.get(10, TimeUnit.SECONDS);

            // A record appended and not yet applied holds a checkpoint back until it is.
            log.append(new byte[] {1}, CommitLog.checksum(new byte[] {1}));
            CompletableFuture<Long> checkpoint = CompletableFuture.supplyAsync(() -> {
                try {
                    return quietPosition(log);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200);
            assertThat(checkpoint).isNotDone();
            log.applied();
            assertThat(checkpoint.get(10, TimeUnit.SECONDS)).isPositive();
        }
    }
}
