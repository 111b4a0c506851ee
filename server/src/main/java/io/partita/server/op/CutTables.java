package io.partita.server.op;

import io.partita.protocol.error.ApiException;
import io.partita.server.route.RequestContext;
import io.partita.storage.table.TableMetadata;

/**
 * What a table cut by hash ranges over a cluster's Raft groups ({@code --cluster-partition-groups}, docs/CLUSTER.md)
 * does not run alone: a backup, a restore from one, and a restore to a point in time. DynamoDB checks a request before
 * anything else, so the cluster sends such a request to the table's first group marked {@link #HEADER}; its handler
 * checks it as on any table, and then refuses it ({@link #refuse}). The cluster then runs it over the groups, each
 * backing up ({@link #PART}) or restoring ({@link #RANGE}) its own range.
 */
public final class CutTables {
    /**
     * Set by a cluster node on a request it sends to the first group of a table cut by ranges, to be checked and then
     * refused there ({@link RequestContext#cutByRanges}). A cluster node removes it from a client's request.
     */
    public static final String HEADER = "x-partita-cut-by-ranges";

    /**
     * The value of {@link #HEADER} on a restore's share sent to each group of its source (a table, or a backup's parts)
     * cut by ranges ({@link RequestContext#restoresRange}): the group restores its own range into the restored table,
     * which the cluster recorded as cut by the same ranges in the same groups. Any other value but one beginning with
     * {@link #PART} marks a request to check and refuse.
     */
    public static final String RANGE = "range";

    /**
     * What begins the value of {@link #HEADER} on a CreateBackup's share sent to each group of a table cut by ranges,
     * the backup's id after it ({@link RequestContext#backupPart}): the group backs up its own range under that id,
     * one part of the backup the cluster recorded.
     */
    public static final String PART = "part:";

    private static final String CREATE_BACKUP =
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "CreateBackup";

    /** The restores a group runs on its own range, marked {@link #RANGE}. */
    private static final java.util.Set<String> RESTORES = java.util.Set.of(
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "RestoreTableToPointInTime",
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "RestoreTableFromBackup");

    /** The operations whose handlers {@link #refuse}: only theirs look for {@link #HEADER}. */
    private static final java.util.Set<String> CHECKED = java.util.Set.of(
            CREATE_BACKUP,
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "RestoreTableToPointInTime",
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "RestoreTableFromBackup");

    private CutTables() {}

    /**
     * Whether a request to {@code target}, whose {@link #HEADER} is {@code mark} (null when absent, and for one made
     * inside the server), is marked as one on a table cut by ranges to check and then refuse. Any other operation's is
     * not looked at: one set lookup per marked request.
     */
    public static boolean marked(String target, String mark) {
        return mark != null && share(target, mark) == null && CHECKED.contains(target);
    }

    /**
     * What a request to {@code target} whose {@link #HEADER} is {@code mark} is a share of ({@link
     * RequestContext#share}): {@link #RANGE} for a restore's share marked so, whose group restores its own range; the
     * backup's id for a CreateBackup's marked {@link #PART}; else null.
     */
    public static String share(String target, String mark) {
        if (mark == null) {
            return null;
        }
        if (mark.equals(RANGE) && RESTORES.contains(target)) {
            return RANGE;
        }
        return mark.startsWith(PART) && mark.length() > PART.length() && target.equals(CREATE_BACKUP)
                ? mark.substring(PART.length())
                : null;
    }

    /**
     * Refuses {@code operation} on table {@code m} when it is cut by ranges: marked so by the node that sent it, or
     * holding a range in this store. Called once the request's own checks have passed, before anything changes.
     */
    public static void refuse(RequestContext context, TableMetadata m, String operation) {
        if (context.cutByRanges() || m.hashRange() != null) {
            throw notYet(operation, m.name());
        }
    }

    /** The refusal of {@code operation} on table {@code table}, whose partitions are groups of their own. */
    public static ApiException notYet(String operation, String table) {
        return ApiException.validation("Partita's cluster does not run " + operation + " on table " + table + " yet:"
                + " its partitions are Raft groups of their own (--cluster-partition-groups, docs/CLUSTER.md)");
    }
}
