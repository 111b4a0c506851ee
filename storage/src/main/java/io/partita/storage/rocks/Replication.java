package io.partita.storage.rocks;

/**
 * Where a store's changes are agreed before any replica applies them: a Raft group in cluster mode. The store hands
 * each change over as an entry ({@link ReplicatedEntry}); every replica, this one included, applies the entries in
 * the group's order through {@link RocksStore#applyEntry}. A store without one (single-node mode) applies its changes
 * itself, and nothing of this is on its path.
 */
public interface Replication {
    /**
     * Has the group commit {@code entry} and returns once this replica has applied it. Throws
     * {@link io.partita.storage.StorageUnavailableException} when this replica may not propose (it is not the
     * leader) or the group did not commit the entry in time; the entry may still be committed later, so the caller's
     * outcome is unknown.
     */
    void replicate(byte[] entry);

    /**
     * Returns once this replica, still the leader of the same term, has applied every entry the group had committed
     * when it was called: a read after it sees every write acknowledged before the read began (the cluster commits an
     * empty batch of its term after the call). Throws {@link io.partita.storage.StorageUnavailableException} when this
     * replica no longer leads or cannot confirm that it does; nothing was changed.
     *
     * @return the term this replica leads in: one node leads a term at most once, so two barriers that return the same
     *     term saw no other leader between them, and every write between them went through this replica
     */
    long readBarrier();
}
