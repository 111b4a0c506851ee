package io.partita.storage.feed;

import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a table's feed as a consumer must to see each item's changes in order: a shard only once its parent is
 * finished (or forgotten), committing as it goes.
 */
final class FeedReader {
    private final StorageEngine engine;
    private final FeedConsumer consumer;

    FeedReader(StorageEngine engine, FeedConsumer consumer) {
        this.engine = engine;
        this.consumer = consumer;
    }

    /** Every record visible now that the consumer has not read, in an order that keeps each item's changes in order. */
    List<ChangeRecord> poll() {
        Table table = consumer.table();
        List<ChangeRecord> out = new ArrayList<>();
        boolean progress = true;
        while (progress) {
            progress = false;
            List<FeedShard> shards = engine.feed().shards(table);
            Set<String> unfinished = new HashSet<>();
            for (FeedShard s : shards) {
                if (!consumer.finished(s)) {
                    unfinished.add(s.partitionId());
                }
            }
            for (FeedShard s : shards) {
                if (s.parentId() != null && unfinished.contains(s.parentId())) {
                    continue;
                }
                for (List<ChangeRecord> page = consumer.read(s, 100); !page.isEmpty(); page = consumer.read(s, 100)) {
                    out.addAll(page);
                    consumer.commit(s, page.get(page.size() - 1).sequence());
                    progress = true;
                }
            }
        }
        return out;
    }
}
