package io.partita.server.op.table;

import java.util.SortedSet;

/**
 * Where an account's tables are in a cluster with a Raft group per table ({@code --cluster-table-groups},
 * docs/CLUSTER.md), as the server of one of the account's groups asks it. Null on a single node and in any other
 * cluster, where every table of an account is in the one store.
 */
public interface TablePlacement {
    /**
     * Before a new table {@code name} of {@code account} is made in this server's store: whether it belongs in another
     * group. The account's own group (its first, which holds no table made since) places it in a group of its own, and
     * returns true once the cluster has recorded where (or once another request placed it first): the request is then
     * sent there. A table's own group returns false: the table is made here.
     *
     * @throws io.partita.protocol.error.ApiException {@code LimitExceededException} when the account has as many tables
     *     as DynamoDB allows; a 503 when the cluster could not record the placement
     */
    boolean placeElsewhere(String account, String name);

    /**
     * Once table {@code name} of {@code account} is deleted from this server's store: a table's own group records that
     * it is gone, so that ListTables no longer lists it (if it cannot now, it does so within a second).
     */
    void deleted(String account, String name);

    /**
     * The names of {@code account}'s tables in groups of their own, in order, as the cluster records them once it has
     * recorded every placement made before the call.
     */
    SortedSet<String> names(String account);
}
