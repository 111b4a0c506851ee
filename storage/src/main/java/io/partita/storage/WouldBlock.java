package io.partita.storage;

/**
 * Thrown on a {@link NonBlockingThread} where the storage engine would otherwise wait: the request changed nothing
 * and should run again on a thread that may wait. It is an expected outcome, so it has no stack trace, and one
 * instance serves every throw.
 */
public final class WouldBlock extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public static final WouldBlock INSTANCE = new WouldBlock();

    private WouldBlock() {
        super("the request would wait on a thread that must not", null, false, false);
    }
}
