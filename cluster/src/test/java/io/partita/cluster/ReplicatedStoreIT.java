package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.storage.StorageConfig;
import io.partita.storage.StorageUnavailableException;
import io.partita.storage.rocks.RocksStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.rocksdb.ColumnFamilyHandle;

/**
 * Three replicas of a store on loopback, each a real RocksDB and a real Ratis server: what the leader commits every
 * replica applies, once, in order; a new leader takes over when the leader stops, and a replica that was down
 * catches up from the log when it comes back. Two tests run at once (junit-platform.properties): each its own nodes,
 * ports and folders, and most of their time waits on elections and timeouts.
 */
@Execution(ExecutionMode.CONCURRENT)
class ReplicatedStoreIT {
    private static final String FAMILY = RocksStore.ITEMS_PREFIX + "t";
    private static final byte[] COUNTER = "counter".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private final List<ClusterNode.Peer> peers = new ArrayList<>();
    private final Replica[] replicas = new Replica[4];
    private ClusterNode.LogRetention retention = ClusterNode.LogRetention.defaults();

    /** One node: its store and its Raft server. */
    private record Replica(ReplicaStore replica, ClusterNode node) {
        RocksStore store() {
            return replica.store();
        }

        void stop() throws IOException {
            node.close();
            replica.close();
        }
    }

    private Replica start(int i) throws IOException {
        return start(i, false);
    }

    private Replica start(int i, boolean join) throws IOException {
        ReplicaStore replica = ReplicaStore.open(StorageConfig.disk(dir.resolve("n" + i + "/data")));
        ClusterNode node = ClusterNode.start(
                "test",
                "n" + i,
                peers,
                dir.resolve("n" + i + "/raft"),
                replica,
                ClusterNode.Timings.loopback(),
                false,
                retention,
                join,
                null);
        replicas[i] = new Replica(replica, node);
        return replicas[i];
    }

