package io.partita.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A list over every table of an account — ListStreams or ListBackups without a table — in a cluster with a group per
 * table ({@code --cluster-table-groups}, docs/CLUSTER.md): each of the account's groups lists its own, every page of
 * it; the node the client sent the request to orders the whole as a single node orders it and answers the page the
 * client asked for ({@code Limit}, after {@code ExclusiveStartStreamArn} or {@code ExclusiveStartBackupArn}), so that
 * the client's cursor means the same whichever node it pages through.
 */
final class ListSpread {
    private static final ObjectMapper JSON = DynamoJson.mapper();
    /** How many pages one group may answer for one list: more is a group that pages without end. */
    static final int MAX_PAGES = 10_000;

    private ListSpread() {}

    /** What one operation lists: its entries' field, its cursor in and out, and the field of an entry's id. */
    enum Kind {
        STREAMS("DynamoDBStreams_20120810.ListStreams", "Streams", "ExclusiveStartStreamArn", "LastEvaluatedStreamArn"),
        BACKUPS(
                "DynamoDB_20120810.ListBackups",
                "BackupSummaries",
                "ExclusiveStartBackupArn",
                "LastEvaluatedBackupArn");

        final String target;
        final String entries;
        final String start;
        final String last;

        Kind(String target, String entries, String start, String last) {
            this.target = target;
            this.entries = entries;
            this.start = start;
            this.last = last;
        }

        /** An entry's id, as its list's cursor names it: a stream's ARN, a backup's ARN. */
        String id(JsonNode entry) {
            return entry.path(this == STREAMS ? "StreamArn" : "BackupArn").asText();
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

    /** The body that asks a group for its page after {@code cursor} (null: its first): the client's, unpaged. */
    static byte[] pageBody(Kind kind, ObjectNode request, String cursor) {
        ObjectNode body = request.deepCopy();
        body.remove("Limit");
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

    /**
     * The client's page of every group's entries ({@code byGroup}), ordered as a single node orders them: streams by
     * their table's name (a table's own in the order its group gave them), backups oldest first (a backup's id begins
     * with its creation time). A stream cursor not in the list ends it, as a single node's does; a backup cursor
     * resumes after its id, deleted or not.
     */
    static byte[] page(Kind kind, ObjectNode request, List<List<JsonNode>> byGroup) {
        List<JsonNode> all = new ArrayList<>();
        byGroup.forEach(all::addAll);
        if (kind == Kind.STREAMS) {
            all.sort(Comparator.comparing(e -> e.path("TableName").asText())); // stable: a table's streams keep order
        } else {
            all.sort(Comparator.comparing(e -> backupId(kind.id(e))));
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
        } else if (start != null) {
            String after = backupId(start);
            while (from < all.size() && backupId(kind.id(all.get(from))).compareTo(after) <= 0) {
                from++;
            }
        }
        JsonNode limit = request.get("Limit");
        int n = limit != null && limit.canConvertToInt() ? limit.asInt() : 100;
        int to = Math.min(all.size(), from + n);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode entries = out.putArray(kind.entries);
        all.subList(from, to).forEach(entries::add);
        if (to < all.size() && to > from) {
            out.put(kind.last, kind.id(all.get(to - 1)));
        }
        try {
            return JSON.writeValueAsBytes(out);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** The id of a backup's ARN ({@code …/backup/<id>}), which begins with its creation time. */
    private static String backupId(String arn) {
        int at = arn.lastIndexOf("/backup/");
        return at < 0 ? arn : arn.substring(at + "/backup/".length());
    }
}
