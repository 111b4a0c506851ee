package io.partita.storage.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.partition.MutableClock;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A restore to any moment of a run of puts and deletes, with time moving on between them, holds exactly what a model
 * of the table held then — including the moments before the first write and after the last; a restore into a table
 * holding a hash range (one range of a table cut over a cluster's groups), those of its items in that range alone.
 */
class PointInTimeRecoveryProperties {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);

    /**
     * One write: a key of a few dozen (more than a restore writes in one commit, RestoreBatch.SIZE), a put of value
     * {@code value} or a delete (null), then {@code pause} ms later.
     */
    record Op(int key, Integer value, int pause) {}

    @Provide
    Arbitrary<List<Op>> runs() {
        Arbitrary<Op> op = Combinators.combine(
                        Arbitraries.integers().between(0, 39),
                        Arbitraries.integers().between(0, 99).injectNull(0.3),
                        Arbitraries.integers().between(0, 3))
                .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(90);
    }

    private static TableMetadata table(String name) {
        return io.partita.storage.TestTables.onDemand(name, SCHEMA);
    }

    @Property(tries = 40)
    void aRestoreHoldsWhatTheTableHeldThen(
            @ForAll("runs") List<Op> run, @ForAll("moments") int pick, @ForAll boolean upper) {
        MutableClock clock = new MutableClock(1_800_000_000_000L);
        try (StorageEngine engine = StorageEngine.open(
                StorageConfig.memory().withCapacity(CapacityConfig.defaults().withClock(clock)))) {
            Table t = engine.tables().create(table("orders"));
            engine.pitr().enable(t, 35);
            // The model: the table's contents after each millisecond.
            TreeMap<Long, Map<String, Integer>> history = new TreeMap<>();
            Map<String, Integer> now = new HashMap<>();
            history.put(clock.millis(), Map.copyOf(now));
            for (Op op : run) {
                String pk = "k" + op.key();
                PrimaryKey key = new PrimaryKey(new AttributeValue.S(pk), null);
                if (op.value() == null) {
                    engine.write(t, key, old -> new WriteDecision.Delete());
                    now.remove(pk);
                } else {
                    Map<String, AttributeValue> item = Map.of(
                            "pk", new AttributeValue.S(pk), "v", AttributeValue.N.of(Integer.toString(op.value())));
                    engine.write(t, key, old -> new WriteDecision.Put(item));
                    now.put(pk, op.value());
                }
                history.put(clock.millis(), Map.copyOf(now));
                clock.advance(op.pause());
            }
            List<Long> moments = new ArrayList<>(history.keySet());
            long at = moments.get(Math.floorMod(pick, moments.size()));
            Table restored = engine.pitr().restore(engine.tables().find("orders"), at, table("restored"));
            Map<String, Integer> expected = history.floorEntry(at).getValue();
            Map<String, Integer> actual = contents(engine, restored);
            assertThat(actual).as("at %d of %s", at, history).isEqualTo(expected);
            assertThat(restored.stats().itemCount()).isEqualTo(expected.size());

            io.partita.storage.table.HashRange half = upper
                    ? new io.partita.storage.table.HashRange(Long.MIN_VALUE, -1L)
                    : new io.partita.storage.table.HashRange(0, Long.MAX_VALUE);
            Table ranged = engine.pitr()
                    .restore(engine.tables().find("orders"), at, table("ranged").withHashRange(half));
            Map<String, Integer> inRange = new HashMap<>();
            expected.forEach((pk, v) -> {
                if (half.holds(io.partita.storage.key.ItemKeyEncoder.partitionHash(new AttributeValue.S(pk)))) {
                    inRange.put(pk, v);
                }
            });
            Map<String, Integer> held = contents(engine, ranged);
            assertThat(held)
                    .as("the %s half at %d of %s", upper ? "upper" : "lower", at, history)
                    .isEqualTo(inRange);
        }
    }

    /** Table {@code t}'s items, by key: their values. */
    private static Map<String, Integer> contents(StorageEngine engine, Table t) {
        Map<String, Integer> out = new HashMap<>();
        engine.range(t, io.partita.storage.key.KeyRanges.segment(0, 1), true, (k, item, bytes) -> {
            out.put(
                    ((AttributeValue.S) item.get("pk")).value(),
                    ((AttributeValue.N) item.get("v")).value().intValueExact());
            return true;
        });
        return out;
    }

    @Provide
    Arbitrary<Integer> moments() {
        return Arbitraries.integers().between(0, 1000);
    }
}
