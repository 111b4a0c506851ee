package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.http.ErrorBody;
import io.partita.server.op.table.ListExportsHandler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A list over every table of an account — ListStreams, ListBackups, ListExports, ListImports or
 * ListContributorInsights without a table — in a cluster with a group per table ({@code --cluster-table-groups},
 * docs/CLUSTER.md): each of the account's groups lists its own, every page of it; the node the client sent the request
 * to orders the whole as a single node orders it and answers the page the client asked for (its limit, after its
 * cursor), so that the client's cursor means the same whichever node it pages through.
 */
final class ListSpread {
    private static final ObjectMapper JSON = DynamoJson.mapper();
    /** How many pages one group may answer for one list: more is a group that pages without end. */
    static final int MAX_PAGES = 10_000;

    private ListSpread() {}

    /** How a list's cursor names where its next page starts. */
    enum Cursor {
        /** The id of the last entry of the page before (a stream's ARN, a backup's ARN, a table's name). */
        LAST,
        /** An opaque token of the id of the next page's first entry ({@link ListExportsHandler.Paging}). */
        NEXT_TOKEN
    }

    /**
     * What one operation lists: its entries' field, its cursor in and out and their kind, the field of an entry's id,
     * its limit's field, default and largest value.
     */
    enum Kind {
        STREAMS(
                "DynamoDBStreams_20120810.ListStreams",
                "Streams",
                "ExclusiveStartStreamArn",
                "LastEvaluatedStreamArn",
                Cursor.LAST,
                "StreamArn",
                "Limit",
                100,
                100),
        BACKUPS(
                "DynamoDB_20120810.ListBackups",
                "BackupSummaries",
                "ExclusiveStartBackupArn",
                "LastEvaluatedBackupArn",
                Cursor.LAST,
                "BackupArn",
                "Limit",
                100,
                100),
        EXPORTS(
                "DynamoDB_20120810.ListExports",
                "ExportSummaries",
                "NextToken",
                "NextToken",
                Cursor.NEXT_TOKEN,
                "ExportArn",
                "MaxResults",
                10,
                25),
        IMPORTS(
                "DynamoDB_20120810.ListImports",
                "ImportSummaryList",
                "NextToken",
                "NextToken",
                Cursor.NEXT_TOKEN,
                "ImportArn",
                "PageSize",
                10,
                25),
        INSIGHTS(
                "DynamoDB_20120810.ListContributorInsights",
                "ContributorInsightsSummaries",
                "NextToken",
                "NextToken",
                Cursor.LAST,
                "TableName",
                "MaxResults",
                100,
                100);

        final String target;
        final String entries;
        final String start;
        final String last;
        final Cursor cursor;
        private final String idField;
        final String limit;
        final int defaultLimit;
        final int maxLimit;

        Kind(
                String target,
                String entries,
                String start,
                String last,
                Cursor cursor,
                String idField,
                String limit,
                int defaultLimit,
                int maxLimit) {
            this.target = target;
            this.entries = entries;
            this.start = start;
            this.last = last;
            this.cursor = cursor;
            this.idField = idField;
            this.limit = limit;
            this.defaultLimit = defaultLimit;
            this.maxLimit = maxLimit;
        }

        /** An entry's id, as its list's cursor names it: a stream's, backup's, export's or import's ARN, a table. */
        String id(JsonNode entry) {
            return entry.path(idField).asText();
        }

