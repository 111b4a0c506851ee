package io.partita.server.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.protocol.error.ApiException;
import io.partita.server.admin.AdminRoutes.Answer;
import io.partita.storage.StorageEngine;
import io.partita.storage.feed.FeedConsumer;
import io.partita.storage.feed.FeedFollower;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.table.TableCatalog.Table;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The change feed's admin view and controls:
 *
 * <ul>
 *   <li>{@code GET /admin/feed[?table=NAME]}: per table, whether it records its changes, its shards (partitions,
 *       with those split ones the feed still keeps) with their watermark and trim floor, and its consumers with
 *       their positions and lag;
 *   <li>{@code POST /admin/feed/consumers?table=NAME&name=C[&retentionSeconds=S | &follow=true]}: registers a
 *       consumer, which makes the table record its changes from then on (for tests and benchmarks: indexes and streams
 *       register their own); with {@code follow=true} the server itself follows it and discards its records as they
 *       come, a consumer that keeps up;
 *   <li>{@code DELETE /admin/feed/consumers?table=NAME&name=C}: removes it.
 * </ul>
 */
final class FeedRoutes {
    /** Longer than any retention a consumer would want (a stream keeps 24 hours), short of Duration's overflow. */
    static final Duration MAX_RETENTION = Duration.ofDays(3650);

    private final StorageEngine storage;

    FeedRoutes(StorageEngine storage) {
        this.storage = storage;
    }

    Answer view(Collection<Table> tables) {
        return AdminRoutes.json(g -> {
            g.writeStartObject();
            g.writeArrayFieldStart("tables");
            for (Table t : tables) {
                table(g, t);
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private void table(JsonGenerator g, Table t) throws IOException {
        List<FeedShard> shards = storage.feed().shards(t);
        g.writeStartObject();
        g.writeStringField("tableName", t.metadata().name());
        g.writeBooleanField("recording", t.feed().recording());
        g.writeArrayFieldStart("shards");
        for (FeedShard s : shards) {
            g.writeStartObject();
            g.writeStringField("partitionId", s.partitionId());
            if (s.parentId() != null) {
                g.writeStringField("parentId", s.parentId());
            }
            g.writeStringField("state", s.drained() ? "DRAINED" : s.closed() ? "CLOSED" : "OPEN");
            g.writeStringField("hashStart", String.format("%016x", s.start()));
            g.writeStringField("hashEnd", String.format("%016x", s.end()));
            g.writeNumberField("trimmedThrough", s.floor());
            g.writeNumberField("visibleThrough", s.visible() - 1);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("consumers");
        for (FeedConsumer c : t.feed().consumers()) {
            g.writeStartObject();
            g.writeStringField("name", c.name());
            if (c.retention() != null) {
                g.writeNumberField("retentionSeconds", c.retention().toSeconds());
            }
            FeedFollower follower = t.feed().follower(c.name());
            if (follower != null) {
                g.writeNumberField("followedRecords", follower.records());
            }
            long lag = 0;
            g.writeObjectFieldStart("positions");
            for (FeedShard s : shards) {
                long p = c.position(s);
                g.writeNumberField(s.partitionId(), p);
                lag += Math.max(0, s.visible() - 1 - Math.max(p, s.floor()));
            }
            g.writeEndObject();
            // Sequence numbers not yet read (a failed write's number counts too: numbers are not all records).
            g.writeNumberField("lag", lag);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** POST: registers the consumer the query names. */
    Answer register(String query) {
        Table t = table(query);
        if (t == null) {
            return notFound(query);
        }
        String retention = AdminRoutes.parameter(query, "retentionSeconds");
        boolean follow = "true".equals(AdminRoutes.parameter(query, "follow"));
        if (follow && retention != null) {
            return AdminRoutes.error(400, "a followed consumer keeps no retention: give follow or retentionSeconds");
        }
        try {
            String name = AdminRoutes.parameter(query, "name");
            if (follow) {
                storage.feed().followDiscarding(t, name);
            } else {
                Duration d = retention == null ? null : Duration.ofSeconds(Long.parseLong(retention));
                if (d != null && d.compareTo(MAX_RETENTION) > 0) {
                    return AdminRoutes.error(400, "retentionSeconds must be at most " + MAX_RETENTION.toSeconds());
                }
                storage.feed().register(t, name, d);
            }
        } catch (NumberFormatException e) {
            return AdminRoutes.error(400, "retentionSeconds must be a whole number of seconds: " + retention);
        } catch (ApiException e) {
            return AdminRoutes.error(400, e.getMessage());
        }
        return view(List.of(t));
    }

    /** DELETE: removes the consumer the query names. */
    Answer unregister(String query) {
        Table t = table(query);
        if (t == null) {
            return notFound(query);
        }
        String name = AdminRoutes.parameter(query, "name");
        if (name == null) {
            return AdminRoutes.error(400, "name is required");
        }
        storage.feed().unregister(t, name);
        return view(List.of(t));
    }

    private Table table(String query) {
        String name = AdminRoutes.parameter(query, "table");
        return name == null ? null : storage.tables().find(name);
    }

    private static Answer notFound(String query) {
        return AdminRoutes.error(404, "no table " + AdminRoutes.parameter(query, "table"));
    }
}
