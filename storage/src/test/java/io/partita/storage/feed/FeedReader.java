package io.partita.storage.feed;

import io.partita.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;

/** A test's consumer: each {@link #poll} collects what a {@link FeedFollower} pass hands over. */
final class FeedReader {
    private final List<ChangeRecord> collected = new ArrayList<>();
    private final FeedFollower follower;

    FeedReader(StorageEngine engine, FeedConsumer consumer) {
        this.follower = new FeedFollower(engine.feed(), consumer, FeedFollower.collecting(collected));
    }

    /** Every record visible now that the consumer has not read, in an order that keeps each item's changes in order. */
    List<ChangeRecord> poll() {
        collected.clear();
        follower.poll();
        return new ArrayList<>(collected);
    }
}
