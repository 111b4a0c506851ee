package io.partita.server.op.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IdempotencyTokensTest {
    /** A clock the test moves. */
    private static final class Hand extends Clock {
        long millis;

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private static final byte[] A = IdempotencyTokens.digest(Map.of("TransactItems", "a"));
    private static final byte[] B = IdempotencyTokens.digest(Map.of("TransactItems", "b"));

    private static ErrorCode code(Runnable r) {
        try {
            r.run();
        } catch (ApiException e) {
            return e.code();
        }
        return null;
    }

    @Test
    void aTokenRunsOnceThenAnswersItsRepeatsForTenMinutes() {
        Hand clock = new Hand();
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(clock);
        var first = tokens.begin("t", A);
        assertThat(first.repeated()).isNull();
        // Still running: a repeat is refused as in progress, another payload as a mismatch.
        assertThat(code(() -> tokens.begin("t", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        assertThat(code(() -> tokens.begin("t", B))).isEqualTo(ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH);
        clock.millis = 5_000;
        tokens.complete(first, "done");
        // The window counts from completion.
        clock.millis = 5_000 + IdempotencyTokens.WINDOW_MILLIS - 1;
        assertThat(tokens.begin("t", A).repeated()).isEqualTo("done");
        assertThatThrownBy(() -> tokens.begin("t", B))
                .isInstanceOfSatisfying(
                        ApiException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH));
        clock.millis = 5_000 + IdempotencyTokens.WINDOW_MILLIS;
        assertThat(tokens.begin("t", B).repeated()).isNull();
    }

    @Test
    void aFailedRequestFreesItsToken() {
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(new Hand());
        var first = tokens.begin("t", A);
        assertThat(first.repeated()).isNull();
        tokens.abandon(first);
        assertThat(tokens.begin("t", B).repeated()).isNull();
        assertThat(tokens.size()).isEqualTo(1);
    }

    @Test
    void expiredTokensAreDroppedAsNewOnesArrive() {
        Hand clock = new Hand();
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(clock);
        for (int i = 0; i < 100; i++) {
            tokens.complete(tokens.begin("old" + i, A), "r");
        }
        clock.millis = IdempotencyTokens.WINDOW_MILLIS / 2;
        tokens.begin("running", A);
        clock.millis = IdempotencyTokens.WINDOW_MILLIS;
        var fresh = tokens.begin("new", A);
        // The completed ones expired; the running one stays, for a window from its start.
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(code(() -> tokens.begin("running", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        clock.millis = IdempotencyTokens.WINDOW_MILLIS * 3 / 2;
        tokens.complete(fresh, "r");
        tokens.begin("later", A);
        // A request that never completed (its commit may or may not have happened) is forgotten after a window.
        assertThat(tokens.begin("running", A).repeated()).isNull();
    }

    /** A store of committed tokens, as a storage engine keeps them with its transactions' writes. */
    private static final class Store implements IdempotencyTokens.Durable<String> {
        final Map<String, IdempotencyTokens.Stored<String>> committed = new java.util.HashMap<>();
        int settles;
        /** What happens while a request settles. */
        Runnable meanwhile = () -> {};

        @Override
        public IdempotencyTokens.Stored<String> find(String token) {
            return committed.get(token);
        }

        @Override
        public void settle() {
            settles++;
            meanwhile.run();
        }
    }

    @Test
    void aTokenThisProcessDoesNotHoldIsLookedForInTheStore() {
        Hand clock = new Hand();
        Store store = new Store();
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(clock, store);
        clock.millis = 100_000;
        // Committed by another process (before a restart, or by a cluster's former leader).
        store.committed.put("t", new IdempotencyTokens.Stored<>(A, 40_000, "first"));
        assertThat(code(() -> tokens.begin("t", B))).isEqualTo(ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH);
        assertThat(tokens.begin("t", A).repeated()).isEqualTo("first");
        // Its window counts from its own completion.
        clock.millis = 40_000 + IdempotencyTokens.WINDOW_MILLIS - 1;
        assertThat(tokens.begin("t", A).repeated()).isEqualTo("first");
        clock.millis = 40_000 + IdempotencyTokens.WINDOW_MILLIS;
        assertThat(tokens.begin("t", B).repeated()).isNull();
        assertThat(store.settles).isZero();
    }

    @Test
    void aRepeatOfARequestOfUnknownOutcomeSettlesTheStoreAndFindsWhetherItCommitted() {
        Hand clock = new Hand();
        Store store = new Store();
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(clock, store);
        var lost = tokens.begin("lost", A);
        assertThat(lost.repeated()).isNull();
        tokens.unknown(lost);
        var kept = tokens.begin("kept", A);
        assertThat(kept.repeated()).isNull();
        tokens.unknown(kept);
        // The second's commit reached the store, the first's did not. A repeat while another settles is in progress.
        store.committed.put("kept", new IdempotencyTokens.Stored<>(A, 0, "first"));
        ErrorCode[] meanwhile = new ErrorCode[1];
        store.meanwhile = () -> meanwhile[0] = code(() -> tokens.begin("kept", A));
        assertThat(tokens.begin("kept", A).repeated()).isEqualTo("first");
        assertThat(store.settles).isEqualTo(1);
        assertThat(meanwhile[0]).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        store.meanwhile = () -> {};
        var again = tokens.begin("lost", A);
        assertThat(again.repeated()).as("runs again").isNull();
        assertThat(store.settles).isEqualTo(2);
        // This run is in progress, not of unknown outcome.
        assertThat(code(() -> tokens.begin("lost", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        assertThat(store.settles).isEqualTo(2);
        // The first run's end, late, is not this run's.
        tokens.unknown(lost);
        tokens.abandon(lost);
        assertThat(code(() -> tokens.begin("lost", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        assertThat(store.settles).isEqualTo(2);
        tokens.complete(again, "second");
        assertThat(tokens.begin("lost", A).repeated()).isEqualTo("second");
    }

    @Test
    void withoutAStoreARequestOfUnknownOutcomeStaysInProgress() {
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(new Hand());
        var first = tokens.begin("t", A);
        assertThat(first.repeated()).isNull();
        tokens.unknown(first);
        assertThat(code(() -> tokens.begin("t", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
    }
}
