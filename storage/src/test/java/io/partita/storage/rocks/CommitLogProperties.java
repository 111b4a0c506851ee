package io.partita.storage.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Replay of Partita's write-ahead log after a crash tore or damaged its last record. */
class CommitLogProperties {
    private static Path temp() throws IOException {
        return Files.createTempDirectory("commit-log");
    }

    private static void deleteAll(Path dir) throws IOException {
        for (long n : CommitLog.segments(dir)) {
            Files.delete(CommitLog.segmentPath(dir, n));
        }
        Files.delete(dir);
    }

    /**
     * A crash in the middle of an append leaves a prefix of the last record's bytes (the rest of the segment is still
     * zeros), or any other damage to it: replay returns every record before it and nothing else.
     */
    @Property(tries = 60)
    void aTornOrDamagedLastRecordIsDroppedAndEverythingBeforeItReplays(
            @ForAll @IntRange(min = 1, max = 30) int count,
            @ForAll @IntRange(min = 1, max = 3000) int lastSize,
            @ForAll @IntRange(min = 0, max = 1_000_000) int damageAt,
            @ForAll boolean flipInsteadOfCut)
            throws Exception {
        Path dir = temp();
        try {
            Random random = new Random(count * 31L + lastSize);
            List<byte[]> written = new ArrayList<>();
            long lastStart;
            try (CommitLog log = CommitLog.start(dir, 1, 1 << 20, () -> {})) {
                for (int i = 0; i < count - 1; i++) {
                    written.add(CommitLogTest.record(random, 1 + random.nextInt(500)));
                    CommitLogTest.appendOnly(log, written.get(i));
                }
                lastStart = CommitLogTest.quietPosition(log);
                CommitLogTest.appendOnly(log, CommitLogTest.record(random, lastSize));
            }
            int recordBytes = CommitLog.HEADER_BYTES + lastSize;
            long at = CommitLog.offsetOf(lastStart) + damageAt % recordBytes;
            try (FileChannel channel = FileChannel.open(
                    CommitLog.segmentPath(dir, CommitLog.segmentOf(lastStart)),
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                if (flipInsteadOfCut) {
                    ByteBuffer one = ByteBuffer.allocate(1);
                    channel.read(one, at);
                    one.put(0, (byte) (one.get(0) ^ (1 << (damageAt % 8))));
                    one.rewind();
                    channel.write(one, at);
                } else {
                    long end = CommitLog.offsetOf(lastStart) + recordBytes;
                    ByteBuffer tail = ByteBuffer.allocate((int) (end - at));
                    channel.read(tail, at);
                    boolean alreadyZero = true;
                    for (int i = 0; i < tail.capacity(); i++) {
                        alreadyZero &= tail.get(i) == 0;
                    }
                    if (alreadyZero) {
                        // Zeroing bytes that are zero damages nothing (a short tail of a random record can be):
                        // flip the first of them instead, so the record really is torn.
                        channel.write(ByteBuffer.wrap(new byte[] {1}), at);
                    } else {
                        channel.write(ByteBuffer.allocate((int) (end - at)), at);
                    }
                }
            }
            assertThat(CommitLogTest.replay(dir, 0)).containsExactlyElementsOf(written);
        } finally {
            deleteAll(dir);
        }
    }
}
