package io.partita.storage.feed;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One table's side of the change feed: whether its writes record their changes, and its registered consumers. A
 * table records exactly while it has a consumer; until then its writes keep the blind-write shortcut (no old image
 * read, no record).
 */
public final class TableFeed {
    private final Map<String, FeedConsumer> consumers = new ConcurrentHashMap<>();
    /** The engine's own followers, by consumer name. */
    private final Map<String, FeedFollower> followers = new ConcurrentHashMap<>();
    /** Read by every write under its item's lock; see {@link ChangeFeed#register} for how it is turned on. */
    private volatile boolean recording;
    /** Set under this object's monitor when the table is deleted or the engine closes: no consumer registers after. */
    private boolean closed;

    /** Whether writes to the table add a change record to their batch (and so always read the old image). */
    public boolean recording() {
        return recording;
    }

    void recording(boolean on) {
        recording = on;
    }

    /** The registered consumers, in no particular order. */
    public Collection<FeedConsumer> consumers() {
        return List.copyOf(consumers.values());
    }

    /** The consumer named {@code name}, or null. */
    public FeedConsumer consumer(String name) {
        return consumers.get(name);
    }

    void add(FeedConsumer c) {
        consumers.put(c.name(), c);
    }

    /** The engine's follower of consumer {@code name}, or null. */
    public FeedFollower follower(String name) {
        return followers.get(name);
    }

    void follow(FeedFollower f) {
        followers.put(f.consumer().name(), f);
    }

    void stopFollowing(String name) {
        FeedFollower f = followers.remove(name);
        if (f != null) {
            f.close();
        }
    }

    /** Refuses new consumers and stops the followers; under this object's monitor, as registration is. */
    synchronized void close() {
        closed = true;
        stopFollowingAll();
    }

    /** Whether {@link #close} has run; read under this object's monitor. */
    boolean closed() {
        return closed;
    }

    void stopFollowingAll() {
        for (String name : List.copyOf(followers.keySet())) {
            stopFollowing(name);
        }
    }

    /** Removes {@code name}; true if no consumer is left. */
    boolean remove(String name) {
        consumers.remove(name);
        return consumers.isEmpty();
    }
}
