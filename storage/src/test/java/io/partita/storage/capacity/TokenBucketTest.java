package io.partita.storage.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The bucket reads time only from its caller, so these tests move time by hand. */
class TokenBucketTest {
    @Test
    void admitsWhilePositiveAndLetsTheLastRequestGoIntoDebt() {
        TokenBucket b = new TokenBucket(10, 10, 10, 0);
        assertThat(b.available(0)).isTrue();
        b.consume(25, 0);
        assertThat(b.tokens(0)).isEqualTo(-15);
        assertThat(b.available(0)).isFalse();
        // 1.5 s at 10/s repays the debt exactly: zero is not positive.
        assertThat(b.available(1500)).isFalse();
        assertThat(b.available(1501)).isTrue();
    }

    @Test
    void consumeIfAvailableTakesNothingFromASpentBucket() {
        TokenBucket b = new TokenBucket(10, 10, 5, 0);
        b.consume(8, 0, true);
        assertThat(b.tokens(0)).isEqualTo(-3);
        b.consume(8, 0, true);
        assertThat(b.tokens(0)).isEqualTo(-3);
        b.consume(8, 0, false);
        assertThat(b.tokens(0)).isEqualTo(-11);
    }

    @Test
    void refillStopsAtCapacity() {
        TokenBucket b = new TokenBucket(5, 20, 0, 1000);
        assertThat(b.tokens(3000)).isEqualTo(10);
        assertThat(b.tokens(100_000)).isEqualTo(20);
    }

    @Test
    void timeGoingBackwardsAddsNothing() {
        TokenBucket b = new TokenBucket(5, 20, 0, 1000);
        assertThat(b.tokens(500)).isZero();
        assertThat(b.tokens(1200)).isCloseTo(1, within(1e-9));
    }

    @Test
    void reconfigureKeepsTheBalanceClampedToTheNewCapacity() {
        TokenBucket b = new TokenBucket(100, 1000, 1000, 0);
        b.reconfigure(1, 10, 0);
        assertThat(b.tokens(0)).isEqualTo(10);
        assertThat(b.ratePerSecond()).isEqualTo(1);
        assertThat(b.tokens(2000)).isEqualTo(10);
    }
}
