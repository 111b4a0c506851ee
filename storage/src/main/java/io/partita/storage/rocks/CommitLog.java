package io.partita.storage.rocks;

import io.partita.storage.NonBlockingThread;
import io.partita.storage.StorageException;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.WouldBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Partita's write-ahead log for persistent stores without {@code --sync}: every batch is appended here, in its
 * serialized RocksDB form, before RocksDB applies it with its own log off. An append is a copy into a shared
 * memory-mapped file, which is in the page cache, and so survives a crash of the process, the moment it is made: no
 * system call per write or per group (docs/PERFORMANCE.md, "Partita's own write-ahead log").
 *
 * <pre>
 *   segment file   partita-log/&lt;number, 20 digits&gt;.log, sized up front
 *   record         payload length (int32 LE) ‖ check (int32 LE) ‖ payload
 *   check          CRC32C of the length and payload, XOR a hash of the segment's number
 *   position       segment number &lt;&lt; 32 | offset in the segment
 * </pre>
 *
 * <p>A segment wholly before a flushed checkpoint is not deleted but kept mapped and reused, renamed, as a later
 * segment ({@link #release}): unmapping needs {@code sun.misc.Unsafe} on Java 17, and a deleted segment still mapped
 * would hold its disk space until a collection found the buffer. A reused segment still holds its old records; the
 * segment number in every record's check makes them invalid under the new number, so replay stops where the new
 * records end. The log's files therefore take as many segments as were ever live at once, usually two or three. A new
 * log's segments start small and double ({@link #FIRST_SEGMENT_BYTES} up to the segment size), so that a store that
 * takes few writes never writes whole segments; the smaller ones go when a roll meets them free (their files deleted,
 * their disk space held until their mappings are collected: 63 MB at most, once per open).
 *
 * Appends happen one at a time under a short lock, so the log has no holes: a crash can tear only the last record, and
 * replay stops at the first record whose length or checksum is wrong. The batches themselves are applied outside the
 * lock, concurrently. {@link #checkpoint} finds a quiet point, where every appended record has been applied and no
 * other is appended, for the store to mark and flush.
 */
final class CommitLog implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(CommitLog.class);
    static final String DIRECTORY = "partita-log";
    static final int HEADER_BYTES = 8;
    private static final String SUFFIX = ".log";
    /** The file of the spare segment: not a segment's name, so that replay never reads it. */
    private static final String SPARE = "spare.tmp";
    /** The size of a log's first new segment; each new one after it is twice the last, up to the segment size. */
    static final long FIRST_SEGMENT_BYTES = 1L << 20;

    private final Path dir;
    /** The size the segments grow to, and the appends after which a checkpoint is wanted. */
    private final long segmentBytes;
    /** Appends wait while this many bytes have been appended since the last checkpoint. */
    private final long maxBytesSinceCheckpoint;

    private final Runnable wantCheckpoint;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition checkpointed = lock.newCondition();
    /** Records appended and not yet applied (between {@link #append} and {@link #applied}). */
    private final AtomicInteger applying = new AtomicInteger();

    // Guarded by lock.
    /** Mapped segments in order, the current one last. */
    private final Deque<Segment> live = new ArrayDeque<>();
    /** Mapped segments no longer needed, to be reused. */
    private final Deque<Segment> free = new ArrayDeque<>();

    private long segment;
    private MappedByteBuffer map;
    private int offset;
    private long bytesSinceCheckpoint;
    private volatile boolean checkpointWanted;
    private boolean closed;
    /** A new segment allocated ahead of need, off the lock ({@link #prepareSpare}), named {@link #SPARE}; or null. */
    private MappedByteBuffer spare;
    /**
     * The size of the next segment made anew: {@link #FIRST_SEGMENT_BYTES} (or the segment size, if smaller) at first,
     * then twice the last made, up to the segment size. A store that takes few writes (a cluster's group of a quiet
     * table, a test's) so writes a few megabytes of segments when it opens, not two whole segments.
     */
    private long nextNewBytes;
    /** When a failure to extend the log was last logged (at most once a minute), in nanoseconds; 0 for never. */
    private long lastFailureLogged;
    /** Why appends are refused now (the store cannot flush: {@link #refuse}), or null. */
    private volatile String refusal;

    private CommitLog(Path dir, long firstSegment, long segmentBytes, long firstBytes, Runnable wantCheckpoint) {
        if (segmentBytes < 4096 || segmentBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("log segment size out of range: " + segmentBytes);
        }
        if (firstBytes < 4096) {
            throw new IllegalArgumentException("first log segment size out of range: " + firstBytes);
        }
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.maxBytesSinceCheckpoint = 4 * segmentBytes;
        this.nextNewBytes = Math.min(segmentBytes, firstBytes);
        this.wantCheckpoint = wantCheckpoint;
        this.segment = firstSegment - 1;
        this.map = null;
    }

    /**
     * Starts a log whose first segment is {@code firstSegment}; every existing segment must be older. Calls
     * {@code wantCheckpoint} (from an appending thread, under the lock: it must only signal) once a segment's worth of
     * bytes has been appended since the last checkpoint.
     */
    static CommitLog start(Path dir, long firstSegment, long segmentBytes, Runnable wantCheckpoint) {
        return start(dir, firstSegment, segmentBytes, FIRST_SEGMENT_BYTES, wantCheckpoint);
    }

    /**
     * {@link #start}, with a first new segment of {@code firstBytes} (at least 4096; at most the segment size is used):
     * for tests, whose small segments would otherwise not grow.
     */
    static CommitLog start(Path dir, long firstSegment, long segmentBytes, long firstBytes, Runnable wantCheckpoint) {
        CommitLog started = new CommitLog(dir, firstSegment, segmentBytes, firstBytes, wantCheckpoint);
        started.lock.lock();
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(dir.resolve(SPARE));
            try {
                started.roll(0);
            } catch (IOException e) {
                // A disk too full for a segment: start without one; the first append makes it, or is refused (503).
                started.lastFailureLogged = System.nanoTime();
                log.error(
                        "cannot make the log's first segment in {}: {}; writes are refused until it can",
                        dir,
                        e.toString());
            }
        } catch (IOException e) {
            throw new StorageException("cannot start the log in " + dir + ": " + e.getMessage(), e);
        } finally {
            started.lock.unlock();
        }
        return started;
    }

    static long position(long segment, int offset) {
        return segment << 32 | offset;
    }

    static long segmentOf(long position) {
        return position >>> 32;
    }

    static int offsetOf(long position) {
        return (int) position;
    }

    /** The checksum of a record, computed by the caller before {@link #append} so that the lock is held shorter. */
    static int checksum(byte[] payload) {
        CRC32C crc = new CRC32C();
        for (int shift = 0; shift < 32; shift += 8) {
            crc.update(payload.length >>> shift);
        }
        crc.update(payload);
        return (int) crc.getValue();
    }

    /**
     * Appends one record; the caller must call {@link #applied()} once it has applied the payload (or failed to). Waits
     * while the log holds four segments' worth of bytes since the last checkpoint, so that RocksDB's memtables never
     * fill up between checkpoints; a {@link NonBlockingThread} gets {@link WouldBlock} instead, with nothing appended.
     *
     * <p>The lock itself is held by other appends for a copy each, and by {@link #checkpoint} while the batches
     * appended before it finish applying and the store writes its marker and starts a flush: tens of microseconds,
     * at most about a millisecond. An event loop may wait that long here.
     */
    void append(byte[] payload, int checksum) {
        boolean interrupted = false;
        lock.lock();
        try {
            while (bytesSinceCheckpoint >= maxBytesSinceCheckpoint && !closed && refusal == null) {
                if (NonBlockingThread.current()) {
                    throw WouldBlock.INSTANCE;
                }
                // Timed, so that a refusal (set without the lock: refuse) is seen within 50 ms.
                interrupted |= awaitCheckpoint();
            }
            if (closed) {
                throw new StorageException("the log is closed");
            }
            String refused = refusal;
            if (refused != null) {
                throw new StorageUnavailableException(refused);
            }
            int length = HEADER_BYTES + payload.length;
            if (map == null || offset + (long) length > map.capacity()) {
                roll(length);
            }
            try {
                map.put(offset + HEADER_BYTES, payload);
                map.putInt(offset + 4, checksum ^ scramble(segment));
                map.putInt(offset, payload.length);
            } catch (InternalError e) {
                // The page could not be written (its blocks are allocated up front, so only a failing disk does this):
                // the record has no header yet, and the next append writes over it.
                throw new StorageUnavailableException("cannot write to the log: " + e.getMessage(), e, false);
            }
            offset += length;
            bytesSinceCheckpoint += length;
            applying.incrementAndGet();
            if (!checkpointWanted && bytesSinceCheckpoint >= segmentBytes) {
                checkpointWanted = true;
                wantCheckpoint.run();
            }
        } catch (IOException e) {
            long now = System.nanoTime();
            if (now - lastFailureLogged > 60_000_000_000L || lastFailureLogged == 0) {
                lastFailureLogged = now;
                log.error("cannot extend the log in {}: {}; writes are refused until it can", dir, e.toString());
            }
            throw new StorageUnavailableException("cannot extend the log: " + e.getMessage(), e, false);
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Refuses appends from now on with {@code why} (the store cannot flush, so the log could not be cut), until
     * {@link #accept}; those waiting for a checkpoint see it within 50 ms. It takes no lock: its callers (the store's
     * watch, a write RocksDB refused) must never wait behind a checkpoint that is itself waiting for RocksDB.
     */
    void refuse(String why) {
        refusal = why;
    }

    /** Waits up to 50 ms for a checkpoint, under the lock; true if the thread was interrupted (as before, ignored). */
    private boolean awaitCheckpoint() {
        try {
            checkpointed.awaitNanos(50_000_000L);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    void accept() {
        refusal = null;
    }

    /** The record appended last by this thread has been applied (or has failed to apply). */
    void applied() {
        applying.decrementAndGet();
    }

    long bytesSinceCheckpoint() {
        lock.lock();
        try {
            return bytesSinceCheckpoint;
        } finally {
            lock.unlock();
        }
    }

    boolean checkpointWanted() {
        return checkpointWanted;
    }

    /**
     * Holds off appends, waits until every appended record has been applied, and then calls {@code atQuietPoint} with
     * the position of the next record: everything before it has been applied, nothing after it has. Appends resume
     * when it returns; the bytes counted since the last checkpoint start again from zero only if it returns normally.
     */
    void checkpoint(PositionAction atQuietPoint) throws Exception {
        lock.lock();
        try {
            while (applying.get() != 0) {
                LockSupport.parkNanos(1_000);
            }
            // Before the first segment exists (a full disk at start), the next record goes at the start of the next.
            atQuietPoint.run(map == null ? position(segment + 1, 0) : position(segment, offset));
            bytesSinceCheckpoint = 0;
            checkpointWanted = false;
            checkpointed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @FunctionalInterface
    interface PositionAction {
        void run(long position) throws Exception;
    }

    /**
     * Gives up this log's segments wholly before {@code position}, to be reused; call it once the state up to it is
     * flushed. Files of earlier logs are gone already: opening deletes them ({@link #deleteBefore}).
     */
    void release(long position) {
        lock.lock();
        try {
            while (live.size() > 1 && live.peekFirst().number < segmentOf(position)) {
                free.addLast(live.removeFirst());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Deletes the segment files wholly before {@code position}, of a log not running. */
    static void deleteBefore(Path dir, long position) throws IOException {
        for (long n : segments(dir)) {
            if (n < segmentOf(position)) {
                Files.deleteIfExists(segmentPath(dir, n));
            }
        }
    }

    private void roll(int recordBytes) throws IOException {
        long next = segment + 1;
        long size = Math.max(nextNewBytes, recordBytes);
        if (size > Integer.MAX_VALUE) {
            throw new StorageException("a batch of " + recordBytes + " bytes does not fit in a log segment");
        }
        // A free segment made while the log was growing is smaller than those it makes now: its file goes (its disk
        // space once its mapping is collected), so that the log's files stay a few segments of the full size.
        while (!free.isEmpty() && free.peekFirst().map.capacity() < nextNewBytes) {
            Files.deleteIfExists(segmentPath(dir, free.removeFirst().number));
        }
        Segment reused = free.peekFirst();
        MappedByteBuffer fresh;
        if (reused != null && reused.map.capacity() >= size) {
            free.removeFirst();
            Files.move(segmentPath(dir, reused.number), segmentPath(dir, next), StandardCopyOption.ATOMIC_MOVE);
            fresh = reused.map;
        } else if (spare != null && spare.capacity() >= size) {
            Files.move(dir.resolve(SPARE), segmentPath(dir, next), StandardCopyOption.ATOMIC_MOVE);
            fresh = spare;
            spare = null;
            grew(fresh.capacity());
        } else {
            if (spare != null && spare.capacity() < nextNewBytes) {
                // Made while a roll that found no spare grew the log: too small for any roll now.
                Files.deleteIfExists(dir.resolve(SPARE));
                spare = null;
            }
            Path path = segmentPath(dir, next);
            try (FileChannel channel = FileChannel.open(
                    path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                allocate(channel, size);
                fresh = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            } catch (IOException e) {
                Files.deleteIfExists(path);
                throw e;
            }
            fresh.order(ByteOrder.LITTLE_ENDIAN);
            grew(size);
        }
        live.addLast(new Segment(next, fresh));
        map = fresh;
        segment = next;
        offset = 0;
    }

    /** A segment of {@code size} bytes was made anew: the next is twice as large, up to the segment size. */
    private void grew(long size) {
        nextNewBytes = Math.max(nextNewBytes, Math.min(segmentBytes, size * 2));
    }

    /**
     * Allocates a spare segment, outside the lock, for the next roll that finds no segment to reuse: so that an append
     * seldom waits for a new segment's blocks to be written (up to 64 MB), which only the first rolls of a process
     * need. Called by the store's checkpoint thread; does nothing if a spare, or a free segment of the size the next
     * new one would have, is there.
     *
     * @throws StorageUnavailableException if the disk has no room for it
     */
    void prepareSpare() {
        long size;
        lock.lock();
        try {
            size = nextNewBytes;
            if (spare != null || closed || free.stream().anyMatch(f -> f.map.capacity() >= size)) {
                return;
            }
        } finally {
            lock.unlock();
        }
        Path path = dir.resolve(SPARE);
        MappedByteBuffer fresh;
        try {
            Files.deleteIfExists(path);
            try (FileChannel channel = FileChannel.open(
                    path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                allocate(channel, size);
                fresh = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // the next attempt deletes it
            }
            throw new StorageUnavailableException("cannot allocate a spare log segment: " + e.getMessage(), e, false);
        }
        fresh.order(ByteOrder.LITTLE_ENDIAN);
        lock.lock();
        try {
            if (!closed) {
                spare = fresh;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives a new segment its disk blocks by writing it whole (zeros), so that a full disk is an {@link IOException}
     * here, with nothing appended, and never a fault later in the middle of a record: a mapped page of a sparse file
     * that the disk has no block for cannot be written. A segment is written once; reused ones keep their blocks.
     */
    private static void allocate(FileChannel channel, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(size, 1 << 20));
        for (long at = 0; at < size; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
            at += channel.write(zeros, at);
        }
    }

    /** A mapped segment file and its number (the name it has now). */
    private record Segment(long number, MappedByteBuffer map) {}

    /** Mixes a segment's number into each record's check, so that a reused segment's old records fail it. */
    private static int scramble(long segment) {
        return (int) ((segment * 0x9E3779B97F4A7C15L) >>> 32);
    }

    /**
     * Stops appends (a waiting append fails). Records stay on disk; the mappings go with their buffers (see the class
     * comment).
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            checkpointed.signalAll();
            while (applying.get() != 0) {
                LockSupport.parkNanos(1_000);
            }
            live.clear();
            free.clear();
            spare = null;
            map = null;
        } finally {
            lock.unlock();
        }
    }

    static Path segmentPath(Path dir, long number) {
        return dir.resolve(String.format("%020d%s", number, SUFFIX));
    }

    /** The numbers of the segment files in {@code dir}, in ascending order; empty if it does not exist. */
    static List<Long> segments(Path dir) throws IOException {
        List<Long> numbers = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return numbers;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(p -> {
                String name = p.getFileName().toString();
                if (name.endsWith(SUFFIX)) {
                    try {
                        numbers.add(Long.parseLong(name.substring(0, name.length() - SUFFIX.length())));
                    } catch (NumberFormatException notOurs) {
                        // not a segment
                    }
                }
            });
        }
        numbers.sort(null);
        return numbers;
    }

    /**
     * Reads every whole record from {@code from} on, in order: in the segment of {@code from} from its offset, in
     * every later segment from its start. Each segment is read up to its first record whose length or checksum is
     * wrong (the end of what was written, or a record torn by a crash). Returns the number of records read.
     */
    static long replay(Path dir, long from, Consumer<byte[]> apply) throws IOException {
        long count = 0;
        for (long n : segments(dir)) {
            if (n < segmentOf(from)) {
                continue;
            }
            try (FileChannel channel = FileChannel.open(segmentPath(dir, n), StandardOpenOption.READ)) {
                long size = channel.size();
                long at = n == segmentOf(from) ? offsetOf(from) : 0;
                ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                while (at + HEADER_BYTES <= size) {
                    header.clear();
                    readFully(channel, header, at);
                    int length = header.getInt(0);
                    if (length <= 0 || at + HEADER_BYTES + length > size) {
                        break;
                    }
                    byte[] payload = new byte[length];
                    readFully(channel, ByteBuffer.wrap(payload), at + HEADER_BYTES);
                    if ((checksum(payload) ^ scramble(n)) != header.getInt(4)) {
                        break;
                    }
                    apply.accept(payload);
                    count++;
                    at += HEADER_BYTES + length;
                }
            }
        }
        return count;
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long at) throws IOException {
        while (into.hasRemaining()) {
            int n = channel.read(into, at + into.position());
            if (n < 0) {
                throw new IOException("unexpected end of a log segment");
            }
        }
    }
}