    private void startAll() throws IOException {
        for (int i = 0; i < 3; i++) {
            peers.add(new ClusterNode.Peer("n" + i, "127.0.0.1", freePort()));
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
    }

    @AfterEach
    void stop() throws IOException {
        atOnce(java.util.Arrays.stream(replicas)
                .filter(java.util.Objects::nonNull)
                .map(r -> (Stop) r::stop)
                .toList());
    }

    /** A node's stop. */
    @FunctionalInterface
    interface Stop {
        void run() throws IOException;
    }

    /**
     * Runs {@code stops} at once, each on a thread of its own, and waits for them all. A node's stop waits up to a
     * second for each of its groups' log writers (Ratis's worker polls its queue by the second, and stops only when a
     * poll ends): nodes stopped in turn would add their waits up.
     */
    static void atOnce(List<Stop> stops) throws IOException {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        for (Stop s : stops) {
            Thread t = new Thread(() -> {
                try {
                    s.run();
                } catch (IOException | RuntimeException e) {
                    failed.add(e);
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while the nodes stop", e);
            }
        }
        if (!failed.isEmpty()) {
            throw new IOException("a node failed to stop", failed.get(0));
        }
    }

    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
            new java.util.concurrent.atomic.AtomicInteger(
                    java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000));

    /**
     * A port free now, below Linux's ephemeral range (32768 up), where a connection opened while a stopped node is
     * down may take the node's port (as the server module's {@code FreePorts.next}).
     */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 12_000; attempt++) {
            int port = 20_000 + Math.floorMod(NEXT_PORT.getAndIncrement(), 12_000);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (IOException taken) {
                // another, then
            }
        }
        throw new IOException("no free port from 20000 to 32000");
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** A replica leading and ready, taken when one is seen (looked for again, it may have stepped down). */
    private Replica leader() {
        java.util.concurrent.atomic.AtomicReference<Replica> found =
                new java.util.concurrent.atomic.AtomicReference<>();
        await("a leader", () -> {
            live().stream().filter(r -> r.node().isLeaderReady()).findFirst().ifPresent(found::set);
            return found.get() != null;
        });
        return found.get();
    }

    private List<Replica> live() {
        List<Replica> out = new ArrayList<>();
        for (Replica r : replicas) {
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    /** Puts item {@code i} and adds one to the counter, in one batch, through {@code r}'s store. */
    private static void write(Replica r, int i) {
        ColumnFamilyHandle items = r.store().family(FAMILY);
        ColumnFamilyHandle stats = r.store().family(RocksStore.STATS);
        r.store().write(batch -> {
            try {
                batch.put(items, key(i), ("v" + i).getBytes(StandardCharsets.UTF_8));
                batch.merge(
                        stats,
                        COUNTER,
                        ByteBuffer.allocate(8)
                                .order(ByteOrder.LITTLE_ENDIAN)
                                .putLong(1)
                                .array());
            } catch (org.rocksdb.RocksDBException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> items(RocksStore store) {
        Map<String, String> out = new TreeMap<>();
        if (!store.hasFamily(FAMILY)) {
            return out;
        }
        store.forEach(
                store.family(FAMILY),
                (k, v) -> out.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
        return out;
    }

    private static long counter(RocksStore store) {
        byte[] v = store.get(store.family(RocksStore.STATS), COUNTER);
        return v == null ? 0 : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private void awaitConverged(int items) {
        for (Replica r : live()) {
            await(r.node().id() + " holding " + items + " items", () -> {
                try {
                    return items(r.store()).size() == items && counter(r.store()) == items;
                } catch (io.partita.storage.StorageException e) {
                    // A checkpoint from the leader is replacing the store: it opens again in a moment.
                    return false;
                }
            });
        }
        Map<String, String> first = items(live().get(0).store());
        for (Replica r : live()) {
            assertThat(items(r.store())).isEqualTo(first);
            assertThat(counter(r.store())).isEqualTo(items);
        }
    }

    /**
     * Stops the leader's log appender to {@code follower}, as Ratis 3.2.2 leaves one that failed (docs/CLUSTER.md, "A
     * known gap in Ratis 3.2.2"): a fault injected into the real server through reflection, since the race that
     * fails one cannot be called up at will.
     */
    private static void stopAppender(ClusterNode leader, String follower) throws Exception {
        Object division = leader.division();
        java.lang.reflect.Method getRole = division.getClass().getDeclaredMethod("getRole");
        getRole.setAccessible(true);
        Object role = getRole.invoke(division);
        java.lang.reflect.Method getLeaderState = role.getClass().getDeclaredMethod("getLeaderState");
        getLeaderState.setAccessible(true);
        Object state = ((java.util.Optional<?>) getLeaderState.invoke(role)).orElseThrow();
        java.lang.reflect.Method getLogAppenders = state.getClass().getDeclaredMethod("getLogAppenders");
        getLogAppenders.setAccessible(true);
        org.apache.ratis.server.leader.LogAppender appender = ((java.util.stream.Stream<?>)
                        getLogAppenders.invoke(state))
                .map(org.apache.ratis.server.leader.LogAppender.class::cast)
                .filter(a -> a.getFollowerId().toString().equals(follower))
                .findFirst()
                .orElseThrow();
        appender.stopAsync().get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Starts the three replicas, and writes items 0 to {@code items} - 1 through the leader; returns the leader. */
    private Replica startWith(int items) throws IOException {
        startAll();
        Replica leader = leader();
        leader.store().createItemFamily(FAMILY);
        for (int i = 0; i < items; i++) {
            write(leader, i);
        }
        awaitConverged(items);
        return leader;
    }

    @Test
    void aLeaderWhoseAppendsToALiveFollowerStoppedStepsDownAndTheFollowerCatchesUp() throws Exception {
        Replica leader = startWith(10);
        // The starved follower is a member added after the nodes started: the watchdog asks it through a client made
        // with the first members, which learns its address from the group's configuration.
        List<ClusterNode.Peer> four = new ArrayList<>(peers);
        four.add(new ClusterNode.Peer("n3", "127.0.0.1", freePort(), "127.0.0.1:1"));
        peers.clear();
        peers.addAll(four);
        Replica starved = start(3, true);
        leader.node().changeMembers(four, java.time.Duration.ofSeconds(30));
        awaitConverged(10);
        long term = leader.node().term();
        assertThat(leader.node().isLeaderReady()).isTrue();
        stopAppender(leader.node(), starved.node().id());

        // The leader goes on with the other follower; the starved one hears nothing and, with pre-vote, cannot unseat
        // it. Within ten times the longest election timeout the watchdog sees a follower that is up but silent, and
        // the leader steps down: the next leader, of a later term, sends to every follower again.
        for (int i = 10; i < 20; i++) {
            write(leader, i);
        }
        assertThat(items(starved.store())).hasSizeLessThan(20);
        awaitConverged(20);
        assertThat(leader().node().term()).isGreaterThan(term);
    }

    @Test
    void aCompareAndSetFromAnyMemberIsDecidedAlikeOnEveryReplicaAndOnlyTheFirstOfTwoWins() throws Exception {
        startAll();
        Replica leader = leader();
        List<Replica> followers = live().stream().filter(r -> r != leader).toList();
        byte[] first = "first".getBytes(StandardCharsets.UTF_8);
        byte[] second = "second".getBytes(StandardCharsets.UTF_8);
        Duration time = Duration.ofSeconds(10);

        // From a follower: its Ratis client sends it to the leader, and the answer is its own replica's, once applied.
        assertThat(followers.get(0).node().recordIf(followers.get(0).replica(), "k", null, first, time))
                .isEqualTo(first);
        // Expecting absence again, from the other follower: the key is set, so nothing changes, and it says what is.
        assertThat(followers.get(1).node().recordIf(followers.get(1).replica(), "k", null, second, time))
                .isEqualTo(first);
        // Expecting the value there, from the leader: set; then deleted the same way.
        assertThat(leader.node().recordIf(leader.replica(), "k", first, second, time))
                .isEqualTo(second);
        assertThat(followers.get(0).node().recordIf(followers.get(0).replica(), "k", second, null, time))
                .isNull();

        // Two members racing to set the same absent key: one wins, and every replica holds its value.
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        byte[] won;
        try {
            var a = pool.submit(
                    () -> followers.get(0).node().recordIf(followers.get(0).replica(), "race", null, first, time));
            var b = pool.submit(
                    () -> followers.get(1).node().recordIf(followers.get(1).replica(), "race", null, second, time));
            won = a.get();
            assertThat(b.get()).isEqualTo(won);
            assertThat(won).isIn(first, second);
            await(
                    "every replica's record",
                    () -> live().stream()
                            .allMatch(r -> java.util.Arrays.equals(r.replica().recorded("race"), won)));
        } finally {
            pool.shutdownNow();
        }
        assertThat(leader.replica().recordedUnder("ra")).containsOnlyKeys("race");
        assertThat(leader.replica().recordedUnder("k")).isEmpty();

        // A replica restarted holds what it decided.
        Replica restarted = followers.get(1);
        int at = java.util.Arrays.asList(replicas).indexOf(restarted);
        restarted.stop();
        replicas[at] = null;
        Replica back = start(at);
        await(
                "the restarted replica's record",
                () -> java.util.Arrays.equals(back.replica().recorded("race"), won));
        assertThat(back.replica().recorded("k")).isNull();
    }

    @Test
    void everyReplicaAppliesWhatTheLeaderCommitsOnceAcrossALeadersDeathAndARestart() throws IOException {
        startAll();
        Replica leader = leader();
        leader.store().createItemFamily(FAMILY);
        for (int i = 0; i < 100; i++) {
            write(leader, i);
        }
        awaitConverged(100);

        // A follower proposes nothing: its state may be behind the leader's.
        Replica follower = live().stream().filter(r -> r != leader).findFirst().orElseThrow();
        assertThatThrownBy(() -> write(follower, 1000))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("not the cluster's leader");

        // A strongly consistent read's barrier passes on the leader, whose state holds every committed write, and is
        // refused on a follower, whose state may be behind.
        leader.store().readBarrier();
        assertThatThrownBy(() -> follower.store().readBarrier())
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("not the cluster's leader");

        // Within its lease (half the shortest election timeout after it proposed an entry the group committed) the
        // leader confirms nothing; after it, a barrier goes through the log and renews the lease.
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        leader.node().useClocks(now::get, () -> now.get() / 1_000_000);
        long lease = ClusterNode.Timings.loopback().readLease().toNanos();
        now.addAndGet(lease);
        long entries = leader.node().groupCommits()[0];
        long[] reads = leader.node().consistentReads();
        leader.store().readBarrier();
        assertThat(leader.node().groupCommits()[0]).as("a barrier's entry").isEqualTo(entries + 1);
        leader.store().readBarrier();
        now.addAndGet(lease - 1_000_000);
        leader.store().readBarrier();
        assertThat(leader.node().groupCommits()[0]).as("within the lease").isEqualTo(entries + 1);
        now.addAndGet(1_000_000);
        leader.store().readBarrier();
        assertThat(leader.node().groupCommits()[0]).as("the lease ran out").isEqualTo(entries + 2);
        // A write renews it as a barrier does (the same item again, leaving the counter as it is).
        now.addAndGet(lease);
        ColumnFamilyHandle family = leader.store().family(FAMILY);
        leader.store().write(batch -> {
            try {
                batch.put(family, key(99), "v99".getBytes(StandardCharsets.UTF_8));
            } catch (org.rocksdb.RocksDBException e) {
                throw new IllegalStateException(e);
            }
        });
        leader.store().readBarrier();
        assertThat(leader.node().groupCommits()[0]).isEqualTo(entries + 3);
        assertThat(leader.node().consistentReads()).containsExactly(reads[0] + 3, reads[1] + 2);

        // The leader stops; the other two elect one of themselves and go on.
        int dead = java.util.Arrays.asList(replicas).indexOf(leader);
        leader.stop();
        replicas[dead] = null;
        Replica next = leader();
        assertThat(next).isNotSameAs(leader);
        for (int i = 100; i < 150; i++) {
            write(next, i);
        }
        awaitConverged(150);

        // The old leader comes back on its own directories: its store replays its own log, and Ratis hands it the
        // entries after the one it last applied; none twice, or its counter would run past 150.
        start(dead);
        awaitConverged(150);
        write(leader(), 150);
        awaitConverged(151);
    }

    private StorageConfig config(Replica r) {
        return StorageConfig.disk(dir.resolve(r.node().id() + "/data"));
    }

    private static io.partita.storage.table.TableMetadata table(String name) {
        return io.partita.storage.table.TableMetadata.create(
                name,
                java.util.UUID.randomUUID().toString(),
                new io.partita.protocol.model.KeySchema(
                        new io.partita.protocol.model.KeySchema.KeyAttribute(
                                "pk", io.partita.protocol.model.ScalarType.S),
                        null),
                List.of(new io.partita.protocol.message.AttributeDefinition("pk", "S")),
                io.partita.storage.table.TableMetadata.PAY_PER_REQUEST,
                0,
                0,
                1_700_000_000_000L,
                null,
                false,
                Map.of());
    }

    private static io.partita.protocol.model.PrimaryKey pk(String pk) {
        return new io.partita.protocol.model.PrimaryKey(new io.partita.protocol.model.AttributeValue.S(pk), null);
    }

    private static Map<String, io.partita.protocol.model.AttributeValue> item(String pk, String value) {
        return Map.of(
                "pk", new io.partita.protocol.model.AttributeValue.S(pk),
                "v", new io.partita.protocol.model.AttributeValue.S(value));
    }

    private static void awaitApplied(Replica follower, Replica leader) {
        long applied = leader.node().lastAppliedIndex();
        await(
                follower.node().id() + " applying up to " + applied,
                () -> follower.node().lastAppliedIndex() >= applied);
    }

    @Test
    void aFollowersReaderReadsWhatItsReplicaAppliedChangesNothingAndIsToldOfNewTables() throws IOException {
        startAll();
        Replica leader = leader();
        Replica follower = live().stream().filter(r -> r != leader).findFirst().orElseThrow();
        try (io.partita.storage.StorageEngine engine =
                io.partita.storage.StorageEngine.openOn(leader.store(), config(leader))) {
            var orders = engine.tables().create(table("orders"));
            engine.write(orders, pk("a"), old -> new io.partita.storage.item.WriteDecision.Put(item("a", "1")));
            awaitApplied(follower, leader);
            // The table's family and its metadata and partition map were catalog changes; the item was not.
            long changes = follower.store().catalogChanges();
            assertThat(changes).isEqualTo(3);
            // It opens on a follower, whose Raft server refuses any change: loading its tables writes nothing.
            try (io.partita.storage.StorageEngine reader =
                    io.partita.storage.StorageEngine.openReader(follower.store(), config(follower))) {
                assertThat(reader.reader()).isTrue();
                var seen = reader.tables().find("orders");
                assertThat(reader.get(seen, pk("a"))).isEqualTo(item("a", "1"));
                // An item the replica changes underneath is read as it is now: the reader caches nothing.
                engine.write(orders, pk("a"), old -> new io.partita.storage.item.WriteDecision.Put(item("a", "2")));
                awaitApplied(follower, leader);
                assertThat(reader.get(seen, pk("a"))).isEqualTo(item("a", "2"));
                assertThat(follower.store().catalogChanges()).isEqualTo(changes);
                // A write through it reaches the follower's Raft server, which refuses it: nothing happened.
                assertThatThrownBy(() -> reader.write(
                                seen, pk("b"), old -> new io.partita.storage.item.WriteDecision.Put(item("b", "1"))))
                        .isInstanceOf(StorageUnavailableException.class)
                        .hasMessageContaining("not the cluster's leader");
                // A table made after it opened: the store counts the change, and the reader does not know it.
                engine.tables().create(table("more"));
                awaitApplied(follower, leader);
                assertThat(follower.store().catalogChanges()).isGreaterThan(changes);
                assertThat(reader.tables().find("more")).isNull();
            }
            // A backup the leader is making (its family made, its record not yet written) is not the tables' change,
            // and a reader opening meanwhile leaves it alone: dropping it would be a write, refused on a follower.
            long beforeBackup = follower.store().catalogChanges();
            leader.store().createItemFamily(RocksStore.BACKUP_PREFIX + "in-progress");
            awaitApplied(follower, leader);
            assertThat(follower.store().catalogChanges()).isEqualTo(beforeBackup);
            try (io.partita.storage.StorageEngine reader =
                    io.partita.storage.StorageEngine.openReader(follower.store(), config(follower))) {
                assertThat(follower.store().hasFamily(RocksStore.BACKUP_PREFIX + "in-progress"))
                        .isTrue();
                assertThat(reader.tables().find("more")).isNotNull();
                assertThat(reader.get(reader.tables().find("orders"), pk("a"))).isEqualTo(item("a", "2"));
            }
        }
    }

    /**
     * A follower's reader of a table cut by ranges (a range move, docs/CLUSTER.md): once the leader's log narrowed the
     * range and deleted the items it gave up, a reader still on the catalog it loaded before finds them absent, and
     * refuses that answer (503) rather than give it, as it does once the catalog moved at all.
     */
    @Test
    void aFollowersReaderOfARangeRefusesWhatItReadOnceTheRangeChanged() throws IOException {
        startAll();
        Replica leader = leader();
        Replica follower = live().stream().filter(r -> r != leader).findFirst().orElseThrow();
        try (io.partita.storage.StorageEngine engine =
                io.partita.storage.StorageEngine.openOn(leader.store(), config(leader))) {
            var ranged = engine.tables()
                    .create(table("ranged").withHashRange(new io.partita.storage.table.HashRange(0, -1L)));
            engine.write(ranged, pk("a"), old -> new io.partita.storage.item.WriteDecision.Put(item("a", "1")));
            awaitApplied(follower, leader);
            long hash = io.partita.storage.key.ItemKeyEncoder.partitionHash(pk("a").partition());
            try (io.partita.storage.StorageEngine reader =
                    io.partita.storage.StorageEngine.openReader(follower.store(), config(follower))) {
                var seen = reader.tables().find("ranged");
                assertThat(reader.get(seen, pk("a"))).isEqualTo(item("a", "1"));
                reader.requireServedAfterRead(seen, hash); // as loaded: served
                // The move gives up the half that holds "a", then deletes it there.
                io.partita.storage.table.HashRange keep = Long.compareUnsigned(hash, Long.MIN_VALUE) < 0
                        ? new io.partita.storage.table.HashRange(Long.MIN_VALUE, -1L)
                        : new io.partita.storage.table.HashRange(0, Long.MAX_VALUE);
                engine.tables().changeRange("ranged", h -> keep);
                engine.writes()
                        .writeAll(List.of(io.partita.storage.write.ItemWrite.move(
                                ranged,
                                pk("a"),
                                io.partita.storage.item.ConditionalWrite.blind(
                                        new io.partita.storage.item.WriteDecision.Delete()))));
                awaitApplied(follower, leader);
                assertThat(seen.metadata().hashRange())
                        .as("the reader's catalog, as loaded")
                        .isNotEqualTo(keep);
                assertThat(reader.get(seen, pk("a")))
                        .as("what a stale reader would answer")
                        .isNull();
                assertThatThrownBy(() -> reader.requireServedAfterRead(seen, hash))
                        .isInstanceOfSatisfying(
                                io.partita.protocol.error.ApiException.class,
                                e -> assertThat(e.code())
                                        .isEqualTo(io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE))
                        .hasMessageContaining("changed while it read");
            }
        }
    }

    @Test
    void aReplicaBehindThePurgedLogInstallsTheLeadersCheckpointAndGoesOnFromIt() throws IOException {
        // A checkpoint every 50 entries, the log kept for 50 more, in segments of a few dozen entries: a replica down
        // for 400 writes needs entries no log holds any more.
        retention = new ClusterNode.LogRetention(50, 4096);
        startAll();
        Replica leader = leader();
        leader.store().createItemFamily(FAMILY);
        for (int i = 0; i < 20; i++) {
            write(leader, i);
        }
        awaitConverged(20);

        Replica behind = live().stream().filter(r -> r != leader).findFirst().orElseThrow();
        int down = java.util.Arrays.asList(replicas).indexOf(behind);
        long appliedWhenStopped = behind.node().lastAppliedIndex();
        behind.stop();
        replicas[down] = null;
        for (int i = 20; i < 420; i++) {
            write(leader, i);
        }
        awaitConverged(420);
        // Every live replica took checkpoints, and the leader's log no longer holds what the stopped one lacks.
        for (Replica r : live()) {
            await(r.node().id() + " taking a checkpoint", () -> r.node().snapshotIndex() > appliedWhenStopped + 50);
        }
        await("the leader purging its log", () -> leader.node().logStartIndex() > appliedWhenStopped + 1);

        // Back, it is sent the leader's checkpoint: its store becomes a copy of it, each counter merge counted once
        // (the checkpoint holds the sum; no entry before it is applied again), and it applies the log after it.
        start(down);
        awaitConverged(420);
        Replica installed = replicas[down];
        assertThat(installed.node().snapshotIndex()).isGreaterThan(appliedWhenStopped);
        write(leader(), 420);
        awaitConverged(421);

        // The installed store is this replica's own from then on: it restarts on it and catches up from the log.
        installed.stop();
        replicas[down] = null;
        write(leader(), 421);
        start(down);
        awaitConverged(422);

        // And it can lead: the leader stops and comes back until the group elects this replica, every write still
        // there. (Each election picks one of the two others; eight tries miss it once in 256.)
        for (int tries = 0;
                tries < 8 && !leader().node().id().equals(installed.node().id());
                tries++) {
            Replica old = leader();
            int at = java.util.Arrays.asList(replicas).indexOf(old);
            old.stop();
            replicas[at] = null;
            leader();
            start(at);
        }
        assertThat(leader().node().id()).isEqualTo(installed.node().id());
        Replica now = leader();
        write(now, 422);
        awaitConverged(423);
    }

    @Test
    void concurrentWritesGoTogetherInFewerEntriesAndAWriteIntoADroppedFamilyStopsNoReplica() throws Exception {
        startAll();
        Replica leader = leader();
        leader.store().createItemFamily(FAMILY);
        String goneName = RocksStore.ITEMS_PREFIX + "gone";
        ColumnFamilyHandle gone = leader.store().createItemFamily(goneName);
        // A write that took the family before DeleteTable dropped it commits after the drop: every replica applies it
        // without the dropped family's part, and goes on.
        leader.store().dropFamily(goneName);
        leader.store().write(batch -> {
            try {
                batch.put(gone, key(0), new byte[] {1});
            } catch (org.rocksdb.RocksDBException e) {
                throw new IllegalStateException(e);
            }
        });
        write(leader, 0);
        awaitConverged(1);

        // Sixteen writers at once: the batches that arrive while an entry is in flight go together as the next one,
        // each applied once (the counter's merges would show a double), in far fewer entries than writes.
        long before = leader.node().lastAppliedIndex();
        java.util.concurrent.ExecutorService writers = java.util.concurrent.Executors.newFixedThreadPool(16);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int first = 1 + t * 25;
                done.add(writers.submit(() -> {
                    for (int i = first; i < first + 25; i++) {
                        write(leader, i);
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            writers.shutdown();
        }
        awaitConverged(401);
        assertThat(leader.node().lastAppliedIndex() - before).isLessThan(400);
    }

    private static List<String> ids(List<ClusterNode.Peer> peers) {
        return peers.stream().map(ClusterNode.Peer::id).toList();
    }

    @Test
    void aNodeJoinsARunningGroupAndCatchesUpThenTheLeaderLeavesItAndTheRestGoOn() throws IOException {
        // A short log, so that the joining node is sent the leader's checkpoint rather than the whole log.
        retention = new ClusterNode.LogRetention(50, 4096);
        startAll();
        Replica first = leader();
        first.store().createItemFamily(FAMILY);
        for (int i = 0; i < 200; i++) {
            write(first, i);
        }
        awaitConverged(200);
        Replica follower = live().stream().filter(r -> r != first).findFirst().orElseThrow();
        List<ClusterNode.Peer> four = new ArrayList<>(peers);
        four.add(new ClusterNode.Peer("n3", "127.0.0.1", freePort(), "127.0.0.1:1"));
        // A joining node has no configuration of its own: it does not campaign, and it holds nothing yet.
        peers.clear();
        peers.addAll(four);
        Replica joining = start(3, true);
        assertThat(joining.node().members()).isEmpty();
        assertThat(items(joining.store())).isEmpty();

        // A follower makes the change: its Ratis client finds the leader, which makes it.
        follower.node().changeMembers(four, java.time.Duration.ofSeconds(30));
        for (Replica r : live()) {
            await(
                    r.node().id() + " knowing four members",
                    () -> ids(r.node().members()).equals(List.of("n0", "n1", "n2", "n3")));
        }
        assertThat(joining.node().members().get(3).api()).isEqualTo("127.0.0.1:1");
        awaitConverged(200);
        for (int i = 200; i < 250; i++) {
            write(first, i);
        }
        awaitConverged(250);

        // The leader removes itself: it steps down once the group without it has committed the change, and the
        // three others elect a leader among them and go on with every write.
        List<ClusterNode.Peer> rest =
                four.stream().filter(p -> !p.id().equals(first.node().id())).toList();
        first.node().changeMembers(rest, java.time.Duration.ofSeconds(30));
        int gone = Integer.parseInt(first.node().id().substring(1));
        replicas[gone] = null;
        first.stop();
        Replica next = leader();
        assertThat(ids(next.node().members())).isEqualTo(ids(rest));
        for (int i = 250; i < 300; i++) {
            write(next, i);
        }
        awaitConverged(300);

        // The node that joined restarts on its storage with the configuration it last had, not an empty one.
        replicas[3].stop();
        replicas[3] = null;
        Replica back = start(3, true);
        await("n3 knowing three members", () -> ids(back.node().members()).equals(ids(rest)));
        write(leader(), 300);
        awaitConverged(301);
    }

    /**
     * The checkpoints in node {@code i}'s Raft storage, of every group: the directories {@code
     * checkpoint-<term>-<index>} of the groups' state-machine folders.
     */
    private List<Path> checkpoints(int i) throws IOException {
        try (var walk = java.nio.file.Files.walk(dir.resolve("n" + i + "/raft"))) {
            return walk.filter(p -> java.nio.file.Files.isDirectory(p)
                            && p.getFileName().toString().startsWith("checkpoint-"))
                    .toList();
        }
    }

    /**
     * Stops every replica and starts it again on its storage with the checkpoints a SIGKILL would have left. A clean
     * stop takes a checkpoint of the store at its last entry (Ratis's {@code StateMachineUpdater}); a killed process
     * takes none, so its store has applied entries past its newest checkpoint, or has none at all. (The rest of a clean
     * stop stays: the store closed, the log's segment closed. {@code ClusterKillIT} kills real processes.)
     */
    private void restartAsKilled() throws IOException {
        List<Integer> running = new ArrayList<>();
        for (int i = 0; i < replicas.length; i++) {
            if (replicas[i] == null) {
                continue;
            }
            running.add(i);
            List<Path> before = checkpoints(i);
            replicas[i].stop();
            replicas[i] = null;
            for (Path taken : checkpoints(i)) {
                if (!before.contains(taken)) {
                    try (var walk = java.nio.file.Files.walk(taken)) {
                        for (Path p :
                                walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            java.nio.file.Files.delete(p);
                        }
                    }
                }
            }
        }
        for (int i : running) {
            start(i, i >= 3);
        }
    }

    @Test
    void replicasKilledPastTheirNewestCheckpointRestartApplyingNoEntryTwiceAndANewMemberIsSentTheirState()
            throws IOException {
        // No checkpoint yet (one every 100,000 entries): killed and restarted, the leader's latest snapshot is its
        // store. A member added then is sent a checkpoint of it first, as Ratis sends any new member (before, Ratis
        // was handed a snapshot with no files, failed to send it, and tried again without end: the change never came).
        startWith(20);
        restartAsKilled();
        write(leader(), 20);
        awaitConverged(21);
        List<ClusterNode.Peer> four = new ArrayList<>(peers);
        four.add(new ClusterNode.Peer("n3", "127.0.0.1", freePort()));
        peers.clear();
        peers.addAll(four);
        start(3, true);
        leader().node().changeMembers(four, java.time.Duration.ofSeconds(20));
        awaitConverged(21);

        // A checkpoint every 50 entries: killed past its newest, a replica starts applying after its store's last
        // entry, not after the checkpoint's (before, Ratis applied the entries between again, a counter's merges
        // twice, and stopped the group on the replica at the first entry it had applied already).
        retention = new ClusterNode.LogRetention(50, 4096);
        restartAsKilled();
        long restartedAt = leader().node().lastAppliedIndex();
        int items = 21;
        for (; items < 130; items++) {
            write(leader(), items);
        }
        awaitConverged(items);
        // Each replica took a checkpoint since its start, and applied entries after its newest: killed there.
        while (live().stream()
                .anyMatch(r -> r.node().snapshotIndex() == r.node().lastAppliedIndex())) {
            write(leader(), items++);
            awaitConverged(items);
        }
        for (Replica r : live()) {
            assertThat(r.node().snapshotIndex())
                    .as(r.node().id() + "'s newest checkpoint")
                    .isGreaterThan(restartedAt)
                    .isLessThan(r.node().lastAppliedIndex());
        }
        restartAsKilled();
        write(leader(), items);
        awaitConverged(items + 1);
    }

    @Test
    void aLeaderAwayWhileTheNextPurgedTheLogBeforeItsTermCatchesUpFromTheCheckpoint() throws IOException {
        // A checkpoint every 50 entries, in segments of 1 MB: only a new term (or a restart) begins a segment here.
        retention = new ClusterNode.LogRetention(50, 1 << 20);
        Replica first = startWith(20);
        int away = java.util.Arrays.asList(replicas).indexOf(first);
        long last = first.node().lastAppliedIndex();
        first.stop();
        replicas[away] = null;

        // The next leader's term begins a segment just after the stopped leader's last entry; its checkpoints purge
        // every segment before it, so its log begins with the entry the stopped leader needs next. Ratis 3.2.2 sends
        // such a follower neither that entry's predecessor nor the checkpoint (PartitaRpc.PartitaLogAppender).
        for (int i = 20; i < 200; i++) {
            write(leader(), i);
        }
        awaitConverged(200);
        Replica next = leader();
        await("the leader purging the log before its term", () -> next.node().logStartIndex() > last);
        assertThat(next.node().logStartIndex())
                .as("the first entry of the leader's log: the stopped leader's next")
                .isEqualTo(last + 1);
        start(away);
        awaitConverged(200);
        write(leader(), 200);
        awaitConverged(201);
    }

    /** One node of several groups: its server, and its replica of each group's store. */
    private record Node(ClusterNode.Host host, List<ReplicaStore> stores) {
        void stop() throws IOException {
            host.close();
            stores.forEach(ReplicaStore::close);
        }
    }

    private Node startGroups(int i, int groups) throws IOException {
        List<ClusterNode.Group> given = new ArrayList<>();
        List<ReplicaStore> stores = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            ReplicaStore store = ReplicaStore.open(StorageConfig.disk(dir.resolve("n" + i + "/data-" + g)));
            stores.add(store);
            given.add(new ClusterNode.Group(ClusterNode.groupId("test", "g" + g), store));
        }
        try {
            return new Node(
                    ClusterNode.startGroups(
                            "n" + i,
                            peers,
                            dir.resolve("n" + i + "/raft"),
                            given,
                            ClusterNode.Timings.loopback(),
                            false,
                            retention,
                            false,
                            null),
                    stores);
        } catch (IOException | RuntimeException e) {
            stores.forEach(ReplicaStore::close);
            throw e;
        }
    }

    /** The node that leads group {@code g} and may serve it, once one does. */
    private static int leaderOf(Node[] nodes, int g) {
        await(
                "a leader of group " + g,
                () -> java.util.Arrays.stream(nodes)
                        .anyMatch(n -> n != null && n.host().groups().get(g).canServe()));
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null && nodes[i].host().groups().get(g).canServe()) {
                return i;
            }
        }
        throw new AssertionError("no leader of group " + g);
    }

    private static void awaitGroup(Node[] nodes, int g, int items) {
        for (Node n : nodes) {
            if (n == null) {
                continue;
            }
            RocksStore store = n.stores().get(g).store();
            await("group " + g + " holding " + items + " items", () -> {
                return items(store).size() == items && counter(store) == items;
            });
        }
    }

    @Test
    void threeGroupsOnOneServerEachReplicateTheirOwnStoreLedByTheirOwnPreferredMember() throws IOException {
        for (int i = 0; i < 3; i++) {
            peers.add(new ClusterNode.Peer("n" + i, "127.0.0.1", freePort()));
        }
        Node[] nodes = new Node[3];
        try {
            for (int i = 0; i < 3; i++) {
                nodes[i] = startGroups(i, 3);
            }
            // Group g prefers member g: once every member is up to date, each group's leader is its own node.
            for (int g = 0; g < 3; g++) {
                int want = g;
                await(
                        "group " + g + " led by n" + g,
                        () -> nodes[want].host().groups().get(want).canServe());
                nodes[g].stores().get(g).store().createItemFamily(FAMILY);
            }
            for (int g = 0; g < 3; g++) {
                for (int i = 0; i < 20 * (g + 1); i++) {
                    write(
                            new Replica(
                                    nodes[g].stores().get(g),
                                    nodes[g].host().groups().get(g)),
                            i);
                }
            }
            for (int g = 0; g < 3; g++) {
                awaitGroup(nodes, g, 20 * (g + 1));
            }
            // A node leads group 0 only: it proposes nothing to another group.
            Replica notLeader = new Replica(
                    nodes[0].stores().get(1), nodes[0].host().groups().get(1));
            assertThatThrownBy(() -> write(notLeader, 999))
                    .isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("not the cluster's leader");

            // Node 1 stops: group 1 elects another leader and goes on; the other groups go on as they were.
            nodes[1].stop();
            nodes[1] = null;
            int next = leaderOf(nodes, 1);
            write(
                    new Replica(
                            nodes[next].stores().get(1),
                            nodes[next].host().groups().get(1)),
                    40);
            awaitGroup(nodes, 1, 41);
            int lead2 = leaderOf(nodes, 2);
            write(
                    new Replica(
                            nodes[lead2].stores().get(2),
                            nodes[lead2].host().groups().get(2)),
                    60);
            awaitGroup(nodes, 2, 61);

            // It restarts: Ratis recovers every group it finds in its storage, and it catches up on each; group 1
            // hands it the leadership back.
            nodes[1] = startGroups(1, 3);
            awaitGroup(nodes, 0, 20);
            awaitGroup(nodes, 1, 41);
            awaitGroup(nodes, 2, 61);
            await(
                    "group 1 led by n1 again",
                    () -> nodes[1].host().groups().get(1).canServe());

            // A node whose storage holds a group it is not given refuses to start, rather than start that group with
            // no store to apply its entries to.
            nodes[2].stop();
            nodes[2] = null;
            assertThatThrownBy(() -> startGroups(2, 2))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is a group this node no longer has");
        } finally {
            atOnce(java.util.Arrays.stream(nodes)
                    .filter(java.util.Objects::nonNull)
                    .map(n -> (Stop) n::stop)
                    .toList());
        }
    }

    @Test
    void aGroupMadeOnANodeThatStoppedBeforeItsFirstLeaderStillKnowsItsMembers() throws IOException {
        for (int i = 0; i < 3; i++) {
            peers.add(new ClusterNode.Peer("n" + i, "127.0.0.1", freePort()));
        }
        Node[] nodes = new Node[3];
        try {
            // Alone, n0 makes both groups and no leader: its second group's log never names the members. It stops.
            nodes[0] = startGroups(0, 2);
            nodes[0].stop();
            nodes[0] = null;
            // Back, with n1 beside it and n2 never started: each group must elect a leader with n0 and n1 alone, so
            // n0's recovered second group must know its members and vote.
            nodes[0] = startGroups(0, 2);
            nodes[1] = startGroups(1, 2);
            for (int g = 0; g < 2; g++) {
                int leader = leaderOf(nodes, g);
                RocksStore store = nodes[leader].stores().get(g).store();
                store.createItemFamily(FAMILY);
                write(
                        new Replica(
                                nodes[leader].stores().get(g),
                                nodes[leader].host().groups().get(g)),
                        1);
                awaitGroup(nodes, g, 1);
            }
            assertThat(nodes[0].host().groups().get(1).members()).hasSize(3);
        } finally {
            atOnce(java.util.Arrays.stream(nodes)
                    .filter(java.util.Objects::nonNull)
                    .map(n -> (Stop) n::stop)
                    .toList());
        }
    }

    @Test
    void aLeaderMadeToPreferAnotherMemberHandsItTheLeadership() throws IOException {
        startAll();
        Replica leader = leader();
        leader.store().createItemFamily(FAMILY);
        write(leader, 0);
        // One group prefers none; told to prefer another member, the leader hands it its part once it is up to date.
        Replica other = live().stream().filter(r -> r != leader).findFirst().orElseThrow();
        assertThat(leader.node().priorities())
                .containsOnlyKeys("n0", "n1", "n2")
                .doesNotContainValue(1);
        leader.store().readBarrier();
        long leased = leader.node().consistentReads()[0];
        leader.node().prefer(other.node().id(), java.time.Duration.ofSeconds(10));
        // From then on the leader answers no read from its lease: Ratis may hand the leadership over at any moment,
        // without waiting for a timeout. A read either passes a barrier or is refused once the leader has stepped down.
        try {
            leader.store().readBarrier();
        } catch (StorageUnavailableException e) {
            assertThat(e).hasMessageContaining("lead");
        }
        assertThat(leader.node().consistentReads()[0]).isEqualTo(leased);
        await("the preferred member leading", () -> other.node().canServe());
        assertThat(other.node().priorities())
                .containsEntry(other.node().id(), 1)
                .containsEntry(leader.node().id(), 0);
        // The preferred member's own term holds a lease (on a clock of the test's, which stands still here): the
        // configurations it applied preferred another in the old leader's term only.
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        other.node().useClocks(now::get, () -> now.get() / 1_000_000);
        write(other, 1);
        long[] reads = other.node().consistentReads();
        other.store().readBarrier();
        assertThat(other.node().consistentReads()).containsExactly(reads[0] + 1, reads[1]);
        awaitConverged(2);
        // A follower changes no configuration.
        assertThatThrownBy(() -> leader.node().prefer(leader.node().id(), java.time.Duration.ofSeconds(1)))
                .isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void aLeaderWhoseHandOverNeverEndsStepsDownAndWritesGoOn() throws Exception {
        Replica stuck = startWith(1);
        long term = stuck.node().term();
        Replica other = live().stream().filter(r -> r != stuck).findFirst().orElseThrow();
        neverEndingHandOver(stuck.node(), other.node().id());
        // Refused before it reached the log: known not written, so a client may be told to send it again (a 503).
        assertThatThrownBy(() -> write(stuck, 1))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.mayHaveBeenWritten()).isFalse())
                .hasMessageContaining("stepping down");
        // Every proposal refused for five election timeouts on end (no write meanwhile: the watchdog's own empty
        // entries, one a second), the leader steps down; whoever is elected then (Ratis ends a transfer on any
        // election) takes writes again.
        await(
                "a leader of a later term",
                () -> live().stream()
                        .anyMatch(r -> r.node().isLeaderReady() && r.node().term() > term));
        for (int i = 1; i <= 5; i++) {
            int item = i;
            await(
                    "write " + i + " taken",
                    () -> live().stream().filter(r -> r.node().isLeaderReady()).anyMatch(r -> {
                        try {
                            write(r, item);
                            return true;
                        } catch (StorageUnavailableException e) {
                            return false;
                        }
                    }));
        }
        awaitConverged(6);
    }

    /**
     * Puts a transfer of {@code leader}'s leadership to {@code member} in Ratis's place for one, with no timeout to end
     * it: a fault injected into the real server through reflection (as {@link #stopAppender}), as one that never
     * ended was once seen and could not be called up at will (docs/CLUSTER.md, "A leader left handing over").
     */
    private static void neverEndingHandOver(ClusterNode leader, String member) throws Exception {
        Object division = leader.division();
        java.lang.reflect.Field field = division.getClass().getDeclaredField("transferLeadership");
        field.setAccessible(true);
        Object transfer = field.get(division);
        Class<?> pendingType = Class.forName(transfer.getClass().getName() + "$PendingRequest");
        var make = pendingType.getDeclaredConstructor(
                transfer.getClass(), org.apache.ratis.protocol.TransferLeadershipRequest.class);
        make.setAccessible(true);
        var request = new org.apache.ratis.protocol.TransferLeadershipRequest(
                org.apache.ratis.protocol.ClientId.randomId(),
                org.apache.ratis.protocol.RaftPeerId.valueOf(leader.id()),
                leader.division().getGroup().getGroupId(),
                1,
                org.apache.ratis.protocol.RaftPeerId.valueOf(member),
                0);
        java.lang.reflect.Field pending = transfer.getClass().getDeclaredField("pending");
        pending.setAccessible(true);
        @SuppressWarnings("unchecked")
        var slot = (java.util.concurrent.atomic.AtomicReference<Object>) pending.get(transfer);
        slot.set(make.newInstance(transfer, request));
    }

    /** Opens node {@code i}'s replica of group {@code id}, once, in {@code stores}. */
    private ReplicaStore storeOf(Map<String, ReplicaStore> stores, int i, java.util.UUID id) {
        return stores.computeIfAbsent("n" + i + "/" + id, k -> {
            try {
                return ReplicaStore.open(StorageConfig.disk(dir.resolve("n" + i + "/data-" + id)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** The groups taken off nodes by other members, as "n<i>/<group>", as their adoptions were told. */
    private final java.util.Set<String> takenOff = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Starts node {@code i} with the groups {@code placed} puts on it (each with its members, preferred first); it takes
     * the groups other members add to it, each in a replica of its own.
     */
    private ClusterNode.Host startPlaced(
            int i, Map<java.util.UUID, List<String>> placed, Map<String, ReplicaStore> stores) throws IOException {
        List<ClusterNode.Group> given = new ArrayList<>();
        placed.forEach((id, members) -> {
            if (members.contains("n" + i)) {
                given.add(new ClusterNode.Group(id, storeOf(stores, i, id), members));
            }
        });
        return ClusterNode.startGroups(
                "n" + i,
                peers,
                dir.resolve("n" + i + "/raft"),
                given,
                ClusterNode.Timings.loopback(),
                false,
                retention,
                false,
                null,
                new ClusterNode.Adoption() {
                    @Override
                    public ReplicaStore adopt(java.util.UUID id) {
                        return storeOf(stores, i, id);
                    }

                    @Override
                    public void removed(java.util.UUID id, ReplicaStore replica) {
                        stores.remove("n" + i + "/" + id);
                        replica.close();
                        takenOff.add("n" + i + "/" + id);
                    }
                });
    }

    private static ClusterNode groupOn(ClusterNode.Host host, java.util.UUID id) {
        return host == null
                ? null
                : host.groups().stream()
                        .filter(g -> g.groupId().equals(id))
                        .findFirst()
                        .orElse(null);
    }

    /** The node that leads group {@code id} and may serve it, once one does. */
    private static int leaderOf(ClusterNode.Host[] hosts, java.util.UUID id) {
        // The index is taken when a leader is seen: looked for again, it may have handed the leadership on already.
        int[] found = {-1};
        await("a leader of group " + id, () -> {
            for (int i = 0; i < hosts.length; i++) {
                ClusterNode g = groupOn(hosts[i], id);
                if (g != null && g.canServe()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /**
     * Writes item {@code item} through group {@code id}'s leader; again through the next when the one found had just
     * handed the leadership on, or was handing it on (a preferred member back up to date), which refuses the write
     * before it appends it: nothing was applied.
     */
    private void writeTo(ClusterNode.Host[] hosts, Map<String, ReplicaStore> stores, java.util.UUID id, int item) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            int leader = leaderOf(hosts, id);
            try {
                write(new Replica(storeOf(stores, leader, id), groupOn(hosts[leader], id)), item);
                return;
            } catch (StorageUnavailableException e) {
                boolean handedOn = e.getCause() instanceof org.apache.ratis.protocol.exceptions.NotLeaderException
                        || e.getCause() instanceof org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
                if (!handedOn || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private void awaitOn(Map<String, ReplicaStore> stores, java.util.UUID id, List<Integer> nodes, int items) {
        for (int i : nodes) {
            RocksStore store = storeOf(stores, i, id).store();
            await("n" + i + " holding " + items + " items of group " + id, () -> {
                try {
                    return items(store).size() == items && counter(store) == items;
                } catch (io.partita.storage.StorageException e) {
                    return false; // a checkpoint from the leader is replacing the store
                }
            });
        }
    }

    private List<ClusterNode.Peer> peersNamed(List<String> ids) {
        return ids.stream()
                .map(id -> peers.stream()
                        .filter(p -> p.id().equals(id))
                        .findFirst()
                        .orElseThrow())
                .toList();
    }

    @Test
    void aGroupIsAddedToRunningNodesAndAnotherMovesOntoANodeThatKeepsItAcrossARestart() throws Exception {
        for (int i = 0; i < 4; i++) {
            peers.add(new ClusterNode.Peer("n" + i, "127.0.0.1", freePort()));
        }
        java.util.UUID moved = ClusterNode.groupId("test", "moved");
        java.util.UUID added = ClusterNode.groupId("test", "added");
        List<String> before = List.of("n0", "n1", "n2");
        List<String> after = List.of("n1", "n2", "n3");
        Map<String, ReplicaStore> stores = new java.util.concurrent.ConcurrentHashMap<>();
        ClusterNode.Host[] hosts = new ClusterNode.Host[4];
        try {
            // One group on n0..n2, preferring n0; n3 starts with no group.
            for (int i = 0; i < 4; i++) {
                hosts[i] = startPlaced(i, Map.of(moved, before), stores);
            }
            assertThat(hosts[3].groups()).isEmpty();
            await("n0 leading", () -> groupOn(hosts[0], moved).canServe());
            storeOf(stores, 0, moved).store().createItemFamily(FAMILY);
            for (int i = 0; i < 30; i++) {
                writeTo(hosts, stores, moved, i);
            }
            awaitOn(stores, moved, List.of(0, 1, 2), 30);

            // A new group is made on n1..n3 while they run: its first member leads it, and it replicates.
            for (int i = 1; i < 4; i++) {
                hosts[i].addGroup(added, storeOf(stores, i, added), peersNamed(after), false);
            }
            await("n1 leading the added group", () -> groupOn(hosts[1], added).canServe());
            storeOf(stores, 1, added).store().createItemFamily(FAMILY);
            for (int i = 0; i < 20; i++) {
                writeTo(hosts, stores, added, i);
            }
            awaitOn(stores, added, List.of(1, 2, 3), 20);
            assertThat(groupOn(hosts[0], added)).isNull();
            int onOne = hosts[1].groups().size();
            assertThatThrownBy(() -> hosts[1].addGroup(added, storeOf(stores, 1, added), peersNamed(after), false))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("already");
            assertThat(hosts[1].groups()).hasSize(onOne);

            // The first group moves from n0..n2 to n1..n3: n3 joins it (no members until the leader's change reaches
            // it), the leader n0 changes the members and steps down, and n0 takes the group off: its Raft storage goes.
            hosts[3].addGroup(moved, storeOf(stores, 3, moved), List.of(), true);
            assertThat(groupOn(hosts[3], moved).members()).isEmpty();
            groupOn(hosts[0], moved).changeMembers(peersNamed(after), java.time.Duration.ofSeconds(30));
            // A member that stays leads it: n0, not among the members, closes its part a moment after the change
            // commits (canServe may still hold, or be false a moment while it applies the change, before).
            java.util.function.IntSupplier staying = () -> {
                for (int i = 1; i < 4; i++) {
                    ClusterNode g = groupOn(hosts[i], moved);
                    if (g != null && g.canServe()) {
                        return i;
                    }
                }
                return 0;
            };
            await("a member that stays leading", () -> staying.getAsInt() != 0);
            int next = staying.getAsInt();
            assertThat(next).isNotZero();
            hosts[0].removeGroup(moved);
            stores.remove("n0/" + moved).close();
            assertThat(groupOn(hosts[0], moved)).isNull();
            assertThat(dir.resolve("n0/raft/" + moved)).doesNotExist();
            assertThatThrownBy(() -> hosts[0].removeGroup(moved))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not on node n0");
            groupOn(hosts[next], moved).prefer("n1", java.time.Duration.ofSeconds(30));
            await("n1 leading the moved group", () -> groupOn(hosts[1], moved).canServe());
            for (int i = 30; i < 50; i++) {
                writeTo(hosts, stores, moved, i);
            }
            awaitOn(stores, moved, List.of(1, 2, 3), 50);
            assertThat(ids(groupOn(hosts[3], moved).members())).isEqualTo(after);

            // n0, no longer on the group, finds its leader from the members it was on: the leader's configuration
            // gives it the members now, and it finds the next leader among them once n1 stops.
            GroupLocator locator = hosts[0].locate(moved, before);
            await("n0 locating n1", () -> "n1".equals(locator.leader()));
            await("n0 asking the members now", () -> locator.members().equals(after));
            hosts[1].close();
            hosts[1] = null;
            stores.remove("n1/" + moved).close();
            stores.remove("n1/" + added).close();
            int third = leaderOf(hosts, moved);
            await("n0 locating the next leader", () -> ("n" + third).equals(locator.leader()));
            java.util.Map<java.util.UUID, List<String>> now = new java.util.LinkedHashMap<>();
            now.put(moved, after);
            now.put(added, after);
            hosts[1] = startPlaced(1, now, stores);

            // n3 restarts given both groups with their members now: it recovers them and goes on with each. n0
            // restarts with none: nothing of the group is left in its storage to refuse.
            hosts[3].close();
            hosts[3] = null;
            stores.remove("n3/" + moved).close();
            stores.remove("n3/" + added).close();
            hosts[3] = startPlaced(3, now, stores);
            hosts[0].close();
            hosts[0] = null;
            hosts[0] = startPlaced(0, now, stores);
            assertThat(hosts[0].groups()).isEmpty();
            writeTo(hosts, stores, moved, 50);
            writeTo(hosts, stores, added, 20);
            awaitOn(stores, moved, List.of(1, 2, 3), 51);
            awaitOn(stores, added, List.of(1, 2, 3), 21);

            // The added group moves from n1..n3 to n0..n2, driven by its leader alone: it adds the group to n0
            // through n0's Raft port (n0's adoption gives the replica), changes the members, and takes the group off
            // n3 (n3's adoption is told). Both are done at once when done already.
            await(
                    "n1 leading the added group again",
                    () -> groupOn(hosts[1], added).canServe());
            ClusterNode.Peer n0 = peersNamed(List.of("n0")).get(0);
            ClusterNode.Peer n3 = peersNamed(List.of("n3")).get(0);
            hosts[1].addTo(n0, added);
            hosts[1].addTo(n0, added);
            assertThat(groupOn(hosts[0], added).members()).isEmpty();
            groupOn(hosts[1], added).changeMembers(peersNamed(before), java.time.Duration.ofSeconds(30));
            hosts[1].removeFrom(n3, added);
            hosts[1].removeFrom(n3, added);
            await("n3 forgetting the added group", () -> takenOff.contains("n3/" + added));
            assertThat(groupOn(hosts[3], added)).isNull();
            assertThat(takenOff).containsExactly("n3/" + added);
            assertThat(dir.resolve("n3/raft/" + added)).doesNotExist();
            writeTo(hosts, stores, added, 21);
            awaitOn(stores, added, List.of(0, 1, 2), 22);
            assertThat(ids(groupOn(hosts[0], added).members())).isEqualTo(before);
        } finally {
            atOnce(java.util.Arrays.stream(hosts)
                    .filter(java.util.Objects::nonNull)
                    .map(h -> (Stop) h::close)
                    .toList());
            stores.values().forEach(ReplicaStore::close);
        }
    }
}
