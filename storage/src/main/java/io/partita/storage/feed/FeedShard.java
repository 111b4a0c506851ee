package io.partita.storage.feed;

/**
 * One partition's part of the change feed: the sequence numbers its writes take, and how far they are visible.
 *
 * <p>A write takes its number with {@link #begin} while it holds its item's lock, as it builds its batch, and calls
 * {@link #end} once the batch has committed or failed. Writes to different items commit concurrently (RocksDB applies
 * them in parallel), so they finish out of order. {@link #visible} is the watermark: every number below it has
 * finished. A reader returns only records below the watermark, and so it never meets a lower number after it has read
 * past one. Writes to one item hold its lock from {@code begin} to {@code end}, so one item's records are numbered in
 * commit order. A number whose batch never reached the log is a hole; one whose commit failed after its batch may have
 * reached it is never ended, so the watermark waits there until a restart settles it. Numbers only ever grow.
 *
 * <p>A split {@linkplain #close closes} the shard of the partition it replaces, after the new map is in place: {@code
 * begin} then fails and the writer looks its partition up again, finding a child. Once the writes in flight have ended
 * the shard is {@linkplain #drained drained}, and a consumer that has read it to the end can go on to its children.
 * This is how DynamoDB Streams closes a parent shard when a partition splits.
 *
 * <p>The numbers live in memory; after a restart the feed starts each shard after the highest number its records or
 * its trim floor hold ({@link #recover}).
 */
public final class FeedShard {
    private final String partitionId;
    private final int number;
    private final long start;
    private final long end;
    private final String parentId;

    // Guarded by this.
    private long next = 1;
    /** For the numbers in [visible, next): whether each has ended, at index {@code number & (length - 1)}. */
    private boolean[] ended = new boolean[16];

    private boolean closed;

    /** Every number below it has ended. Written under the monitor, read without it. */
    private volatile long visible = 1;
    /** Records up to and including this number have been trimmed. */
    private volatile long floor;

    /**
     * @param partitionId the partition's id, a decimal number unique within its table
     * @param start the first hash of the partition's range, unsigned
     * @param end the last hash of the range, unsigned and inclusive
     * @param parentId the partition this one was split from, or null
     */
    public FeedShard(String partitionId, long start, long end, String parentId) {
        this.partitionId = partitionId;
        this.number = Integer.parseInt(partitionId);
        this.start = start;
        this.end = end;
        this.parentId = parentId;
    }

    public String partitionId() {
        return partitionId;
    }

    /** The partition id as a number, as it appears in the feed's keys (and in a stream's shard ids). */
    public int number() {
        return number;
    }

    public long start() {
        return start;
    }

    public long end() {
        return end;
    }

    /** The shard of the partition this one was split from, or null. */
    public String parentId() {
        return parentId;
    }

    /**
     * The next sequence number, or -1 if the shard is closed (the caller looks its partition up again). Holds the
     * monitor for a few instructions: an event loop may wait here for another thread's {@code begin} or {@code end}.
     */
    public synchronized long begin() {
        if (closed) {
            return -1;
        }
        long n = next;
        if (n - visible >= ended.length) {
            grow();
        }
        next = n + 1;
        return n;
    }

    /** The write numbered {@code n} has committed or failed; the watermark moves past every ended number below it. */
    public synchronized void end(long n) {
        int mask = ended.length - 1;
        ended[(int) n & mask] = true;
        long v = visible;
        while (v < next && ended[(int) v & mask]) {
            ended[(int) v & mask] = false;
            v++;
        }
        visible = v;
    }

    private void grow() {
        boolean[] bigger = new boolean[ended.length * 2];
        for (long n = visible; n < next; n++) {
            bigger[(int) n & (bigger.length - 1)] = ended[(int) n & (ended.length - 1)];
        }
        ended = bigger;
    }

    /** The lowest number that may not have ended: records below it are all there, and no more will appear there. */
    public long visible() {
        return visible;
    }

    /** The highest number handed out so far (0 if none). */
    public synchronized long lastAssigned() {
        return next - 1;
    }

    /** Refuses new numbers from now on; see the class comment. */
    public synchronized void close() {
        closed = true;
    }

    public synchronized boolean closed() {
        return closed;
    }

    /** Closed, and every number it handed out has ended: no record will ever be added to it. */
    public synchronized boolean drained() {
        return closed && visible == next;
    }

    /** Records up to and including this number are trimmed (0: none). */
    public long floor() {
        return floor;
    }

    void trimmedThrough(long n) {
        if (n > floor) {
            floor = n;
        }
    }

    /**
     * Starts numbering after the highest number stored for this shard, {@code highest} (a record, or a consumer's
     * position) or its trim floor when every record has been trimmed; called before any write.
     */
    synchronized void recover(long highest, long trimmedFloor) {
        next = Math.max(highest, trimmedFloor) + 1;
        visible = next;
        floor = trimmedFloor;
    }

    @Override
    public String toString() {
        return "shard " + partitionId + " [" + visible + ", " + next + ")" + (closed ? " closed" : "");
    }
}
