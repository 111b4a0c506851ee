package io.partita.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The named, single-purpose daemon threads of the storage engine's background work (splits, feed trimming). */
public final class BackgroundThreads {
    private BackgroundThreads() {}

    /** A factory of daemon threads called {@code name}. */
    public static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Interrupts the executor's work and waits up to 5 s for it to stop. */
    public static void stop(ExecutorService executor) {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
