package io.partita.storage.feed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Concurrent writers (blind and conditional puts, read-modify-write updates, deletes, failing conditions, writes that
 * change nothing) and a concurrent feed reader, on a table whose partitions split under the load. Whatever the
 * interleaving: every acknowledged change is in the feed exactly once, and nothing else is; each shard's numbers rise
 * strictly; each item's records come in commit order, each one's old image the previous one's new image, the last
 * one's new image the item as it is.
 */
class ChangeFeedProperties {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
    private static final int KEYS = 16;

    enum Kind {
        BLIND_PUT,
        PUT_IF_ABSENT,
        UPDATE,
        UPDATE_IF_EVEN,
        BLIND_DELETE,
        DELETE_IF_EXISTS,
        REWRITE_UNCHANGED
    }

    record Op(Kind kind, int key, int padding) {}

    @Provide
    Arbitrary<List<List<Op>>> writers() {
        Arbitrary<Op> op = Combinators.combine(
                        Arbitraries.of(Kind.class),
                        Arbitraries.integers().between(0, KEYS - 1),
                        Arbitraries.integers().between(0, 300))
                .as(Op::new);
        return op.list().ofMinSize(50).ofMaxSize(200).list().ofMinSize(3).ofMaxSize(6);
    }

    @Property(tries = 25)
    void everyAcknowledgedChangeIsInTheFeedOnceInCommitOrder(@ForAll("writers") List<List<Op>> writers)
            throws Exception {
        // Partitions of 400 bytes split again and again while the writers run (in the background, as they do for real).
        CapacityConfig capacity =
                CapacityConfig.defaults().withMode(ThroughputMode.OFF).withPartitionSizeLimit(400);
        try (StorageEngine e =
                StorageEngine.open(StorageConfig.memory().withCapacity(capacity).withFeedTrimMillis(0))) {
            Table t = e.tables().create(table());
            FeedReader reader = new FeedReader(e, e.feed().register(t, "reader", null));
            Set<String> changedOps = ConcurrentHashMap.newKeySet();
            Map<Integer, AtomicInteger> removals = new ConcurrentHashMap<>();
            List<ChangeRecord> read = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean writing = new AtomicBoolean(true);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            for (int w = 0; w < writers.size(); w++) {
                int writer = w;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        List<Op> ops = writers.get(writer);
                        for (int i = 0; i < ops.size(); i++) {
                            apply(e, t, ops.get(i), writer + "-" + i, changedOps, removals);
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }));
            }
            Thread poller = new Thread(() -> {
                try {
                    start.await();
                    while (writing.get()) {
                        read.addAll(reader.poll());
                    }
                } catch (Throwable x) {
                    failures.add(x);
                }
            });
            threads.forEach(Thread::start);
            poller.start();
            start.countDown();
            for (Thread th : threads) {
                th.join();
            }
            writing.set(false);
            poller.join();
            assertThat(failures).isEmpty();
            awaitSplitsPublished(e, t);
            read.addAll(reader.poll());

