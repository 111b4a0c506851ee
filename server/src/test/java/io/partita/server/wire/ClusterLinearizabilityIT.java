package io.partita.server.wire;

import io.partita.server.wire.Linearizability.Op;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LinearizabilityIT}'s check on a 3-node cluster of processes: concurrent compare-and-set UpdateItems and
 * strongly consistent GetItems on a few keys, each request sent to a node chosen at random, for {@value
 * #DEFAULT_SECONDS} s (or {@code -Dpartita.cluster.lin.seconds}), while the leader is killed with SIGKILL and
 * restarted, and later stalled with SIGSTOP until the others have elected a leader, then woken. Every key's history
 * must be linearizable, whichever node answered each request. (Few requests meet the woken leader before it learns of
 * the new one: {@link ClusterPauseIT} aims reads at that moment, and fails when the read lease is made to cover them.)
 */
class ClusterLinearizabilityIT {
    private static final int DEFAULT_SECONDS = 20;
    private static final int KEYS = 3;
    private static final int CLIENTS_PER_KEY = 3;

    @Test
    void compareAndSetAndConsistentReadsAreLinearizableAcrossALeadersDeathAndStall(@TempDir Path dir) throws Exception {
        long seconds = Integer.getInteger("partita.cluster.lin.seconds", DEFAULT_SECONDS);
        try (ClusterProcesses cluster = ClusterProcesses.start(dir)) {
            int leader = cluster.leader();
            RawApi api = new RawApi(cluster.endpoint(leader));
            LinearizabilityIT.createKeys(api, KEYS);
            // A client picks among all three nodes; a killed one refuses connections, and the request is left out.
            List<URI> endpoints = List.of(cluster.endpoint(0), cluster.endpoint(1), cluster.endpoint(2));
            List<List<Op>> histories = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) histories.add(Collections.synchronizedList(new ArrayList<>()));
            List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < KEYS * CLIENTS_PER_KEY; c++) {
                int client = c;
                int key = c % KEYS;
                Thread t = new Thread(() -> LinearizabilityIT.run(
                        client,
                        key,
                        () -> endpoints.get(ThreadLocalRandom.current().nextInt(3)),
                        deadline,
                        histories.get(key),
                        unexpected));
                t.start();
                clients.add(t);
            }
            for (int event = 1; event <= 2; event++) {
                long at = deadline - (seconds * 1_000_000_000L) * (3 - event) / 3;
                while (System.nanoTime() < at) LockSupport.parkNanos(50_000_000L);
                int now = cluster.leader();
                if (event == 1) {
                    cluster.kill(now);
                    cluster.start(now);
                } else {
                    // Requests sent to it meanwhile wait in its sockets (a client gives up after 5 s) and meet its
                    // old state on waking. Woken at the latest after 10 s, if the others elected no leader by then.
                    cluster.pause(now);
                    cluster.servingOtherThan(now, java.time.Duration.ofSeconds(10));
                    LockSupport.parkNanos(300_000_000L);
                    cluster.resume(now);
                }
            }
            for (Thread t : clients) t.join();
            LinearizabilityIT.assertLinearizable(histories, unexpected, 20);
        }
    }
}
