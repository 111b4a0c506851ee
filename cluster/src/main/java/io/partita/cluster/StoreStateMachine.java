package io.partita.cluster;

import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group's state machine: a replica's {@link RocksStore}. Each committed entry is a change of the store (a batch, a
 * column family created or dropped) that {@link RocksStore#applyEntry} applies, recording the entry's term and index
 * in the same atomic batch. A replica that restarts therefore tells Ratis exactly how far its state goes, and Ratis
 * hands it the entries after that point once each: a batch's counters (merges) are never applied twice.
 *
 * <p>Snapshots are RocksDB checkpoints ({@link RocksStore#checkpointTo}), each a directory {@code
 * checkpoint-<term>-<index>} of the group's state-machine folder, taken every so many entries on every replica (the
 * log before one is then purged), and at a start whose store is past the newest. A replica that needs purged entries
 * gets the leader's latest checkpoint instead (Ratis sends its files) and {@link #reinitialize} installs it in place
 * of its store.
 */
final class StoreStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(StoreStateMachine.class);
    private static final Pattern CHECKPOINT = Pattern.compile("checkpoint-(\\d+)-(\\d+)");

    /** A checkpoint directory and the entry its state ends with. */
    private record Checkpoint(Path dir, long term, long index) {
        SnapshotInfo info() throws IOException {
            List<FileInfo> files = new ArrayList<>();
            try (var listed = Files.list(dir)) {
                for (Path f : listed.sorted().toList()) {
                    // Not the checksums Ratis wrote beside an installed snapshot's files: it makes them again.
                    if (Files.isRegularFile(f) && !f.getFileName().toString().endsWith(".md5")) {
                        files.add(new FileInfo(f.toAbsolutePath(), null));
                    }
                }
            }
            return new FileListSnapshotInfo(files, term, index);
        }
    }

    private final ReplicaStore replica;
    /** Told of each configuration (the members and their priorities) as this replica applies it, with its term. */
    private final java.util.function.ObjLongConsumer<List<org.apache.ratis.protocol.RaftPeer>> configurations;
    /** Why this replica stopped applying entries, or null; it cannot skip one and stay a copy of the others. */
    private volatile RuntimeException failed;
    /** The group's state-machine folder, where the checkpoints are. */
    private volatile Path checkpoints;
    /** The latest checkpoint and its files, or null before the first. */
    private volatile SnapshotInfo latest;

    /** Told when the group is taken off this node, before Ratis deletes its storage. */
    private final Runnable removed;

    StoreStateMachine(
            ReplicaStore replica,
            java.util.function.ObjLongConsumer<List<org.apache.ratis.protocol.RaftPeer>> configurations,
            Runnable removed) {
        this.replica = replica;
        this.configurations = configurations;
        this.removed = removed;
    }

    /**
     * Ratis calls this when the group is removed from this node's server (by this node or another member), once the
     * group's division has closed and before its storage is deleted, on the thread that removes it. Ratis has taken the
     * group off its list before: an add of it again meanwhile finds the host still holding it, and is refused.
     */
    @Override
    public void notifyGroupRemove() {
        removed.run();
    }

    /**
     * Ratis calls this for every configuration entry, in the log's order, as it applies entries: before any entry
     * after it is applied (and so answered).
     */
    @Override
    public void notifyConfigurationChanged(
            long term, long index, org.apache.ratis.proto.RaftProtos.RaftConfigurationProto configuration) {
        configurations.accept(org.apache.ratis.util.ProtoUtils.toRaftPeers(configuration.getPeersList()), term);
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
        super.initialize(server, groupId, storage);
        checkpoints = storage.getStorageDir().getStateMachineDir().toPath();
        Files.createDirectories(checkpoints);
        Checkpoint newest = newestCheckpoint();
        long[] applied = replica.store().appliedEntry();
        if (newest != null && (applied == null || applied[1] < newest.index())) {
            // Ratis had moved an installed snapshot into place, and this replica stopped before its store was
            // replaced: the log holds nothing between the two.
            log.info("installing checkpoint {}, which is ahead of the store", newest.dir());
            replica.install(newest.dir());
            applied = replica.store().appliedEntry();
        }
        if (applied != null) {
            setLastAppliedTermIndex(TermIndex.valueOf(applied[0], applied[1]));
            if (newest == null || newest.index() < applied[1]) {
                // The store went on past its newest checkpoint (the process was killed: a clean stop takes one at the
                // last entry), or has none yet. Ratis starts applying after the latest snapshot's entry, and a new
                // member is first sent that snapshot whole; so the snapshot must be the store as it is.
                try {
                    newest = checkpointAt(applied[0], applied[1]);
                } catch (IOException e) {
                    // Not a reason to stop the node's every group: Ratis still starts after the store's entry, and a
                    // new member is sent the log instead (PartitaRpc.PartitaLogAppender); the next checkpoint is due
                    // after the usual number of entries.
                    log.error(
                            "replica {} cannot take a checkpoint of its store at entry {}; it goes on without",
                            getId(),
                            applied[1],
                            e);
                    latest = new FileListSnapshotInfo(List.of(), applied[0], applied[1]);
                    newest = null;
                }
            }
        }
        if (newest != null) {
            latest = newest.info();
        }
        getLifeCycle().startAndTransition(() -> {});
    }

    /**
     * Takes a checkpoint of the store, which holds entries up to {@code index} of {@code term}, deletes the ones before
     * it but the previous, and returns it. On the thread that applies entries, between two of them, or at start.
     */
    private Checkpoint checkpointAt(long term, long index) throws IOException {
        long started = System.nanoTime();
        Checkpoint taken = new Checkpoint(checkpoints.resolve("checkpoint-" + term + "-" + index), term, index);
        if (Files.exists(taken.dir())) {
            deleteTree(taken.dir()); // unfinished: a checkpoint of this name is whole only with its CURRENT file
        }
        try {
            replica.store().checkpointTo(taken.dir());
        } catch (RuntimeException e) {
            throw new IOException("cannot take a checkpoint at entry " + index + ": " + e.getMessage(), e);
        }
        deleteCheckpointsBefore(taken, 1);
        log.info(
                "replica {} took checkpoint {} in {} ms",
                getId(),
                taken.dir().getFileName(),
                (System.nanoTime() - started) / 1_000_000);
        return taken;
    }

    /** The newest complete checkpoint in the state-machine folder, or null. */
    private Checkpoint newestCheckpoint() throws IOException {
        Checkpoint newest = null;
        for (Checkpoint c : listCheckpoints()) {
            if (newest == null || c.index() > newest.index()) {
                newest = c;
            }
        }
        return newest;
    }

    private List<Checkpoint> listCheckpoints() throws IOException {
        List<Checkpoint> out = new ArrayList<>();
        try (var listed = Files.list(checkpoints)) {
            for (Path dir : listed.toList()) {
                Matcher m = CHECKPOINT.matcher(dir.getFileName().toString());
                // RocksDB builds a checkpoint under another name and renames it: one of this name is whole.
                if (m.matches() && Files.isRegularFile(dir.resolve("CURRENT"))) {
                    out.add(new Checkpoint(dir, Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
                }
            }
        }
        return out;
    }

    /**
     * The latest checkpoint: what the leader sends a replica that needs purged entries, and a member being added before
     * it sends the log after it (Ratis's {@code LogAppender.shouldInstallSnapshot}). Ratis also starts applying
     * after its entry, so from the start it is the store as it was then ({@link #initialize}); null only for a store
     * that never applied an entry, and with no files if that checkpoint could not be taken.
     */
    @Override
    public SnapshotInfo getLatestSnapshot() {
        return latest;
    }

    /**
     * Takes a checkpoint of the store at the last applied entry. Ratis calls it on the thread that applies entries,
     * between two of them, so the checkpoint holds exactly the entries up to that one; the older checkpoints but one
     * (which the leader may be sending) are deleted, and Ratis then purges the log before it.
     */
    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0 || failed != null) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        SnapshotInfo newest = latest;
        if (newest != null
                && newest.getIndex() >= last.getIndex()
                && !newest.getFiles().isEmpty()) {
            return newest.getIndex();
        }
        long[] applied = replica.store().appliedEntry();
        if (applied != null && applied[1] > last.getIndex()) {
            throw new IOException(
                    "the store holds entry " + applied[1] + " but the last applied is " + last.getIndex());
        }
        if (applied == null || applied[1] != last.getIndex()) {
            // The entries since the store's last were Raft's own; the checkpoint holds them too.
            replica.store().recordApplied(last.getTerm(), last.getIndex());
        }
        latest = checkpointAt(last.getTerm(), last.getIndex()).info();
        return last.getIndex();
    }

    /** Deletes the checkpoints older than {@code newest} but the {@code keep} latest of them, and unfinished ones. */
    private void deleteCheckpointsBefore(Checkpoint newest, int keep) throws IOException {
        List<Checkpoint> older = new ArrayList<>(listCheckpoints());
        older.removeIf(c -> c.index() >= newest.index());
        older.sort((a, b) -> Long.compare(b.index(), a.index()));
        for (Checkpoint c : older.subList(Math.min(keep, older.size()), older.size())) {
            deleteTree(c.dir());
        }
        try (var listed = Files.list(checkpoints)) {
            for (Path dir : listed.toList()) {
                String name = dir.getFileName().toString();
                if (name.startsWith("checkpoint-") && !CHECKPOINT.matcher(name).matches()) {
                    deleteTree(dir);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Before Ratis writes a snapshot's files from the leader: nothing is applied until {@link #reinitialize}. */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /**
     * After Ratis has put the leader's snapshot in the state-machine folder (in place of this replica's checkpoints):
     * the store becomes a copy of it, and applying goes on from its entry.
     */
    @Override
    public void reinitialize() throws IOException {
        Checkpoint installed = newestCheckpoint();
        if (installed == null) {
            throw new IOException("no checkpoint to install in " + checkpoints);
        }
        long started = System.nanoTime();
        replica.install(installed.dir());
        long[] applied = replica.store().appliedEntry();
        if (applied == null || applied[1] != installed.index()) {
            IOException e = new IOException(
                    "checkpoint " + installed.dir() + " holds entry " + (applied == null ? "none" : applied[1]));
            failed = new IllegalStateException(e.getMessage(), e);
            throw e;
        }
        setLastAppliedTermIndex(TermIndex.valueOf(installed.term(), installed.index()));
        latest = installed.info();
        log.info(
                "replica {} installed checkpoint {} in {} ms",
                getId(),
                installed.dir().getFileName(),
                (System.nanoTime() - started) / 1_000_000);
        getLifeCycle().startAndTransition(() -> {});
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        RuntimeException stopped = failed;
        if (stopped == null) {
            try {
                replica.store()
                        .applyEntry(
                                entry.getStateMachineLogEntry().getLogData().toByteArray(),
                                entry.getTerm(),
                                entry.getIndex());
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
