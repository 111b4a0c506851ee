package io.partita.storage.rocks;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes native objects in the reverse order of their creation (handles before the DB, options after it). Threads may
 * push concurrently (column families and per-thread write batches are created while requests run).
 */
final class Closer implements AutoCloseable {
    private final Deque<AutoCloseable> stack = new ArrayDeque<>();

    synchronized <T extends AutoCloseable> T push(T resource) {
        stack.push(resource);
        return resource;
    }

    @Override
    public synchronized void close() {
        RuntimeException first = null;
        while (!stack.isEmpty()) {
            try {
                stack.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("failed to close a RocksDB resource", e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
