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
     * answers {@link Placed#ELSEWHERE} once the cluster has recorded where (or once another request placed it first):
     * the request is then sent there. A table's own group answers that the table is made here: whole, or, for one of
     * the hash ranges of a table cut by ranges, that range.
     *
     * @throws io.partita.protocol.error.ApiException a 503 when the cluster could not record the placement (DynamoDB's
     *     soft quota of 2,500 tables an account is not enforced, as on a single node)
     */
    Placed place(String account, String name, Layout layout);

    /**
     * Where a new table goes ({@link #place}): to another group ({@code elsewhere}); or here, the whole table ({@code
     * range} null) or the items of one hash {@code range} of it, which the store then holds alone.
     */
    record Placed(boolean elsewhere, io.partita.storage.table.HashRange range) {
        public static final Placed ELSEWHERE = new Placed(true, null);
        public static final Placed HERE = new Placed(false, null);
    }

    /**
     * What a new table's placement may cut it by: the {@code partitions} its declared throughput needs at creation
     * (DynamoDB's count; one for an on-demand table that declares none), of which a cluster with a group per partition
     * ({@code --cluster-partition-groups}) makes each hash range a group of its own, and the name of its partition
     * key, by which requests then find their range's group; null for a table that is not cut (an import's).
     */
    record Layout(int partitions, String partitionKey) {
        /** A table kept whole, in one group. */
        public static final Layout WHOLE = new Layout(1, null);
    }

    /**
     * Makes table {@code name} in this server's store with {@code make}, which the caller runs here once {@link
     * #place} said so. A table's own group runs it unless the group is closing (it held nothing for a while):
     * then a 503, which the SDKs retry, and the retry makes the table in a new group. A close waits for every {@code
     * make} that started, so none makes a table in a group being closed.
     */
    <T> T makeHere(String name, java.util.function.Supplier<T> make);

    /**
     * Makes table {@code name} of {@code account} in this server's store with {@code restore}, a restore from a backup
     * or the change log of a table here: the restored table stays in its source's group, where the items are. First a
     * look, after a barrier through the cluster, that no other group has a table of that name; on a table's group the
     * table is then recorded there (a compare-and-set), and that record taken back should {@code restore} be refused
     * with nothing made. The account's group records nothing (its tables are those no record names): it reserves the
     * name against its CreateTable placing it elsewhere meanwhile.
     *
     * @throws io.partita.protocol.error.ApiException {@code TableAlreadyExistsException} when the account has a table
     *     of that name in another group (or one placed meanwhile); a {@code ValidationException} when a deleted table
     *     of that name is still recorded in another group (kept for its backups); a 503 when the cluster could not
     *     record it
     */
    <T> T restoreHere(String account, String name, java.util.function.Supplier<T> restore);

    /**
     * Once table {@code name} of {@code account} is deleted from this server's store: a table's own group records that
     * it is gone, so that ListTables no longer lists it (a failure is logged, and the group's leader records it within
     * a second).
     */
    void deleted(String account, String name);

    /**
     * The names of {@code account}'s tables in groups of their own, in order, as the cluster records them once it has
     * recorded every placement made before the call.
     */
    SortedSet<String> names(String account);
}
