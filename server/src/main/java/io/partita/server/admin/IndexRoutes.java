package io.partita.server.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.server.admin.AdminRoutes.Answer;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.GlobalIndexes;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.table.TableCatalog.Table;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The GSIs' replication: what tests use to make stale indexes deterministic, and to make them stale on purpose.
 *
 * <ul>
 *   <li>{@code GET /admin/indexes[?table=NAME]}: per GSI, its status, the age of its oldest unapplied change
 *       ({@code oldestUnappliedMillis}, DynamoDB's replication lag), its backlog, the distribution of how long its
 *       changes took to arrive, its injected lag, and how many items a backfill has read;
 *   <li>{@code POST /admin/indexes/await[?table=NAME][&timeoutSeconds=S]}: waits until every GSI (of the table, or of
 *       every table) has applied every change made before the call, applying held-back changes at once, and has
 *       finished any backfill; 200 with the view when it has, 504 if the timeout (default 60 s) passed first;
 *   <li>{@code POST /admin/indexes/lag?millis=MS[&table=NAME&index=I]}: sets the lag injected before a GSI applies a
 *       change: for one index, or (without table and index) the default of every index without its own; {@code
 *       millis=-1} gives an index back the default.
 * </ul>
 */
final class IndexRoutes {
    static final Duration DEFAULT_AWAIT = Duration.ofSeconds(60);

    private final StorageEngine storage;

    IndexRoutes(StorageEngine storage) {
        this.storage = storage;
    }

    Answer view(Collection<Table> tables) {
        GlobalIndexes gsis = storage.globalIndexes();
        return AdminRoutes.json(g -> {
            g.writeStartObject();
            g.writeNumberField("defaultLagMillis", gsis.defaultLagMillis());
            g.writeArrayFieldStart("tables");
            for (Table t : tables) {
                if (t.indexes().globals().isEmpty()) {
                    continue;
                }
                g.writeStartObject();
                g.writeStringField("tableName", t.metadata().name());
                g.writeArrayFieldStart("globalSecondaryIndexes");
                for (GlobalIndexes.Lag l : gsis.lag(t)) {
                    lag(g, l);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static void lag(JsonGenerator g, GlobalIndexes.Lag l) throws IOException {
        g.writeStartObject();
        g.writeStringField("indexName", l.index());
        g.writeStringField("indexStatus", l.status());
        g.writeNumberField("oldestUnappliedMillis", l.oldestUnappliedMillis());
        g.writeNumberField("backlog", l.backlog());
        g.writeNumberField("appliedChanges", l.appliedChanges());
        g.writeNumberField("applyDelayP50Millis", l.p50Millis());
        g.writeNumberField("applyDelayP99Millis", l.p99Millis());
        g.writeNumberField("applyDelayMaxMillis", l.maxMillis());
        g.writeNumberField("injectedLagMillis", l.injectedLagMillis());
        g.writeNumberField("backfilledItems", l.backfilledItems());
        g.writeEndObject();
    }

    /** POST /admin/indexes/await. */
    Answer await(String query, Collection<Table> tables) {
        Duration timeout = DEFAULT_AWAIT;
        String given = AdminRoutes.parameter(query, "timeoutSeconds");
        if (given != null) {
            try {
                timeout = Duration.ofSeconds(Long.parseLong(given));
            } catch (NumberFormatException e) {
                return AdminRoutes.error(400, "timeoutSeconds must be a whole number of seconds: " + given);
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Table t : tables) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (!storage.globalIndexes().await(t, left)) {
                return AdminRoutes.error(
                        504,
                        "the indexes of " + t.metadata().name() + " did not catch up within " + timeout.toSeconds()
                                + " s");
            }
        }
        return view(tables);
    }

    /** POST /admin/indexes/lag. */
    Answer lag(String query) {
        String millis = AdminRoutes.parameter(query, "millis");
        long ms;
        try {
            ms = Long.parseLong(millis);
        } catch (NumberFormatException e) {
            return AdminRoutes.error(400, "millis must be a whole number of milliseconds: " + millis);
        }
        String table = AdminRoutes.parameter(query, "table");
        String index = AdminRoutes.parameter(query, "index");
        if (table == null && index == null) {
            if (ms < 0) {
                return AdminRoutes.error(400, "the default lag cannot be negative");
            }
            storage.globalIndexes().defaultLagMillis(ms);
            return view(storage.tables().snapshot().values());
        }
        Table t = table == null ? null : storage.tables().find(table);
        LiveIndex i = t == null || index == null ? null : t.indexes().find(index);
        if (i == null || !i.global()) {
            return AdminRoutes.error(404, "no global secondary index " + index + " of table " + table);
        }
        i.lagMillis(ms);
        return view(List.of(t));
    }
}
