package io.partita.server.op;

import io.partita.protocol.error.ApiException;
import io.partita.server.route.RequestContext;
import io.partita.storage.table.TableMetadata;

/**
 * What a table cut by hash ranges over a cluster's Raft groups ({@code --cluster-partition-groups}, docs/CLUSTER.md)
 * does not run yet: a backup, and a restore to a point in time. DynamoDB checks a request before anything else, so the
 * cluster sends such a request to the table's first group marked {@link #HEADER}; its handler checks it as on any
 * table, and then refuses it ({@link #refuse}).
 */
public final class CutTables {
    /**
     * Set by a cluster node on a request it sends to the first group of a table cut by ranges, to be checked and then
     * refused there ({@link RequestContext#cutByRanges}). A client that sets it only has its own request refused.
     */
    public static final String HEADER = "x-partita-cut-by-ranges";

    /** The operations whose handlers {@link #refuse}: only theirs look for {@link #HEADER}. */
    private static final java.util.Set<String> CHECKED = java.util.Set.of(
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "CreateBackup",
            io.partita.server.route.OperationRegistry.DYNAMODB_PREFIX + "RestoreTableToPointInTime");

    private CutTables() {}

    /**
     * Whether a request to {@code target}, with the headers of {@code signed} (null for one made inside the server),
     * is marked as one on a table cut by ranges ({@link #HEADER}). Any other operation's is not looked at: one set
     * lookup per request.
     */
    public static boolean marked(String target, io.partita.server.auth.SigV4Verifier.Request signed) {
        return signed != null
                && CHECKED.contains(target)
                && !signed.header(HEADER).isEmpty();
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
