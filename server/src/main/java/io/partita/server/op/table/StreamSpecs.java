package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.StreamSpecification;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;

/**
 * {@code StreamSpecification} on CreateTable and UpdateTable, with DynamoDB's words for each invalid combination (as
 * quoted from DynamoDB's answers in public test suites and issues): a stream is enabled with a view type, disabled
 * without one, and an enabled stream cannot be enabled again or given another view type in place.
 */
final class StreamSpecs {
    static final List<String> VIEW_TYPES = List.of("OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE");

    private StreamSpecs() {}

    static void constrain(ConstraintSet c, StreamSpecification s) {
        if (s != null) {
            c.notNull("streamSpecification.streamEnabled", s.streamEnabled())
                    .enumValue("streamSpecification.streamViewType", s.streamViewType(), VIEW_TYPES);
        }
    }

    /** CreateTable's rules; true if the new table gets a stream. */
    static boolean forCreate(StreamSpecification s) {
        if (s == null) {
            return false;
        }
        if (s.streamEnabled() && s.streamViewType() == null) {
            throw ApiException.invalidParameter(
                    "Table is being created with a stream enabled, UpdateViewType is required");
        }
        if (!s.streamEnabled() && s.streamViewType() != null) {
            throw ApiException.invalidParameter(
                    "Table is being created with a stream disabled, UpdateViewType should not be specified");
        }
        return s.streamEnabled();
    }

    /** UpdateTable's rules, against the table as it is. */
    static void checkUpdate(StreamSpecification s, Table t) {
        if (s.streamEnabled()) {
            if (s.streamViewType() == null) {
                throw ApiException.invalidParameter("If stream is being enabled then UpdateViewType is required");
            }
            if (t.metadata().stream() != null) {
                throw ApiException.validation("Table already has an enabled stream: TableName: "
                        + t.metadata().name());
            }
        } else {
            if (s.streamViewType() != null) {
                throw ApiException.invalidParameter(
                        "If stream is being disabled, then UpdateViewType must not be specified");
            }
            if (t.metadata().stream() == null) {
                throw ApiException.validation("Table has no stream to disable: TableName: "
                        + t.metadata().name());
            }
        }
    }

    static void apply(StorageEngine storage, StreamSpecification s, Table t) {
        if (s.streamEnabled()) {
            // On one range of a table cut by ranges, the label its first group gave the stream (PartitaStreamLabel).
            storage.streams()
                    .enable(t, s.streamViewType(), t.metadata().hashRange() == null ? null : s.partitaStreamLabel());
        } else {
            storage.streams().disable(t);
        }
    }
}
