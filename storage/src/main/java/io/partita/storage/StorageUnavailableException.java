package io.partita.storage;

/**
 * The store cannot take writes for now — its disk is full, or RocksDB met an I/O error and is waiting to recover — and
 * changed nothing for this one. Clients see a 503, which the AWS SDKs retry; writes resume by themselves once the cause
 * is gone (space freed: RocksDB's error recovery, and the log's next segment allocated).
 */
public final class StorageUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean mayHaveBeenWritten;

    /** Refused before anything was written. */
    public StorageUnavailableException(String message) {
        this(message, null, false);
    }

    /**
     * @param mayHaveBeenWritten the write failed after it may have reached a log (RocksDB's write failed): a restart's
     *     replay may still apply it, so its outcome is unknown, as a 500's is
     */
    public StorageUnavailableException(String message, Throwable cause, boolean mayHaveBeenWritten) {
        super(message, cause);
        this.mayHaveBeenWritten = mayHaveBeenWritten;
    }

    public boolean mayHaveBeenWritten() {
        return mayHaveBeenWritten;
    }
}
