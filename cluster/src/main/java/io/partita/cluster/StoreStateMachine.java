package io.partita.cluster;

import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group's state machine: a replica's {@link RocksStore}. Each committed entry is a change of the store (a batch, a
 * column family created or dropped) that {@link RocksStore#applyEntry} applies, recording the entry's term and index
 * in the same atomic batch. A replica that restarts therefore tells Ratis exactly how far its state goes, and Ratis
 * hands it the entries after that point once each: a batch's counters (merges) are never applied twice.
 */
final class StoreStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(StoreStateMachine.class);

    private final RocksStore store;
    /** Why this replica stopped applying entries, or null; it cannot skip one and stay a copy of the others. */
    private volatile RuntimeException failed;
    /** Where the store's state stood when this replica started; null if it had applied nothing. */
    private volatile SnapshotInfo recovered;

    StoreStateMachine(RocksStore store) {
        this.store = store;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
        super.initialize(server, groupId, storage);
        long[] applied = store.appliedEntry();
        if (applied != null) {
            updateLastAppliedTermIndex(applied[0], applied[1]);
            recovered = new FileListSnapshotInfo(List.of(), applied[0], applied[1]);
        }
    }

    /**
     * The store itself is the snapshot: durable (its own log survives a crash) up to the entry it last applied, which
     * Ratis therefore starts applying after. It holds no files to send, so the group keeps its whole log (no snapshot
     * is ever taken to purge it) and a lagging replica catches up from the log.
     */
    @Override
    public SnapshotInfo getLatestSnapshot() {
        return recovered;
    }

    /**
     * A read barrier's query ({@code ClusterNode.readBarrier}): Ratis calls it once this replica has applied up to the
     * read index, which is all the barrier waits for; the read itself is the engine's.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        RuntimeException stopped = failed;
        if (stopped == null) {
            try {
                store.applyEntry(
                        entry.getStateMachineLogEntry().getLogData().toByteArray(), entry.getTerm(), entry.getIndex());
                updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
                return CompletableFuture.completedFuture(Message.EMPTY);
            } catch (RuntimeException e) {
                log.error("replica {} cannot apply entry {}; it applies no more entries", getId(), entry.getIndex(), e);
                failed = e;
                stopped = e;
            }
        }
        return CompletableFuture.failedFuture(stopped);
    }
}