        /** The kind {@code target} lists over every table of an account, or null for one Partita does not run so. */
        static Kind of(String target) {
            for (Kind k : values()) {
                if (k.target.equals(target)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** One group's page: its entries, and the cursor of the next (null after the last). */
    record Page(List<JsonNode> entries, String next) {}

    /**
     * The body the account's own group checks the client's request by, before any group lists: the client's, but for
     * a token of where the next page starts, which names an entry of any group (checked here, by {@link #page}).
     */
    static byte[] checkBody(Kind kind, byte[] request) {
        if (kind.cursor != Cursor.NEXT_TOKEN) {
            return request;
        }
        try {
            if (!(JSON.readTree(request) instanceof ObjectNode body)
                    || !(body.get(kind.start) instanceof com.fasterxml.jackson.databind.node.TextNode)) {
                return request; // the group answers its error (a token that is no string), or has no token to check
            }
            body.remove(kind.start);
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            return request;
        }
    }

    /** The body that asks a group for its page after {@code cursor} (null: its first): the client's, largest pages. */
    static byte[] pageBody(Kind kind, ObjectNode request, String cursor) {
        ObjectNode body = request.deepCopy();
        body.put(kind.limit, kind.maxLimit);
        body.remove(kind.start);
        if (cursor != null) {
            body.put(kind.start, cursor);
        }
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** A group's answer read as a page; null for one that is not a list's answer. */
    static Page read(Kind kind, byte[] body) {
        try {
            JsonNode answer = JSON.readTree(body);
            if (!(answer instanceof ObjectNode) || !(answer.get(kind.entries) instanceof ArrayNode entries)) {
                return null;
            }
            List<JsonNode> out = new ArrayList<>(entries.size());
            entries.forEach(out::add);
            JsonNode next = answer.get(kind.last);
            return new Page(out, next == null || !next.isTextual() ? null : next.asText());
        } catch (IOException e) {
            return null;
        }
    }

    /** The client's page ({@link #page}) as the answer to its request, or the error its cursor makes. */
    static ClusterRouter.Reply answer(Kind kind, ObjectNode request, List<List<JsonNode>> byGroup) {
        try {
            return new ClusterRouter.Reply(200, page(kind, request, byGroup));
        } catch (ApiException e) {
            return new ClusterRouter.Reply(e.code().httpStatus(), ErrorBody.of(e));
        }
    }

    /**
     * The client's page of every group's entries ({@code byGroup}), ordered as a single node orders them: streams and
     * Contributor Insights by their table's name (a table's own streams in the order its group gave them), backups
     * oldest first, exports and imports newest first (their ids begin with the time they were asked for). A stream
     * cursor not in the list ends it, as a single node's does; a backup cursor or a table's name resumes after its
     * place, deleted or not; a token of an export or import not in the list is refused, as a single node refuses it.
     *
     * @throws ApiException the client's NextToken names no export or import of the list
     */
    static byte[] page(Kind kind, ObjectNode request, List<List<JsonNode>> byGroup) {
        List<JsonNode> all = new ArrayList<>();
        java.util.Map<String, JsonNode> listed = new java.util.HashMap<>();
        for (List<JsonNode> entries : byGroup) {
            for (JsonNode e : entries) {
                // The stream of a table cut by hash ranges is every one of its groups' (one label): listed once. So is
                // a backup of such a table, one part in each group under one ARN (BackupSpread): its size every part's.
                JsonNode first =
                        kind == Kind.STREAMS || kind == Kind.BACKUPS ? listed.putIfAbsent(kind.id(e), e) : null;
                if (first == null) {
                    all.add(e);
                } else if (kind == Kind.BACKUPS && first instanceof ObjectNode summed) {
                    summed.put(
                            "BackupSizeBytes",
                            summed.path("BackupSizeBytes").asLong(0)
                                    + e.path("BackupSizeBytes").asLong(0));
                }
            }
        }
        // Each sort is stable: entries a single node does not tell apart keep their group's order.
        switch (kind) {
            case STREAMS, INSIGHTS ->
                all.sort(Comparator.comparing(e -> e.path("TableName").asText()));
            case BACKUPS -> all.sort(Comparator.comparing(e -> timedId(kind.id(e), "/backup/")));
            // Ties (one millisecond) by ARN, so that the order is the same whichever groups answer first.
            case EXPORTS ->
                all.sort(Comparator.comparing((JsonNode e) -> millisOf(kind.id(e), "/export/"))
                        .thenComparing(kind::id)
                        .reversed());
            case IMPORTS ->
                all.sort(Comparator.comparing((JsonNode e) -> millisOf(kind.id(e), "/import/"))
                        .thenComparing(kind::id)
                        .reversed());
        }
        JsonNode cursor = request.get(kind.start);
        String start = cursor == null || !cursor.isTextual() ? null : cursor.asText();
        int from = 0;
        if (start != null && kind == Kind.STREAMS) {
            from = all.size();
            for (int i = 0; i < all.size(); i++) {
                if (kind.id(all.get(i)).equals(start)) {
                    from = i + 1;
                }
            }
        } else if (start != null && kind == Kind.BACKUPS) {
            String after = timedId(start, "/backup/");
            while (from < all.size()
                    && timedId(kind.id(all.get(from)), "/backup/").compareTo(after) <= 0) {
                from++;
            }
        } else if (start != null && kind == Kind.INSIGHTS) {
            while (from < all.size() && kind.id(all.get(from)).compareTo(start) <= 0) {
                from++;
            }
        } else if (start != null) {
            from = ListExportsHandler.Paging.from(
                    start, all.stream().map(kind::id).toList());
        }
        JsonNode limit = request.get(kind.limit);
        int n = limit != null && limit.canConvertToInt() && limit.asInt() > 0 ? limit.asInt() : kind.defaultLimit;
        int to = Math.min(all.size(), from + n);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode entries = out.putArray(kind.entries);
        all.subList(from, to).forEach(entries::add);
        if (kind.cursor == Cursor.NEXT_TOKEN && to < all.size()) {
            out.put(kind.last, ListExportsHandler.Paging.token(kind.id(all.get(to))));
        } else if (kind.cursor == Cursor.LAST && to < all.size() && to > from) {
            out.put(kind.last, kind.id(all.get(to - 1)));
        }
        try {
            return JSON.writeValueAsBytes(out);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** The id in an ARN after {@code marker} ({@code …/backup/<id>}), which begins with its creation time. */
    private static String timedId(String arn, String marker) {
        int at = arn.lastIndexOf(marker);
        return at < 0 ? arn : arn.substring(at + marker.length());
    }

    /**
     * The time an export or import was asked for, in milliseconds: the 14 digits its id begins with ({@code
     * …/export/<millis>-<hex>}); 0 for an ARN not so made.
     */
    private static long millisOf(String arn, String marker) {
        String id = timedId(arn, marker);
        int dash = id.indexOf('-');
        try {
            return dash < 0 ? 0 : Long.parseLong(id.substring(0, dash));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
