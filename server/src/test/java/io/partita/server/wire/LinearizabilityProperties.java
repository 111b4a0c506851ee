package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.wire.Linearizability.Op;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The checker the linearizability test relies on: it accepts what a real register can do, and only that. */
class LinearizabilityProperties {

    /**
     * A history made by a register that is linearizable by construction: each operation takes effect at a random point
     * of its interval, in that order, and its answer is what the register then gives. Operations whose answer is lost
     * took effect, or did not, at random.
     */
    @Property(tries = 300)
    void acceptsEveryHistoryOfARealRegister(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 300) int size,
            @ForAll @IntRange(min = 1, max = 6) int overlap) {
        assertThat(Linearizability.check(0, register(new Random(seed), size, overlap, true)))
                .isTrue();
    }

    /** One answer of a history without overlaps changed to a value the register did not hold then: refused. */
    @Property(tries = 300)
    void refusesASequentialHistoryWithOneWrongRead(@ForAll long seed, @ForAll @IntRange(min = 1, max = 200) int size) {
        Random random = new Random(seed);
        List<Op> history = register(random, size, 0, false);
        List<Integer> reads = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
            if (history.get(i).kind() == Linearizability.Kind.READ) reads.add(i);
        }
        if (reads.isEmpty()) return;
        int at = reads.get(random.nextInt(reads.size()));
        Op read = history.get(at);
        history.set(at, Op.read(read.value() + 1_000_000, read.invoked(), read.answered()));
        assertThat(Linearizability.check(0, history)).isFalse();
    }

    @Example
    void aReadAfterACompletedWriteThatMissesItIsRefused() {
        List<Op> history = List.of(Op.cas(true, 0, 1, 0, 10), Op.read(0, 11, 20));
        assertThat(Linearizability.check(0, history)).isFalse();
    }

    @Example
    void aReadConcurrentWithAWriteMaySeeEitherValue() {
        assertThat(Linearizability.check(0, List.of(Op.cas(true, 0, 1, 0, 10), Op.read(0, 5, 20))))
                .isTrue();
        assertThat(Linearizability.check(0, List.of(Op.cas(true, 0, 1, 0, 10), Op.read(1, 5, 20))))
                .isTrue();
    }

    @Example
    void twoReadersCannotSeeTheWritesInOppositeOrders() {
        // Writes 0->1 and 0->2 are concurrent and both succeed: impossible for a compare-and-set register.
        assertThat(Linearizability.check(0, List.of(Op.cas(true, 0, 1, 0, 10), Op.cas(true, 0, 2, 0, 10))))
                .isFalse();
    }

    @Example
    void aLostAnswerMayHaveTakenEffectOrNot() {
        List<Op> applied = List.of(Op.unknown(0, 7, 0), Op.read(7, 100, 110));
        List<Op> notApplied = List.of(Op.unknown(0, 7, 0), Op.read(0, 100, 110));
        assertThat(Linearizability.check(0, applied)).isTrue();
        assertThat(Linearizability.check(0, notApplied)).isTrue();
        // ...but not both: once seen applied, it cannot be undone.
        List<Op> both = List.of(Op.unknown(0, 7, 0), Op.read(7, 100, 110), Op.read(0, 120, 130));
        assertThat(Linearizability.check(0, both)).isFalse();
    }

    @Example
    void aRefusedCompareAndSetNeedsTheRegisterToHoldSomethingElse() {
        assertThat(Linearizability.check(0, List.of(Op.cas(false, 0, 1, 0, 10))))
                .isFalse();
        assertThat(Linearizability.check(0, List.of(Op.cas(false, 5, 1, 0, 10))))
                .isTrue();
    }

    /**
     * {@code size} operations, a third of them reads; {@code overlap} bounds how many run at once (0: none overlap).
     * Written values are unique, as the wire test's are.
     */
    static List<Op> register(Random random, int size, int overlap, boolean lost) {
        record Planned(Op shape, long invoked, long answered, long point, boolean effect) {}
        List<Planned> planned = new ArrayList<>();
        long clock = 0;
        for (int i = 0; i < size; i++) {
            long invoked = overlap == 0 ? clock : clock + random.nextInt(10 * overlap);
            long answered = invoked + 1 + random.nextInt(overlap == 0 ? 5 : 20 * overlap);
            clock = overlap == 0 ? answered + 1 : clock + 1 + random.nextInt(10);
            long point = invoked + (long) (random.nextDouble() * (answered - invoked));
            int kind = random.nextInt(3);
            Op shape = kind == 0 ? Op.read(0, 0, 0) : Op.cas(true, 0, i + 1, 0, 0);
            boolean isLost = lost && kind != 0 && random.nextInt(10) == 0;
            planned.add(new Planned(
                    isLost ? Op.unknown(0, i + 1, 0) : shape, invoked, answered, point, random.nextBoolean()));
        }
        List<Planned> byPoint = new ArrayList<>(planned);
        byPoint.sort(Comparator.comparingLong(Planned::point));
        long state = 0;
        List<Op> history = new ArrayList<>();
        for (Planned p : byPoint) {
            Op shape = p.shape();
            switch (shape.kind()) {
                case READ:
                    history.add(Op.read(state, p.invoked(), p.answered()));
                    break;
                case CAS_UNKNOWN: {
                    // Aimed at the value then held, or not; it took effect only if it did and its effect was chosen.
                    long expected = p.effect() ? state : state + 1_000_000;
                    if (expected == state) state = shape.value();
                    history.add(Op.unknown(expected, shape.value(), p.invoked()));
                    break;
                }
                default: {
                    boolean hits = random.nextInt(4) != 0;
                    long expected = hits ? state : state + 1_000_000;
                    history.add(Op.cas(hits, expected, shape.value(), p.invoked(), p.answered()));
                    if (hits) state = shape.value();
                }
            }
        }
        return history;
    }
}
