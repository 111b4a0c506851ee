package io.partita.storage.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.NonBlockingThread;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.WouldBlock;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.feed.FeedShard;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The one write path: capacity admitted and charged in it, and an event loop that never waits in it. */
class ItemWritesIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);

    private static TableMetadata provisioned(String name, long wcu) {
        return TestTables.provisioned(name, SCHEMA, 5, wcu);
    }

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk, int bytes) {
        return Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S("x".repeat(bytes)));
    }

    /** A thread marked as an event loop, running {@code body} and handing back what it threw. */
    private static Throwable onLoop(Runnable body) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        class Loop extends Thread implements NonBlockingThread {
            Loop() {
                super(() -> {
                    try {
                        body.run();
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                });
            }
        }
        Thread t = new Loop();
        t.start();
        t.join(10_000);
        return thrown.get();
    }

    @Test
    void anEventLoopDoesNotWaitForAHeldItemLockAndItsWriteChangesNothing() throws Exception {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(provisioned("t", 100));
            e.feed().register(t, "c", null);
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Written> slow = CompletableFuture.supplyAsync(() -> e.write(t, key("a"), old -> {
                holding.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
                return new WriteDecision.Put(item("a", 10));
            }));
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Throwable thrown = onLoop(() -> e.write(t, key("a"), old -> new WriteDecision.Put(item("a", 20))));
            assertThat(thrown).isSameAs(WouldBlock.INSTANCE);
            // Reads on the loop do not wait either: they skip the cache fill.
            assertThat(onLoop(() -> e.get(t, key("a")))).isNull();
            release.countDown();
            slow.get(10, TimeUnit.SECONDS);
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", 10));
            FeedShard shard = e.feed().shards(t).get(0);
            assertThat(e.feed().read(t, shard, 0, 10))
                    .singleElement()
                    .satisfies(r -> assertThat(r.newImage()).isEqualTo(item("a", 10)));
            assertThat(onLoop(() -> e.write(t, key("a"), old -> new WriteDecision.Put(item("a", 20)))))
                    .as("once the lock is free the loop's write goes through")
                    .isNull();
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", 20));
        }
    }

    /**
     * In a cluster a write that commits nothing answers from the leader's state alone, as a read does: it must pass
     * the strongly consistent read's barrier, and a leader that cannot confirm it still leads answers 503, not a
     * refusal that may rest on writes it missed. The store replicates through a stand-in that applies each entry at
     * once and whose barrier says whether this node leads.
     */
    @Test
    void aWriteThatCommitsNothingAnswersOnlyOnceTheLeaderConfirmsItLeads() {
        try (io.partita.storage.rocks.RocksStore store =
                        io.partita.storage.rocks.RocksStore.open(StorageConfig.memory());
                StorageEngine e = StorageEngine.openOn(store, StorageConfig.memory())) {
            Table t = e.tables().create(provisioned("t", 100));
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 10))));
            java.util.concurrent.atomic.AtomicBoolean leads = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.concurrent.atomic.AtomicInteger barriers = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger replicated = new java.util.concurrent.atomic.AtomicInteger();
            store.replicateThrough(new io.partita.storage.rocks.Replication() {
                @Override
                public void replicate(byte[] entry) {
                    store.applyEntry(entry, 1, replicated.incrementAndGet());
                }

                @Override
                public long readBarrier() {
                    barriers.incrementAndGet();
                    if (!leads.get()) {
                        throw new io.partita.storage.StorageUnavailableException("no longer the leader");
                    }
                    return 1;
                }
            });
            ApiException failed =
                    new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");
            assertThatThrownBy(() -> e.write(t, key("a"), old -> new WriteDecision.Reject(failed)))
                    .isSameAs(failed);
            assertThat(barriers).hasValue(1);
            // A delete of no item commits nothing either; a write that changes the item commits, and asks no barrier.
            e.write(t, key("b"), ConditionalWrite.blind(new WriteDecision.Delete()));
            assertThat(barriers).hasValue(2);
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 20))));
            assertThat(barriers).hasValue(2);
            assertThat(replicated).hasValue(1);
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", 20));
            // A refusal the item's state decides without a condition (an update of a missing number, say) too.
            ApiException invalid = new ApiException(
                    ErrorCode.VALIDATION,
                    "The provided expression refers to an attribute that does not exist in the item");
            assertThatThrownBy(() -> e.write(t, key("a"), old -> {
                        throw invalid;
                    }))
                    .isSameAs(invalid);
            assertThat(barriers).hasValue(3);
            // A leader the others replaced (woken from a stall, say): its refusal could rest on writes it missed.
            leads.set(false);
            assertThatThrownBy(() -> e.write(t, key("a"), old -> new WriteDecision.Reject(failed)))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThatThrownBy(() -> e.write(t, key("a"), old -> {
                        throw invalid;
                    }))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            store.replicateThrough(null);
        }
    }

    /**
     * A commit whose outcome is unknown (its entry proposed, not confirmed in time) may still be applied later, under
     * no lock. The cache must not keep the item as it was meanwhile, and the next write of it first has an entry of
     * its own applied, so that its condition (and a record's old image) sees the late one. The store replicates
     * through a stand-in that holds back one entry, as a group that did not answer in time would.
     */
    @Test
    void aCommitOfUnknownOutcomeAppliedLateIsSeenByReadsAndTheNextWrite() {
        try (io.partita.storage.rocks.RocksStore store =
                        io.partita.storage.rocks.RocksStore.open(StorageConfig.memory());
                StorageEngine e = StorageEngine.openOn(store, StorageConfig.memory())) {
            Table t = e.tables().create(provisioned("t", 100));
            LateReplication group = new LateReplication(store);
            store.replicateThrough(group);
            e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 1))));
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", 1)); // cached now, bytes and all

            group.holdBackNext();
            assertThatThrownBy(() -> e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 2)))))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThat(e.get(t, key("a"))).as("not applied yet").isEqualTo(item("a", 1));
            group.applyHeldBack();
            assertThat(e.get(t, key("a")))
                    .as("applied late: no cached copy hides it")
                    .isEqualTo(item("a", 2));

            // A conditional write after another one of unknown outcome decides on the item once that has applied.
            e.write(t, key("b"), ConditionalWrite.blind(new WriteDecision.Put(item("b", 1)))); // settles the first
            group.holdBackNext();
            assertThatThrownBy(() -> e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 3)))))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            ApiException failed =
                    new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");
            e.write(
                    t,
                    key("a"),
                    old -> old != null && old.equals(item("a", 3))
                            ? new WriteDecision.Put(item("a", 4))
                            : new WriteDecision.Reject(failed));
            assertThat(group.holding()).isFalse();
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", 4));
            store.replicateThrough(null);
        }
    }

    @Test
    void writesAreAdmittedOnTheirPartitionAndChargedTheLargerImageEvenWhenTheirConditionFails() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(provisioned("t", 1));
            Map<String, AttributeValue> big = item("a", 2500);
            Written first = e.writes()
                    .write(ItemWrite.user(
                            t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(big)), ItemSize.of(big)));
            assertThat(first.throttled()).isFalse();
            assertThat(first.units()).isEqualTo(3);
            ApiException failed =
                    new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");
            assertThatThrownBy(() ->
                            e.writes().write(ItemWrite.user(t, key("a"), old -> new WriteDecision.Reject(failed), 100)))
                    .isSameAs(failed);
            double consumed = t.partitions().throughput().consumption().consumedWriteUnits();
            assertThat(consumed)
                    .as("3 for the put, 3 for the failed write on the 2.5 KB item")
                    .isEqualTo(6);
            // 1 WCU provisioned and its 300 s of burst spent many times over: the next write is refused, unchanged.
            Written refused = null;
            for (int i = 0; i < 200 && (refused == null || !refused.throttled()); i++) {
                refused = e.writes()
                        .write(ItemWrite.user(
                                t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(big)), ItemSize.of(big)));
            }
            assertThat(refused.throttled()).isTrue();
            assertThat(refused.outcome()).isNull();
            assertThat(refused.throttle().onDemand()).isFalse();
        }
    }

    /**
     * A BatchWriteItem's writes ({@link ItemWrites#writeAll}): admitted and charged in turn, as one after another would
     * be, so that a partition spent midway throttles the rest; committed in one entry of the log.
     */
    @Test
    void aBatchsWritesAreAdmittedAndChargedInTurnAndCommitInOneEntry() throws Exception {
        try (io.partita.storage.rocks.RocksStore store =
                        io.partita.storage.rocks.RocksStore.open(StorageConfig.memory());
                StorageEngine e = StorageEngine.openOn(store, StorageConfig.memory())) {
            // 1 WCU provisioned: 300 units of burst, which three writes of 101 units spend below zero.
            Table t = e.tables().create(provisioned("t", 1));
            java.util.concurrent.atomic.AtomicInteger entries = new java.util.concurrent.atomic.AtomicInteger();
            store.replicateThrough(new io.partita.storage.rocks.Replication() {
                @Override
                public void replicate(byte[] entry) {
                    store.applyEntry(entry, 1, entries.incrementAndGet());
                }

                @Override
                public long readBarrier() {
                    return 1;
                }
            });
            java.util.List<ItemWrite> puts = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Map<String, AttributeValue> big = item("k" + i, 102_600);
                puts.add(ItemWrite.user(
                        t, key("k" + i), ConditionalWrite.blind(new WriteDecision.Put(big)), ItemSize.of(big)));
            }
            Written[] written = e.writes().writeAll(puts);
            for (int i = 0; i < 3; i++) {
                assertThat(written[i].throttled()).as("k%d", i).isFalse();
                assertThat(written[i].units()).isEqualTo(101);
                assertThat(e.get(t, key("k" + i))).isNotNull();
            }
            for (int i = 3; i < 5; i++) {
                assertThat(written[i].throttled()).as("k%d", i).isTrue();
                assertThat(e.get(t, key("k" + i))).isNull();
            }
            assertThat(entries).hasValue(1);
            assertThat(t.partitions().throughput().consumption().consumedWriteUnits())
                    .isEqualTo(303);

            // On an event loop it would wait for locks: refused before anything happens.
            Throwable thrown = onLoop(() -> e.writes().writeAll(puts.subList(3, 4)));
            assertThat(thrown).isSameAs(WouldBlock.INSTANCE);
            assertThat(entries).hasValue(1);
            // The TTL service's deletions are not a batch's.
            assertThatThrownBy(() -> e.writes()
                            .writeAll(java.util.List.of(new ItemWrite(
                                    t,
                                    key("k0"),
                                    ConditionalWrite.blind(new WriteDecision.Delete()),
                                    0,
                                    io.partita.storage.feed.ChangeCause.TTL))))
                    .isInstanceOf(IllegalArgumentException.class);
            store.replicateThrough(null);
        }
    }

    /**
     * A batch whose items hold more than {@link ItemWrites#BATCH_COMMIT_BYTES} commits in several entries (a Raft entry
     * has a limit); once one has committed, a later one that fails leaves its writes, and those after, to be sent
     * again, where the first failure fails the batch whole. The same item twice is refused before anything happens.
     */
    @Test
    void aLargeBatchCommitsInSeveralEntriesAndALaterOnesFailureLeavesTheRestToBeSentAgain() {
        StorageConfig off = StorageConfig.memory()
                .withCapacity(CapacityConfig.defaults().withMode(io.partita.storage.capacity.ThroughputMode.OFF));
        try (io.partita.storage.rocks.RocksStore store = io.partita.storage.rocks.RocksStore.open(off);
                StorageEngine e = StorageEngine.openOn(store, off)) {
            Table t = e.tables().create(provisioned("t", 100));
            java.util.concurrent.atomic.AtomicInteger entries = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger refuseEntry = new java.util.concurrent.atomic.AtomicInteger();
            store.replicateThrough(new io.partita.storage.rocks.Replication() {
                @Override
                public void replicate(byte[] entry) {
                    if (entries.get() + 1 == refuseEntry.get()) {
                        throw new io.partita.storage.StorageUnavailableException("the group did not commit");
                    }
                    store.applyEntry(entry, 1, entries.incrementAndGet());
                }

                @Override
                public long readBarrier() {
                    return 1;
                }
            });
            // Five new items of 150 KB, each 300 KB of a commit's bytes (its row and the record's image): three to a
            // commit, then two.
            Written[] written = e.writes().writeAll(puts(t, "a", 5, 150_000));
            assertThat(written).doesNotContainNull();
            assertThat(entries).hasValue(2);
            for (int i = 0; i < 5; i++) {
                assertThat(e.get(t, key("a" + i))).isNotNull();
            }
            // The second commit fails: its writes come back to be sent again; the first's are made.
            refuseEntry.set(entries.get() + 2);
            written = e.writes().writeAll(puts(t, "b", 5, 150_000));
            for (int i = 0; i < 3; i++) {
                assertThat(written[i]).as("b%d", i).isNotNull();
                assertThat(e.get(t, key("b" + i))).isNotNull();
            }
            for (int i = 3; i < 5; i++) {
                assertThat(written[i]).as("b%d", i).isNull();
                assertThat(e.get(t, key("b" + i))).isNull();
            }
            // The first commit fails: the batch fails whole.
            refuseEntry.set(entries.get() + 1);
            assertThatThrownBy(() -> e.writes().writeAll(puts(t, "c", 5, 150_000)))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThat(e.get(t, key("c0"))).isNull();
            refuseEntry.set(0);
            // The same item twice.
            java.util.List<ItemWrite> twice = new java.util.ArrayList<>(puts(t, "d", 1, 10));
            twice.addAll(puts(t, "d", 1, 20));
            int before = entries.get();
            assertThatThrownBy(() -> e.writes().writeAll(twice)).isInstanceOf(IllegalArgumentException.class);
            assertThat(entries).hasValue(before);
            store.replicateThrough(null);
        }
    }

    private static java.util.List<ItemWrite> puts(Table t, String prefix, int count, int bytes) {
        java.util.List<ItemWrite> puts = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            Map<String, AttributeValue> item = item(prefix + i, bytes);
            puts.add(ItemWrite.user(
                    t, key(prefix + i), ConditionalWrite.blind(new WriteDecision.Put(item)), ItemSize.of(item)));
        }
        return puts;
    }

    @Test
    void withThroughputOffNothingIsRefusedOrCharged() {
        StorageConfig off = StorageConfig.memory()
                .withCapacity(CapacityConfig.defaults().withMode(io.partita.storage.capacity.ThroughputMode.OFF));
        try (StorageEngine e = StorageEngine.open(off)) {
            Table t = e.tables().create(provisioned("t", 1));
            for (int i = 0; i < 500; i++) {
                assertThat(e.write(t, key("a"), ConditionalWrite.blind(new WriteDecision.Put(item("a", 2500))))
                                .throttled())
                        .isFalse();
            }
            assertThat(t.partitions().throughput().consumption().consumedWriteUnits())
                    .isZero();
        }
    }
}
