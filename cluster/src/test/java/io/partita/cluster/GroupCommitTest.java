package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.storage.rocks.ReplicatedEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;

/**
 * The leader's group commit, in front of a stand-in for the Raft server whose proposals the test answers: what is
 * proposed alone, what waits and is joined, and who learns which outcome.
 */
class GroupCommitTest {
    static {
        RocksDB.loadLibrary();
    }

    /** The proposals made, each answered when the test completes its future. */
    private final List<byte[]> entries = new ArrayList<>();

    private final List<CompletableFuture<String>> answers = new ArrayList<>();

    private CompletableFuture<String> propose(byte[] entry) {
        entries.add(entry);
        CompletableFuture<String> answer = new CompletableFuture<>();
        answers.add(answer);
        return answer;
    }

    private static byte[] batch(String... keys) throws Exception {
        try (WriteBatch b = new WriteBatch()) {
            for (String k : keys) {
                b.put(k.getBytes(StandardCharsets.UTF_8), new byte[] {1});
            }
            return ReplicatedEntry.batch(b.data());
        }
    }

    private static int count(byte[] entry) throws Exception {
        try (WriteBatch b = new WriteBatch(ReplicatedEntry.decode(entry).payload())) {
            return b.count();
        }
    }

    @Test
    void writesWhileTheGroupIsBusyWaitAndGoTogetherAsTheNextEntry() throws Exception {
        GroupCommit<String> commit = new GroupCommit<>(2, 1 << 20, this::propose, Runnable::run);
        byte[] a = batch("a");
        CompletableFuture<String> first = commit.propose(a);
        CompletableFuture<String> second = commit.propose(batch("b"));
        // Two in flight: each was proposed at once, alone.
        assertThat(entries).hasSize(2);
        assertThat(entries.get(0)).isSameAs(a);
        CompletableFuture<String> c = commit.propose(batch("c", "d"));
        CompletableFuture<String> e = commit.propose(batch("e"));
        assertThat(entries).hasSize(2);

        answers.get(0).complete("one");
        assertThat(first).isCompletedWithValue("one");
        assertThat(second).isNotDone();
        // The answer freed a place: the two waiting batches went as one entry of three changes.
        assertThat(entries).hasSize(3);
        assertThat(count(entries.get(2))).isEqualTo(3);
        assertThat(c).isNotDone();

        answers.get(2).complete("three");
        assertThat(c).isCompletedWithValue("three");
        assertThat(e).isCompletedWithValue("three");
        assertThat(second).isNotDone();
        answers.get(1).complete("two");
        assertThat(second).isCompletedWithValue("two");
        assertThat(entries).hasSize(3);
        // Three entries carried the four writes.
        assertThat(commit.entries()).isEqualTo(3);
        assertThat(commit.batches()).isEqualTo(4);
    }

    @Test
    void everyWriteOfAFailedEntryFailsWithItsReasonAndTheNextGoesOn() throws Exception {
        GroupCommit<String> commit = new GroupCommit<>(1, 1 << 20, this::propose, Runnable::run);
        CompletableFuture<String> first = commit.propose(batch("a"));
        CompletableFuture<String> b = commit.propose(batch("b"));
        CompletableFuture<String> c = commit.propose(batch("c"));
        answers.get(0).complete("one");
        assertThat(first).isCompletedWithValue("one");
        answers.get(1).completeExceptionally(new IllegalStateException("stepped down"));
        for (CompletableFuture<String> f : List.of(b, c)) {
            assertThat(f).isCompletedExceptionally();
            try {
                f.get();
            } catch (ExecutionException why) {
                assertThat(why.getCause()).hasMessage("stepped down");
            }
        }
        CompletableFuture<String> d = commit.propose(batch("d"));
        assertThat(entries).hasSize(3);
        answers.get(2).complete("three");
        assertThat(d).isCompletedWithValue("three");
    }

    @Test
    void anEntryHoldsNoMoreThanItsBytesButAlwaysOneBatch() throws Exception {
        byte[] big = batch("k".repeat(300));
        GroupCommit<String> commit = new GroupCommit<>(1, big.length * 2, this::propose, Runnable::run);
        commit.propose(batch("first"));
        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(commit.propose(big));
        }
        answers.get(0).complete("one");
        assertThat(count(entries.get(1))).isEqualTo(2);
        answers.get(1).complete("two");
        assertThat(count(entries.get(2))).isEqualTo(2);
        answers.get(2).complete("three");
        assertThat(entries.get(3)).isSameAs(big);
        answers.get(3).complete("four");
        assertThat(waiting).allSatisfy(f -> assertThat(f).isDone());
    }

    @Test
    void theEntryAfterAnAnswerIsProposedBySenderNotByTheThreadThatAnswered() throws Exception {
        List<Runnable> sender = new ArrayList<>();
        GroupCommit<String> commit = new GroupCommit<>(1, 1 << 20, this::propose, sender::add);
        CompletableFuture<String> first = commit.propose(batch("a"));
        CompletableFuture<String> second = commit.propose(batch("b"));
        answers.get(0).complete("one");
        // Answered on Ratis's thread: neither the answer nor the next proposal runs there.
        assertThat(first).isNotDone();
        assertThat(entries).hasSize(1);
        assertThat(sender).hasSize(1);
        sender.remove(0).run();
        assertThat(first).isCompletedWithValue("one");
        assertThat(entries).hasSize(2);
        answers.get(1).complete("two");
        sender.remove(0).run();
        assertThat(second).isCompletedWithValue("two");
    }

    @Test
    void aWriteThatStillWaitsCanBeWithdrawnAndIsThenNeverProposed() throws Exception {
        GroupCommit<String> commit = new GroupCommit<>(1, 1 << 20, this::propose, Runnable::run);
        CompletableFuture<String> first = commit.propose(batch("a"));
        CompletableFuture<String> gaveUp = commit.propose(batch("b"));
        CompletableFuture<String> stays = commit.propose(batch("c"));
        // Proposed already: its outcome is the group's now.
        assertThat(commit.withdraw(first)).isFalse();
        assertThat(commit.withdraw(gaveUp)).isTrue();
        assertThat(commit.withdraw(gaveUp)).isFalse();
        answers.get(0).complete("one");
        assertThat(entries).hasSize(2);
        assertThat(count(entries.get(1))).isEqualTo(1);
        answers.get(1).complete("two");
        assertThat(stays).isCompletedWithValue("two");
        assertThat(gaveUp).isNotDone();
    }

    @Test
    void aProposalThatThrowsFailsItsWritesAndFreesItsPlace() throws Exception {
        List<byte[]> tried = new ArrayList<>();
        GroupCommit<String> commit = new GroupCommit<>(
                1,
                1 << 20,
                entry -> {
                    tried.add(entry);
                    if (tried.size() == 1) {
                        throw new IllegalStateException("server closed");
                    }
                    return CompletableFuture.completedFuture("ok");
                },
                Runnable::run);
        assertThat(commit.propose(batch("a"))).isCompletedExceptionally();
        assertThat(commit.propose(batch("b"))).isCompletedWithValue("ok");
    }
}
