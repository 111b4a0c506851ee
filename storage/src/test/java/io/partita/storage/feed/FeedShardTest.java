package io.partita.storage.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FeedShardTest {
    private static FeedShard shard() {
        return new FeedShard("3", 0, -1L, null);
    }

    @Test
    void theWatermarkWaitsForTheLowestNumberStillInFlight() {
        FeedShard s = shard();
        long a = s.begin();
        long b = s.begin();
        long c = s.begin();
        assertThat(List.of(a, b, c)).containsExactly(1L, 2L, 3L);
        assertThat(s.visible()).isEqualTo(1);
        s.end(c);
        s.end(b);
        assertThat(s.visible()).as("1 is still in flight").isEqualTo(1);
        s.end(a);
        assertThat(s.visible()).isEqualTo(4);
        assertThat(s.lastAssigned()).isEqualTo(3);
    }

    @Test
    void manyWritesInFlightAtOnceGrowTheRingAndEndInAnyOrder() {
        FeedShard s = shard();
        List<Long> numbers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            numbers.add(s.begin());
        }
        Collections.shuffle(numbers, new Random(7));
        long lowestOpen = 1;
        List<Long> ended = new ArrayList<>();
        for (long n : numbers) {
            s.end(n);
            ended.add(n);
            while (ended.contains(lowestOpen)) {
                lowestOpen++;
            }
            assertThat(s.visible()).isEqualTo(lowestOpen);
        }
        assertThat(s.visible()).isEqualTo(1001);
    }

    @Test
    void aClosedShardRefusesNewNumbersAndIsDrainedOnceTheLastEnds() {
        FeedShard s = shard();
        long n = s.begin();
        s.close();
        assertThat(s.begin()).isEqualTo(-1);
        assertThat(s.drained()).isFalse();
        s.end(n);
        assertThat(s.drained()).isTrue();
        assertThat(s.visible()).isEqualTo(2);
    }

    @Test
    void recoveryNumbersOnAfterTheHighestStoredNumberOrTheFloor() {
        FeedShard s = shard();
        s.recover(41, 7);
        assertThat(s.begin()).isEqualTo(42);
        FeedShard trimmed = shard();
        trimmed.recover(0, 90);
        assertThat(trimmed.visible()).isEqualTo(91);
        assertThat(trimmed.begin()).isEqualTo(91);
        assertThat(trimmed.floor()).isEqualTo(90);
    }
}
