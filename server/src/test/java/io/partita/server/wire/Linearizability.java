package io.partita.server.wire;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A linearizability checker for one register with compare-and-set, after Wing and Gong with Lowe's memoisation (as
 * Porcupine and Knossos do it): a history of operations, each with the times it was invoked and answered, is
 * linearizable if some order of them, consistent with real time, is a legal sequential history of the register.
 *
 * <p>An operation whose answer never came (the server died under it) may have taken effect at any point after its
 * invocation, or never: it is given an answer at the end of time, and either outcome of its compare-and-set is
 * accepted. No JVM library checks recorded histories (Lincheck drives its own scenarios against in-process objects), so
 * this is our own, tested in {@code LinearizabilityProperties}.
 */
final class Linearizability {
    private Linearizability() {}

    enum Kind {
        /** A read that answered {@code value}. */
        READ,
        /** A compare-and-set from {@code expected} to {@code value} that succeeded. */
        CAS_OK,
        /** A compare-and-set from {@code expected} that was refused: the register did not hold it. */
        CAS_FAILED,
        /** A compare-and-set whose answer never came. */
        CAS_UNKNOWN
    }

    /** One operation of a history; {@code answered} is {@link Long#MAX_VALUE} for one never answered. */
    record Op(Kind kind, long expected, long value, long invoked, long answered) {
        Op {
            if (answered < invoked) throw new IllegalArgumentException("answered before invoked");
        }

        static Op read(long value, long invoked, long answered) {
            return new Op(Kind.READ, 0, value, invoked, answered);
        }

        static Op cas(boolean ok, long expected, long value, long invoked, long answered) {
            return new Op(ok ? Kind.CAS_OK : Kind.CAS_FAILED, expected, value, invoked, answered);
        }

        static Op unknown(long expected, long value, long invoked) {
            return new Op(Kind.CAS_UNKNOWN, expected, value, invoked, Long.MAX_VALUE);
        }
    }

    /** The register's state after {@code op} from {@code state}, or {@code null} if {@code op} cannot happen there. */
    private static Long step(long state, Op op) {
        switch (op.kind()) {
            case READ:
                return state == op.value() ? state : null;
            case CAS_OK:
                return state == op.expected() ? op.value() : null;
            case CAS_FAILED:
                return state != op.expected() ? state : null;
            case CAS_UNKNOWN:
                return state == op.expected() ? op.value() : state;
            default:
                throw new AssertionError(op.kind());
        }
    }

    /** An invocation or an answer in the history's time order: a doubly linked list the search lifts entries out of. */
    private static final class Entry {
        final int id;
        final boolean call;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(int id, boolean call, long time) {
            this.id = id;
            this.call = call;
            this.time = time;
        }
    }

    /**
     * What the search has already explored: the state after a set of operations. The set is kept as the length of its
     * prefix of ids with every id in it, and the ids above that prefix, which are few.
     */
    private record Seen(int prefix, long[] rest, long state) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Seen s && s.prefix == prefix && s.state == state && Arrays.equals(s.rest, rest);
        }

        @Override
        public int hashCode() {
            return Objects.hash(prefix, state) * 31 + Arrays.hashCode(rest);
        }
    }

    private record Frame(Entry entry, long state) {}

    /** Whether {@code history}, from a register holding {@code initial}, is linearizable. */
    static boolean check(long initial, List<Op> history) {
        // Ids in invocation order, the never-answered last, so that the linearized set is mostly a prefix.
        List<Op> ops = new ArrayList<>(history);
        ops.sort(Comparator.comparing((Op op) -> op.kind() == Kind.CAS_UNKNOWN).thenComparingLong(Op::invoked));
        List<Entry> entries = new ArrayList<>(ops.size() * 2);
        for (int id = 0; id < ops.size(); id++) {
            Op op = ops.get(id);
            Entry call = new Entry(id, true, op.invoked());
            Entry answer = new Entry(id, false, op.answered());
            call.match = answer;
            entries.add(call);
            entries.add(answer);
        }
        // Time order; at a tie an invocation comes first, so the two operations count as concurrent.
        entries.sort(Comparator.comparingLong((Entry e) -> e.time).thenComparing(e -> !e.call));
        Entry head = new Entry(-1, false, Long.MIN_VALUE);
        Entry last = head;
        for (Entry e : entries) {
            last.next = e;
            e.prev = last;
            last = e;
        }
        BitSet linearized = new BitSet(ops.size());
        Set<Seen> seen = new HashSet<>();
        Deque<Frame> stack = new ArrayDeque<>();
        long state = initial;
        Entry entry = head.next;
        while (head.next != null) {
            if (entry.call) {
                Long next = step(state, ops.get(entry.id));
                boolean advanced = false;
                if (next != null) {
                    linearized.set(entry.id);
                    if (seen.add(seen(linearized, next))) {
                        stack.push(new Frame(entry, state));
                        state = next;
                        lift(entry);
                        entry = head.next;
                        advanced = true;
                    } else {
                        linearized.clear(entry.id);
                    }
                }
                if (!advanced) {
                    entry = entry.next;
                }
            } else {
                // An answer reached with its operation not linearized: undo the latest choice and try the next.
                if (stack.isEmpty()) {
                    return false;
                }
                Frame top = stack.pop();
                state = top.state();
                linearized.clear(top.entry().id);
                unlift(top.entry());
                entry = top.entry().next;
            }
        }
        return true;
    }

    private static Seen seen(BitSet linearized, long state) {
        int prefix = linearized.nextClearBit(0);
        return new Seen(
                prefix,
                linearized.get(prefix, Math.max(prefix, linearized.length())).toLongArray(),
                state);
    }

    private static void lift(Entry call) {
        call.prev.next = call.next;
        call.next.prev = call.prev;
        Entry answer = call.match;
        answer.prev.next = answer.next;
        if (answer.next != null) {
            answer.next.prev = answer.prev;
        }
    }

    private static void unlift(Entry call) {
        Entry answer = call.match;
        answer.prev.next = answer;
        if (answer.next != null) {
            answer.next.prev = answer;
        }
        call.prev.next = call;
        call.next.prev = call;
    }
}
