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
        assertThat(tokens.begin("t", A)).isNull();
        // Still running: a repeat is refused as in progress, another payload as a mismatch.
        assertThat(code(() -> tokens.begin("t", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        assertThat(code(() -> tokens.begin("t", B))).isEqualTo(ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH);
        clock.millis = 5_000;
        tokens.complete("t", "done");
        // The window counts from completion.
        clock.millis = 5_000 + IdempotencyTokens.WINDOW_MILLIS - 1;
        assertThat(tokens.begin("t", A)).isEqualTo("done");
        assertThatThrownBy(() -> tokens.begin("t", B))
                .isInstanceOfSatisfying(
                        ApiException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH));
        clock.millis = 5_000 + IdempotencyTokens.WINDOW_MILLIS;
        assertThat(tokens.begin("t", B)).isNull();
    }

    @Test
    void aFailedRequestFreesItsToken() {
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(new Hand());
        assertThat(tokens.begin("t", A)).isNull();
        tokens.abandon("t");
        assertThat(tokens.begin("t", B)).isNull();
        assertThat(tokens.size()).isEqualTo(1);
    }

    @Test
    void expiredTokensAreDroppedAsNewOnesArrive() {
        Hand clock = new Hand();
        IdempotencyTokens<String> tokens = new IdempotencyTokens<>(clock);
        for (int i = 0; i < 100; i++) {
            tokens.begin("old" + i, A);
            tokens.complete("old" + i, "r");
        }
        clock.millis = IdempotencyTokens.WINDOW_MILLIS / 2;
        tokens.begin("running", A);
        clock.millis = IdempotencyTokens.WINDOW_MILLIS;
        tokens.begin("new", A);
        // The completed ones expired; the running one stays, for a window from its start.
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(code(() -> tokens.begin("running", A))).isEqualTo(ErrorCode.TRANSACTION_IN_PROGRESS);
        clock.millis = IdempotencyTokens.WINDOW_MILLIS * 3 / 2;
        tokens.complete("new", "r");
        tokens.begin("later", A);
        // A request that never completed (its commit may or may not have happened) is forgotten after a window.
        assertThat(tokens.begin("running", A)).isNull();
    }
}
