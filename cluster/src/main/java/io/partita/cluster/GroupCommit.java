package io.partita.cluster;

import io.partita.storage.rocks.ReplicatedEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The leader's proposals of batches, joined while the group is busy: at most {@code inFlight} entries are proposed
 * and not yet answered; the batches that arrive meanwhile wait and go together as the next entry, one atomic batch
 * ({@link ReplicatedEntry#joinBatches}), up to {@code maxBytes}. A write that finds fewer in flight is proposed at
 * once, alone, so a lone write waits no longer than before; under load every Raft round (a log append on every node,
 * an apply, a RocksDB write on every replica) carries many writes. Every write of an entry has that entry's outcome.
 *
 * <p>The batches so joined were computed concurrently, under different items' locks, so any order of them is one the
 * writes could have had; they are joined in the order they arrived.
 *
 * <p>The first entry is proposed on the writer's thread. The entries that follow an answer are proposed on {@code
 * sender}, not on the thread that completes the answer, which is Ratis's own (it applies entries).
 */
final class GroupCommit<R> {
    private final int inFlight;
    private final int maxBytes;
    private final Function<byte[], CompletableFuture<R>> propose;
    private final Executor sender;

    private final ArrayDeque<Waiting<R>> waiting = new ArrayDeque<>();
    private int proposed;
    /** Entries proposed, and the batches they carried: their ratio is how many writes an entry carries. */
    private final AtomicLong entries = new AtomicLong();

    private final AtomicLong batches = new AtomicLong();

    private record Waiting<R>(byte[] entry, CompletableFuture<R> done) {}

    GroupCommit(int inFlight, int maxBytes, Function<byte[], CompletableFuture<R>> propose, Executor sender) {
        if (inFlight < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("inFlight and maxBytes must be positive: " + inFlight + ", " + maxBytes);
        }
        this.inFlight = inFlight;
        this.maxBytes = maxBytes;
        this.propose = propose;
        this.sender = sender;
    }

    /** Proposes the batch entry {@code entry}, alone or with others; completes with the outcome of its entry. */
    CompletableFuture<R> propose(byte[] entry) {
        Waiting<R> w = new Waiting<>(entry, new CompletableFuture<>());
        List<Waiting<R>> next;
        synchronized (this) {
            waiting.add(w);
            next = take();
        }
        if (next != null) {
            send(next);
        }
        return w.done();
    }

    /**
     * Takes back the batch whose outcome is {@code pending} if it still waits, unproposed, and answers whether it did:
     * its write then certainly never happens. A writer that gave up waiting withdraws its batch, so that it is not
     * proposed later, after the writer let go of the item's lock and another write of the item was computed.
     */
    synchronized boolean withdraw(CompletableFuture<R> pending) {
        return waiting.removeIf(w -> w.done() == pending);
    }

    /** The next entry's batches, when fewer than {@code inFlight} are proposed; the caller proposes them. */
    private List<Waiting<R>> take() {
        if (proposed >= inFlight || waiting.isEmpty()) {
            return null;
        }
        proposed++;
        List<Waiting<R>> group = new ArrayList<>();
        long bytes = 0;
        while (!waiting.isEmpty()) {
            Waiting<R> w = waiting.peek();
            if (!group.isEmpty() && bytes + w.entry().length > maxBytes) {
                break;
            }
            group.add(waiting.poll());
            bytes += w.entry().length;
        }
        return group;
    }

    /** How many entries this has proposed. */
    long entries() {
        return entries.get();
    }

    /** How many batches (writes) the proposed entries carried. */
    long batches() {
        return batches.get();
    }

    private void send(List<Waiting<R>> group) {
        entries.incrementAndGet();
        batches.addAndGet(group.size());
        CompletableFuture<R> sent;
        try {
            sent = propose.apply(
                    group.size() == 1
                            ? group.get(0).entry()
                            : ReplicatedEntry.joinBatches(
                                    group.stream().map(Waiting::entry).toList()));
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenCompleteAsync(
                (reply, failure) -> {
                    for (Waiting<R> w : group) {
                        if (failure != null) {
                            w.done().completeExceptionally(failure);
                        } else {
                            w.done().complete(reply);
                        }
                    }
                    List<Waiting<R>> next;
                    synchronized (this) {
                        proposed--;
                        next = take();
                    }
                    if (next != null) {
                        send(next);
                    }
                },
                sender);
    }
}
