package io.partita.storage;

/** An internal storage failure (RocksDB error, corrupt data, use after close). Clients see an InternalServerError. */
public final class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    public StorageException(String message) {
        super(message);
    }
}
