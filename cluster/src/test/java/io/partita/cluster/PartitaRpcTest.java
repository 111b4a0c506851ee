package io.partita.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class PartitaRpcTest {
    /** A leader's log that holds entries {@code first} to {@code last}. */
    private static LongPredicate holding(long first, long last) {
        return i -> i >= first && i <= last;
    }

    @Test
    void aFollowerWhoseNextEntryIsTheFirstOfThePurgedLogIsSentTheSnapshot() {
        // The leader's log starts at 121 (a new term's segment), its checkpoint ends at 5,699: a follower at 120 needs
        // 121 on, and the entry before, 120, is nowhere but in the checkpoint.
        assertThat(PartitaRpc.needsSnapshot(121, holding(121, 5_752), 5_699)).isTrue();
    }

    @Test
    void aFollowerTheLogOrTheSnapshotCanContinueIsSentEntries() {
        // The entry before is in the log: the usual append.
        assertThat(PartitaRpc.needsSnapshot(200, holding(121, 5_752), 5_699)).isFalse();
        // The entry before is the snapshot's last: Ratis appends after it.
        assertThat(PartitaRpc.needsSnapshot(5_700, holding(5_701, 5_752), 5_699))
                .isFalse();
        // The first entry of all has none before it.
        assertThat(PartitaRpc.needsSnapshot(0, holding(0, 10), -1)).isFalse();
        // No snapshot, or one that does not go past the entry: nothing better to send.
        assertThat(PartitaRpc.needsSnapshot(121, holding(121, 200), -1)).isFalse();
        assertThat(PartitaRpc.needsSnapshot(121, holding(125, 200), 100)).isFalse();
    }
}
