package io.partita.server.netty;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.partita.storage.NonBlockingThread;

/**
 * Makes the event loops' threads, marked {@link NonBlockingThread}: on them the storage engine never waits for an
 * item lock or for room in the commit log, and a request that would is handed to its connection's worker instead
 * ({@link ApiRequestHandler}).
 */
public final class EventLoopThreads extends DefaultThreadFactory {
    public EventLoopThreads() {
        super("partita-loop", true);
    }

    @Override
    protected Thread newThread(Runnable r, String name) {
        return new LoopThread(threadGroup, r, name);
    }

    private static final class LoopThread extends FastThreadLocalThread implements NonBlockingThread {
        LoopThread(ThreadGroup group, Runnable r, String name) {
            super(group, r, name);
        }
    }
}
