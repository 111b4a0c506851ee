package io.partita.storage.write;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The items of a TransactGetItems over several Raft groups that each group's leader watches from just before the
 * group's read until the whole read is known to be done ({@link Transactions#holdRead}, {@link Transactions#release}).
 * A read over several groups reads each group in turn, so it is one moment's only if no item changed in any group
 * before every group had read: a commit that changes a held item breaks the hold, and a broken hold cancels the read
 * with {@code TransactionConflict}, as DynamoDB cancels a TransactGetItems that meets a write ("Transaction conflict
 * handling in DynamoDB"). A hold never makes a write wait or fail.
 *
 * <p>A hold is registered before the read takes its items' locks, and a commit breaks the holds of its items under
 * those locks, before it writes: a commit after the read finds the hold, and a read after the commit reads what it
 * wrote. Holds are this leader's own, in memory: a hold released in another term than it was made in may have missed
 * another leader's writes, and is unknown. So is a hold made while a commit whose outcome is unknown (its entry
 * proposed, its commit not confirmed) may still be applied without a lock ({@link #unknown}): the read first waits
 * for an entry of its own through the log ({@link ItemWrites#settle}). That rests on the group's entries applying in
 * the order they were proposed, as they do with one batch in flight at a time (the cluster's default; {@code
 * partita.cluster.inflight}). One its reader never releases (its node
 * stopped) is unknown after {@link #EXPIRY_NANOS}, and dropped at a hold or release after that. A commit that finds no
 * hold and no commit of unknown outcome before it pays two volatile reads.
 */
final class ReadHolds {
    /** How long a hold is kept for a reader that does not come back: far longer than a read over 100 groups takes. */
    static final long EXPIRY_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The items all holds may watch at once: past it a read is refused (503) rather than grow the maps. */
    static final int MAX_ITEMS = 100_000;

    /** One read's hold: broken by a commit of one of its items. */
    private static final class Hold {
        final long term;
        final long madeNanos;
        final List<TransactionHolds.Item> items;
        final List<Table> tables;
        /** Whether every commit of unknown outcome before the hold was settled when it was made. */
        final boolean settled;

        final long unknowns;
        volatile boolean broken;

        Hold(
                long term,
                long madeNanos,
                List<TransactionHolds.Item> items,
                List<Table> tables,
                long unknowns,
                boolean settled) {
            this.term = term;
            this.madeNanos = madeNanos;
            this.items = items;
            this.tables = tables;
            this.unknowns = unknowns;
            this.settled = settled;
        }
    }

    private final ConcurrentHashMap<String, Hold> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TransactionHolds.Item, Set<Hold>> byItem = new ConcurrentHashMap<>();
    /** The holds in {@link #byId}: what a commit reads before it looks any further. */
    private final AtomicInteger holding = new AtomicInteger();
    /** The items the holds in {@link #byId} watch. */
    private final AtomicInteger heldItems = new AtomicInteger();
    /** Commits whose outcome was unknown, ever. */
    private final AtomicLong unknowns = new AtomicLong();
    /** The first so many of {@link #unknowns} are settled: applied, or never to be, as a later entry of ours was. */
    private final AtomicLong settled = new AtomicLong();
    /** When expired holds are next looked for. */
    private volatile long nextExpiry;

    private final LongSupplier nanos;

    ReadHolds(LongSupplier nanos) {
        this.nanos = nanos;
        this.nextExpiry = nanos.getAsLong();
    }

    /**
     * Holds {@code items} (of {@code tables}) as read {@code id}'s, read by the leader of {@code term}. Called before
     * the items' locks are taken for the read.
     *
     * @throws ApiException holding nothing: a 503 when the holds watch too many items already ({@link #MAX_ITEMS}),
     *     which a read may send again; a {@code ValidationException} when a hold of the same id is kept (a read's id is
     *     made once, by the node that reads over several groups)
     */
    void hold(String id, long term, List<TransactionHolds.Item> items, List<Table> tables) {
        expireDue();
        if (heldItems.get() + items.size() > MAX_ITEMS) {
            throw new ApiException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "Too many reads over several Raft groups hold items on this leader; send the read again");
        }
        long unknown = unknowns.get();
        Hold h = new Hold(
                term, nanos.getAsLong(), List.copyOf(items), List.copyOf(tables), unknown, settled.get() >= unknown);
        heldItems.addAndGet(h.items.size());
        for (TransactionHolds.Item item : h.items) {
            byItem.compute(item, (k, holds) -> {
                Set<Hold> out = holds == null ? ConcurrentHashMap.newKeySet() : holds;
                out.add(h);
                return out;
            });
        }
        // Counted once it is on its items, so that a count above zero means a commit finds it there. A commit that
        // counted none before this skipped its items, and the read, whose locks come after, then reads what it wrote.
        holding.incrementAndGet();
        // Found by its id only once it is on its items: a release or an expiry then takes it off them all.
        if (byId.putIfAbsent(id, h) != null) {
            forget(h);
            throw ApiException.validation("Hold " + id + " is held already");
        }
    }

    /** Breaks every hold of item {@code key} of table {@code table}: called under the item's lock, before a commit. */
    void changing(long table, byte[] key) {
        Set<Hold> holds = byItem.get(new TransactionHolds.Item(table, key));
        if (holds != null) {
            for (Hold h : holds) {
                h.broken = true;
            }
        }
    }

    /**
     * Ends read {@code id}'s hold, released by the leader of {@code term} (confirmed just before): see {@link
     * Transactions.HoldOutcome}.
     */
    Transactions.HoldOutcome release(String id, long term) {
        Hold h = byId.remove(id);
        if (h == null) {
            expireDue();
            return Transactions.HoldOutcome.UNKNOWN;
        }
        forget(h);
        expireDue();
        if (h.broken || h.tables.stream().anyMatch(Table::deleted)) {
            return Transactions.HoldOutcome.BROKEN;
        }
        boolean known = h.term == term
                && h.settled
                && unknowns.get() == h.unknowns
                && nanos.getAsLong() - h.madeNanos < EXPIRY_NANOS;
        return known ? Transactions.HoldOutcome.INTACT : Transactions.HoldOutcome.UNKNOWN;
    }

    /** Drops read {@code id}'s hold, if any, its read refused after all. */
    void drop(String id) {
        Hold h = byId.remove(id);
        if (h != null) {
            forget(h);
        }
    }

    /** Whether a hold keeps an item of table {@code table} whose partition key's hash passes {@code hash}. */
    boolean holdsAny(long table, java.util.function.LongPredicate hash) {
        expireDue(); // a hold whose coordinator died holds nothing past its expiry (its release answers UNKNOWN)
        for (TransactionHolds.Item i : byItem.keySet()) {
            if (i.table() == table && hash.test(i.key().getLong(0))) {
                return true;
            }
        }
        return false;
    }

    /** The holds this leader keeps now. */
    int size() {
        return holding.get();
    }

    /** A commit's outcome was unknown: its entry may be applied later, under no lock ({@link Hold#settled}). */
    void unknown() {
        unknowns.incrementAndGet();
    }

    /** Commits of unknown outcome so far: pass it to {@link #settled} once an entry proposed after them has applied. */
    long unknowns() {
        return unknowns.get();
    }

    /** The first {@code upTo} commits of unknown outcome are settled: an entry proposed after them has applied. */
    void settled(long upTo) {
        if (settled.get() < upTo) {
            settled.accumulateAndGet(upTo, Math::max);
        }
    }

    /** Whether a commit of unknown outcome is not settled yet. */
    boolean unsettled() {
        return settled.get() < unknowns.get();
    }

    private void expireDue() {
        long now = nanos.getAsLong();
        if (now - nextExpiry < 0) {
            return;
        }
        nextExpiry = now + TimeUnit.SECONDS.toNanos(1);
        for (var e : byId.entrySet()) {
            if (now - e.getValue().madeNanos >= EXPIRY_NANOS && byId.remove(e.getKey(), e.getValue())) {
                forget(e.getValue());
            }
        }
    }

    /** Takes a hold no longer in {@link #byId} off its items. */
    private void forget(Hold h) {
        for (TransactionHolds.Item item : h.items) {
            byItem.computeIfPresent(item, (k, holds) -> {
                holds.remove(h);
                return holds.isEmpty() ? null : holds;
            });
        }
        heldItems.addAndGet(-h.items.size());
        holding.decrementAndGet();
    }
}