            Statistics.label("partitions split during the run")
                    .collect(!t.partitions().retired().isEmpty());
            checkNumbers(read);
            checkChains(e, t, read);
            Set<String> recordedOps = new HashSet<>();
            Map<Integer, Integer> recordedRemovals = new HashMap<>();
            for (ChangeRecord r : read) {
                if (r.newStored() != null) {
                    assertThat(recordedOps.add(op(r.newImage())))
                            .as("recorded once: %s", op(r.newImage()))
                            .isTrue();
                } else {
                    recordedRemovals.merge(keyIndex(r.oldImage()), 1, Integer::sum);
                }
            }
            assertThat(recordedOps)
                    .as("the acknowledged changes, and nothing else")
                    .isEqualTo(changedOps);
            Map<Integer, Integer> expectedRemovals = new HashMap<>();
            removals.forEach((k, n) -> expectedRemovals.put(k, n.get()));
            expectedRemovals.values().removeIf(n -> n == 0);
            assertThat(recordedRemovals).isEqualTo(expectedRemovals);
        }
    }

    /**
     * Waits until every shard with a child is closed. A background split publishes its new map before it closes its
     * parent's shard, and a write can land in a child in between; until the parent closes, a reader may not read the
     * child (FeedConsumer.mayRead), so a last poll made in that window would miss the write.
     */
    private static void awaitSplitsPublished(StorageEngine e, Table t) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            List<FeedShard> shards = e.feed().shards(t);
            Set<String> parents = new HashSet<>();
            for (FeedShard s : shards) {
                if (s.parentId() != null) parents.add(s.parentId());
            }
            boolean settled = shards.stream().allMatch(s -> !parents.contains(s.partitionId()) || s.closed());
            if (settled) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("a split's parent shard closed within 10 s")
                    .isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** Applies one operation, noting the acknowledged ones that changed the item. */
    private static void apply(
            StorageEngine e, Table t, Op op, String id, Set<String> changedOps, Map<Integer, AtomicInteger> removals) {
        PrimaryKey key = new PrimaryKey(new AttributeValue.S(pk(op.key())), null);
        ConditionalWrite write = switch (op.kind()) {
            case BLIND_PUT -> ConditionalWrite.blind(new WriteDecision.Put(item(op, id, 0)));
            case PUT_IF_ABSENT -> old -> old == null ? new WriteDecision.Put(item(op, id, 0)) : rejected();
            case UPDATE -> old -> new WriteDecision.Put(item(op, id, counter(old) + 1));
            case UPDATE_IF_EVEN ->
                old -> counter(old) % 2 == 0 ? new WriteDecision.Put(item(op, id, counter(old) + 1)) : rejected();
            case BLIND_DELETE -> ConditionalWrite.blind(new WriteDecision.Delete());
            case DELETE_IF_EXISTS -> old -> old != null ? new WriteDecision.Delete() : rejected();
            case REWRITE_UNCHANGED -> old -> old == null ? new WriteDecision.Delete() : new WriteDecision.Put(old);
        };
        try {
            var outcome = e.write(t, key, write).outcome();
            boolean isDelete = op.kind() == Kind.BLIND_DELETE || op.kind() == Kind.DELETE_IF_EXISTS;
            if (isDelete) {
                if (outcome.oldBytes() > 0) {
                    removals.computeIfAbsent(op.key(), k -> new AtomicInteger()).incrementAndGet();
                }
            } else if (op.kind() != Kind.REWRITE_UNCHANGED) {
                changedOps.add(id);
            }
        } catch (ApiException x) {
            assertThat(x.code()).isEqualTo(ErrorCode.CONDITIONAL_CHECK_FAILED);
        }
    }

    /** Per shard, in the order read: numbers rise strictly. */
    private static void checkNumbers(List<ChangeRecord> read) {
        Map<String, Long> last = new HashMap<>();
        for (ChangeRecord r : read) {
            Long before = last.put(r.shard(), r.sequence());
            if (before != null) {
                assertThat(r.sequence())
                        .as("shard %s after %d", r.shard(), before)
                        .isGreaterThan(before);
            }
        }
    }

    /** Per item, in the order read: old image = previous new image, from nothing to the item as it is now. */
    private static void checkChains(StorageEngine e, Table t, List<ChangeRecord> read) {
        Map<String, Map<String, AttributeValue>> current = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (ChangeRecord r : read) {
            String pk = new String(r.key(), java.nio.charset.StandardCharsets.ISO_8859_1);
            Map<String, AttributeValue> previous = current.get(pk);
            if (!seen.add(pk)) {
                assertThat(r.oldImage()).as("old image of %s", r).isEqualTo(previous);
            } else {
                assertThat(r.oldImage()).as("the table starts empty: %s", r).isNull();
            }
            current.put(pk, r.newImage());
        }
        for (int k = 0; k < KEYS; k++) {
            PrimaryKey key = new PrimaryKey(new AttributeValue.S(pk(k)), null);
            String encoded = new String(
                    io.partita.storage.key.ItemKeyEncoder.encode(SCHEMA, key).bytes(),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(e.get(t, key)).as("item %d as the feed leaves it", k).isEqualTo(current.get(encoded));
        }
    }

    private static WriteDecision rejected() {
        return new WriteDecision.Reject(
                new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed"));
    }

    private static Map<String, AttributeValue> item(Op op, String id, int counter) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("pk", new AttributeValue.S(pk(op.key())));
        m.put("op", new AttributeValue.S(id));
        m.put("n", AttributeValue.N.of(Integer.toString(counter)));
        m.put("pad", new AttributeValue.S("x".repeat(op.padding())));
        return m;
    }

    private static int counter(Map<String, AttributeValue> item) {
        return item == null ? 0 : ((AttributeValue.N) item.get("n")).value().intValue();
    }

    private static String op(Map<String, AttributeValue> item) {
        return ((AttributeValue.S) item.get("op")).value();
    }

    private static int keyIndex(Map<String, AttributeValue> item) {
        return Integer.parseInt(((AttributeValue.S) item.get("pk")).value().substring(1));
    }

    private static String pk(int k) {
        return "k" + k;
    }

    private static TableMetadata table() {
        return TestTables.onDemand("t", SCHEMA);
    }
}
