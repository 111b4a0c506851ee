package io.partita.storage;

/**
 * Marks a thread that must never wait for another one: the server's event loops, which serve every connection of
 * theirs. On such a thread the storage engine does not wait for a held item lock, or for the commit log to make room
 * after a checkpoint: it throws {@link WouldBlock} instead, before it has changed anything, and the caller runs the
 * request again on a thread that may wait.
 *
 * <p>What an event loop may still wait for, and for how long at most, is listed in docs/ARCHITECTURE.md ("Threads").
 */
public interface NonBlockingThread {
    /** Whether the calling thread must not wait. */
    static boolean current() {
        return Thread.currentThread() instanceof NonBlockingThread;
    }
}
